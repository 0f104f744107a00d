//! Check: compares a tools file on disk with what would be written, and summarises the drift
//! (tools added, removed, renamed, changed with the changed fields) for `convert --check`.

use serde_json::Value;

/// What differs between the file and the fresh output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Drift {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// (old name, new name, changed fields) of a tool whose operation (`METHOD /path` in its
    /// `_meta`) is the same under another name.
    pub renamed: Vec<(String, String, Vec<String>)>,
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
        for (old, new, fields) in &self.renamed {
            out.push_str(&format!("renamed {old} -> {new}"));
            if !fields.is_empty() {
                out.push_str(&format!(": {}", fields.join(", ")));
            }
            out.push('\n');
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
    // A removed tool and an added one of the same operation: a rename.
    let tool = |list: &[(&str, &Value)], name: &str| -> Option<Value> {
        list.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| (*t).clone())
    };
    let mut removed = Vec::new();
    for name in std::mem::take(&mut d.removed) {
        let before = tool(&old_tools, &name);
        let op = before.as_ref().and_then(operation);
        let to = op.and_then(|op| {
            d.added
                .iter()
                .position(|a| tool(&new_tools, a).as_ref().and_then(operation) == Some(op.clone()))
        });
        match (to, before) {
            (Some(i), Some(mut before)) => {
                let new = d.added.remove(i);
                let mut after = tool(&new_tools, &new).unwrap_or_default();
                for t in [&mut before, &mut after] {
                    if let Some(m) = t.as_object_mut() {
                        m.remove("name");
                    }
                }
                d.renamed.push((name, new, changed_fields(&before, &after)));
            }
            _ => removed.push(name),
        }
    }
    d.removed = removed;
    d
}

/// `METHOD /path` of a tool, from the call mapping in its `_meta`.
fn operation(tool: &Value) -> Option<(String, String)> {
    let meta = tool.get("_meta")?.as_object()?;
    meta.values().find_map(|m| {
        Some((
            m.get("method")?.as_str()?.to_string(),
            m.get("path")?.as_str()?.to_string(),
        ))
    })
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
        assert!(d.renamed.is_empty());
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

    #[test]
    fn a_tool_of_the_same_operation_under_another_name_is_renamed() {
        let meta = json!({"openapi-mcp/http": {"method": "POST", "path": "/rc/noop"}});
        let old = json!({"tools": [{"name": "rc_noop", "annotations": {"readOnlyHint": true}, "_meta": meta}]});
        let new = json!({"tools": [{"name": "noop", "annotations": {"readOnlyHint": true}, "_meta": meta}]});
        let d = drift(Ok(old.clone()), &new);
        assert_eq!(d.renamed, [("rc_noop".into(), "noop".into(), vec![])]);
        assert!(d.added.is_empty() && d.removed.is_empty());
        assert_eq!(d.render("t.json"), "renamed rc_noop -> noop\n");
        let flipped = json!({"tools": [{"name": "noop", "annotations": {"readOnlyHint": false}, "_meta": meta}]});
        assert_eq!(
            drift(Ok(old), &flipped).render("t.json"),
            "renamed rc_noop -> noop: annotations.readOnlyHint: true -> false\n"
        );
    }
}
