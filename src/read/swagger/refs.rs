//! `$ref`s: the table of what moved (recorded while converting), following local references in
//! the original tree, rewriting every reference whose target moved, and converting the schemas
//! converted parts reach outside `paths` and `components`.

use super::schema::schema;
use super::{Tokens, Upgrader};
use crate::error::Result;
use crate::read::pointer::escape_token;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// `$ref` hops followed when classifying a referenced parameter.
const MAX_HOPS: usize = 32;

impl<'a> Upgrader<'a> {
    /// Record that what was at `from` is now at `to` (the first record for `from` wins).
    pub(super) fn moved(&mut self, from: Tokens, to: Tokens) {
        if self.recording {
            self.moves.entry(from).or_insert(to);
        }
    }

    /// Run `f` to convert a copy of a `$ref` target, without recording moves.
    pub(super) fn inlined<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let was = std::mem::replace(&mut self.recording, false);
        let out = f(self);
        self.recording = was;
        out
    }

    /// Follow a local `$ref` chain in the original document.
    pub(super) fn resolve(&self, reference: &str) -> Option<(&'a Value, Tokens)> {
        let mut r = reference;
        for _ in 0..MAX_HOPS {
            let target = crate::read::pointer::lookup(self.root, r)?;
            match crate::read::pointer::ref_of(target) {
                Some(next) if next.starts_with('#') => r = next,
                Some(_) => return None,
                None => return Some((target, ref_tokens(r)?)),
            }
        }
        None
    }
}

/// Whether `reference` names a shared object of the document, `#/<section>/X`.
pub(super) fn is_shared(reference: &str, section: &str) -> bool {
    ref_tokens(reference).is_some_and(|t| t.len() == 2 && t[0] == section)
}

use crate::read::pointer::reference_tokens as ref_tokens;

/// Rewrite every local `$ref` whose target moved, walking with an explicit stack (no recursion).
pub(super) fn rewrite_refs(root: &mut Value, moves: &HashMap<Tokens, Tokens>) {
    let mut stack: Vec<&mut Value> = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get_mut("$ref")
                    && let Some(new) = rewrite_ref(r, moves)
                {
                    *r = new;
                }
                stack.extend(m.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// Convert, in place, the schemas that converted parts reach by `$ref` outside `paths` and
/// `components`: files that `bundle` joined under `$bundle`, and `x-` sections.
pub(super) fn convert_outside(file: &str, out: &mut Value) -> Result<()> {
    let mut queue: Vec<String> = Vec::new();
    for key in ["paths", "components"] {
        if let Some(v) = out.get(key) {
            collect_refs(v, &mut queue);
        }
    }
    let mut done: HashSet<Tokens> = HashSet::new();
    while let Some(r) = queue.pop() {
        let Some(tokens) = ref_tokens(&r) else {
            continue;
        };
        let outside = tokens
            .first()
            .is_some_and(|t| t == crate::read::bundle::BUNDLE_KEY || t.starts_with("x-"));
        if !outside || !done.insert(tokens.clone()) {
            continue;
        }
        let Some(target) = lookup_mut(out, &tokens) else {
            continue;
        };
        // Converting twice is harmless (the rewrite is idempotent), so overlapping targets are fine.
        let converted = schema(file, target, &mut tokens.clone(), 0)?;
        collect_refs(&converted, &mut queue);
        *target = converted;
    }
    Ok(())
}

/// Every local `$ref` string under `v`.
fn collect_refs(v: &Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref")
                    && r.starts_with('#')
                {
                    out.push(r.clone());
                }
                stack.extend(m.values());
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
}

fn lookup_mut<'v>(root: &'v mut Value, tokens: &[String]) -> Option<&'v mut Value> {
    let mut node = root;
    for t in tokens {
        node = match node {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(items) => items.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The new form of `reference` when its longest moved prefix is in `moves`; the rest of the
/// pointer is kept as written.
fn rewrite_ref(reference: &str, moves: &HashMap<Tokens, Tokens>) -> Option<String> {
    let raw: Vec<&str> = reference.strip_prefix("#/")?.split('/').collect();
    let decoded = ref_tokens(reference)?;
    for k in (1..=decoded.len()).rev() {
        if let Some(new) = moves.get(&decoded[..k]) {
            let mut out = String::from("#");
            for t in new {
                out.push('/');
                out.push_str(&escape_token(t).replace('%', "%25"));
            }
            for t in &raw[k..] {
                out.push('/');
                out.push_str(t);
            }
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::swagger::tests::up;
    use serde_json::json;

    #[test]
    fn refs_follow_the_longest_moved_prefix() {
        let mut moves = HashMap::new();
        moves.insert(
            vec!["definitions".to_string()],
            vec!["components".to_string(), "schemas".to_string()],
        );
        moves.insert(
            vec!["parameters".to_string(), "b".to_string()],
            vec![
                "components".to_string(),
                "requestBodies".to_string(),
                "b".to_string(),
            ],
        );
        moves.insert(
            vec![
                "parameters".to_string(),
                "b".to_string(),
                "schema".to_string(),
            ],
            vec!["x".to_string(), "a/b%".to_string()],
        );
        let r = |s: &str| rewrite_ref(s, &moves);
        assert_eq!(
            r("#/definitions/Foo%20Bar/properties/x").as_deref(),
            Some("#/components/schemas/Foo%20Bar/properties/x")
        );
        assert_eq!(
            r("#/parameters/b").as_deref(),
            Some("#/components/requestBodies/b")
        );
        assert_eq!(
            r("#/parameters/b/schema/items").as_deref(),
            Some("#/x/a~1b%25/items")
        );
        assert_eq!(r("#/parameters/c"), None);
        assert_eq!(r("other.yaml#/definitions/A"), None);
        assert_eq!(r("https://x/y.json#/definitions/A"), None);
    }

    #[test]
    fn refs_into_moved_parts_of_paths_are_rewritten() {
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"post": {
                "parameters": [
                    {"name": "b", "in": "body", "schema": {"type": "object"}},
                    {"name": "q", "in": "query", "type": "array", "items": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "schema": {"type": "integer"}}}},
                "get": {"parameters": [{"$ref": "#/paths/~1a/post/parameters/1"}],
                    "responses": {"200": {"description": "ok", "schema": {"properties": {
                        "b": {"$ref": "#/paths/~1a/post/parameters/0/schema"},
                        "i": {"$ref": "#/paths/~1a/post/parameters/1/items"},
                        "r": {"$ref": "#/paths/~1a/post/responses/200/schema"}}}}}}}}
        }));
        let get = &v["paths"]["/a"]["get"];
        // A reference to a parameter that is not shared is inlined in its converted form.
        assert_eq!(
            get["parameters"][0],
            v["paths"]["/a"]["post"]["parameters"][0]
        );
        assert_eq!(get["parameters"][0]["schema"]["type"], "array");
        let props = &get["responses"]["200"]["content"]["application/json"]["schema"]["properties"];
        assert_eq!(
            props["b"]["$ref"],
            "#/paths/~1a/post/requestBody/content/application~1json/schema"
        );
        assert_eq!(
            props["i"]["$ref"],
            "#/paths/~1a/post/parameters/0/schema/items"
        );
        assert_eq!(
            props["r"]["$ref"],
            "#/paths/~1a/post/responses/200/content/application~1json/schema"
        );
        for r in [&props["b"], &props["i"], &props["r"]] {
            let r = r["$ref"].as_str().unwrap();
            assert!(crate::read::pointer::lookup(&v, r).is_some(), "{r} dangles");
        }
    }

    #[test]
    fn references_into_bundled_files_are_converted() {
        // What `bundle` makes of a split document: other files under `$bundle`, local refs.
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "paths": {
                "/a": {"$ref": "#/$bundle/a.yaml"},
                "/b": {"get": {
                    "parameters": [{"$ref": "#/$bundle/p.yaml/limit"}],
                    "responses": {"200": {"$ref": "#/$bundle/p.yaml/ok"}}}}},
            "$bundle": {
                "a.yaml": {"post": {"parameters": [{"$ref": "#/$bundle/p.yaml/body"}]}},
                "p.yaml": {
                    "limit": {"name": "limit", "in": "query", "type": "integer"},
                    "body": {"name": "b", "in": "body", "schema": {"$ref": "#/$bundle/s.yaml/Pet"}},
                    "ok": {"description": "ok", "schema": {"$ref": "#/$bundle/s.yaml/Pet"}}},
                "s.yaml": {"Pet": {"type": "object", "properties": {
                    "tag": {"type": "string", "x-nullable": true},
                    "owner": {"$ref": "#/$bundle/s.yaml/Owner"}}},
                    "Owner": {"type": "object", "discriminator": "kind"}}}
        }));
        let paths = &v["paths"];
        assert_eq!(
            paths["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/$bundle/s.yaml/Pet"
        );
        assert_eq!(
            paths["/b"]["get"]["parameters"][0],
            json!({"name": "limit", "in": "query", "schema": {"type": "integer"}})
        );
        assert_eq!(
            paths["/b"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/$bundle/s.yaml/Pet"
        );
        let s = &v["$bundle"]["s.yaml"];
        assert_eq!(s["Pet"]["properties"]["tag"]["nullable"], true);
        assert_eq!(s["Owner"]["discriminator"], json!({"propertyName": "kind"}));
    }
}
