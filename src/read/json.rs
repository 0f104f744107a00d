//! JSON text -> tree with `serde_json`. A large document is parsed in parts on the thread pool:
//! its top-level members are first found as raw text (`serde_json::value::RawValue`), then
//! parsed side by side, a member that holds much of the text (`components`,
//! `components.schemas`) split the same way in turn, and put together in document order. The
//! tree is the one a plain parse gives (key order, repeated keys: the last value at the first
//! key's place); a text that fails anywhere is parsed plainly, for the plain parse's error.
//! A document's path items are not parsed here: they are kept as text ([`Paths`]).

use super::paths::Paths;
use indexmap::IndexMap;
use rayon::prelude::*;
use rustc_hash::FxHashSet;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

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

/// A document's text parsed, its path items kept as text: the top-level object without `paths`
/// (when that is an object), the items, and the references in the items' text (found while
/// the rest parses). `None` when the text is not one JSON object, or an item's text does not
/// read.
pub(super) fn parse_document(
    bytes: &[u8],
) -> Option<(Map<String, Value>, Paths, FxHashSet<String>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let members: IndexMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    // A Swagger 2.0 document is upgraded as a whole tree: its paths are parsed with the rest.
    let at = members
        .get_index_of("paths")
        .filter(|&i| members[i].get().starts_with('{') && !members.contains_key("swagger"));
    let big = if bytes.len() >= PARALLEL_FROM {
        text.len() / 8
    } else {
        usize::MAX
    };
    let (keys, raws): (Vec<String>, Vec<&RawValue>) = members.into_iter().unzip();
    let parts: Vec<Result<Value, (Paths, FxHashSet<String>)>> = raws
        .into_par_iter()
        .enumerate()
        .map(|(i, raw)| match at {
            Some(at) if at == i => {
                let items: IndexMap<String, &RawValue> = serde_json::from_str(raw.get()).ok()?;
                let items = Paths::from_texts(
                    at,
                    items.into_iter().map(|(k, v)| (k, v.to_owned())).collect(),
                );
                let references = super::item_references(&items).ok()?;
                Some(Err((items, references)))
            }
            _ => parse_member(raw, big, 1).map(Ok),
        })
        .collect::<Option<_>>()?;
    let (mut paths, mut references) = Default::default();
    let mut root = Map::new();
    for (key, part) in keys.into_iter().zip(parts) {
        match part {
            Ok(value) => {
                root.insert(key, value);
            }
            Err(items) => (paths, references) = items,
        }
    }
    Some((root, paths, references))
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
