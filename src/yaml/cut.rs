//! Cut: a large YAML text parsed on two threads. A line scan finds where the entries of a block
//! mapping start (a line at the mapping's indentation that begins a key): the top level's, and
//! those of every entry over an eighth of the text (`paths`, `components`, `schemas`), three
//! levels at most. Runs of entries are parsed at once, half of the text per thread, and the tree
//! is put together in document order. It is the tree a plain parse gives, or else `None` and the
//! caller parses plainly, for the error:
//! - a text with anchors, merge keys, line breaks other than LF and CRLF, or a byte-order mark
//!   is not cut (see `cuttable`);
//! - a run that fails, repeats another run's key (as YAML or once converted), or nests too deeply
//!   counted from the document's root, falls back;
//! - a cut in the wrong place (a line inside a quoted scalar or a flow collection that spans
//!   lines) leaves the run before it unterminated, so it fails too.

use super::direct::Direct;
use super::{Y, json_key, zero_float};
use serde_json::{Map, Value};

/// The deepest nesting of collections `yaml_serde` accepts, the root included.
const MAX_NESTING: usize = 128;
/// How many levels of mappings are split into entries: the root, its entries (`paths`,
/// `components`) and theirs (`schemas`).
const MAX_SPLIT_DEPTH: usize = 3;

/// A part of the document: consecutive entries of a block mapping as text, inside `level`
/// enclosing mappings (0: the entries of the root), or an entry whose value is split further.
enum Piece<'a> {
    Run(&'a str, usize),
    Entry(String, Vec<Piece<'a>>),
}

/// Parse `text` cut into runs: entries over `threshold` bytes are split, runs end after `chunk`
/// bytes. `None` when anything fails: the caller parses again plainly, for the error.
pub(super) fn parse(text: &str, threshold: usize, chunk: usize) -> Option<Value> {
    if !cuttable(text.as_bytes()) {
        return None;
    }
    let body = document_body(text)?;
    let table: Vec<Line> = lines(body)
        .map(|(at, line)| Line {
            at,
            indent: indentation(line),
        })
        .collect();
    let cut = Cut {
        threshold: threshold.max(1),
        chunk: chunk.max(1),
    };
    let whole = Span {
        text: body,
        base: 0,
        table: &table,
    };
    let pieces = cut.mapping(whole, 0, 0)?;
    let mut runs = Vec::new();
    collect(&pieces, &mut runs);
    let (first, second) = crate::par::halves_by_weight(&runs, |(t, _)| t.len(), parse_runs);
    let mut maps = first?.into_iter().chain(second.ok()??);
    let root = assemble(pieces, &mut maps)?;
    Some(Value::Object(root))
}

/// Whether runs of `text` can stand alone, as far as a byte scan can tell: no anchor (so no
/// alias resolves across runs, and `yaml_serde`'s budget of alias dereferences, counted per
/// document, is never used), no merge key `<<`, and no line break the parser sees but the line
/// scan does not (a lone CR, U+0085, U+2028, U+2029) or byte-order mark (a column there).
fn cuttable(text: &[u8]) -> bool {
    let anchor = memchr::memchr_iter(b'&', text).any(|i| may_be_anchor(text, i));
    let breaks = memchr::memchr3_iter(b'\r', 0xC2, 0xE2, text).any(|i| {
        let next = &text[i + 1..];
        match text[i] {
            b'\r' => next.first() != Some(&b'\n'),
            0xC2 => next.starts_with(&[0x85]),
            _ => next.starts_with(&[0x80, 0xA8]) || next.starts_with(&[0x80, 0xA9]),
        }
    });
    !anchor
        && !breaks
        && memchr::memmem::find(text, b"<<").is_none()
        && memchr::memmem::find(text, "\u{feff}".as_bytes()).is_none()
}

/// Whether the `&` at `at` may begin an anchor: a name follows at once, and it stands where a
/// node may start (at the start of a line, after `:`, `-`, `?`, `[`, `{`, `,` or a tag). An
/// `&` inside plain text (`R&D`, `a && b`) is not one; inside quoted text it may be taken for
/// one, which only costs the second thread.
fn may_be_anchor(text: &[u8], at: usize) -> bool {
    let after = text.get(at + 1).copied().unwrap_or(b' ');
    if matches!(
        after,
        b' ' | b'\t' | b'\n' | b'\r' | b',' | b'[' | b']' | b'{' | b'}'
    ) {
        return false;
    }
    let before = &text[..at];
    let blank = |b: &u8| matches!(b, b' ' | b'\t');
    let token_end = before.iter().rposition(|b| !blank(b));
    let Some(end) = token_end else {
        return true;
    };
    if end + 1 == at && !matches!(before[end], b'[' | b'{' | b',') {
        return false; // not separated: `a&b`
    }
    match before[end] {
        b'\n' | b'\r' | b':' | b'-' | b'?' | b'[' | b'{' | b',' => true,
        _ => {
            // A tag just before (`!t &a`)?
            let start = before[..end]
                .iter()
                .rposition(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(0, |k| k + 1);
            before[start] == b'!'
        }
    }
}

/// The text after a leading `---` line; `None` for directives (`%`), several documents or an
/// end marker (`...`), which the plain parse handles.
fn document_body(text: &str) -> Option<&str> {
    let body = match text.strip_prefix("---") {
        Some(rest) => {
            let (line, rest) = rest.split_once('\n')?;
            if !line.trim().is_empty() {
                return None;
            }
            rest
        }
        None => text,
    };
    let marker = |m: &str| body.starts_with(m) || body.contains(&format!("\n{m}"));
    if marker("%") || marker("---") || marker("...") {
        return None;
    }
    Some(body)
}

/// Lines of `text` with their byte offsets (each line without its `\n`).
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line.strip_suffix('\n').unwrap_or(line))
    })
}

/// A line of the text being cut: where it starts, and its [`indentation`]. The table is built in
/// one pass; each level of the cut reads its slice instead of the text.
struct Line {
    at: usize,
    indent: Option<(usize, u8)>,
}

/// Leading spaces of a line, and the byte after them; `None` for a blank or comment line.
fn indentation(line: &str) -> Option<(usize, u8)> {
    let n = line.bytes().take_while(|&b| b == b' ').count();
    match line.as_bytes().get(n) {
        None | Some(b'#' | b'\r') => None,
        Some(&b) => Some((n, b)),
    }
}

/// Whether a line whose content starts with `b` can begin a mapping entry we cut at. Indicators
/// (sequences, complex keys, flow collections, anchors, tags, aliases, block scalars, ...) never
/// do: such a line stays inside the entry before it, where the parser sees it in its place.
fn starts_key(b: u8) -> bool {
    !matches!(
        b,
        b'\t'
            | b'-'
            | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Part of the text being cut: its text, where it starts in the whole, and its lines.
#[derive(Clone, Copy)]
struct Span<'a, 't> {
    text: &'a str,
    base: usize,
    table: &'t [Line],
}

impl<'a, 't> Span<'a, 't> {
    /// Lines `from..to` (indices into `table`; `to` may be its length).
    fn lines(self, from: usize, to: usize) -> Span<'a, 't> {
        let offset = |i: usize| {
            self.table
                .get(i)
                .map_or(self.text.len(), |l| l.at - self.base)
        };
        let (start, end) = (offset(from), offset(to));
        Span {
            text: &self.text[start..end],
            base: self.base + start,
            table: &self.table[from..to],
        }
    }
}

/// How far a text is cut: entries of `threshold` bytes or more are split, runs end after `chunk`.
struct Cut {
    threshold: usize,
    chunk: usize,
}

impl Cut {
    /// The entries of a block mapping at `indent`, `level` mappings deep. `None` if the span
    /// does not begin with an entry (after blank and comment lines) or has a line less indented
    /// than one.
    fn mapping<'a>(
        &self,
        span: Span<'a, '_>,
        indent: usize,
        level: usize,
    ) -> Option<Vec<Piece<'a>>> {
        let mut starts = Vec::new(); // indices into `span.table`
        for (i, line) in span.table.iter().enumerate() {
            let Some((n, b)) = line.indent else {
                continue;
            };
            if n == indent && starts_key(b) {
                starts.push(i);
            } else if starts.is_empty() || n < indent || (n == indent && b == b'\t') {
                // Not an entry first, or a line less indented than the entries (or a tab there).
                return None;
            }
        }
        if starts.is_empty() {
            return None;
        }
        starts[0] = 0; // leading blank and comment lines go with the first entry
        starts.push(span.table.len());
        let mut pieces = Vec::new();
        let mut run_start = 0; // in `span.text`
        for pair in starts.windows(2) {
            let entry = span.lines(pair[0], pair[1]);
            let (start, end) = (
                entry.base - span.base,
                entry.base - span.base + entry.text.len(),
            );
            if entry.text.len() >= self.threshold
                && level + 1 < MAX_SPLIT_DEPTH
                && let Some(piece) = self.entry(entry, indent, level)
            {
                if run_start < start {
                    pieces.push(Piece::Run(&span.text[run_start..start], level));
                }
                pieces.push(piece);
                run_start = end;
            } else if end - run_start >= self.chunk {
                pieces.push(Piece::Run(&span.text[run_start..end], level));
                run_start = end;
            }
        }
        if run_start < span.text.len() {
            pieces.push(Piece::Run(&span.text[run_start..], level));
        }
        Some(pieces)
    }

    /// Split one entry whose key line is `key:` alone and whose value is a block mapping
    /// indented deeper than the key, with no line of the value less indented than its entries;
    /// `None` for any other entry (it stays a run).
    fn entry<'a>(&self, entry: Span<'a, '_>, indent: usize, level: usize) -> Option<Piece<'a>> {
        // The key line is the first that is not blank or a comment; the value is the lines after.
        let k = entry.table.iter().position(|line| line.indent.is_some())?;
        let value = entry.lines(k + 1, entry.table.len());
        if value.table.is_empty() {
            return None;
        }
        let key = plain_key(entry.lines(k, k + 1).text.trim_end())?;
        let (child_indent, _) = value
            .table
            .iter()
            .find_map(|line| line.indent)
            .filter(|&(n, b)| n > indent && starts_key(b))?;
        let children = self.mapping(value, child_indent, level + 1)?;
        Some(Piece::Entry(key, children))
    }
}

/// The key of a line that is only `KEY:` (no value, anchor, tag or comment), as JSON names it.
fn plain_key(line: &str) -> Option<String> {
    let line = line.trim_start();
    let first = *line.as_bytes().first()?;
    if !line.ends_with(':') || line.contains(" #") || first == b'#' || !starts_key(first) {
        return None;
    }
    let Ok(Y::Mapping(mapping)) = yaml_serde::from_str::<Y>(line) else {
        return None;
    };
    let mut entries = mapping.into_iter();
    match (entries.next(), entries.next()) {
        (Some((key, Y::Null)), None) if !zero_float(&key) => json_key(key).filter(|k| k != "<<"),
        _ => None,
    }
}

fn collect<'a>(pieces: &[Piece<'a>], out: &mut Vec<(&'a str, usize)>) {
    for piece in pieces {
        match piece {
            Piece::Run(text, level) => out.push((text, *level)),
            Piece::Entry(_, children) => collect(children, out),
        }
    }
}

/// Parse runs of entries, each into a map; `None` if one cannot stand for its place in the
/// document (see the module doc).
fn parse_runs(runs: &[(&str, usize)]) -> Option<Vec<Map<String, Value>>> {
    runs.iter()
        .map(
            |&(text, level)| match super::direct::parse(text, level).ok()? {
                Direct {
                    tree: Value::Object(map),
                    deepest,
                } if deepest <= MAX_NESTING => Some(map),
                _ => None,
            },
        )
        .collect()
}

/// The mapping of `pieces`, each run's map taken in order from `maps`. A key that two pieces
/// both have is left to the plain parse (it refuses a repeated YAML key).
fn assemble(
    pieces: Vec<Piece<'_>>,
    maps: &mut impl Iterator<Item = Map<String, Value>>,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    let put = |out: &mut Map<String, Value>, key: String, value: Value| {
        if out.contains_key(&key) {
            return None;
        }
        out.insert(key, value);
        Some(())
    };
    for piece in pieces {
        match piece {
            Piece::Run(..) => {
                for (key, value) in maps.next()? {
                    put(&mut out, key, value)?;
                }
            }
            Piece::Entry(key, children) => {
                let value = Value::Object(assemble(children, maps)?);
                put(&mut out, key, value)?;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{self, parse_slow};

    /// The reference: through `yaml_serde::Value`.
    fn plain(text: &str) -> Option<Value> {
        parse_slow("t.yaml", text).ok()
    }

    /// Parse with every entry split as far as it goes and every run one entry long.
    fn split_parse(text: &str) -> Option<Value> {
        super::parse(text, 1, 1)
    }

    fn same_tree(text: &str) {
        let plain = plain(text).expect("a plain parse");
        let split = split_parse(text).expect("a split parse");
        assert_eq!(
            serde_json::to_string(&split).unwrap(),
            serde_json::to_string(&plain).unwrap(),
            "{text}"
        );
    }

    #[test]
    fn the_split_tree_is_the_plain_tree() {
        same_tree(
            "# leading comment\nopenapi: 3.1.0\ninfo: {title: t,\n  version: '1'}\npaths:\n  \
             # a comment\n  /a:\n    get:\n      description: |\n        text\n        more\n\n      \
             x: [1, 2]\n      y: R&D & more\n  \"/b\":\n    200: ok\n    '201': created\n  /c: \
             \"multi\n    line\"\n# between\ncomponents:\n  schemas:\n    A: {type: string}\n    \
             B:\n      !t k: {type: object}\n      title: b\n    C: plain\n      continued\n",
        );
        same_tree("---\na: 1\nb:\n  c: 2\n  d:\n    e: 3\n");
        same_tree("a: 1\r\nb:\r\n  c: 2\r\n  d: 3\r\n");
        // A cut is not needed where a key line has anything after its colon.
        same_tree("a: !!map\n  b: 1\nc: 2\nd: x # y:\ne:\n  f: 1\n");
    }

    #[test]
    fn what_a_run_cannot_stand_for_falls_back() {
        for text in [
            // Anchors, merge keys, line breaks the line scan does not see, a byte-order mark.
            "a: &x 1\nb: *x\n",
            "a: [&x 1]\nb: 2\n",
            "<<:\n  a: 1\nb: 2\n",
            "a:\n  \u{2028}b: 1\n",
            "a:\n  \u{2029}b: 1\n",
            "a:\n  \u{85}b: 1\n",
            "a:\n\u{feff}b: 1\n",
            "a:\r  b: 1\n",
            // Keys YAML takes for the same and JSON does not.
            "0.0: a\n-0.0: b\n",
            "a:\n  0.0: a\nb: 1\n-0.0: c\n",
            // A key that two runs have (the plain parse refuses it).
            "a: 1\nb: 2\na: 3\n",
            "a:\n  x: 1\n  y: 2\na: 3\n",
            // A merge at a run's top level.
            "a: 1\n<<: {b: 2}\n",
            // Cuts inside a quoted scalar and a flow collection that span lines.
            "a: \"x\nb: y\"\n",
            "a: {x: 1,\nb: 2}\n",
            // Several documents, directives.
            "a: 1\n---\nb: 2\n",
            "%YAML 1.2\n---\na: 1\n",
        ] {
            assert!(split_parse(text).is_none(), "{text}");
        }
        // The cases the plain parse accepts give its tree through `parse`.
        for text in [
            "a: &x 1\nb: *x\n",
            "a: 1\n<<: {b: 2}\n",
            "a: \"x\nb: y\"\n",
            "<<:\n  a: 1\nb: 2\n",
            "a:\n  \u{2028}b: 1\n",
        ] {
            assert_eq!(yaml::parse("t", text).ok(), plain(text), "{text}");
            assert!(plain(text).is_some());
        }
        let duplicate = yaml::parse("t", "0.0: a\n-0.0: b\n")
            .unwrap_err()
            .to_string();
        assert!(duplicate.contains("duplicate entry"), "{duplicate}");
    }

    #[test]
    fn nesting_counts_from_the_root() {
        // The root, `a`, `b` and 125 sequences: 128 collections, which a plain parse accepts.
        let at = |n: usize| format!("a:\n  b:\n    c: {}1{}\n", "[".repeat(n), "]".repeat(n));
        let fits = at(125);
        assert!(plain(&fits).is_some());
        same_tree(&fits);
        let deep = at(126);
        assert!(plain(&deep).is_none());
        assert!(split_parse(&deep).is_none());
    }

    #[test]
    fn a_large_document_parses_on_two_threads_to_the_same_tree() {
        let mut paths = Map::new();
        for i in 0..12000 {
            paths.insert(
                format!("/p{i}"),
                serde_json::json!({"get": {"description": "d".repeat(i % 50), "n": i, "f": 1.5e3}}),
            );
        }
        let doc = serde_json::json!({"openapi": "3.1.0", "paths": paths,
            "components": {"schemas": {"A": {"type": "string"}, "B": [1, 2]}}});
        let text = yaml_serde::to_string(&doc).unwrap();
        assert!(text.len() >= yaml::MIN_SPLIT);
        // Compared as text: `Value`'s equality ignores key order.
        assert_eq!(
            super::parse(&text, text.len() / 8, text.len() / 32).map(|v| v.to_string()),
            Some(doc.to_string())
        );
    }
}
