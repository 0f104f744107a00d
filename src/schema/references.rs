//! Reference finding: every `$ref` string and discriminator `mapping` value in a tree, one at a
//! time or as the set of distinct ones, gathered on two threads for a large tree.

use rustc_hash::FxHashSet;
use serde_json::Value;

/// Call `f` with every `$ref` string and discriminator `mapping` value in `root`.
pub(crate) fn each_reference<'v>(root: &'v Value, mut f: impl FnMut(&'v str)) {
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
pub(crate) fn member_references<'v>(key: &str, value: &'v Value, f: &mut impl FnMut(&'v str)) {
    match (key, value) {
        ("$ref", Value::String(r)) => f(r),
        ("mapping", Value::Object(targets)) => {
            targets.values().filter_map(Value::as_str).for_each(&mut *f)
        }
        _ => {}
    }
}

/// The distinct references in `root` (as [`each_reference`] finds them).
pub(crate) fn distinct_references(root: &Value) -> FxHashSet<&str> {
    // The tree cut into small parts (each path item, each group of components, each schema of
    // a long list of them), walked in runs taken in turn by two threads, so that they finish
    // together whatever the document's layout (in halves, AWS EC2's `components.schemas` was
    // one part, walked by one thread while the other waited). References are the same whatever
    // the parts: a member's own references are found where the member is opened.
    let mut found = FxHashSet::default();
    let mut parts: Vec<&Value> = Vec::new();
    let mut add = |r| {
        found.insert(r);
    };
    let Value::Object(top) = root else {
        parts.push(root);
        return fold(&parts, found);
    };
    for (key, member) in top {
        member_references(key, member, &mut add);
        for (key, x) in members(member) {
            if let Some(key) = key {
                member_references(key, x, &mut add);
            }
            match x {
                Value::Object(m) if m.len() >= WIDE => {
                    for (key, y) in m {
                        member_references(key, y, &mut add);
                        parts.push(y);
                    }
                }
                Value::Array(items) if items.len() >= WIDE => parts.extend(items),
                _ => parts.push(x),
            }
        }
    }
    fold(&parts, found)
}

/// `found` and the distinct references in `parts`, on two threads for many parts.
fn fold<'v>(parts: &[&'v Value], found: FxHashSet<&'v str>) -> FxHashSet<&'v str> {
    let run = if parts.len() < crate::par::MIN_ITEMS {
        // Few parts: one run, on this thread.
        parts.len()
    } else {
        RUN
    };
    let mut per_thread = crate::par::fold_taken(parts, run, FxHashSet::default, |found, x| {
        each_reference(x, |r| {
            found.insert(r);
        });
    });
    // The largest set takes in the others.
    per_thread.push(found);
    per_thread.sort_by_key(|set| std::cmp::Reverse(set.len()));
    let mut sets = per_thread.into_iter();
    let mut found = sets.next().unwrap_or_default();
    sets.for_each(|more| found.extend(more));
    found
}

/// A member with at least this many members (or items) of its own is walked as that many parts.
const WIDE: usize = 64;
/// Parts a thread takes at a time.
const RUN: usize = 32;

/// The members of `v` (with their keys) or its items, or nothing.
fn members(v: &Value) -> Box<dyn Iterator<Item = (Option<&str>, &Value)> + '_> {
    match v {
        Value::Object(m) => Box::new(m.iter().map(|(k, x)| (Some(k.as_str()), x))),
        Value::Array(items) => Box::new(items.iter().map(|x| (None, x))),
        _ => Box::new(std::iter::empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The references [`each_reference`] finds in the whole tree, each once.
    fn every_reference(root: &Value) -> HashSet<&str> {
        let mut all = HashSet::new();
        each_reference(root, |r| {
            all.insert(r);
        });
        all
    }

    /// The walk in parts finds what a walk of the whole tree finds, at every level a reference
    /// can sit (the top, a member of a top-level member, an array at the top, the members and
    /// items of a wide member), local or not.
    #[test]
    fn distinct_references_are_every_reference() {
        let mut trees: Vec<Value> = crate::test_support::spec_trees()
            .into_iter()
            .map(|(_, tree)| tree)
            .collect();
        let mut tree = serde_json::json!({
            "$ref": "#/a",
            "mapping": {"x": "#/top-mapping"},
            "components": {"$ref": "#/b", "mapping": {"y": "#/c"}, "schemas": {"A": {"$ref": "#/d"}}},
            "list": [{"$ref": "#/e"}, [{"mapping": {"z": "#/f"}}], "#/not-a-ref"],
            "paths": {}
        });
        // Wide members, walked member by member: references as their own members, and inside
        // their members and items.
        let mut wide = serde_json::Map::new();
        let mut items = Vec::new();
        for i in 0..WIDE {
            wide.insert(format!("S{i}"), serde_json::json!({"type": "object"}));
            items.push(serde_json::json!({"type": "string"}));
        }
        wide.insert("$ref".into(), "#/g".into());
        wide.insert("mapping".into(), serde_json::json!({"k": "#/h"}));
        wide.insert("S7".into(), serde_json::json!({"items": {"$ref": "#/i"}}));
        items[3] = serde_json::json!({"$ref": "#/j"});
        tree["components"]["wide"] = Value::Object(wide);
        tree["components"]["many"] = Value::Array(items);
        trees.push(tree);
        trees.push(serde_json::json!([{"$ref": "other.yaml"}, {"mapping": {"m": "#/k"}}]));
        for tree in &trees {
            let found: HashSet<&str> = distinct_references(tree).into_iter().collect();
            assert_eq!(found, every_reference(tree));
        }
        assert!(trees.len() >= 10, "only {} trees compared", trees.len());
        let wide = distinct_references(&trees[trees.len() - 2]);
        assert_eq!(wide.len(), 11, "{wide:?}");
    }
}
