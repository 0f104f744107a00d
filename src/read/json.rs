//! JSON text -> tree with `serde_json`. A large document is parsed in parts on the thread pool:
//! one pass over the text splits its objects down to three levels (`components.schemas.NAME`)
//! into their members' raw texts (`serde_json::value::RawValue`), which are then parsed side by
//! side and put together in document order. The tree is the one a plain parse gives (key
//! order, repeated keys: the last value at the first key's place); a text that fails anywhere
//! is parsed plainly, for the plain parse's error. A document's path items are not parsed
//! here: the same pass finds each item's text, kept as a range of the document's text
//! ([`Paths`]).

use super::paths::Paths;
use indexmap::IndexMap;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::ops::Range;

/// Texts shorter than this are parsed in one piece.
const PARALLEL_FROM: usize = 1 << 18;

/// Parse JSON text into a tree.
pub(super) fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
    if bytes.len() >= PARALLEL_FROM
        && let Some(tree) = parse_in_parts(bytes)
    {
        return Ok(tree);
    }
    serde_json::from_slice(bytes)
}

/// A document read by [`parse_document`]: the top-level object without `paths` (when that is
/// an object), the path items, and the references in the items' text.
pub(super) type Parsed = (Map<String, Value>, Paths, FxHashSet<String>);

/// A document's text (from byte `from`, past a byte order mark) parsed, its path items kept as
/// text (ranges of `text`, which they keep) and their references found while the rest parses.
/// `text` back when it is not one JSON object with an object or no `paths`, is a Swagger 2.0
/// document, or an item's text does not read.
pub(super) fn parse_document(text: String, from: usize) -> Result<Parsed, String> {
    let Some((root, at, ranges, (references, members))) =
        text.get(from..).and_then(|t| parts(&text, t))
    else {
        return Err(text);
    };
    let paths = match at {
        Some(at) => {
            let mut paths = Paths::from_ranges(at, text, ranges);
            paths.set_members(members);
            paths
        }
        None => Paths::default(),
    };
    Ok((root, paths, references))
}

/// The tree of the JSON object `text` (a part of `source`) without its `paths` object, where
/// `paths` stood, its items as ranges of `source`, and the items as read.
type Parts = (
    Map<String, Value>,
    Option<usize>,
    IndexMap<String, Range<usize>>,
    super::ItemsRead,
);

fn parts(source: &str, text: &str) -> Option<Parts> {
    let mut de = serde_json::Deserializer::from_str(text);
    let Top(members) = TopSeed(split_depth(text)).deserialize(&mut de).ok()?;
    de.end().ok()?;
    // A Swagger 2.0 document is upgraded as a whole tree: parsed plainly, as before.
    if members.contains_key("swagger") {
        return None;
    }
    let at = members.values().position(|m| matches!(m, Member::Items(_)));
    let mut leaves = Vec::new();
    for member in members.values() {
        if let Member::Node(node) = member {
            node.texts(&mut leaves);
        }
    }
    // The items are read while the rest parses.
    let (items, values) = rayon::join(
        || match members.values().find_map(Member::items) {
            Some(items) => read_items(source, items),
            None => Some(Default::default()),
        },
        || parse_texts(&leaves),
    );
    let ((ranges, read), values) = (items?, values?);
    let mut values = values.into_iter();
    let mut root = Map::new();
    for (key, member) in members {
        if let Member::Node(node) = member {
            root.insert(key, node.into_value(&mut values));
        }
    }
    Some((root, at, ranges, read))
}

/// Path items' ranges in `source` and what reading their texts found.
fn read_items(
    source: &str,
    items: &IndexMap<String, &RawValue>,
) -> Option<(IndexMap<String, Range<usize>>, super::ItemsRead)> {
    let texts: Vec<(&str, &str)> = items
        .iter()
        .map(|(k, raw)| (k.as_str(), raw.get()))
        .collect();
    let read = super::read_texts(&texts).ok()?;
    let base = source.as_ptr() as usize;
    let ranges = items.iter().map(|(k, raw)| {
        let start = (raw.get().as_ptr() as usize).checked_sub(base)?;
        let range = start..start + raw.get().len();
        source.get(range.clone())?;
        Some((k.clone(), range))
    });
    Some((ranges.collect::<Option<_>>()?, read))
}

/// Levels below the top down to which the objects of a text of at least [`PARALLEL_FROM`]
/// bytes are split (`components.schemas.NAME`), so that their members parse side by side.
const SPLIT_DEPTH: usize = 3;

/// How deep `text`'s objects are split: a short text's top-level members are parsed whole.
fn split_depth(text: &str) -> usize {
    if text.len() >= PARALLEL_FROM {
        SPLIT_DEPTH
    } else {
        1
    }
}

/// A top-level object read as its members, a `paths` member as its items' texts: one pass over
/// the text. A repeated key keeps its first place and takes its last value, as in a tree.
struct Top<'a>(IndexMap<String, Member<'a>>);

enum Member<'a> {
    Node(Node<'a>),
    Items(IndexMap<String, &'a RawValue>),
}

impl<'a> Member<'a> {
    fn items(&self) -> Option<&IndexMap<String, &'a RawValue>> {
        match self {
            Member::Items(items) => Some(items),
            Member::Node(_) => None,
        }
    }
}

/// Reads a [`Top`], splitting the members' objects down to this depth.
struct TopSeed(usize);

impl<'de> DeserializeSeed<'de> for TopSeed {
    type Value = Top<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Top<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object whose paths is an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut members = IndexMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let member = if key == "paths" {
                Member::Items(map.next_value()?)
            } else {
                Member::Node(map.next_value_seed(Split::below(1, self.0))?)
            };
            members.insert(key, member);
        }
        Ok(Top(members))
    }
}

/// A value as the splitting pass leaves it: an object above the split depth as its members, a
/// value at that depth as its text to parse, and anything else above it (an array, a scalar)
/// read whole.
enum Node<'a> {
    Object(IndexMap<String, Node<'a>>),
    Text(&'a RawValue),
    Value(Value),
}

impl<'a> Node<'a> {
    /// The texts to parse, in document order.
    fn texts(&self, out: &mut Vec<&'a RawValue>) {
        match self {
            Node::Object(members) => members.values().for_each(|n| n.texts(out)),
            Node::Text(raw) => out.push(raw),
            Node::Value(_) => {}
        }
    }

    /// The tree, each text's place taken by the next of `parsed` (the texts' trees in order).
    fn into_value(self, parsed: &mut impl Iterator<Item = Value>) -> Value {
        match self {
            Node::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(k, n)| (k, n.into_value(parsed)))
                    .collect(),
            ),
            Node::Text(_) => parsed.next().unwrap_or(Value::Null),
            Node::Value(v) => v,
        }
    }
}

/// Parse texts on the pool, in order; `None` if one does not parse.
fn parse_texts(texts: &[&RawValue]) -> Option<Vec<Value>> {
    texts
        .par_iter()
        .map(|raw| serde_json::from_str(raw.get()).ok())
        .collect()
}

/// Reads a value `depth` levels below the top into a [`Node`], splitting objects above `max`.
#[derive(Clone, Copy)]
struct Split {
    depth: usize,
    max: usize,
}

impl Split {
    fn below(depth: usize, max: usize) -> Split {
        Split { depth, max }
    }
}

impl<'de> DeserializeSeed<'de> for Split {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Node<'de>, D::Error> {
        if self.depth >= self.max {
            return <&RawValue>::deserialize(d).map(Node::Text);
        }
        d.deserialize_any(self)
    }
}

/// Every value but an object is read as `serde_json::Value` reads it.
impl<'de> Visitor<'de> for Split {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut members = IndexMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let node = map.next_value_seed(Split::below(self.depth + 1, self.max))?;
            members.insert(key, node);
        }
        Ok(Node::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Node::Value(Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::String(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Value(Value::Null))
    }
}

/// `bytes` parsed in parts, split [`SPLIT_DEPTH`] levels down whatever its size; `None` when it
/// is not one JSON object (or fails anywhere).
pub(super) fn parse_in_parts(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    let node = Split::below(0, SPLIT_DEPTH).deserialize(&mut de).ok()?;
    de.end().ok()?;
    if !matches!(node, Node::Object(_)) {
        return None;
    }
    let mut leaves = Vec::new();
    node.texts(&mut leaves);
    let values = parse_texts(&leaves)?;
    Some(node.into_value(&mut values.into_iter()))
}

#[cfg(test)]
mod tests {
    /// A document's path items are ranges of its text, each the text of one item; the rest is
    /// the plain parse's tree. A text whose `paths` is not an object comes back whole.
    #[test]
    fn path_items_are_ranges_of_the_text() {
        let text =
            "\u{feff}{\"openapi\": \"3.1.0\", \"paths\": {\"/a\": {\"get\": {}}, \"/b\": [1],
            \"/a\": {\"put\": {\"x\": \"\\u00e9\"}}}, \"info\": {\"title\": \"t\"}}";
        let (root, paths, _) = super::parse_document(text.to_string(), 3).unwrap();
        assert_eq!(
            serde_json::Value::Object(root).to_string(),
            r#"{"openapi":"3.1.0","info":{"title":"t"}}"#
        );
        let items: Vec<(&str, &str)> = paths.iter().map(|(k, i)| (k, i.text())).collect();
        assert_eq!(
            items,
            [("/a", r#"{"put": {"x": "\u00e9"}}"#), ("/b", "[1]")]
        );
        for odd in [
            r#"{"paths": null}"#,
            r#"{"paths": {"/a": {}}, "paths": []}"#,
            "[]",
        ] {
            assert_eq!(super::parse_document(odd.to_string(), 0).unwrap_err(), odd);
        }
    }

    /// Parsed in parts, a text gives the tree of a plain parse, key order and repeated keys
    /// included, at every level that is split; a text that is not one JSON object gives `None`.
    #[test]
    fn parts_give_the_plain_tree() {
        // Long enough that the text is split three levels down.
        let big = "x".repeat(super::PARALLEL_FROM / 2);
        let text = format!(
            r#"{{"openapi": "3.1.0", "paths": {{"/b": {{"get": {{"d": "{big}"}}}}, "/a": 1, "/b": {{"put": [1, 2.5, null, true]}}}},
            "components": {{"schemas": {{"Z": {{"d": "{big}"}}, "A": "first", "A": {{"e": "\u00e9\n"}}}}, "x": [],
                "n": {{"a": -1, "b": 2.5e3, "c": 18446744073709551615, "d": true, "e": null, "f": "\u00e9", "g": [{{}}], "a": 1e300}}}},
            "openapi": "3.0.3", "tail": "{big}", "f": -0.0, "e": {{}}, "s": [1, {{"x": 0.1}}]}}"#
        );
        let plain: serde_json::Value = serde_json::from_str(&text).unwrap();
        let parts = super::parse_in_parts(text.as_bytes()).unwrap();
        assert_eq!(parts.to_string(), plain.to_string());
        // As a document, the same tree without `paths`.
        let (root, paths, _) = super::parse_document(text.clone(), 0).unwrap();
        let mut rest = plain.as_object().unwrap().clone();
        rest.shift_remove("paths");
        assert_eq!(
            serde_json::Value::Object(root).to_string(),
            serde_json::Value::Object(rest).to_string()
        );
        assert_eq!(
            paths.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            ["/b", "/a"]
        );
        for bad in ["[1, 2]", "{\"a\": 1", "{\"a\": tru}", "{} {}", "\u{feff}{}"] {
            assert!(super::parse_in_parts(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
