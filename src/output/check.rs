//! Check: compares a tools file on disk with what would be written, and summarises the drift
//! (tools added, removed, changed with the changed fields) for `convert --check`.

use serde_json::Value;

/// What differs between the file and the fresh output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// (tool, changed fields such as `inputSchema` or `annotations.readOnlyHint: false -> true`).
    pub changed: Vec<(String, Vec<String>)>,
    /// The file could not be read as a tools list (missing, or not ours).
    pub unreadable: Option<String>,
}

impl Drift {
    /// One line per difference.
    pub fn render(&self, file: &str) -> String {
        let mut out = String::new();
        if let Some(why) = &self.unreadable {
            out.push_str(&format!("{file}: {why}\n"));
        }
        for name in &self.added {
            out.push_str(&format!("added   {name}\n"));
        }
        for name in &self.removed {
            out.push_str(&format!("removed {name}\n"));
        }
        for (name, fields) in &self.changed {
            out.push_str(&format!("changed {name}: {}\n", fields.join(", ")));
        }
        if out.is_empty() {
            out.push_str(&format!("{file}: formatting differs (same tools)\n"));
        }
        out
    }
}

/// The tools of a list in any output shape, by name: under `tools` (MCP) or
/// `functionDeclarations` (Gemini), or a bare array (Anthropic, OpenAI), named by `name` or
/// `function.name` (OpenAI Chat Completions).
fn by_name(root: &Value) -> Option<Vec<(&str, &Value)>> {
    let list = match root {
        Value::Array(items) => items,
        _ => root
            .get("tools")
            .or_else(|| root.get("functionDeclarations"))?
            .as_array()?,
    };
    list.iter()
        .map(|t| {
            let name = t.get("name").or_else(|| t.get("function")?.get("name"));
            Some((name?.as_str()?, t))
        })
        .collect()
}

/// Compare the parsed old file (`None` if it could not be parsed: `why`) with the new list.
pub fn drift(old: Result<Value, String>, new: &Value) -> Drift {
    let new_tools = by_name(new).unwrap_or_default();
    let old = match old {
        Ok(v) => v,
        Err(why) => {
            return Drift {
                added: new_tools.iter().map(|(n, _)| n.to_string()).collect(),
                unreadable: Some(why),
                ..Drift::default()
            };
        }
    };
    let Some(old_tools) = by_name(&old) else {
        return Drift {
            added: new_tools.iter().map(|(n, _)| n.to_string()).collect(),
            unreadable: Some("not a tools list".into()),
            ..Drift::default()
        };
    };
    let mut d = Drift::default();
    for (name, t) in &new_tools {
        match old_tools.iter().find(|(n, _)| n == name) {
            None => d.added.push(name.to_string()),
            Some((_, before)) => {
                let fields = changed_fields(before, t);
                if !fields.is_empty() {
                    d.changed.push((name.to_string(), fields));
                }
            }
        }
    }
    for (name, _) in &old_tools {
        if !new_tools.iter().any(|(n, _)| n == name) {
            d.removed.push(name.to_string());
        }
    }
    d
}

fn changed_fields(old: &Value, new: &Value) -> Vec<String> {
    let mut keys: Vec<&String> = Vec::new();
    for v in [old, new] {
        if let Some(m) = v.as_object() {
            for k in m.keys() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
    }
    let mut out = Vec::new();
    for k in keys {
        let (a, b) = (old.get(k), new.get(k));
        if a == b {
            continue;
        }
        if k == "annotations" {
            for hint in [
                "title",
                "readOnlyHint",
                "destructiveHint",
                "idempotentHint",
                "openWorldHint",
            ] {
                let (x, y) = (a.and_then(|v| v.get(hint)), b.and_then(|v| v.get(hint)));
                if x != y {
                    let show =
                        |v: Option<&Value>| v.map_or("(none)".to_string(), |v| v.to_string());
                    out.push(format!("annotations.{hint}: {} -> {}", show(x), show(y)));
                }
            }
        } else {
            out.push(k.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summarises_changes() {
        let old = json!({"tools": [{"name": "a", "annotations": {"readOnlyHint": true}}, {"name": "gone"}]});
        let new = json!({"tools": [{"name": "a", "annotations": {"readOnlyHint": false}, "description": "d"}, {"name": "b"}]});
        let d = drift(Ok(old), &new);
        assert_eq!(d.added, ["b"]);
        assert_eq!(d.removed, ["gone"]);
        assert_eq!(
            d.changed,
            [(
                "a".to_string(),
                vec![
                    "annotations.readOnlyHint: true -> false".to_string(),
                    "description".to_string()
                ]
            )]
        );
    }
}
