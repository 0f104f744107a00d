//! JSON text -> tree, on two threads for a large document. The members of the top-level object
//! are first found as raw text, those of `paths`, `components` and `definitions` (most of a
//! document's bytes), and those of each member of `components`, in the same scan (`scan.rs`,
//! which builds no tree and checks only the objects' own syntax, every part being parsed
//! too); a member of `components` over an eighth of the text (`components.schemas`) is
//! parsed as its members, and any other member over an eighth is scanned again for its
//! members. The raw parts are parsed by two threads, each taking the next part not yet taken:
//! the second starts on each part as soon as the scan finds it, the scanning one joins in when
//! the scan is done. The tree is put together in document order. The tree is the one a plain
//! `serde_json` parse gives, duplicate keys included (the last value wins, at the first one's
//! place), and so is the nesting limit (127 levels, counted from the document's root). On any
//! failure the plain parse runs, and its error (with line and column) is the one reported.
//! Every part is parsed by `noting`, which notes the references in it on the way.

use serde_json::{Map, Value};

/// The `Visitor` methods that build a `serde_json::Value` from a scalar as `serde_json`'s own
/// `Deserialize` does (`expecting` included), for the visitors that build trees.
macro_rules! value_scalars {
    () => {
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any valid JSON value")
        }

        fn visit_bool<E>(self, v: bool) -> Result<serde_json::Value, E> {
            Ok(serde_json::Value::Bool(v))
        }

        fn visit_i64<E>(self, v: i64) -> Result<serde_json::Value, E> {
            Ok(serde_json::Value::Number(v.into()))
        }

        fn visit_u64<E>(self, v: u64) -> Result<serde_json::Value, E> {
            Ok(serde_json::Value::Number(v.into()))
        }

        fn visit_f64<E>(self, v: f64) -> Result<serde_json::Value, E> {
            Ok(serde_json::Number::from_f64(v)
                .map_or(serde_json::Value::Null, serde_json::Value::Number))
        }

        fn visit_str<E>(self, v: &str) -> Result<serde_json::Value, E> {
            Ok(serde_json::Value::String(v.to_owned()))
        }

        fn visit_unit<E>(self) -> Result<serde_json::Value, E> {
            Ok(serde_json::Value::Null)
        }
    };
}
use value_scalars;

mod brackets;
mod noting;
mod scan;
mod skeleton;

pub(crate) use noting::{References, from_str as parse_str_noting, parse_str};
pub(crate) use scan::Raw;
pub(crate) use skeleton::path_item as parse_path_item_skeleton;

/// Below this size one thread parses the whole text: splitting costs a scan, and two threads
/// pay off only when parsing takes milliseconds (Stripe, 2.5 MB, converts in 0.10-0.11 s parsed
/// on one thread, in 0.08-0.09 s on two).
const MIN_SPLIT: usize = 1 << 20;
/// The deepest nesting `serde_json` accepts.
pub(crate) const MAX_DEPTH: usize = 127;
/// How many levels are split into members: the top level, its members (`paths`) and, over the
/// threshold, theirs (`components.schemas`, most of an OpenAPI 3 document's definitions: parsed
/// as one part, it left one thread parsing alone for half of Stripe's parse).
const MAX_SPLIT_DEPTH: usize = 3;

/// Parse JSON text into a tree (see the module doc).
pub fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
    parse_noting(bytes).map(|(tree, _)| tree)
}

/// [`parse`], with the references in the tree (as [`crate::schema::each_reference`] finds
/// them), noted while parsing; `None` where they are not known exactly (a repeated key).
pub(crate) fn parse_noting(bytes: &[u8]) -> serde_json::Result<(Value, Option<References>)> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        // Not UTF-8: the plain parse's error.
        return serde_json::from_slice(bytes).map(|tree| (tree, None));
    };
    parse_noting_text(text)
}

/// [`parse_noting`] of text already known to be UTF-8.
pub(crate) fn parse_noting_text(text: &str) -> serde_json::Result<(Value, Option<References>)> {
    let exact = |(tree, refs): (Value, References)| {
        let refs = refs.exact.then_some(refs);
        (tree, refs)
    };
    if text.len() >= MIN_SPLIT
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
        && let Some(parsed) = parse_split(text)
    {
        return Ok(exact(parsed));
    }
    noting::from_str(text).map(exact)
}

/// A part of the document: parsed on its own (the parts' values come in document order), or an
/// object split into its members.
enum Piece {
    Raw,
    Object(Vec<(String, Piece)>),
}

/// A raw part and its depth (the containers around it).
type Part<'a> = (Raw<'a>, usize);

/// `None` when anything fails: the caller parses again plainly, for the error.
fn parse_split(text: &str) -> Option<(Value, References)> {
    split_and_parse(text, text.len() / 8, true)
}

/// Split `text` into parts of at least `threshold` bytes where it can, parse them (each at its
/// depth, see [`parse_part`]) and put the tree together. `parallel`: a second thread parses
/// each part as soon as the scan finds it, and this one joins in when the scan is done (the
/// scan, a few milliseconds for a large document, no longer comes before all the parsing).
fn split_and_parse<'a>(
    text: &'a str,
    threshold: usize,
    parallel: bool,
) -> Option<(Value, References)> {
    // The whole text is never checked for nesting (depth 0): a plain parse limits it itself.
    let whole = Raw {
        text: trim(text),
        nesting: 0,
    };
    let scan = |found: &mut dyn FnMut(Part<'a>)| split(whole, threshold, 0, found);
    let parse = |(raw, depth): Part<'a>| parse_part(raw, depth);
    let (tree, values) = if parallel {
        crate::par::each_produced(scan, parse)?
    } else {
        let mut parts = Vec::new();
        let tree = scan(&mut |part| parts.push(part))?;
        let values = parts.into_iter().map(parse).collect::<Option<Vec<_>>>()?;
        (tree, values)
    };
    let mut refs = References::new();
    let mut parts = Vec::with_capacity(values.len());
    for (value, part) in values {
        refs.extend(part);
        parts.push(value);
    }
    let tree = assemble(tree, &mut parts.into_iter(), &mut refs)?;
    Some((tree, refs))
}

/// Split `raw` (at `depth`) into members when it is an object of `threshold` bytes or more,
/// at most [`MAX_SPLIT_DEPTH`] levels down (an object nested a million levels around one long
/// string would otherwise be split a million times deep). Each raw part is handed to `found`
/// as soon as it is known, in document order.
fn split<'a>(
    raw: Raw<'a>,
    threshold: usize,
    depth: usize,
    found: &mut dyn FnMut(Part<'a>),
) -> Option<Piece> {
    let text = raw.text;
    if text.len() < threshold || !text.starts_with('{') || depth >= MAX_SPLIT_DEPTH {
        found((raw, depth));
        return Some(Piece::Raw);
    }
    let mut members = Vec::new();
    if depth == 0 {
        // The members that are large in practice are read as members in the same scan, and
        // those of `components` as their members too (`components.schemas` is about half of
        // some documents: scanned again, it was a third of AWS EC2's scan); any other member
        // over the threshold is scanned again.
        let levels = |key: &str| match key {
            "components" => 2,
            _ if BIG.contains(&key) => 1,
            _ => 0,
        };
        let mut s = scan::Scan::new(text);
        s.object(|key, s| {
            let levels = levels(&key);
            if levels > 0 && !s.at_object() {
                return None;
            }
            members.push((key, scanned(s, levels, threshold, found)?));
            Some(())
        })?;
        s.end()?;
    } else {
        for (k, v) in scan::members(text)? {
            members.push((k, split(v, threshold, depth + 1, found)?));
        }
    }
    Some(Piece::Object(members))
}

/// The top-level member here as a piece: opened `levels` deep (an object then, always split),
/// each member found handed on as soon as it is scanned (every path item, as the scan goes).
fn scanned<'a>(
    s: &mut scan::Scan<'a>,
    levels: usize,
    threshold: usize,
    found: &mut dyn FnMut(Part<'a>),
) -> Option<Piece> {
    if levels == 0 {
        return split(s.value()?, threshold, 1, found);
    }
    let mut members = Vec::new();
    s.object(|key, s| {
        // Below the top-level member, an object is split by its size, known once scanned.
        let member = open(s, levels - 1)?;
        members.push((key, piece(member, threshold, 2, found)?));
        Some(())
    })?;
    Some(Piece::Object(members))
}

/// The piece a member found at `depth` (2 or more) makes: as [`split`] makes of its text,
/// using the members the scan found where it opened it.
fn piece<'a>(
    member: Member<'a>,
    threshold: usize,
    depth: usize,
    found: &mut dyn FnMut(Part<'a>),
) -> Option<Piece> {
    match member {
        Member::Raw(raw) => split(raw, threshold, depth, found),
        Member::Opened(raw, _) if raw.text.len() < threshold || depth >= MAX_SPLIT_DEPTH => {
            found((raw, depth));
            Some(Piece::Raw)
        }
        Member::Opened(_, members) => {
            let mut pieces = Vec::with_capacity(members.len());
            for (k, m) in members {
                pieces.push((k, piece(m, threshold, depth + 1, found)?));
            }
            Some(Piece::Object(pieces))
        }
    }
}

/// Top-level members that hold most of a document's bytes, and are objects.
const BIG: &[&str] = &["paths", "components", "definitions"];

/// A member of an object, as raw text or, opened, as its own members (with its text).
pub(crate) enum Member<'a> {
    Raw(Raw<'a>),
    Opened(Raw<'a>, Vec<(String, Member<'a>)>),
}

/// The value at the start of `text` (after whitespace), its inside unchecked (see `scan.rs`).
pub(crate) fn value_at(text: &str) -> Option<Raw<'_>> {
    scan::Scan::new(text).value()
}

/// The members of the object `text`, in order, repeated keys kept: as raw text, but each opened
/// into its members as many levels down as `levels` says for its key, in one scan ([`scan`]:
/// only the objects' own syntax is checked, so the caller must parse every raw part). `None` if
/// `text` is not one object, or a member `levels` opens is not an object; below that level, a
/// member that is not an object stays raw.
pub(crate) fn open_members<'a>(
    text: &'a str,
    levels: impl Fn(&str) -> usize,
) -> Option<Vec<(String, Member<'a>)>> {
    let mut s = scan::Scan::new(text);
    let mut out = Vec::new();
    s.object(|key, s| {
        let levels = levels(&key);
        if levels > 0 && !s.at_object() {
            return None;
        }
        out.push((key, open(s, levels)?));
        Some(())
    })?;
    s.end()?;
    Some(out)
}

/// The value here, opened `levels` deep where it is an object.
fn open<'a>(s: &mut scan::Scan<'a>, levels: usize) -> Option<Member<'a>> {
    if levels == 0 || !s.at_object() {
        return s.value().map(Member::Raw);
    }
    let mut members = Vec::new();
    let raw = s.object_text(|key, s| {
        let member = open(s, levels - 1)?;
        let nesting = match &member {
            Member::Raw(raw) | Member::Opened(raw, _) => raw.nesting,
        };
        members.push((key, member));
        Some(nesting)
    })?;
    Some(Member::Opened(raw, members))
}

/// `text` without JSON's whitespace around it (no other: a plain parse refuses the rest).
fn trim(text: &str) -> &str {
    text.trim_matches([' ', '\t', '\n', '\r'])
}

/// Parse a raw part, noting its references; `None` if it fails or nests deeper than the limit
/// allows at its depth.
fn parse_part(raw: Raw<'_>, depth: usize) -> Option<(Value, References)> {
    if depth > 0 && raw.nesting > MAX_DEPTH - depth {
        return None;
    }
    noting::from_str(raw.text).ok()
}

/// The tree of `piece`, its raw parts taken in order from `values`. Members go in as a plain
/// parse puts them (`Map::insert`: a repeated key keeps its first place and its last value);
/// `refs` notes the references the members put together here are themselves.
fn assemble(
    piece: Piece,
    values: &mut impl Iterator<Item = Value>,
    refs: &mut References,
) -> Option<Value> {
    match piece {
        Piece::Raw => values.next(),
        Piece::Object(members) => {
            let mut map = Map::with_capacity(members.len());
            for (key, p) in members {
                let value = assemble(p, values, refs)?;
                refs.member(&key, &value);
                if map.insert(key, value).is_some() {
                    refs.exact = false;
                }
            }
            Some(Value::Object(map))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parse with the split forced (any size), or `None` where it falls back; parsed on two
    /// threads as the scan goes, checked against the same on one. The references noted are
    /// the tree's, found by a walk, unless a repeated key made them inexact.
    fn split_parse(text: &str) -> Option<Value> {
        let one = split_and_parse(text, 1, false);
        let two = split_and_parse(text, 1, true);
        assert_eq!(
            one.as_ref().map(|(tree, _)| tree.to_string()),
            two.as_ref().map(|(tree, _)| tree.to_string()),
            "{text}"
        );
        for (tree, refs) in one.iter().chain(two.iter()) {
            let mut walked = rustc_hash::FxHashSet::default();
            crate::schema::each_reference(tree, |r| {
                walked.insert(r.to_string());
            });
            if refs.exact {
                let found: rustc_hash::FxHashSet<String> =
                    refs.iter().map(str::to_string).collect();
                assert_eq!(found, walked, "{text}");
            }
        }
        one.map(|(tree, _)| tree)
    }

    /// References are noted at every level the split puts together (members of the top level,
    /// of `paths` and `components`, of `components.schemas`) and inside the parts; a key
    /// repeated at such a level makes them inexact.
    #[test]
    fn references_are_noted_at_every_level() {
        let text = r##"{"$ref": "#/top", "mapping": {"a": "#/top-mapping"},
            "paths": {"$ref": "#/p", "/a": {"$ref": "#/item"}},
            "components": {"$ref": "#/c", "schemas": {"$ref": "#/s", "mapping": {"b": "#/sm"},
            "S": {"properties": {"x": {"$ref": "#/deep"}}}, "T": {"$ref": "#/deep"}}}}"##;
        for threshold in [1, 40, text.len()] {
            for parallel in [false, true] {
                let (_, refs) = split_and_parse(text, threshold, parallel).unwrap();
                let mut found: Vec<&str> = refs.distinct().into_iter().collect();
                found.sort_unstable();
                assert_eq!(
                    found,
                    [
                        "#/c",
                        "#/deep",
                        "#/item",
                        "#/p",
                        "#/s",
                        "#/sm",
                        "#/top",
                        "#/top-mapping"
                    ],
                    "{threshold} {parallel}"
                );
                assert!(refs.exact);
                if threshold == 1 {
                    // `S` and `T` are parts of their own, each with its own `#/deep`.
                    let deep = refs.iter().filter(|r| *r == "#/deep").count();
                    assert_eq!(deep, 2, "{parallel}");
                }
            }
        }
        let repeated = r##"{"paths": {"/a": {"$ref": "#/gone"}, "/a": {}}, "info": {}}"##;
        let (tree, refs) = split_and_parse(repeated, 1, true).unwrap();
        assert_eq!(tree["paths"]["/a"], serde_json::json!({}));
        assert!(!refs.exact);
    }

    /// `paths`, `components` and `definitions` are read as members in the first scan; one that
    /// is repeated keeps the last value at the first place, and one that is not an object makes
    /// the whole text be parsed plainly.
    #[test]
    fn large_members_opened_in_one_scan_give_the_plain_tree() {
        let text = r#"{"paths": {"/a": {"get": {}}, "/a": {"put": 1}}, "info": {"t": "x"},
            "paths": {"/b": {}}, "components": {"schemas": {"S": {"type": "string"}}},
            "definitions": {}}"#;
        let plain: Value = serde_json::from_str(text).unwrap();
        let split = split_parse(text).unwrap();
        assert_eq!(
            serde_json::to_string(&split).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        let filler = "x".repeat(MIN_SPLIT);
        for member in [r#""paths": null"#, r#""components": [1]"#] {
            let not_an_object = format!("{{{member}}}");
            assert_eq!(split_parse(&not_an_object), None, "{not_an_object}");
            // Large enough to be split: the fallback's tree.
            let large = format!("{{{member}, \"filler\": \"{filler}\"}}");
            let plain: Value = serde_json::from_str(&large).unwrap();
            assert_eq!(
                parse(large.as_bytes()).unwrap().to_string(),
                plain.to_string()
            );
        }
    }

    /// Mutated documents: whenever the split parse gives a tree, a plain parse gives the same
    /// one (the scan never makes a broken text parse, nor splits a valid one wrongly); and the
    /// unmutated document is split. The fuzz target never reaches the split (under 1 MiB).
    #[test]
    fn the_split_parse_of_mutated_documents_is_the_plain_parse_or_nothing() {
        let seed = r#"{"openapi": "3.1.0", "info": {"title": "t\"}", "version": "1"},
            "paths": {"/a/{id}": {"get": {"parameters": [{"name": "id", "in": "path",
            "schema": {"type": ["string", "null"], "enum": ["[", "{", "\\"]}}],
            "responses": {"200": {"description": "ok", "x": [1, -2.5e3, true, null, {}]}}}},
            "/b": {}}, "components": {"schemas": {"S": {"type": "object", "properties":
            {"k\u00e9y": {"const": "}]"}}}}}, "tags": [{"name": "n"}]}"#;
        assert!(split_parse(seed).is_some());
        let significant = b"{}[]\",:\\ 0-.etfnu\n";
        let mut next = crate::test_support::xorshift(0x9e37_79b9_7f4a_7c15);
        let (mut split, mut refused) = (0, 0);
        for _ in 0..20_000 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..1 + next(3) {
                let at = next(bytes.len());
                match next(3) {
                    0 => bytes[at] = significant[next(significant.len())],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, significant[next(significant.len())]),
                }
            }
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let plain = serde_json::from_str::<Value>(text).ok();
            match split_parse(text) {
                Some(tree) => {
                    let plain = plain.unwrap_or_else(|| panic!("accepted a broken text: {text}"));
                    assert_eq!(tree.to_string(), plain.to_string(), "{text}");
                    split += 1;
                }
                None => refused += 1,
            }
        }
        assert!(
            split > 1_000 && refused > 1_000,
            "{split} split, {refused} refused"
        );
    }

    /// `components` is opened two levels down in the first scan; its members are parts of
    /// their own or split further by size, as `split` would: the plain tree whatever the
    /// threshold, and the nesting limit still counted from the root.
    #[test]
    fn components_opened_two_levels_give_the_plain_tree() {
        let text = r##"{"openapi": "3.0.0", "components": {"schemas": {"A": {"type": "string"},
            "B": {"properties": {"a": {"$ref": "#/components/schemas/A"}}}, "A": [1]},
            "parameters": {"p": {"name": "p", "in": "query"}}, "empty": {}, "n": 5, "l": [{}],
            "responses": {"r": {"description": "x"}}}, "paths": {"/a": {}}}"##;
        let plain: Value = serde_json::from_str(text).unwrap();
        for threshold in 1..=text.len() + 1 {
            for parallel in [false, true] {
                let split = split_and_parse(text, threshold, parallel);
                assert_eq!(
                    split.map(|(v, _)| v.to_string()),
                    Some(plain.to_string()),
                    "threshold {threshold}"
                );
            }
        }
        // Root, `components`, `schemas`, `S`, then 124 levels: 127 in all, which a plain parse
        // accepts; one more it refuses. Split down to `S`, or with `schemas` one part (smaller
        // than the threshold).
        let filler = "x".repeat(1000);
        for (k, ok) in [(124, true), (125, false)] {
            let deep = format!(
                "{{\"components\": {{\"schemas\": {{\"S\": {}{}}}}}, \"f\": \"{filler}\"}}",
                "[".repeat(k),
                "]".repeat(k)
            );
            assert_eq!(serde_json::from_str::<Value>(&deep).is_ok(), ok);
            for threshold in [1, 500] {
                for parallel in [false, true] {
                    let split = split_and_parse(&deep, threshold, parallel);
                    assert_eq!(split.is_some(), ok, "{k} levels, threshold {threshold}");
                }
            }
        }
    }

    #[test]
    fn the_split_tree_is_the_plain_tree() {
        let text = r#" {"a": {"x": [1, 2.5, "s\"}"], "y": {"z": null}}, "b": true,
            "a": {"again": {}}, "c": {"k": "v", "k": "w", "e": {}}, "d": [] } "#;
        let plain: Value = serde_json::from_str(text).unwrap();
        assert_eq!(split_parse(text), Some(plain.clone()));
        // Key order too (the repeated `a` keeps its first place).
        let keys: Vec<&String> = plain.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b", "c", "d"]);
        assert_eq!(
            serde_json::to_string(&split_parse(text).unwrap()).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
    }

    #[test]
    fn nesting_counts_from_the_root() {
        // 125 levels inside a member: 127 in all, which a plain parse accepts.
        let fits = format!(
            "{{\"a\": {{\"b\": {}{}}}}}",
            "[".repeat(125),
            "]".repeat(125)
        );
        assert!(serde_json::from_str::<Value>(&fits).is_ok());
        assert!(split_parse(&fits).is_some());
        // One more is refused by a plain parse, so the split one falls back.
        let deep = format!(
            "{{\"a\": {{\"b\": {}{}}}}}",
            "[".repeat(126),
            "]".repeat(126)
        );
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        assert!(split_parse(&deep).is_none());
        let text = r#"{"s": "[[[{{", "t": ["\\", "\"["]}"#;
        assert_eq!(scan::Scan::new(text).value().unwrap().nesting, 2);
    }

    #[test]
    fn deep_nesting_around_a_long_string_is_refused_without_deep_recursion() {
        let levels = 100_000;
        let text = format!(
            "{}\"{}\"{}",
            "{\"a\":".repeat(levels),
            "x".repeat(MIN_SPLIT),
            "}".repeat(levels)
        );
        assert!(parse_split(&text).is_none());
        assert!(parse(text.as_bytes()).is_err());
    }

    #[test]
    fn broken_text_falls_back() {
        for text in [
            r#"{"a": {"b": 1}"#,
            r#"{"a": {"b": 1}} x"#,
            "{\"a\": {\"b\": 1}}\u{a0}",
            r#"{"a": {"b": 01}}"#,
            r#"{"a": {"b": "\q"}}"#,
        ] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
            assert!(split_parse(text).is_none(), "{text}");
        }
    }

    #[test]
    fn a_large_broken_document_gets_the_plain_error() {
        let filler = "x".repeat(MIN_SPLIT);
        let text = format!("{{\"a\": \"{filler}\",\n \"b\": {{\"c\": tru}}}}");
        let plain = serde_json::from_str::<Value>(&text)
            .unwrap_err()
            .to_string();
        assert_eq!(parse(text.as_bytes()).unwrap_err().to_string(), plain);
        assert!(plain.contains("line 2"), "{plain}");
    }

    #[test]
    fn a_large_document_parses_on_two_threads_to_the_same_tree() {
        let mut paths = Map::new();
        for i in 0..2000 {
            paths.insert(
                format!("/p{i}"),
                serde_json::json!({"get": {"description": "d".repeat(i % 50), "n": i, "f": 1.5e3}}),
            );
        }
        let doc =
            serde_json::json!({"openapi": "3.1.0", "paths": paths, "components": {"x": [1, 2]}});
        let text = doc.to_string();
        // Compared as text: `Value`'s equality ignores key order.
        assert_eq!(
            parse_split(&text).map(|(v, _)| v.to_string()),
            Some(doc.to_string())
        );
    }
}
