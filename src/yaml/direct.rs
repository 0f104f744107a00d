//! Direct: the YAML parser's calls build the JSON tree that a `yaml_serde::Value` converted by
//! `to_json` would give, without the YAML tree in between, or give up.

use super::{Y, json_key, zero_float};
use serde_json::{Map, Value};

/// A tree built by [`parse`], and the nesting of its deepest collection counted from the root.
pub(super) struct Direct {
    pub(super) tree: Value,
    pub(super) deepest: usize,
}

/// Parse `text` (a mapping `level` collections deep) straight into a JSON tree: the parser's
/// calls that would build a `yaml_serde::Value` build the tree `to_json` makes of it, without the
/// YAML tree in between (a third less time). It gives up on what that tree would go through
/// `apply_merge` or `to_json` for: a merge key `<<`, a key that repeats once converted (`1` and
/// `"1"`), a collection as a key, a number JSON cannot hold. Its errors are never reported: the
/// caller takes the slow path, which reports them as they are.
pub(super) fn parse(text: &str, level: usize) -> std::result::Result<Direct, yaml_serde::Error> {
    use serde::de::DeserializeSeed;
    let deepest = std::cell::Cell::new(0);
    let node = Node {
        level,
        deepest: &deepest,
    };
    let tree = node.deserialize(yaml_serde::Deserializer::from_str(text))?;
    Ok(Direct {
        tree,
        deepest: deepest.get(),
    })
}

/// One node for [`parse`]; each method mirrors `yaml_serde::Value`'s own visitor.
#[derive(Clone, Copy)]
struct Node<'a> {
    level: usize,
    deepest: &'a std::cell::Cell<usize>,
}

impl Node<'_> {
    fn inner(self) -> Self {
        self.deepest.set(self.deepest.get().max(self.level + 1));
        Node {
            level: self.level + 1,
            deepest: self.deepest,
        }
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Node<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }
    fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }
    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(f)
            .map(Value::Number)
            .ok_or_else(|| E::custom("infinite or NaN"))
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::de::DeserializeSeed::deserialize(self, d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner();
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(inner)? {
            out.push(item);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        use serde::de::Error as _;
        let inner = self.inner();
        let mut out = Map::new();
        while let Some(key) = map.next_key::<Y>()? {
            if zero_float(&key) {
                return Err(A::Error::custom("a key 0.0 (equal to -0.0 in YAML)"));
            }
            let key = json_key(key).ok_or_else(|| A::Error::custom("not a scalar key"))?;
            if key == "<<" || out.contains_key(&key) {
                return Err(A::Error::custom("a merge or repeated key"));
            }
            let value = map.next_value_seed(inner)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        use serde::de::VariantAccess;
        let ((), contents) = data.variant_seed(TagName)?;
        contents.newtype_variant_seed(self)
    }
}

/// A node's tag, refused when empty as `yaml_serde::Value` refuses it; otherwise dropped.
struct TagName;

impl<'de> serde::de::DeserializeSeed<'de> for TagName {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_string(self)
    }
}

impl serde::de::Visitor<'_> for TagName {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a YAML tag string")
    }
    fn visit_str<E: serde::de::Error>(self, tag: &str) -> Result<(), E> {
        if tag.is_empty() {
            return Err(E::custom("empty YAML tag is not allowed"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_direct_tree_is_the_yaml_tree_converted() {
        let tree = |text: &str| parse(text, 0).ok().map(|d| d.tree.to_string());
        let slow = |text: &str| {
            crate::yaml::parse_slow("t", text)
                .ok()
                .map(|v| v.to_string())
        };
        for text in [
            "a: 1\nb: -2\nc: 18446744073709551615\nd: 1.0\ne: 1e3\nf: 0x10\ng: 0o17\nh: -0.0\n",
            "a: ~\nb: null\nc:\nd: true\ne: 'true'\nf: \"x\\ty\"\ng: |\n  block\nh: >-\n  folded\n",
            "200: ok\n1.5: x\ntrue: y\nnull: z\n0x1F: v\n-7: u\n",
            "~: w\n",
            "a: !foo {b: 1}\nc: !!str 12\nd: !bar [1, !baz x]\ne: !!binary aGk=\n!k key: v\n",
            "a: &x {b: [1, 2]}\nc: *x\nd: &y 3\ne: [*y, *x]\n",
            "? a\n: 1\n? [b]\n: 2\n",
            "a: 1\n'1': 2\n1: 3\n",
            "a: .inf\n",
            "a: .nan\n",
            "a: ! x\n",
        ] {
            match tree(text) {
                Some(direct) => assert_eq!(Some(direct), slow(text), "{text}"),
                None => eprintln!("the slow path takes {text:?}"),
            }
        }
        // The ordinary documents do not fall back (so the comparison above is not empty).
        assert!(tree("a: 1\nb: [x, {c: ~}]\n200: !t v\n").is_some());
        // What the slow path handles: a collection as a key, a key repeated once converted, a
        // number JSON cannot hold.
        for text in [
            "? [b]\n: 2\n",
            "1: 3\n'1': 2\n",
            "a: .inf\n",
            "a: <<\n<<: {b: 1}\n",
        ] {
            assert!(tree(text).is_none(), "{text}");
        }
        assert_eq!(
            crate::yaml::parse_plain("t", "1: 3\n'1': 2\n")
                .unwrap()
                .to_string(),
            r#"{"1":2}"#
        );
    }
}
