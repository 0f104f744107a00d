//! References: every `$ref` string and discriminator `mapping` value in a tree, or in a path
//! item's text (read once, with the members listing the item's operations needs).

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

/// A member of a path item, as listing the item's operations needs it: its key, whether its
/// value is an object, and that object's `operationId`, `tags` and `deprecated` values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemMember {
    pub key: String,
    pub object: bool,
    pub operation_id: Option<Value>,
    pub tags: Option<Value>,
    pub deprecated: Option<Value>,
}

/// [`read_item`] for the member `key` of a `paths` object: a `$ref` string, or a `mapping`
/// object's values, there are references too (as [`each_reference`] finds them in a tree).
pub fn read_member(
    key: &str,
    text: &str,
) -> serde_json::Result<(FxHashSet<String>, Option<Vec<ItemMember>>)> {
    let (mut found, members) = read_item(text)?;
    if key == "$ref" || key == "mapping" {
        let value: Value = serde_json::from_str(text)?;
        member_references(key, &value, &mut |r: &str| {
            found.insert(r.to_string());
        });
    }
    Ok((found, members))
}

/// A path item's text read once, without building its tree: its distinct references (as
/// [`each_reference`] finds them in the tree), and its members as [`ItemMember`]s, in document
/// order (`None` when the item is not an object). Where an object in it repeats a key, the
/// text is read as a tree instead, whose last values count.
pub fn read_item(text: &str) -> serde_json::Result<(FxHashSet<String>, Option<Vec<ItemMember>>)> {
    use serde::de::DeserializeSeed;
    let mut found = FxHashSet::default();
    let mut keys = Vec::new();
    let mut members = None;
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Walk {
        found: &mut found,
        keys: &mut keys,
        members: &mut members,
        role: Role {
            item: true,
            ..Role::default()
        },
    }
    .deserialize(&mut de);
    match read {
        Ok(()) => {
            de.end()?;
            Ok((found, members))
        }
        Err(e) if e.to_string().starts_with(REPEATED) => {
            let tree: Value = serde_json::from_str(text)?;
            let found = distinct_references(&tree)
                .into_iter()
                .map(str::to_string)
                .collect();
            Ok((found, tree_members(&tree)))
        }
        Err(e) => Err(e),
    }
}

/// [`ItemMember`]s of a path item's tree (each key's last value, as any reader of the tree sees).
fn tree_members(item: &Value) -> Option<Vec<ItemMember>> {
    let members = item.as_object()?.iter().map(|(key, value)| ItemMember {
        key: key.clone(),
        object: value.is_object(),
        operation_id: value.get("operationId").cloned(),
        tags: value.get("tags").cloned(),
        deprecated: value.get("deprecated").cloned(),
    });
    Some(members.collect())
}

/// The message that stops a text walk at an object that repeats a key (or has too many keys to
/// check cheaply).
const REPEATED: &str = "a repeated key";

/// Objects with more keys than this are not checked for repeats: their text is walked as a tree.
const MAX_CHECKED_KEYS: usize = 256;

/// What the value being read is to the object holding it.
#[derive(Clone, Copy, Default)]
struct Role {
    /// A string here is a reference: the value of a `$ref` member, or of a member of a
    /// `mapping` object.
    reference: bool,
    /// An object here is a discriminator `mapping`: the value of a `mapping` member.
    mapping: bool,
    /// The value is a path item: its members are listed.
    item: bool,
    /// The value is a member of a path item: an object here may be an operation.
    operation: bool,
    /// The value is this member of an operation (its key is `operationId`, `tags` or
    /// `deprecated`: 1, 2, 3; 0 for any other).
    field: u8,
}

/// Reads one JSON value, adding the references in it to `found`.
struct Walk<'f> {
    found: &'f mut FxHashSet<String>,
    /// Hashes of the keys of the objects being read, innermost last.
    keys: &'f mut Vec<u64>,
    /// The path item's members, once the item is known to be an object.
    members: &'f mut Option<Vec<ItemMember>>,
    role: Role,
}

impl<'de> serde::de::DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A member's key: its role, a hash of it (to find repeats), and the key itself when asked for.
struct Key(Role, u64, Option<String>);

/// Reads a [`Key`], keeping the key itself when `keep`.
struct KeySeed {
    keep: bool,
}

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl serde::de::Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, k: &str) -> Result<Key, E> {
        use std::hash::BuildHasher;
        let role = Role {
            reference: k == "$ref",
            mapping: k == "mapping",
            field: match k {
                "operationId" => 1,
                "tags" => 2,
                "deprecated" => 3,
                _ => 0,
            },
            ..Role::default()
        };
        let hash = rustc_hash::FxBuildHasher.hash_one(k);
        Ok(Key(role, hash, self.keep.then(|| k.to_string())))
    }
}

impl<'de> serde::de::Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }

    fn visit_str<E>(self, s: &str) -> Result<(), E> {
        // Most references repeat (a shared error response): no copy for one already found.
        if self.role.reference && !self.found.contains(s) {
            self.found.insert(s.to_string());
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::Error;
        let Role {
            mapping: in_mapping,
            item,
            operation,
            ..
        } = self.role;
        if item {
            *self.members = Some(Vec::new());
        }
        let head = match (operation, self.members.as_mut()) {
            (true, Some(members)) => members.last_mut(),
            _ => None,
        };
        if let Some(head) = head {
            head.object = true;
        }
        let start = self.keys.len();
        while let Some(Key(mut role, hash, key)) = map.next_key_seed(KeySeed { keep: item })? {
            // A hash met twice is taken for a repeat (rarely wrongly: the tree walk is exact).
            let mine = &self.keys[start..];
            if mine.len() >= MAX_CHECKED_KEYS || mine.contains(&hash) {
                return Err(A::Error::custom(REPEATED));
            }
            self.keys.push(hash);
            role.reference |= in_mapping;
            if let (Some(key), Some(members)) = (key, self.members.as_mut()) {
                members.push(ItemMember {
                    key,
                    ..ItemMember::default()
                });
            }
            role.operation = item;
            let head = match (operation, self.members.as_mut()) {
                (true, Some(members)) if role.field > 0 => members.last_mut(),
                _ => None,
            };
            if let Some(head) = head {
                // Kept as a tree for the listing (small), and walked for references.
                let value: Value = map.next_value()?;
                if let (true, Value::String(r)) = (role.reference, &value) {
                    self.found.insert(r.clone());
                }
                each_reference(&value, |r| {
                    self.found.insert(r.to_string());
                });
                let slot = match role.field {
                    1 => &mut head.operation_id,
                    2 => &mut head.tags,
                    _ => &mut head.deprecated,
                };
                *slot = Some(value);
                continue;
            }
            map.next_value_seed(Walk {
                found: self.found,
                keys: self.keys,
                members: self.members,
                role,
            })?;
        }
        self.keys.truncate(start);
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Walk {
                found: &mut *self.found,
                keys: &mut *self.keys,
                members: &mut *self.members,
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

    /// A path item's members are read with its references: each key (unescaped), whether its
    /// value is an object, and that object's operationId, tags and deprecated, whose references
    /// count too; a repeated key anywhere keeps its last value, as in a tree; no members for an
    /// item that is not an object.
    #[test]
    fn item_members_are_read_with_the_references() {
        let text = r##"{"get": {"operationId": "g", "tags": ["a", {"$ref": "#/t"}], "x": {"$ref": "#/x"}},
            "mapping": {"tags": "#/m", "deprecated": {"$ref": "#/d"}}, "parameters": [],
            "p\u0075t": {"deprecated": true}}"##;
        let (found, members) = read_item(text).unwrap();
        let tree: Value = serde_json::from_str(text).unwrap();
        let mut found: Vec<String> = found.into_iter().collect();
        found.sort();
        let mut walked: Vec<&str> = distinct_references(&tree).into_iter().collect();
        walked.sort();
        assert_eq!(found, walked);
        assert_eq!(walked, ["#/d", "#/m", "#/t", "#/x"]);
        let member =
            |key: &str, object, o: Option<Value>, t: Option<Value>, d: Option<Value>| ItemMember {
                key: key.into(),
                object,
                operation_id: o,
                tags: t,
                deprecated: d,
            };
        let json = |t: &str| Some(serde_json::from_str::<Value>(t).unwrap());
        assert_eq!(
            members.unwrap(),
            [
                member(
                    "get",
                    true,
                    json(r#""g""#),
                    json(r##"["a", {"$ref": "#/t"}]"##),
                    None
                ),
                member(
                    "mapping",
                    true,
                    None,
                    json(r##""#/m""##),
                    json(r##"{"$ref": "#/d"}"##)
                ),
                member("parameters", false, None, None, None),
                member("put", true, None, None, json("true")),
            ]
        );
        assert_eq!(read_item("[{}]").unwrap().1, None);
        let repeated =
            r#"{"get": {"tags": [1], "tags": ["b"]}, "a": 1, "x": {"k": 1, "k": 2}, "a": {}}"#;
        assert_eq!(
            read_item(repeated).unwrap().1.unwrap(),
            [
                member("get", true, None, json(r#"["b"]"#), None),
                member("a", true, None, None, None),
                member("x", true, None, None, None),
            ]
        );
    }

    fn text_refs(text: &str) -> serde_json::Result<FxHashSet<String>> {
        read_item(text).map(|(found, _)| found)
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
        let text = text_refs(&tree.to_string()).unwrap();
        let mut text: Vec<&str> = text.iter().map(String::as_str).collect();
        let mut found: Vec<&str> = distinct_references(&tree).into_iter().collect();
        found.sort();
        text.sort();
        assert_eq!(text, found);
        assert!(text_refs("{\"a\": [1,}").is_err());
        // A repeated key: the tree keeps its last value only, and so does the text's reading.
        let repeated = r##"{"s": {"$ref": "#/first"}, "t": [{"x": 1, "$ref": "#/kept"}], "s": {"$ref": "#/last"}}"##;
        let mut found: Vec<String> = text_refs(repeated).unwrap().into_iter().collect();
        found.sort();
        assert_eq!(found, ["#/kept", "#/last"]);
    }
}
