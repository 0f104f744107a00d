//! YAML text -> JSON tree (key order kept). `yaml_serde` parses and applies merge keys (`<<`);
//! scalar keys such as response codes become strings. Nesting is bounded by the parser (128
//! collections, counted from the root) and flow nesting is refused early (see `MAX_FLOW_DEPTH`).
//! Most documents are read straight into the JSON tree (`direct`); what that cannot give
//! exactly (merge keys, keys YAML and JSON compare differently, ...) goes through a
//! `yaml_serde::Value` (`parse_slow`), the reference the other paths are tested against.
//!
//! A large document is parsed on two threads. A line scan finds where the entries of a block
//! mapping start (a line at the mapping's indentation that begins a key): the top level's, and
//! those of every entry over an eighth of the text (`paths`, `components`, `schemas`), three
//! levels at most. Runs of entries are parsed at once, half of the text per thread, and the tree
//! is put together in document order. It is the tree a plain parse gives, or else the whole text
//! is parsed plainly and the error reported is that parse's own:
//! - a text with anchors, merge keys, line breaks other than LF and CRLF, or a byte-order mark
//!   is not cut (see `cuttable`);
//! - a run that fails, repeats another run's key (as YAML or once converted), or nests too deeply
//!   counted from the document's root, falls back;
//! - a cut in the wrong place (a line inside a quoted scalar or a flow collection that spans
//!   lines) leaves the run before it unterminated, so it fails too.

use crate::error::{Error, Location, Result};
use serde_json::{Map, Value};
use yaml_serde::Value as Y;

/// Below this size one thread parses the whole text (YAML parses at about 20 MB/s here, so
/// this is about 25 ms of work).
const MIN_SPLIT: usize = 512 << 10;
/// The deepest nesting of collections `yaml_serde` accepts, the root included.
const MAX_NESTING: usize = 128;
/// How many levels of mappings are split into entries: the root, its entries (`paths`,
/// `components`) and theirs (`schemas`).
const MAX_SPLIT_DEPTH: usize = 3;
/// The YAML parser's time grows with the square of flow nesting (20,000 levels: 3 s), before its
/// own depth limit is reached; deeper flow nesting than this is refused up front.
const MAX_FLOW_DEPTH: usize = 1000;

/// Parse YAML text into a JSON tree; errors are named after `file`.
pub fn parse(file: &str, text: &str) -> Result<Value> {
    if let Some((line, column)) = deep_flow_nesting(text, MAX_FLOW_DEPTH) {
        return Err(input(
            file,
            Location::LineCol { line, column },
            format!(
                "invalid YAML: recursion limit exceeded (more than {MAX_FLOW_DEPTH} nested `[`/`{{`)"
            ),
        ));
    }
    if text.len() >= MIN_SPLIT
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
        && let Some(tree) = parse_split(text, text.len() / 8, text.len() / 32)
    {
        return Ok(tree);
    }
    parse_plain(file, text)
}

fn parse_plain(file: &str, text: &str) -> Result<Value> {
    if !text.contains("<<")
        && let Ok(Direct { tree, .. }) = direct(text, 0)
    {
        return Ok(tree);
    }
    parse_slow(file, text)
}

/// Through a `yaml_serde::Value`: merge keys applied, then converted (see [`to_json`]).
fn parse_slow(file: &str, text: &str) -> Result<Value> {
    let mut value: Y = yaml_serde::from_str(text).map_err(|e| {
        let location = match e.location() {
            Some(l) => Location::LineCol {
                line: l.line(),
                column: l.column(),
            },
            None => Location::None,
        };
        input(
            file,
            location,
            format!(
                "invalid YAML: {}",
                crate::load::strip_position(&e.to_string())
            ),
        )
    })?;
    value
        .apply_merge()
        .map_err(|e| input(file, Location::None, format!("invalid YAML merge key: {e}")))?;
    to_json(value).map_err(|e| input(file, Location::Pointer(e.pointer()), e.message))
}

/// For the parity sweep (`examples/yaml_parity.rs`): the tree of the slow path, which every other
/// path must equal, and of the split with every entry cut (`None` where it falls back).
#[doc(hidden)]
pub fn parity_trees(text: &str) -> (Option<Value>, Option<Value>) {
    (parse_slow("t", text).ok(), parse_split(text, 1, 1))
}

fn input(file: &str, location: Location, message: impl Into<String>) -> Error {
    Error::Input {
        file: file.to_string(),
        location,
        message: message.into(),
    }
}

/// A part of the document: consecutive entries of a block mapping as text, inside `level`
/// enclosing mappings (0: the entries of the root), or an entry whose value is split further.
enum Piece<'a> {
    Run(&'a str, usize),
    Entry(String, Vec<Piece<'a>>),
}

/// Entries over `threshold` bytes are split; runs are cut after `chunk` bytes. `None` when
/// anything fails: the caller parses again plainly, for the error.
fn parse_split(text: &str, threshold: usize, chunk: usize) -> Option<Value> {
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
    let pieces = split_mapping(body, 0, &table, 0, 0, threshold.max(1), chunk.max(1))?;
    let mut runs = Vec::new();
    collect(&pieces, &mut runs);
    // Two halves of about equal size: the second starts where half the bytes are behind.
    let total: usize = runs.iter().map(|(t, _)| t.len()).sum();
    let mut behind = 0;
    let cut = runs
        .iter()
        .position(|(t, _)| {
            behind += t.len();
            behind > total / 2
        })
        .map_or(runs.len(), |i| i + 1);
    let (first, second) = runs.split_at(cut);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| parse_runs(second));
        (parse_runs(first), second.join())
    });
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
/// one pass; each level of the cut reads it instead of the text.
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

/// Split the entries of a block mapping at `indent` (its text is `text`, starting at `base` in
/// the cut text, with `table` its lines; `level` mappings deep). `None` if the text does not
/// begin with an entry (after blank and comment lines) or has a line less indented than one.
fn split_mapping<'a>(
    text: &'a str,
    base: usize,
    table: &[Line],
    indent: usize,
    level: usize,
    threshold: usize,
    chunk: usize,
) -> Option<Vec<Piece<'a>>> {
    let mut starts = Vec::new(); // indices into `table`
    for (i, line) in table.iter().enumerate() {
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
    starts.push(table.len());
    let offset = |i: usize| table.get(i).map_or(text.len(), |line| line.at - base);
    let mut pieces = Vec::new();
    let mut run_start = 0;
    for pair in starts.windows(2) {
        let (start, end) = (offset(pair[0]), offset(pair[1]));
        if end - start >= threshold
            && level + 1 < MAX_SPLIT_DEPTH
            && let Some(piece) = descend(
                &text[start..end],
                base + start,
                &table[pair[0]..pair[1]],
                indent,
                level,
                threshold,
                chunk,
            )
        {
            if run_start < start {
                pieces.push(Piece::Run(&text[run_start..start], level));
            }
            pieces.push(piece);
            run_start = end;
        } else if end - run_start >= chunk {
            pieces.push(Piece::Run(&text[run_start..end], level));
            run_start = end;
        }
    }
    if run_start < text.len() {
        pieces.push(Piece::Run(&text[run_start..], level));
    }
    Some(pieces)
}

/// Split one entry (text `entry` at `base`, lines `table`) whose key line is `key:` alone and
/// whose value is a block mapping indented deeper than the key, with no line of the value less
/// indented than its entries; `None` for any other entry (it stays a run).
fn descend<'a>(
    entry: &'a str,
    base: usize,
    table: &[Line],
    indent: usize,
    level: usize,
    threshold: usize,
    chunk: usize,
) -> Option<Piece<'a>> {
    // The key line is the first that is not blank or a comment; the value is the lines after it.
    let k = table.iter().position(|line| line.indent.is_some())?;
    let value_at = table.get(k + 1)?.at - base;
    let key = plain_key(entry[table[k].at - base..value_at].trim_end())?;
    let (child_indent, _) = table[k + 1..]
        .iter()
        .find_map(|line| line.indent)
        .filter(|&(n, b)| n > indent && starts_key(b))?;
    let children = split_mapping(
        &entry[value_at..],
        base + value_at,
        &table[k + 1..],
        child_indent,
        level + 1,
        threshold,
        chunk,
    )?;
    Some(Piece::Entry(key, children))
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
        .map(|&(text, level)| match direct(text, level).ok()? {
            Direct {
                tree: Value::Object(map),
                deepest,
            } if deepest <= MAX_NESTING => Some(map),
            _ => None,
        })
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

/// A tree built by [`direct`], and the nesting of its deepest collection counted from the root.
struct Direct {
    tree: Value,
    deepest: usize,
}

/// Parse `text` (a mapping `level` collections deep) straight into a JSON tree: the parser's
/// calls that would build a `yaml_serde::Value` build the tree `to_json` makes of it, without the
/// YAML tree in between (a third less time). It gives up on what that tree would go through
/// `apply_merge` or `to_json` for: a merge key `<<`, a key that repeats once converted (`1` and
/// `"1"`), a collection as a key, a number JSON cannot hold. Its errors are never reported: the
/// caller takes the slow path, which reports them as they are.
fn direct(text: &str, level: usize) -> std::result::Result<Direct, yaml_serde::Error> {
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

/// One node for [`direct`]; each method mirrors `yaml_serde::Value`'s own visitor.
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

/// Where flow collections (`[`, `{`) first nest deeper than `limit`, if they do (line and
/// byte column). A cheap scan: quoted scalars and comments are skipped, and outside flow context a
/// bracket only opens a collection where a value can start (after `:`, `-`, `?`, `,` or at the
/// start of a line), so brackets inside plain text are not counted. Only the bytes that matter
/// are visited; what came before one on its line is looked up when needed.
fn deep_flow_nesting(text: &str, limit: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // Nesting cannot go deeper than the number of brackets that open.
    if memchr::memchr2_iter(b'[', b'{', bytes).count() <= limit {
        return None;
    }
    const SPECIAL: [bool; 256] = {
        let mut table = [false; 256];
        let mut k = 0;
        while k < 8 {
            table[b"\n#\"'[{]}"[k] as usize] = true;
            k += 1;
        }
        table
    };
    let (mut depth, mut line_start, mut i) = (0usize, 0usize, 0usize);
    while let Some(k) = bytes.get(i..)?.iter().position(|&b| SPECIAL[b as usize]) {
        i += k;
        let b = bytes[i];
        // The last byte before this one on its line that is not a space.
        let prev = bytes[line_start..i]
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
            .copied();
        let at_value_start = depth > 0 || matches!(prev, None | Some(b':' | b'-' | b'?' | b','));
        match b {
            b'\n' => line_start = i + 1,
            b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                i = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |k| i + k);
                continue;
            }
            b'"' | b'\'' if at_value_start || matches!(prev, Some(b'[' | b'{')) => {
                // To the closing quote (in double quotes, stepping over escapes).
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if b == b'"' && bytes[i] == b'\\' { 2 } else { 1 };
                }
                line_start =
                    memchr::memrchr(b'\n', &bytes[..i.min(bytes.len())]).map_or(0, |k| k + 1);
            }
            b'[' | b'{' if at_value_start => {
                depth += 1;
                if depth > limit {
                    let line = 1 + memchr::memchr_iter(b'\n', &bytes[..i]).count();
                    return Some((line, i - line_start + 1));
                }
            }
            b']' | b'}' if depth > 0 => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A conversion error and where it happened: the path is collected innermost segment first while
/// the error travels up, so converting a document that has no error copies no keys.
struct PathErr {
    reversed: Vec<String>,
    message: String,
}

impl PathErr {
    fn new(message: String) -> Self {
        PathErr {
            reversed: Vec::new(),
            message,
        }
    }

    fn within(mut self, segment: String) -> Self {
        self.reversed.push(segment);
        self
    }

    fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in self.reversed.iter().rev() {
            out.push('/');
            out.push_str(&crate::error::escape_token(segment));
        }
        out
    }
}

/// A mapping key as a JSON object key (`200` -> `"200"`, `!tag text` -> `"text"`); `None` for a
/// collection or a tagged non-string.
/// A float key equal to zero: YAML takes `0.0` and `-0.0` for the same key, JSON for two.
fn zero_float(key: &Y) -> bool {
    matches!(key, Y::Number(n) if n.is_f64() && n.as_f64() == Some(0.0))
}

fn json_key(key: Y) -> Option<String> {
    Some(match key {
        Y::String(s) => s,
        Y::Number(n) => n.to_string(),
        Y::Bool(b) => b.to_string(),
        Y::Null => "null".to_string(),
        Y::Tagged(t) => match t.value {
            Y::String(s) => s,
            _ => return None,
        },
        Y::Sequence(_) | Y::Mapping(_) => return None,
    })
}

/// Convert a YAML tree to JSON. Recursion is bounded by the parser's depth limit.
fn to_json(value: Y) -> Result<Value, PathErr> {
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                match serde_json::Number::from_f64(f) {
                    Some(num) => Value::Number(num),
                    None => {
                        return Err(PathErr::new(format!(
                            "the number {n} (infinite or NaN) cannot be represented in JSON"
                        )));
                    }
                }
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(to_json(item).map_err(|e| e.within(i.to_string()))?);
            }
            Value::Array(out)
        }
        Y::Mapping(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                let Some(key) = json_key(k) else {
                    return Err(PathErr::new("a mapping key must be a scalar".into()));
                };
                match to_json(v) {
                    Ok(v) => {
                        out.insert(key, v);
                    }
                    Err(e) => return Err(e.within(key)),
                }
            }
            Value::Object(out)
        }
        Y::Tagged(t) => to_json(t.value)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: through `yaml_serde::Value`.
    fn plain(text: &str) -> Option<Value> {
        parse_slow("t.yaml", text).ok()
    }

    /// Parse with every entry split as far as it goes and every run one entry long.
    fn split_parse(text: &str) -> Option<Value> {
        parse_split(text, 1, 1)
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
            assert_eq!(parse("t", text).ok(), plain(text), "{text}");
            assert!(plain(text).is_some());
        }
        let duplicate = parse("t", "0.0: a\n-0.0: b\n").unwrap_err().to_string();
        assert!(duplicate.contains("duplicate entry"), "{duplicate}");
    }

    #[test]
    fn the_direct_tree_is_the_yaml_tree_converted() {
        let tree = |text: &str| direct(text, 0).ok().map(|d| d.tree.to_string());
        let slow = |text: &str| parse_slow("t", text).ok().map(|v| v.to_string());
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
            parse_plain("t", "1: 3\n'1': 2\n").unwrap().to_string(),
            r#"{"1":2}"#
        );
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
        assert!(text.len() >= MIN_SPLIT);
        // Compared as text: `Value`'s equality ignores key order.
        assert_eq!(
            parse_split(&text, text.len() / 8, text.len() / 32).map(|v| v.to_string()),
            Some(doc.to_string())
        );
    }

    #[test]
    fn a_large_broken_document_gets_the_plain_error() {
        let filler = "x".repeat(MIN_SPLIT);
        let text = format!("a: {filler}\nb:\n  c: [1\n  d: 2\n");
        let plain = parse_plain("t", &text).unwrap_err().to_string();
        assert_eq!(parse("t", &text).unwrap_err().to_string(), plain);
        assert!(plain.contains(":4:"), "{plain}");
    }

    #[test]
    fn deep_flow_nesting_is_found_cheaply() {
        let deep = format!("x: {}1{}", "[".repeat(2000), "]".repeat(2000));
        assert_eq!(deep_flow_nesting(&deep, 1000), Some((1, 1004)));
        let text =
            "a: see [docs] and {this} [[[[[ unbalanced\nb: '[[[[' # [[[[\nc: [1, [2, {d: 3}]]\n";
        assert_eq!(deep_flow_nesting(text, 3), None);
        assert_eq!(deep_flow_nesting(text, 2), Some((3, 12)));
        // An escape at the very end of an unterminated quote.
        assert_eq!(deep_flow_nesting("b: '[['\na: \"x\\", 1), None);
    }
}
