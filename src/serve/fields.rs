//! Fields, as `serve` applies them: a `_fields` argument's dotted paths parsed and checked
//! against the tool's `outputSchema` before anything is sent, and an answer's body cut down to
//! them (which tools take the argument is `tool::fields`).
//!
//! A path names keys of the body as the API sends it (not of the `result` wrapper put around a
//! non-object body), joined by `.`; arrays are gone through at every level, so `user.login` on a
//! list of issues keeps each issue's `user.login`. A key holding a dot is written with `\.`
//! (`@odata\.nextLink`), a backslash as `\\`. A path is known when each of its keys is a declared
//! property where it stands; below a definition cut to a stub by the schema budget, or an object
//! whose schema declares no properties (a map), anything is accepted. Output schemas require no
//! field (see `schema`), so a projected answer still validates against them. An empty list
//! asks for the whole answer.

use crate::schema::Schema;
use crate::tool::fields::{ARG, body, level};
use indexmap::IndexMap;
use serde_json::Value;

/// Most field names an error message lists.
const MAX_LISTED: usize = 60;

/// The keys of one path: split at unescaped dots, `\.` and `\\` unescaped.
pub(crate) fn parse(path: &str) -> Result<Vec<String>, String> {
    let mut keys = Vec::new();
    let mut key = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('.' | '\\')) => key.push(e),
                _ => {
                    return Err(format!(
                        "`{path}`: a backslash escapes only `.` or `\\` (`a\\.b` is the key `a.b`)"
                    ));
                }
            },
            '.' => keys.push(std::mem::take(&mut key)),
            c => key.push(c),
        }
    }
    keys.push(key);
    if keys.iter().any(String::is_empty) {
        return Err(format!("`{path}`: a path has no empty key (`user.login`)"));
    }
    Ok(keys)
}

/// `key` as written in a path.
fn escaped(key: &str) -> String {
    key.replace('\\', "\\\\").replace('.', "\\.")
}

/// Parse `value` (the `_fields` argument) and check every path against `output`: the paths as
/// keys, or a message naming the first unknown path and the top-level fields.
pub(crate) fn check(
    output: &Schema,
    wrapped: Option<&str>,
    value: &Value,
) -> Result<Vec<Vec<String>>, String> {
    let Some(items) = value.as_array() else {
        return Err(format!("`{ARG}` must be a list of paths"));
    };
    let Some(top) = body(output, wrapped) else {
        return Err(format!("`{ARG}`: the answer has no fields to choose"));
    };
    let mut paths = Vec::with_capacity(items.len());
    for item in items {
        let Some(path) = item.as_str() else {
            return Err(format!("`{ARG}` must be a list of strings"));
        };
        let keys = parse(path).map_err(|e| format!("`{ARG}`: {e}"))?;
        known(output, top, &keys).map_err(|at| unknown(output, top, path, &keys, at))?;
        paths.push(keys);
    }
    Ok(paths)
}

/// The error for `path`, whose key `at` is not a field where it stands.
fn unknown(output: &Schema, top: &Value, path: &str, keys: &[String], at: usize) -> String {
    let top_names = listed(&level(output, &[top]).names);
    if at == 0 {
        return format!("`{ARG}`: unknown field `{path}`; the answer's fields are: {top_names}");
    }
    let parent: Vec<String> = keys[..at].iter().map(|k| escaped(k)).collect();
    let nodes = nodes_at(output, top, &keys[..at]);
    let here = level(output, &nodes);
    let what = if here.names.is_empty() {
        format!("`{}` has no fields", parent.join("."))
    } else {
        format!(
            "the fields of `{}` are: {}",
            parent.join("."),
            listed(&here.names)
        )
    };
    format!(
        "`{ARG}`: unknown field `{path}`: {what}; the answer's top-level fields are: {top_names}"
    )
}

fn listed(names: &IndexMap<&str, Vec<&Value>>) -> String {
    let mut shown: Vec<String> = names
        .keys()
        .take(MAX_LISTED)
        .map(|k| format!("`{}`", escaped(k)))
        .collect();
    if names.len() > MAX_LISTED {
        shown.push(format!("and {} more", names.len() - MAX_LISTED));
    }
    shown.join(", ")
}

/// `Ok` when every key of `keys` is known; else the index of the first unknown key.
fn known(output: &Schema, top: &Value, keys: &[String]) -> Result<(), usize> {
    let mut nodes = vec![top];
    for (i, key) in keys.iter().enumerate() {
        let here = level(output, &nodes);
        if here.open {
            return Ok(());
        }
        match here.names.get(key.as_str()) {
            Some(next) => nodes = next.clone(),
            None => return Err(i),
        }
    }
    Ok(())
}

/// The schemas that `keys` (all known) lead to.
fn nodes_at<'s>(output: &'s Schema, top: &'s Value, keys: &[String]) -> Vec<&'s Value> {
    let mut nodes = vec![top];
    for key in keys {
        nodes = level(output, &nodes)
            .names
            .get(key.as_str())
            .cloned()
            .unwrap_or_default();
    }
    nodes
}

/// A trie of paths: the keys to keep at one level, each with what to keep below it (`None`:
/// all of it).
#[derive(Default, Debug)]
struct Keep<'p>(IndexMap<&'p str, Option<Keep<'p>>>);

impl<'p> Keep<'p> {
    fn of(paths: &'p [Vec<String>]) -> Keep<'p> {
        let mut root = Keep::default();
        for path in paths {
            root.add(path);
        }
        root
    }

    fn add(&mut self, path: &'p [String]) {
        let Some((first, rest)) = path.split_first() else {
            return;
        };
        let entry = self.0.entry(first.as_str());
        if rest.is_empty() {
            // The whole field, whatever was asked below it.
            *entry.or_default() = None;
            return;
        }
        // A field already kept whole stays whole.
        if let Some(below) = entry.or_insert_with(|| Some(Keep::default())) {
            below.add(rest);
        }
    }
}

/// `body` with only the fields `paths` name (each checked by [`check`]), list items implied;
/// keys keep the body's order. A value that is not an object where a path goes on is kept.
pub(crate) fn project(body: &Value, paths: &[Vec<String>]) -> Value {
    keep(body, &Keep::of(paths))
}

fn keep(value: &Value, what: &Keep<'_>) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| keep(v, what)).collect()),
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, v) in m {
                match what.0.get(k.as_str()) {
                    Some(None) => {
                        out.insert(k.clone(), v.clone());
                    }
                    Some(Some(below)) => {
                        out.insert(k.clone(), keep(v, below));
                    }
                    None => {}
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::fields::applies;
    use serde_json::json;

    #[test]
    fn paths_parse_with_escapes() {
        assert_eq!(parse("user.login").unwrap(), ["user", "login"]);
        assert_eq!(parse(r"@odata\.nextLink").unwrap(), ["@odata.nextLink"]);
        assert_eq!(parse(r"a\\.b").unwrap(), [r"a\", "b"]);
        assert!(parse("a..b").is_err());
        assert!(parse("").is_err());
        assert!(parse(".a").is_err());
        assert!(parse(r"a\b").unwrap_err().contains("backslash"));
        assert!(parse("a\\").is_err());
        for key in ["a.b", r"a\b", r"a\.b", "plain"] {
            assert_eq!(parse(&escaped(key)).unwrap(), [key]);
        }
    }

    fn issue_list() -> Schema {
        let user = json!({"type": "object", "required": ["login"], "properties": {
            "login": {"type": "string"}, "id": {"type": "integer"}}});
        let root = json!({"type": "object", "properties": {"result": {"type": "array", "items": {
            "type": "object", "properties": {
                "number": {"type": "integer"}, "title": {"type": "string"},
                "user": {"anyOf": [{"$ref": "#/$defs/user"}, {"type": "null"}]},
                "labels": {"type": "array", "items": {"type": "object", "properties": {"name": {}}}},
                "meta": {"type": "object", "additionalProperties": {"type": "string"}},
                "stub": {"$ref": "#/$defs/big"},
                "a.b": {"type": "string"}}}}}});
        let stub =
            json!({"type": "object", "description": "big (not expanded: schema size budget)"});
        Schema::new(
            root,
            vec![
                (
                    "big".into(),
                    std::sync::Arc::new(crate::schema::Converted::new(stub, vec![])),
                ),
                (
                    "user".into(),
                    std::sync::Arc::new(crate::schema::Converted::new(user, vec![])),
                ),
            ],
        )
    }

    #[test]
    fn paths_are_checked_against_the_output_schema() {
        let s = issue_list();
        let ok = |v: Value| check(&s, Some("result"), &v);
        assert!(
            ok(json!([
                "number",
                "user.login",
                "labels.name",
                "meta.x",
                "stub.any.thing",
                r"a\.b"
            ]))
            .is_ok()
        );
        let e = ok(json!(["number", "nubmer"])).unwrap_err();
        assert!(
            e.contains("`nubmer`") && e.contains("`number`, `title`, `user`"),
            "{e}"
        );
        assert!(e.contains(r"`a\.b`"), "{e}");
        let e = ok(json!(["user.name"])).unwrap_err();
        assert!(e.contains("the fields of `user` are: `login`, `id`"), "{e}");
        let e = ok(json!(["title.x"])).unwrap_err();
        assert!(e.contains("`title` has no fields"), "{e}");
        assert!(ok(json!("number")).is_err());
        assert!(ok(json!([1])).is_err());
        assert!(check(&s, None, &json!(["result"])).is_ok());
        let input = Schema::plain(json!({"type": "object", "properties": {}}));
        assert!(applies(&s, Some("result"), &input));
        let own = Schema::plain(json!({"type": "object", "properties": {"_fields": {}}}));
        assert!(!applies(&s, Some("result"), &own));
        let strings = Schema::plain(
            json!({"type": "object", "properties": {"result": {"type": "array", "items": {"type": "string"}}}}),
        );
        assert!(!applies(&strings, Some("result"), &input));
    }

    #[test]
    fn projection_keeps_only_the_paths() {
        let body = json!([
            {"number": 1, "title": "t", "user": {"login": "a", "id": 2}, "body": "x",
             "labels": [{"name": "bug", "color": "red"}], "a.b": "dot"},
            {"number": 2, "user": null, "labels": []}
        ]);
        let paths: Vec<Vec<String>> = [
            "number",
            "title",
            "user.login",
            "labels.name",
            r"a\.b",
            "user",
        ]
        .iter()
        .map(|p| parse(p).unwrap())
        .collect();
        // `user` whole wins over `user.login`.
        assert_eq!(
            project(&body, &paths),
            json!([
                {"number": 1, "title": "t", "user": {"login": "a", "id": 2},
                 "labels": [{"name": "bug"}], "a.b": "dot"},
                {"number": 2, "user": null, "labels": []}
            ])
        );
        let paths = vec![parse("user.login").unwrap(), parse("number").unwrap()];
        assert_eq!(
            project(&body[0], &paths),
            json!({"number": 1, "user": {"login": "a"}})
        );
    }
}
