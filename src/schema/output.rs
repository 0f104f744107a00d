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
    pub root: Value,
    pub defs: Vec<(Arc<str>, Arc<Converted>)>,
}

impl Schema {
    /// A schema without definitions.
    pub fn plain(root: Value) -> Self {
        Schema {
            root,
            defs: Vec::new(),
        }
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
        serialize(self, false, s)
    }
}

/// A [`Schema`] for compact JSON (`serde_json::to_writer`) only: the same bytes, with each
/// definition copied from its text rendered once ([`Converted::compact`]) instead of serialized
/// again for every tool that carries it. Any other serializer (indented JSON, YAML) would get that
/// text as it is: serialize the [`Schema`] itself there.
pub(crate) struct CompactJson<'a>(pub &'a Schema);

impl serde::Serialize for CompactJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        serialize(self.0, true, s)
    }
}

/// The root's keywords, then `$defs` (from their values, or from their rendered text).
fn serialize<S: serde::Serializer>(
    schema: &Schema,
    rendered: bool,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeMap};
    let Value::Object(root) = &schema.root else {
        return schema.root.serialize(s);
    };
    if schema.defs.is_empty() {
        return root.serialize(s);
    }
    struct Defs<'a>(&'a [(Arc<str>, Arc<Converted>)], bool);
    impl serde::Serialize for Defs<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(self.0.len()))?;
            for (k, c) in self.0 {
                if self.1 {
                    m.serialize_entry(&**k, c.compact().map_err(S::Error::custom)?)?;
                } else {
                    m.serialize_entry(&**k, &c.value)?;
                }
            }
            m.end()
        }
    }
    let mut m = s.serialize_map(Some(root.len() + 1))?;
    for (k, v) in root {
        m.serialize_entry(k, v)?;
    }
    m.serialize_entry("$defs", &Defs(&schema.defs, rendered))?;
    m.end()
}
