//! The finished tool schema, [`Schema`]: a root object plus the shared `$defs` it reaches, and how
//! it is compared, indexed and serialized (with `$defs` written out after the root's keywords).

use super::Converted;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// A finished tool schema: its root object plus the definitions it reaches (`$defs`, sorted by
/// name). Definitions are shared between the tools that use them rather than copied; they are
/// written out under `$defs` when the schema is serialized.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    root: Value,
    pub(crate) defs: Vec<(Arc<str>, Arc<Converted>)>,
    /// `root` as compact JSON, when it was written to be measured against a size budget (so
    /// it is not written again): dropped by [`Schema::root_mut`].
    text: Option<Box<str>>,
}

impl Schema {
    /// A schema of `root` and the definitions it reaches.
    pub(crate) fn new(root: Value, defs: Vec<(Arc<str>, Arc<Converted>)>) -> Self {
        Schema {
            root,
            defs,
            text: None,
        }
    }

    /// A schema without definitions.
    pub fn plain(root: Value) -> Self {
        Schema::new(root, Vec::new())
    }

    /// [`Schema::new`] with `text`, `root` written as compact JSON.
    pub(super) fn written(
        root: Value,
        defs: Vec<(Arc<str>, Arc<Converted>)>,
        text: Option<Box<str>>,
    ) -> Self {
        Schema { root, defs, text }
    }

    /// The root object (`$defs` apart).
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The root object, to change.
    pub fn root_mut(&mut self) -> &mut Value {
        self.text = None;
        &mut self.root
    }

    /// The schema as one JSON value, `$defs` included.
    pub fn to_value(&self) -> Value {
        if self.defs.is_empty() {
            return self.root.clone();
        }
        let mut m = match &self.root {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        let defs = self
            .defs
            .iter()
            .map(|(k, c)| (k.to_string(), c.value.clone()))
            .collect();
        m.insert("$defs".into(), Value::Object(defs));
        Value::Object(m)
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

impl std::ops::Index<&str> for Schema {
    type Output = Value;
    /// A keyword of the root (`$defs` is not part of the root: use [`Schema::to_value`]).
    fn index(&self, key: &str) -> &Value {
        &self.root[key]
    }
}

impl serde::Serialize for Schema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize(self, s)
    }
}

impl Schema {
    /// Append the schema as compact JSON: the bytes `serde_json::to_writer` gives it, with each
    /// definition copied from its text rendered once ([`Converted::compact`]) instead of written
    /// again for every tool that carries it.
    pub(crate) fn write_compact(&self, out: &mut Vec<u8>) {
        match &self.text {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None => write_value(out, &self.root),
        }
        let Value::Object(root) = &self.root else {
            return;
        };
        if self.defs.is_empty() {
            return;
        }
        // Reopen the object for `$defs`.
        out.pop();
        if !root.is_empty() {
            out.push(b',');
        }
        out.extend_from_slice(b"\"$defs\":{");
        // Room for every definition at once: the definitions are most of a tool's bytes, and
        // growing the buffer while copying them copied what it held again at each growth.
        let room = self
            .defs
            .iter()
            .map(|(k, c)| k.len() + 4 + c.compact().len());
        out.reserve(room.sum());
        for (i, (k, c)) in self.defs.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(out, k);
            out.push(b':');
            out.extend_from_slice(c.compact().as_bytes());
        }
        out.extend_from_slice(b"}}");
    }
}

/// The root's keywords, then `$defs`.
fn serialize<S: serde::Serializer>(schema: &Schema, s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let Value::Object(root) = &schema.root else {
        return schema.root.serialize(s);
    };
    if schema.defs.is_empty() {
        return root.serialize(s);
    }
    struct Defs<'a>(&'a [(Arc<str>, Arc<Converted>)]);
    impl serde::Serialize for Defs<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, c)| (&**k, &c.value)))
        }
    }
    let mut m = s.serialize_map(Some(root.len() + 1))?;
    for (k, v) in root {
        m.serialize_entry(k, v)?;
    }
    m.serialize_entry("$defs", &Defs(&schema.defs))?;
    m.end()
}

/// Append `v` as compact JSON: the bytes of `serde_json::to_writer`, with strings that escape
/// nothing (most of them) copied as they are instead of checked byte by byte.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, item);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write_value(out, item);
            }
            out.push(b'}');
        }
        // Writing into a `Vec` cannot fail.
        scalar => {
            let _ = serde_json::to_writer(out, scalar);
        }
    }
}

/// Append `s` as a JSON string, as `serde_json` writes it.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    // Without a byte to escape (a control character, `"` or `\`), the text is written as it
    // is; the check is a plain fold, which is vectorized.
    let escapes = s.bytes().fold(false, |any, b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    });
    if escapes {
        let _ = serde_json::to_writer(out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    fn same(v: &Value) {
        let mut ours = Vec::new();
        super::write_value(&mut ours, v);
        assert!(ours == serde_json::to_vec(v).unwrap(), "{v}");
    }

    /// A schema finished under a size budget writes the text its root was measured by; once
    /// the root is changed, the changed root.
    #[test]
    fn a_changed_root_is_written_anew() {
        let doc = json!({"components": {"schemas": {"A": {"type": "string"}}}});
        let mut c = crate::schema::Converter::new("t", &doc);
        c.limits.budget = Some(1000);
        let root =
            json!({"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}});
        let out = c
            .convert(&root, crate::schema::Direction::Input, "/x")
            .unwrap();
        let mut schema = c
            .finish(out.value, &out.refs, crate::schema::Direction::Input)
            .unwrap();
        let text = |s: &super::Schema| {
            let mut t = Vec::new();
            s.write_compact(&mut t);
            String::from_utf8(t).unwrap()
        };
        assert_eq!(text(&schema), schema.to_value().to_string());
        schema.root_mut()["title"] = json!("T");
        assert_eq!(text(&schema), schema.to_value().to_string());
        assert!(text(&schema).contains(r#""title":"T""#));
    }

    /// The bytes of `serde_json::to_writer`, for every spec in `specs/` and strings with every
    /// byte that escapes (or not) at every place.
    #[test]
    fn compact_text_is_serde_json_s() {
        for (_, v) in crate::test_support::spec_trees() {
            same(&v);
        }
        for c in (0u8..0x80).map(char::from).chain(['é', '\u{2028}', '😀']) {
            for s in [
                c.to_string(),
                format!("ab{c}"),
                format!("{c}{}", "x".repeat(40)),
            ] {
                same(&json!({ s.clone(): [s, 1, -2.5, null, true, {}, []] }));
            }
        }
    }
}
