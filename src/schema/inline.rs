//! `inline_refs`: replacing each `$ref` to a non-recursive definition by the definition itself;
//! definitions that can reach themselves stay in `$defs`, as do those met deeper than
//! `MAX_INLINE_DEPTH`.

use super::{Converted, Converter, Schema};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Deepest nesting `inline_refs` may produce before it keeps a `$ref`.
const MAX_INLINE_DEPTH: usize = 64;

impl Converter<'_> {
    pub(super) fn inline_all(&self, root: Value, defs: Vec<(Arc<str>, Arc<Converted>)>) -> Schema {
        let mut names: HashMap<usize, Arc<str>> = HashMap::new();
        let mut by_id: HashMap<usize, Arc<Converted>> = HashMap::new();
        for (name, c) in defs {
            if let Some(id) = self.id_of_name(&name) {
                names.insert(id, name);
                by_id.insert(id, c);
            }
        }
        // A definition is recursive when it can reach itself; those stay in `$defs`.
        let mut recursive: Vec<usize> = by_id
            .keys()
            .copied()
            .filter(|&id| reaches(&by_id, id, id))
            .collect();
        recursive.sort_by(|a, b| names[a].cmp(&names[b]));
        let by_name: HashMap<&str, usize> = names.iter().map(|(&id, n)| (&**n, id)).collect();
        let inl = Inliner {
            defs: &by_id,
            by_name: &by_name,
            recursive: &recursive,
            kept: RefCell::new(HashSet::new()),
        };
        let root = inl.inline(&root, 0);
        // Recursive definitions, and those whose `$ref` was kept because inlining reached
        // `MAX_INLINE_DEPTH` (writing their bodies may keep more), so that no `$ref` dangles.
        let mut pending: Vec<usize> = recursive.clone();
        let mut written: HashSet<usize> = HashSet::new();
        let mut defs: Vec<(Arc<str>, Arc<Converted>)> = Vec::new();
        loop {
            pending.extend(inl.kept.borrow_mut().drain());
            let Some(id) = pending.pop() else { break };
            if !written.insert(id) {
                continue;
            }
            let value = inl.inline(&by_id[&id].value, 0);
            defs.push((
                names[&id].clone(),
                Arc::new(Converted::new(value, Vec::new())),
            ));
        }
        defs.sort_by(|a, b| a.0.cmp(&b.0));
        Schema::new(root, defs)
    }
}

struct Inliner<'d> {
    defs: &'d HashMap<usize, Arc<Converted>>,
    by_name: &'d HashMap<&'d str, usize>,
    recursive: &'d [usize],
    /// Non-recursive definitions whose `$ref` was kept at `MAX_INLINE_DEPTH`.
    kept: RefCell<HashSet<usize>>,
}

impl Inliner<'_> {
    fn inline(&self, v: &Value, depth: usize) -> Value {
        match v {
            Value::Object(obj) => {
                let target = obj
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .map(crate::read::pointer::unescape_token)
                    .and_then(|n| self.by_name.get(n.as_str()).copied())
                    .filter(|id| !self.recursive.contains(id));
                let target = match target {
                    Some(id) if depth >= MAX_INLINE_DEPTH => {
                        self.kept.borrow_mut().insert(id);
                        None
                    }
                    other => other,
                };
                let mut out = Map::with_capacity(obj.len());
                for (k, child) in obj {
                    if k == "$ref" && target.is_some() {
                        continue;
                    }
                    out.insert(k.clone(), self.inline(child, depth + 1));
                }
                match target {
                    None => Value::Object(out),
                    Some(id) => {
                        let body = self.inline(&self.defs[&id].value, depth + 1);
                        merge_into(body, out)
                    }
                }
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.inline(i, depth + 1)).collect())
            }
            _ => v.clone(),
        }
    }
}

/// Combine an inlined definition with the keywords that stood beside its `$ref`.
fn merge_into(body: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return body;
    }
    match body {
        Value::Object(mut b) if siblings.keys().all(|k| !b.contains_key(k)) => {
            b.extend(siblings);
            Value::Object(b)
        }
        other => {
            let mut out = Map::new();
            out.insert("allOf".into(), Value::Array(vec![other]));
            out.extend(siblings);
            Value::Object(out)
        }
    }
}

fn reaches(defs: &HashMap<usize, Arc<Converted>>, from: usize, goal: usize) -> bool {
    let mut stack = defs.get(&from).map(|c| c.refs.clone()).unwrap_or_default();
    let mut seen = HashSet::new();
    while let Some(id) = stack.pop() {
        if id == goal {
            return true;
        }
        if seen.insert(id)
            && let Some(c) = defs.get(&id)
        {
            stack.extend(c.refs.iter().copied());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::schema::tests::conv;
    use crate::schema::{Converter, Direction};
    use serde_json::json;

    #[test]
    fn recursive_refs_use_defs_and_inline_keeps_cycles() {
        let doc = json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}, "tag": {"$ref": "#/components/schemas/Tag"}}},
            "Tag": {"type": "string", "x-internal": true, "example": "t"}}}});
        let v = conv(
            &doc,
            json!({"$ref": "#/components/schemas/Node"}),
            Direction::Output,
        );
        assert_eq!(
            v["$defs"]["Tag"],
            json!({"type": "string", "examples": ["t"]})
        );
        assert_eq!(
            v["$defs"]["Node"]["properties"]["next"]["$ref"],
            "#/$defs/Node"
        );

        let v = conv_inlined(&doc, json!({"$ref": "#/components/schemas/Node"}));
        assert_eq!(
            v["$defs"]["Node"]["properties"]["tag"],
            json!({"type": "string", "examples": ["t"]})
        );
        assert!(v["$defs"].get("Tag").is_none());
    }

    /// [`conv`] with `inline_refs` set, for output.
    fn conv_inlined(doc: &serde_json::Value, schema: serde_json::Value) -> serde_json::Value {
        let mut c = Converter::new("t", doc);
        c.inline_refs = true;
        let out = c.convert(&schema, Direction::Output, "/x").unwrap();
        c.finish(out.value, &out.refs, Direction::Output)
            .unwrap()
            .to_value()
    }

    /// Every `$ref` pointer in `v` (compact JSON text), of the form `#/$defs/NAME`.
    fn ref_names(v: &serde_json::Value) -> Vec<String> {
        let text = v.to_string();
        text.split("\"$ref\":\"#/$defs/")
            .skip(1)
            .map(|rest| rest[..rest.find('"').unwrap()].to_string())
            .collect()
    }

    /// A chain of 40 definitions, each a property of the one before, nests deeper than
    /// inlining goes: the `$ref` kept there has its definition in `$defs` (and so does every
    /// `$ref` kept inside that one), so that none dangles.
    #[test]
    fn refs_kept_at_the_depth_limit_have_their_definitions() {
        let mut schemas = serde_json::Map::new();
        for i in 0..40 {
            let next = if i < 39 {
                json!({"type": "object", "properties": {"n": {"$ref": format!("#/components/schemas/S{}", i + 1)}}})
            } else {
                json!({"type": "string"})
            };
            schemas.insert(format!("S{i}"), next);
        }
        let doc = json!({"components": {"schemas": schemas}});
        let v = conv_inlined(&doc, json!({"$ref": "#/components/schemas/S0"}));
        let refs = ref_names(&v);
        assert!(!refs.is_empty(), "the chain is deeper than inlining goes");
        for name in &refs {
            assert!(v["$defs"].get(name).is_some(), "{name} dangles: {v}");
        }
        // The `$defs` are in name order, as in every other schema.
        let names: Vec<&String> = v["$defs"].as_object().unwrap().keys().collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }
}
