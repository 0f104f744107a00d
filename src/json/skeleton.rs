//! A path item parsed only as far as reading its operations needs, for the first reading of a
//! lazy document (see [`crate::lazy`]), which keeps of each operation what names and filters it
//! and whether it reads without error. The model reader takes a parameter's schema and a media
//! type's schema without looking inside (it keeps each one as a borrowed `Value` for the
//! converter) and reads no extension of a path item, so those values are not built: the
//! `schema` member of a parameter (an object in a `parameters` array) or of a media type (an
//! object in a `content` object) stands as an empty value of its JSON type (`{}`, `[]`, `""`,
//! `0`, or the same `null` or boolean), and the path item's own `x-` members are left out. A
//! member named `schema` anywhere else is built: it may be a name the document chose (a media
//! type or a server variable, which the reader looks into, or a key of a discriminator mapping,
//! whose values are references), and so is a media type named `mapping`. Skipped text is still
//! parsed (the same syntax errors, the same nesting limit) and its references are still noted,
//! as [`crate::schema::each_reference`] finds them. Microsoft Graph v1: its 7,419 path items
//! parse in about two thirds of the time of full trees.
//!
//! A repeated key skipped over is not tracked: the references noted there are all those in the
//! text, so at worst a few more than the tree would have held, which can only make the lazy
//! reading give way to the whole one, or build tools on one thread. A repeated key in the built
//! part makes the references inexact, as in [`super::noting`].

use super::References;
use super::noting::Stack;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Parse the path item `text` into its skeleton (see the module doc), with its references.
pub(crate) fn path_item(text: &str) -> serde_json::Result<(Value, References)> {
    let mut refs = References::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Build {
        refs: &mut refs,
        stack: &mut Stack::default(),
        at: At::Item,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, refs))
}

/// Builds a value as `serde_json` does, noting references, except for the values skipped.
struct Build<'r> {
    refs: &'r mut References,
    stack: &'r mut Stack,
    at: At,
}

/// Where a value built is, as far as skipping goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// The path item itself: its `x-` members are skipped.
    Item,
    /// The value of a `parameters` member.
    Parameters,
    /// An item of a `parameters` array: its `schema` is skipped.
    Parameter,
    /// The value of a `content` member.
    Content,
    /// A member of a `content` object: its `schema` is skipped.
    MediaType,
    Other,
}

impl At {
    /// Where the value of this object's member `key` is.
    fn member(self, key: &str) -> At {
        match (self, key) {
            // A `mapping` object's values are references: none is emptied (a media type named
            // `mapping` is built whole).
            (_, "mapping") => At::Other,
            (At::Content, _) => At::MediaType,
            (_, "parameters") => At::Parameters,
            (_, "content") => At::Content,
            _ => At::Other,
        }
    }

    /// Whether this object's member `key` is skipped (`Some(true)`: left out; `Some(false)`:
    /// an empty value in its place).
    fn skips(self, key: &str) -> Option<bool> {
        match (self, key) {
            (At::Item, key) if key.starts_with("x-") => Some(true),
            (At::Parameter | At::MediaType, "schema") => Some(false),
            _ => None,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    super::value_scalars!();

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mark = self.stack.items_mark();
        let at = match self.at {
            At::Parameters => At::Parameter,
            _ => At::Other,
        };
        while let Some(x) = seq.next_element_seed(Build {
            refs: &mut *self.refs,
            stack: &mut *self.stack,
            at,
        })? {
            self.stack.item(x);
        }
        Ok(self.stack.array(mark))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mark = self.stack.members_mark();
        while let Some(key) = map.next_key::<String>()? {
            let skim = Skim {
                refs: &mut *self.refs,
                note: false,
                mapping: false,
            };
            let value = match self.at.skips(&key) {
                Some(true) => {
                    map.next_value_seed(skim)?;
                    continue;
                }
                Some(false) => map.next_value_seed(skim)?.empty(),
                None => map.next_value_seed(Build {
                    refs: &mut *self.refs,
                    stack: &mut *self.stack,
                    at: self.at.member(&key),
                })?,
            };
            self.refs.member(&key, &value);
            self.stack.member(key, value);
        }
        Ok(self.stack.object(mark, self.refs))
    }
}

/// The JSON type of a value skipped, and for a boolean its value.
enum Kind {
    Null,
    Bool(bool),
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    /// The empty value of this type standing for the value skipped.
    fn empty(self) -> Value {
        match self {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(b),
            Kind::Number => Value::Number(0.into()),
            Kind::String => Value::String(String::new()),
            Kind::Array => Value::Array(Vec::new()),
            Kind::Object => Value::Object(Map::new()),
        }
    }
}

/// Parses a value without building it, noting the references in it.
struct Skim<'r> {
    refs: &'r mut References,
    /// Whether a string here is a reference: the value of a `$ref` member, or a value in a
    /// `mapping` object.
    note: bool,
    /// Whether this is the value of a `mapping` member (an object's string values are noted).
    mapping: bool,
}

impl<'de> DeserializeSeed<'de> for Skim<'_> {
    type Value = Kind;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim<'_> {
    type Value = Kind;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }

    fn visit_i64<E>(self, _: i64) -> Result<Kind, E> {
        Ok(Kind::Number)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Kind, E> {
        Ok(Kind::Number)
    }

    fn visit_f64<E>(self, v: f64) -> Result<Kind, E> {
        // As `serde_json` turns a number it cannot hold into `null`.
        Ok(if v.is_finite() {
            Kind::Number
        } else {
            Kind::Null
        })
    }

    fn visit_str<E>(self, v: &str) -> Result<Kind, E> {
        if self.note {
            self.refs.note(v);
        }
        Ok(Kind::String)
    }

    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        while seq
            .next_element_seed(Skim {
                refs: &mut *self.refs,
                note: false,
                mapping: false,
            })?
            .is_some()
        {}
        Ok(Kind::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        while let Some(key) = map.next_key_seed(KeyKind)? {
            map.next_value_seed(Skim {
                refs: &mut *self.refs,
                note: self.mapping || key == Key::Ref,
                mapping: key == Key::Mapping,
            })?;
        }
        Ok(Kind::Object)
    }
}

/// What a key skipped over says about its value.
#[derive(PartialEq, Eq)]
enum Key {
    Ref,
    Mapping,
    Other,
}

/// Reads a key as [`Key`], without keeping it.
struct KeyKind;

impl<'de> DeserializeSeed<'de> for KeyKind {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyKind {
    type Value = Key;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "$ref" => Key::Ref,
            "mapping" => Key::Mapping,
            _ => Key::Other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;

    /// The skeleton a full tree should give: the item's `x-` members gone, the `schema` of each
    /// parameter and media type emptied (not in a `mapping` object).
    fn expected(item: &Value) -> Value {
        fn empty(v: &Value) -> Value {
            match v {
                Value::Null => Value::Null,
                Value::Bool(b) => Value::Bool(*b),
                Value::Number(_) => Value::Number(0.into()),
                Value::String(_) => Value::String(String::new()),
                Value::Array(_) => Value::Array(Vec::new()),
                Value::Object(_) => Value::Object(Map::new()),
            }
        }
        // `parent`: the key this value is the member of ("" for the item, "[]" for an array
        // item, "<content>" for a member of a `content` object); `in_parameters`: an item of a
        // `parameters` array.
        fn inner(v: &Value, parent: &str, in_parameters: bool) -> Value {
            let takes_schema = in_parameters || parent == "<content>";
            match v {
                Value::Object(m) => Value::Object(
                    m.iter()
                        .filter(|(k, _)| !(parent.is_empty() && k.starts_with("x-")))
                        .map(|(k, x)| {
                            let x = if takes_schema && k == "schema" {
                                empty(x)
                            } else if parent == "content" && k != "mapping" {
                                inner(x, "<content>", false)
                            } else {
                                inner(x, k, false)
                            };
                            (k.clone(), x)
                        })
                        .collect(),
                ),
                Value::Array(items) => Value::Array(
                    items
                        .iter()
                        .map(|x| inner(x, "[]", parent == "parameters"))
                        .collect(),
                ),
                other => other.clone(),
            }
        }
        inner(item, "", false)
    }

    /// Every path item of every spec, and items with references at every kind of skipped place
    /// (a schema nested in a schema, a discriminator mapping, an extension of the item, escaped
    /// keys, schemas of every JSON type): the skeleton is the tree with schemas emptied and the
    /// item's extensions left out, and the references noted are those of the whole tree.
    #[test]
    fn the_skeleton_is_the_tree_without_schemas_and_extensions_with_every_reference() {
        let mut items: Vec<String> = Vec::new();
        for (_, tree) in crate::test_support::spec_trees() {
            if let Some(Value::Object(paths)) = tree.get("paths") {
                items.extend(paths.values().map(Value::to_string));
            }
        }
        assert!(items.len() >= 40, "{} path items", items.len());
        items.push(
            r##"{"x-a": {"$ref": "#/x1", "mapping": {"m": "#/x2"}},
            "x-b": ["#/no", {"$ref": "#/x3"}], "$ref": "#/p", "summary": "s",
            "parameters": [{"name": "a", "in": "query", "schema": {"$ref": "#/s1",
            "items": {"schema": {"$ref": "#/s2"}}, "discriminator":
            {"propertyName": "k", "mapping": {"a": "#/s3", "b": {"$ref": "#/s4"}, "c": 1}},
            "enum": ["#/no", 1.5, -2, true, null, {"mapping": ["#/no"]}]}}],
            "get": {"x-c": {"$ref": "#/kept"}, "responses": {"200": {"content": {"a/json":
            {"schema": [1, {"$ref": "#/s5"}]}, "b/json": {"schema": "text"}, "c/json":
            {"schema": 3}, "d/json": {"schema": true}, "e/json": {"schema": null},
            "f/json": {"sch\u0065ma": {"$r\u0065f": "#/s6"}}}}}}}"##
                .to_string(),
        );
        items.push(r##"["not", {"an": "object", "schema": {"$ref": "#/s7"}}]"##.to_string());
        // Members named `schema` that are names the document chose, built: a media type, a
        // server variable, a discriminator mapping (its value noted), a property; and in skipped
        // schemas, a `mapping` that is not an object and a string in an object in a mapping,
        // neither of them references.
        items.push(
            r##"{"post": {"requestBody": {"content": {"schema": {"encoding": 1, "schema":
            {"mapping": "#/no", "discriminator": {"mapping": {"a": {"b": "#/no", "$ref":
            "#/s8"}}}}}}}, "servers": [{"url": "https://{schema}", "variables": {"schema":
            {"default": 5}}}], "x-d": {"mapping": {"schema": "#/m1"}}, "schema": {"properties":
            {"schema": {"$ref": "#/p1"}}}, "parameters": [{"content": {"schema": {"schema":
            {"$ref": "#/s9"}}}, "schema": {"$ref": "#/s10"}}, {"parameters": [{"schema":
            {"$ref": "#/s11"}}]}]}}"##
                .to_string(),
        );
        // A media type named `mapping`: its members are references, its `schema` one too.
        items.push(
            r##"{"get": {"requestBody": {"content": {"mapping": {"schema": "#/m2"}}},
            "parameters": [{"content": {"mapping": {"schema": "#/m3", "x": {"schema": 1}}}}],
            "responses": {"200": {"content": {"mapping": {"schema": {"$ref": "#/m4"}}}}}}}"##
                .to_string(),
        );
        items.push(r#""text""#.to_string());
        for text in &items {
            let (skeleton, refs) = path_item(text).unwrap();
            let full: Value = serde_json::from_str(text).unwrap();
            assert_eq!(skeleton, expected(&full), "{text}");
            assert!(refs.exact, "{text}");
            let noted: FxHashSet<String> = refs.iter().map(str::to_string).collect();
            assert_eq!(noted, crate::test_support::walked(&full), "{text}");
        }
    }

    /// A repeated key in what is built makes the references inexact; one in what is skipped
    /// does not, and the references noted then include the replaced value's.
    #[test]
    fn repeated_keys() {
        let (_, refs) = path_item(r##"{"get": {"a": 1, "a": {"$ref": "#/b"}}}"##).unwrap();
        assert!(!refs.exact);
        let text =
            r##"{"get": {"parameters": [{"schema": {"$ref": "#/gone", "$ref": "#/kept"}}]}}"##;
        let (tree, refs) = path_item(text).unwrap();
        assert!(refs.exact);
        assert_eq!(
            tree,
            serde_json::json!({"get": {"parameters": [{"schema": {}}]}})
        );
        let mut noted: Vec<&str> = refs.iter().collect();
        noted.sort();
        assert_eq!(noted, ["#/gone", "#/kept"]);
    }

    /// Broken text, in a skipped part or not, gives the plain parse's error, line and column
    /// included, and so does nesting past the limit.
    #[test]
    fn errors_are_the_plain_errors() {
        // `text` as the schema of a parameter, which is skipped.
        let skipped =
            |text: &str| format!("{{\"get\": {{\"parameters\": [{{\"schema\": {text}}}]}}}}");
        let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
        for text in [
            "".to_string(),
            "{".to_string(),
            "{\"get\": }".to_string(),
            "{\"x-a\": [1, 2}".to_string(),
            skipped("{\"a\": 1,}"),
            skipped("\"\\u12\""),
            skipped("1e400"),
            skipped(""),
            skipped(&deep),
            "{\"a\": 1} x".to_string(),
            format!("{{\"x-a\": {deep}}}"),
            format!("{{\"get\": {deep}}}"),
        ] {
            let ours = path_item(&text).unwrap_err().to_string();
            let plain = serde_json::from_str::<Value>(&text)
                .unwrap_err()
                .to_string();
            assert_eq!(ours, plain, "{text:?}");
        }
    }
}
