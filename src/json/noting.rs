//! A JSON value parsed into the `serde_json::Value` a plain parse gives, noting on the way the
//! references [`crate::schema::each_reference`] would find in it (every `$ref` string and
//! discriminator `mapping` value), so that a document read from a file needs no walk of its
//! whole tree to learn them (Kubernetes: 2 ms of a 30 ms conversion, with both cores busy).

use rustc_hash::FxHashSet;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The references noted while parsing: each part's distinct ones, kept apart (putting
/// thousands of sets together took AWS EC2's load 1.3 ms on one thread, after both threads had
/// parsed; whoever needs them whole puts them together).
#[derive(Debug)]
pub(crate) struct References {
    parts: Vec<FxHashSet<String>>,
    /// False when a repeated key replaced a value: what that value held may not be in the
    /// tree any more, so the tree must be walked instead.
    pub exact: bool,
    /// False for a parse that notes nothing (see [`parse_str`]).
    noting: bool,
}

impl References {
    pub fn new() -> Self {
        References {
            parts: Vec::new(),
            exact: true,
            noting: true,
        }
    }

    /// Note the references the member `key: value` of an object is itself.
    pub fn member(&mut self, key: &str, value: &Value) {
        if self.noting {
            crate::schema::member_references(key, value, &mut |r: &str| self.note(r));
        }
    }

    /// Note reference `r`.
    pub fn note(&mut self, r: &str) {
        if self.parts.is_empty() {
            self.parts.push(FxHashSet::default());
        }
        let part = &mut self.parts[0];
        if !part.contains(r) {
            part.insert(r.to_string());
        }
    }

    /// Take in the references of another part of the same tree.
    pub fn extend(&mut self, other: References) {
        self.exact &= other.exact;
        self.parts.extend(other.parts);
    }

    /// Every reference noted, once or more (once in each part that has it).
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().flatten().map(String::as_str)
    }

    /// Every reference noted, each once.
    pub fn distinct(&self) -> FxHashSet<&str> {
        let mut all = FxHashSet::default();
        all.reserve(self.parts.iter().map(FxHashSet::len).max().unwrap_or(0));
        all.extend(self.iter());
        all
    }

    /// Every reference noted, once or more.
    pub fn into_strings(self) -> impl Iterator<Item = String> {
        self.parts.into_iter().flatten()
    }
}

/// Parse `text` as `serde_json::from_str::<Value>` does (same tree, same errors), with its
/// references.
pub(crate) fn from_str(text: &str) -> serde_json::Result<(Value, References)> {
    let mut refs = References::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Noting(&mut refs, &mut Stack::default()).deserialize(&mut de)?;
    de.end()?;
    Ok((value, refs))
}

/// The members and items of the objects and arrays being parsed, on one stack for a whole
/// parse: each object or array is made when it ends, at its final size, rather than grown (its
/// members moved, its keys' hash table rebuilt) as they arrive.
#[derive(Default)]
pub(crate) struct Stack {
    members: Vec<(String, Value)>,
    items: Vec<Value>,
}

impl Stack {
    /// The mark to pass to [`Stack::object`] for an object whose members come next.
    pub fn members_mark(&self) -> usize {
        self.members.len()
    }

    /// The mark to pass to [`Stack::array`] for an array whose items come next.
    pub fn items_mark(&self) -> usize {
        self.items.len()
    }

    pub fn member(&mut self, key: String, value: Value) {
        self.members.push((key, value));
    }

    pub fn item(&mut self, value: Value) {
        self.items.push(value);
    }

    /// The object of the members pushed since `mark`, as a plain parse makes it (a repeated
    /// key keeps its first place and its last value); `refs` learns of a repeated key.
    pub fn object(&mut self, mark: usize, refs: &mut References) -> Value {
        let mut members = Map::with_capacity(self.members.len() - mark);
        for (key, value) in self.members.drain(mark..) {
            if members.insert(key, value).is_some() {
                refs.exact = false;
            }
        }
        Value::Object(members)
    }

    /// The array of the items pushed since `mark`.
    pub fn array(&mut self, mark: usize) -> Value {
        Value::Array(self.items.drain(mark..).collect())
    }
}

/// Parse `text` as `serde_json::from_str::<Value>` does (same tree, same errors), a little
/// faster (see [`Stack`]).
pub(crate) fn parse_str(text: &str) -> serde_json::Result<Value> {
    let mut refs = References {
        noting: false,
        ..References::new()
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Noting(&mut refs, &mut Stack::default()).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Deserializes a `Value` as `serde_json`'s own `Deserialize` for `Value` does, noting
/// references.
struct Noting<'r>(&'r mut References, &'r mut Stack);

impl<'de> DeserializeSeed<'de> for Noting<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Noting<'_> {
    type Value = Value;

    super::value_scalars!();

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mark = self.1.items_mark();
        while let Some(x) = seq.next_element_seed(Noting(&mut *self.0, &mut *self.1))? {
            self.1.item(x);
        }
        Ok(self.1.array(mark))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mark = self.1.members_mark();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Noting(&mut *self.0, &mut *self.1))?;
            self.0.member(&key, &value);
            self.1.member(key, value);
        }
        Ok(self.1.object(mark, self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree is the plain parse's and the references are the walk's, for every spec and
    /// for references at every kind of place; a repeated key makes the references inexact.
    #[test]
    fn the_tree_is_the_plain_tree_and_the_references_the_walks() {
        let mut texts: Vec<String> = crate::test_support::spec_trees()
            .into_iter()
            .map(|(_, tree)| tree.to_string())
            .collect();
        texts.push(
            r##"{"$ref": "#/a", "mapping": {"x": "#/m", "y": 3}, "l": [{"$ref": "#/b"},
            [{"mapping": {"z": "#/c"}}], "#/no"], "n": [1, -2, 1.5e300, 18446744073709551615,
            -9223372036854775808, 0.1, null, true, false, "é\n\"\\u0041"], "e": {}, "a": []}"##
                .to_string(),
        );
        for text in &texts {
            let (tree, refs) = from_str(text).unwrap();
            let plain: Value = serde_json::from_str(text).unwrap();
            assert_eq!(tree, plain);
            assert_eq!(tree.to_string(), plain.to_string());
            assert_eq!(parse_str(text).unwrap().to_string(), plain.to_string());
            assert!(refs.exact);
            let found: FxHashSet<String> = refs.iter().map(str::to_string).collect();
            assert_eq!(found, crate::test_support::walked(&tree), "{text}");
        }
        let (tree, refs) = from_str(r##"{"$ref": "#/gone", "$ref": "#/kept"}"##).unwrap();
        assert_eq!(tree, serde_json::json!({"$ref": "#/kept"}));
        assert!(!refs.exact);
        // A repeated key keeps its first place and its last value, in every object.
        let text = r#"{"a": 1, "b": {"x": [1, {"y": 2, "z": 3, "y": 4}], "w": 0, "x": 5}, "a": 6}"#;
        let plain: Value = serde_json::from_str(text).unwrap();
        assert_eq!(plain.to_string(), r#"{"a":6,"b":{"x":5,"w":0}}"#);
        assert_eq!(from_str(text).unwrap().0.to_string(), plain.to_string());
        assert_eq!(parse_str(text).unwrap().to_string(), plain.to_string());
    }

    /// Broken text gives the plain parse's error, line and column included.
    #[test]
    fn errors_are_the_plain_errors() {
        for text in [
            "",
            "{",
            "{\"a\": }",
            "[1, 2",
            "{\"a\": 1} x",
            "\"\\u12\"",
            "{\"a\": 1,}",
            &("[".repeat(200) + &"]".repeat(200)),
        ] {
            let ours = from_str(text).unwrap_err().to_string();
            let plain = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            assert_eq!(ours, plain, "{text:?}");
            assert_eq!(parse_str(text).unwrap_err().to_string(), plain, "{text:?}");
        }
    }
}
