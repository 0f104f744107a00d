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

/// The distinct references in JSON `text` (as [`each_reference`] finds them in its tree, and
/// also in the earlier values of a repeated key), read without building the tree.
pub fn text_references(text: &str) -> serde_json::Result<FxHashSet<String>> {
    use serde::de::DeserializeSeed;
    let mut found = FxHashSet::default();
    let mut de = serde_json::Deserializer::from_str(text);
    Walk {
        found: &mut found,
        role: Role::default(),
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok(found)
}

/// What the value being read is to the object holding it.
#[derive(Clone, Copy, Default)]
struct Role {
    /// A string here is a reference: the value of a `$ref` member, or of a member of a
    /// `mapping` object.
    reference: bool,
    /// An object here is a discriminator `mapping`: the value of a `mapping` member.
    mapping: bool,
}

/// Reads one JSON value, adding the references in it to `found`.
struct Walk<'f> {
    found: &'f mut FxHashSet<String>,
    role: Role,
}

impl<'de> serde::de::DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A member's key, read for its role only.
struct Key(Role);

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, k: &str) -> Result<Key, E> {
                Ok(Key(Role {
                    reference: k == "$ref",
                    mapping: k == "mapping",
                }))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> serde::de::Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        if self.role.reference {
            self.found.insert(s.to_string());
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let in_mapping = self.role.mapping;
        while let Some(Key(mut role)) = map.next_key()? {
            role.reference |= in_mapping;
            map.next_value_seed(Walk {
                found: self.found,
                role,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Walk {
                found: self.found,
                role: Role::default(),
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
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

    /// Read from text, the references are those found in the tree.
    #[test]
    fn text_references_are_the_tree_references() {
        let tree = serde_json::json!({
            "$ref": "#/a",
            "mapping": {"x": "#/top-mapping", "$ref": "#/g", "mapping": {"w": "#/h"}, "n": {"$ref": "#/i"}},
            "components": {"$ref": "#/b", "mapping": {"y": "#/c"}, "schemas": {"A": {"$ref": "#/d"}}},
            "list": [{"$ref": "#/e"}, [{"mapping": {"z": "#/f"}}], "#/not-a-ref", {"$ref": 5}, {"mapping": "#/no"}],
            "paths": {"/p": {"get": {"$ref": "other.yaml", "x": "#/not"}}}
        });
        let text = super::text_references(&tree.to_string()).unwrap();
        let mut text: Vec<&str> = text.iter().map(String::as_str).collect();
        let mut found: Vec<&str> = distinct_references(&tree).into_iter().collect();
        found.sort();
        text.sort();
        assert_eq!(text, found);
        assert!(super::text_references("{\"a\": [1,}").is_err());
    }
}
