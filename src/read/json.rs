//! JSON text -> tree with `serde_json`. A large document is parsed in parts on the thread pool:
//! one pass over the text splits its objects down to three levels (`components.schemas.NAME`)
//! into their members' raw texts (`serde_json::value::RawValue`), and starts parsing each on
//! the pool as soon as it is found, while the pass reads on; the trees are put together in
//! document order. The tree is the one a plain parse gives (key order, repeated keys: the last
//! value at the first key's place), except that each piece is allowed `serde_json`'s nesting
//! limit from where it starts, so a text nested deeper than about 125 levels, which a plain
//! parse refuses, may read; a text that fails anywhere is parsed plainly, for the plain
//! parse's error. A document's path items are not parsed here: the same pass finds each item's
//! text, kept as a range of the document's text ([`Paths`]), and starts reading it for its
//! references and members.

use super::paths::Paths;
use super::references::ItemMember;
use indexmap::IndexMap;
use rustc_hash::FxHashSet;
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::ops::Range;
use std::sync::{Mutex, PoisonError};

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
    let started = Started::default();
    let (Top(members), count) = rayon::scope(|scope| {
        let starter = Starter::new(scope, &started);
        let mut de = serde_json::Deserializer::from_str(text);
        let top = TopSeed {
            depth: split_depth(text),
            starter: &starter,
        }
        .deserialize(&mut de)
        .ok()?;
        de.end().ok()?;
        Some((top, starter.count()))
    })?;
    let at = members.values().position(|m| matches!(m, Member::Items(_)));
    let mut trees = by_number(started.trees, count);
    let mut read = by_number(started.items, count);
    let mut root = Map::new();
    let (mut ranges, mut references, mut item_members) = Default::default();
    for (key, member) in members {
        match member {
            Member::Node(node) => {
                root.insert(key, node.into_value(&mut trees)?);
            }
            Member::Items(items) => {
                (ranges, (references, item_members)) = items_read(source, items, &mut read)?;
            }
        }
    }
    Some((root, at, ranges, (references, item_members)))
}

/// The path items' ranges in `source`, with their references and members as read.
fn items_read(
    source: &str,
    items: Items<'_>,
    read: &mut [Option<ItemRead>],
) -> Option<(IndexMap<String, Range<usize>>, super::ItemsRead)> {
    let base = source.as_ptr() as usize;
    let mut ranges = IndexMap::with_capacity(items.len());
    let mut references = FxHashSet::default();
    let mut members = Vec::with_capacity(items.len());
    for (key, (raw, n)) in items {
        let (found, item) = read.get_mut(n)?.take()?;
        references.extend(found);
        members.push(item);
        let start = (raw.get().as_ptr() as usize).checked_sub(base)?;
        let range = start..start + raw.get().len();
        source.get(range.clone())?;
        ranges.insert(key, range);
    }
    Some((ranges, (references, members)))
}

/// What reading a path item's text finds: its references and members.
type ItemRead = (FxHashSet<String>, Option<Vec<ItemMember>>);

/// Work the pass over a text starts on the pool as it finds the pieces, each numbered in the
/// order found: each raw text's tree, and what reading each path item's text finds (`None`
/// where that failed).
#[derive(Default)]
struct Started {
    trees: Mutex<Vec<(usize, Option<Value>)>>,
    items: Mutex<Vec<(usize, Option<ItemRead>)>>,
}

/// Starts the work of [`Started`] as the pass finds it, so that the rest of the text is read
/// while the pieces found so far parse.
struct Starter<'s, 'scope> {
    scope: &'s rayon::Scope<'scope>,
    started: &'scope Started,
    next: Cell<usize>,
}

impl<'s, 'scope> Starter<'s, 'scope> {
    fn new(scope: &'s rayon::Scope<'scope>, started: &'scope Started) -> Self {
        Starter {
            scope,
            started,
            next: Cell::new(0),
        }
    }

    /// How many pieces were started.
    fn count(&self) -> usize {
        self.next.get()
    }

    fn number(&self) -> usize {
        let n = self.next.get();
        self.next.set(n + 1);
        n
    }

    /// Parse `raw` on the pool; its number.
    fn tree(&self, raw: &'scope RawValue) -> usize {
        let (n, started) = (self.number(), self.started);
        self.scope.spawn(move |_| {
            let tree = serde_json::from_str(raw.get()).ok();
            lock(&started.trees).push((n, tree));
        });
        n
    }

    /// Read the text `raw` of path item `key` on the pool; its number.
    fn item(&self, key: &str, raw: &'scope RawValue) -> usize {
        let (n, started, key) = (self.number(), self.started, key.to_string());
        self.scope.spawn(move |_| {
            let read = super::references::read_member(&key, raw.get()).ok();
            lock(&started.items).push((n, read));
        });
        n
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The results of [`Started`] by number, `count` of them.
fn by_number<T>(results: Mutex<Vec<(usize, Option<T>)>>, count: usize) -> Vec<Option<T>> {
    let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None).take(count).collect();
    let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    for (n, result) in results {
        if let Some(slot) = slots.get_mut(n) {
            *slot = result;
        }
    }
    slots
}

/// An error for the key `serde_json::Value` reads as a raw value's marker (an object whose
/// first key it is reads as the JSON text of its value): a text with it is parsed plainly.
fn raw_value_token<E: serde::de::Error>(key: &str) -> Result<(), E> {
    if key == "$serde_json::private::RawValue" {
        return Err(E::custom("a raw value's marker"));
    }
    Ok(())
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

/// A top-level object read as its members, a `paths` member as its items' texts (each with the
/// number of its reading): one pass over the text. A repeated key keeps its first place and
/// takes its last value, as in a tree.
struct Top<'a>(IndexMap<String, Member<'a>>);

enum Member<'a> {
    Node(Node),
    Items(Items<'a>),
}

/// Reads a [`Top`], splitting the members' objects down to `depth`. A Swagger 2.0 document
/// (a `swagger` member) stops the pass: it is upgraded as a whole tree, parsed plainly.
struct TopSeed<'r, 's, 'scope> {
    depth: usize,
    starter: &'r Starter<'s, 'scope>,
}

impl<'de: 'scope, 'scope> DeserializeSeed<'de> for TopSeed<'_, '_, 'scope> {
    type Value = Top<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Top<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'scope, 'scope> Visitor<'de> for TopSeed<'_, '_, 'scope> {
    type Value = Top<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object whose paths is an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<'de>, A::Error> {
        let mut members = IndexMap::new();
        while let Some(key) = map.next_key::<String>()? {
            raw_value_token(&key)?;
            let member = match key.as_str() {
                "swagger" => return Err(serde::de::Error::custom("a Swagger 2.0 document")),
                "paths" => Member::Items(map.next_value_seed(ItemsSeed(self.starter))?),
                _ => Member::Node(map.next_value_seed(Split {
                    depth: 1,
                    max: self.depth,
                    starter: self.starter,
                })?),
            };
            members.insert(key, member);
        }
        Ok(Top(members))
    }
}

/// Reads a `paths` object as its items' texts, starting to read each as it is found.
struct ItemsSeed<'r, 's, 'scope>(&'r Starter<'s, 'scope>);

/// A `paths` object's items: each item's text and the number of its reading.
type Items<'a> = IndexMap<String, (&'a RawValue, usize)>;

impl<'de: 'scope, 'scope> DeserializeSeed<'de> for ItemsSeed<'_, '_, 'scope> {
    type Value = Items<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Items<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'scope, 'scope> Visitor<'de> for ItemsSeed<'_, '_, 'scope> {
    type Value = Items<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a paths object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Items<'de>, A::Error> {
        let mut items = IndexMap::new();
        while let Some(key) = map.next_key::<String>()? {
            raw_value_token(&key)?;
            let raw: &RawValue = map.next_value()?;
            let n = self.0.item(&key, raw);
            items.insert(key, (raw, n));
        }
        Ok(items)
    }
}

/// A value as the splitting pass leaves it: an object above the split depth as its members, a
/// value at that depth as the number of its parse, and anything else above it (an array, a
/// scalar) read whole.
enum Node {
    Object(IndexMap<String, Node>),
    Text(usize),
    Value(Value),
}

impl Node {
    /// The tree, each text's place taken by its tree in `trees` (by number); `None` when one
    /// did not parse.
    fn into_value(self, trees: &mut [Option<Value>]) -> Option<Value> {
        match self {
            Node::Object(members) => members
                .into_iter()
                .map(|(k, n)| Some((k, n.into_value(trees)?)))
                .collect::<Option<Map<String, Value>>>()
                .map(Value::Object),
            Node::Text(n) => trees.get_mut(n)?.take(),
            Node::Value(v) => Some(v),
        }
    }
}

/// Reads a value `depth` levels below the top into a [`Node`], splitting objects above `max`
/// and starting to parse each text at `max`.
struct Split<'r, 's, 'scope> {
    depth: usize,
    max: usize,
    starter: &'r Starter<'s, 'scope>,
}

impl<'de: 'scope, 'scope> DeserializeSeed<'de> for Split<'_, '_, 'scope> {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        if self.depth >= self.max {
            let raw = <&RawValue>::deserialize(d)?;
            return Ok(Node::Text(self.starter.tree(raw)));
        }
        d.deserialize_any(self)
    }
}

/// Every value but an object is read as `serde_json::Value` reads it.
impl<'de: 'scope, 'scope> Visitor<'de> for Split<'_, '_, 'scope> {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = IndexMap::new();
        while let Some(key) = map.next_key::<String>()? {
            raw_value_token(&key)?;
            let node = map.next_value_seed(Split {
                depth: self.depth + 1,
                max: self.max,
                starter: self.starter,
            })?;
            members.insert(key, node);
        }
        Ok(Node::Object(members))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Node::Value(Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Value(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Value(Value::Number(v.into())))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Value(Value::Number(v.into())))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Value(Value::from(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Value(Value::String(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Value(Value::String(v)))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Value(Value::Null))
    }
}

/// `bytes` parsed in parts, split [`SPLIT_DEPTH`] levels down whatever its size; `None` when it
/// is not one JSON object (or fails anywhere).
pub(super) fn parse_in_parts(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let started = Started::default();
    let (node, count) = rayon::scope(|scope| {
        let starter = Starter::new(scope, &started);
        let mut de = serde_json::Deserializer::from_str(text);
        let node = Split {
            depth: 0,
            max: SPLIT_DEPTH,
            starter: &starter,
        }
        .deserialize(&mut de)
        .ok()?;
        de.end().ok()?;
        Some((node, starter.count()))
    })?;
    if !matches!(node, Node::Object(_)) {
        return None;
    }
    node.into_value(&mut by_number(started.trees, count))
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
        // `serde_json::Value` reads an object whose first key is this marker as the text of its
        // value.
        let marker = r#"{"a": {"b": {"$serde_json::private::RawValue": "[1]"}}}"#;
        let plain: serde_json::Value = serde_json::from_str(marker).unwrap();
        assert!(super::parse_in_parts(marker.as_bytes()).is_none_or(|p| p == plain));
        for bad in ["[1, 2]", "{\"a\": 1", "{\"a\": tru}", "{} {}", "\u{feff}{}"] {
            assert!(super::parse_in_parts(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
