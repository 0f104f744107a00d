//! References: every `$ref` string and discriminator `mapping` value in a tree, one at a time or
//! as the set of distinct ones.

use rustc_hash::FxHashSet;
use serde_json::Value;

/// Call `f` with every `$ref` string and discriminator `mapping` value in `root`.
pub fn each_reference<'v>(root: &'v Value, mut f: impl FnMut(&'v str)) {
    let mut stack = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    member_references(k, x, &mut f);
                    if x.is_object() || x.is_array() {
                        stack.push(x);
                    }
                }
            }
            Value::Array(items) => {
                stack.extend(items.iter().filter(|x| x.is_object() || x.is_array()))
            }
            _ => {}
        }
    }
}

/// Call `f` with the references the member `key: value` of an object is itself: a `$ref`
/// string, or a discriminator `mapping` object's values (those inside `value` are
/// [`each_reference`]'s).
fn member_references<'v>(key: &str, value: &'v Value, f: &mut impl FnMut(&'v str)) {
    match (key, value) {
        ("$ref", Value::String(r)) => f(r),
        ("mapping", Value::Object(targets)) => {
            targets.values().filter_map(Value::as_str).for_each(&mut *f)
        }
        _ => {}
    }
}

/// The distinct references in `root` (as [`each_reference`] finds them), the tree walked in
/// parts on the thread pool: the members of the top-level object and of its members.
pub fn distinct_references(root: &Value) -> FxHashSet<&str> {
    use rayon::prelude::*;
    let mut found = FxHashSet::default();
    let mut add = |r| {
        found.insert(r);
    };
    let mut parts: Vec<&Value> = Vec::new();
    match root {
        Value::Object(top) => {
            for (key, member) in top {
                member_references(key, member, &mut add);
                match member {
                    Value::Object(m) => {
                        for (key, x) in m {
                            member_references(key, x, &mut add);
                            parts.push(x);
                        }
                    }
                    other => parts.push(other),
                }
            }
        }
        other => parts.push(other),
    }
    parts
        .par_iter()
        .fold(FxHashSet::default, |mut set, part| {
            each_reference(part, |r| {
                set.insert(r);
            });
            set
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(found, |mut all, set| {
            all.extend(set);
            all
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `$ref` strings and mapping values at every level, and nothing else.
    #[test]
    fn references_are_found_at_every_level() {
        let tree = serde_json::json!({
            "$ref": "#/a",
            "mapping": {"x": "#/top-mapping"},
            "components": {"$ref": "#/b", "mapping": {"y": "#/c"}, "schemas": {"A": {"$ref": "#/d"}}},
            "list": [{"$ref": "#/e"}, [{"mapping": {"z": "#/f"}}], "#/not-a-ref", {"$ref": 5}],
            "paths": {"/p": {"get": {"$ref": "other.yaml"}}}
        });
        let mut found: Vec<&str> = distinct_references(&tree).into_iter().collect();
        found.sort();
        assert_eq!(
            found,
            [
                "#/a",
                "#/b",
                "#/c",
                "#/d",
                "#/e",
                "#/f",
                "#/top-mapping",
                "other.yaml"
            ]
        );
    }
}
