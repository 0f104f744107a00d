//! JSON text -> tree with `serde_json`. A large document is parsed in parts on the thread pool:
//! its top-level members are first found as raw text (`serde_json::value::RawValue`), then
//! parsed side by side, a member that holds much of the text (`components`,
//! `components.schemas`) split the same way in turn, and put together in document order. The
//! tree is the one a plain parse gives (key order, repeated keys: the last value at the first
//! key's place); a text that fails anywhere is parsed plainly, for the plain parse's error.
//! A document's path items are not parsed here: the pass that finds the top-level members
//! finds each item's text too, kept as a range of the document's text ([`Paths`]).

use super::paths::Paths;
use indexmap::IndexMap;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
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
    let Top(members) = serde_json::from_str(text).ok()?;
    // A Swagger 2.0 document is upgraded as a whole tree: parsed plainly, as before.
    if members.contains_key("swagger") {
        return None;
    }
    let big = if text.len() >= PARALLEL_FROM {
        text.len() / 8
    } else {
        usize::MAX
    };
    let at = members.values().position(|m| matches!(m, Member::Items(_)));
    let (keys, members): (Vec<String>, Vec<Member>) = members.into_iter().unzip();
    type Part = Result<Value, (IndexMap<String, Range<usize>>, super::ItemsRead)>;
    let parts: Vec<Part> = members
        .into_par_iter()
        .map(|member| match member {
            Member::Items(items) => {
                let texts: Vec<(&str, &str)> = items
                    .iter()
                    .map(|(k, raw)| (k.as_str(), raw.get()))
                    .collect();
                let read = super::read_texts(&texts).ok()?;
                let base = source.as_ptr() as usize;
                let ranges = items.into_iter().map(|(k, raw)| {
                    let start = (raw.get().as_ptr() as usize).checked_sub(base)?;
                    let range = start..start + raw.get().len();
                    source.get(range.clone())?;
                    Some((k, range))
                });
                Some(Err((ranges.collect::<Option<_>>()?, read)))
            }
            Member::Text(raw) => parse_member(raw, big, 1).map(Ok),
        })
        .collect::<Option<_>>()?;
    let (mut ranges, mut read) = Default::default();
    let mut root = Map::new();
    for (key, part) in keys.into_iter().zip(parts) {
        match part {
            Ok(value) => {
                root.insert(key, value);
            }
            Err(items) => (ranges, read) = items,
        }
    }
    Some((root, at, ranges, read))
}

/// A top-level object read as its members' texts, a `paths` member as its items' texts: one
/// pass over the text. A repeated key keeps its first place and takes its last value, as in
/// a tree.
struct Top<'a>(IndexMap<String, Member<'a>>);

enum Member<'a> {
    Text(&'a RawValue),
    Items(IndexMap<String, &'a RawValue>),
}

impl<'de> serde::Deserialize<'de> for Top<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Top<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object whose paths is an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut members = IndexMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let member = if key == "paths" {
                        Member::Items(map.next_value()?)
                    } else {
                        Member::Text(map.next_value()?)
                    };
                    members.insert(key, member);
                }
                Ok(Top(members))
            }
        }
        d.deserialize_map(V)
    }
}

pub(super) fn parse_in_parts(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    parse_object(text, text.len() / 8, 0).map(Value::Object)
}

/// The object `text`, its members parsed on the pool; a member over `big` bytes is itself split
/// (two levels below the top at most).
fn parse_object(text: &str, big: usize, depth: usize) -> Option<Map<String, Value>> {
    // Into a map first: a repeated key keeps its first place and takes its last value.
    let members: indexmap::IndexMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    let (keys, raws): (Vec<String>, Vec<&RawValue>) = members.into_iter().unzip();
    let values: Vec<Value> = raws
        .into_par_iter()
        .map(|raw| parse_member(raw, big, depth + 1))
        .collect::<Option<_>>()?;
    Some(keys.into_iter().zip(values).collect())
}

/// A member's value at `depth` below the top, split when it is an object over `big` bytes and
/// at most two levels down.
fn parse_member(raw: &RawValue, big: usize, depth: usize) -> Option<Value> {
    let inner = raw.get();
    if depth <= 2 && inner.len() > big && inner.starts_with('{') {
        parse_object(inner, big, depth).map(Value::Object)
    } else {
        serde_json::from_str(inner).ok()
    }
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
        let big = "x".repeat(400);
        let text = format!(
            r#"{{"openapi": "3.1.0", "paths": {{"/b": {{"get": {{"d": "{big}"}}}}, "/a": 1, "/b": {{"put": [1, 2.5, null, true]}}}},
            "components": {{"schemas": {{"Z": {{"d": "{big}"}}, "A": "first", "A": {{"e": "\u00e9\n"}}}}, "x": []}},
            "openapi": "3.0.3", "tail": "{big}"}}"#
        );
        let plain: serde_json::Value = serde_json::from_str(&text).unwrap();
        let parts = super::parse_in_parts(text.as_bytes()).unwrap();
        assert_eq!(parts.to_string(), plain.to_string());
        for bad in ["[1, 2]", "{\"a\": 1", "{\"a\": tru}", "{} {}", "\u{feff}{}"] {
            assert!(super::parse_in_parts(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
