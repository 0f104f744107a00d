//! Lazy paths: a large JSON document whose path items stay text until a tool needs them.
//!
//! A parsed JSON tree takes about eight times the bytes of its text, and in a large document
//! nearly all of those bytes are `paths` (41.7 of Microsoft Graph beta's 47 MB). So for the
//! streaming conversion a large JSON document is parsed without its path items: each is kept as
//! its range of the text. When the document is opened, every path item is parsed once (in runs
//! of 32 taken in turn by two threads) into its skeleton (parameters' and media types' schemas
//! and the item's extensions parsed but not built, see `json/skeleton.rs`), its references
//! checked, its operations read as the model reads them, and its tree dropped; what names and
//! filters each operation is kept. Each tool's builder parses its path item again, whole. Only
//! the rest of the document (`components`, ...) and one path item per builder are ever held as
//! trees.
//!
//! The tools are the same as from the whole tree, byte for byte, and so are the errors: whatever
//! the lazy reading cannot do the same way, the document is read whole instead, decided when it
//! is opened: a reference into `paths` (or to the whole document), a reference to another file
//! (the bundle joins those), a Swagger 2.0 document (upgraded as a whole), a repeated key, nesting
//! near the limit, and any error, which reading the whole tree then reports as usual.

use crate::error::{Result, unescape_token};
use crate::json::{MAX_DEPTH, Member, Raw, References, open_members};
use crate::load::{Document, SpecVersion};
use crate::model::{self, Identity, Method};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// From this size on, [`crate::load::load_file_lazy`] keeps path items as text. Below it the
/// whole tree is small, and parsing path items twice would only cost time.
pub const MIN_LAZY: usize = 16 << 20;

/// The path items of a document, as text.
#[derive(Clone)]
pub struct Paths {
    /// The whole document.
    text: String,
    /// The members of `paths`, in order.
    items: Vec<Item>,
    /// Every operation, in document order.
    ops: Vec<Op>,
    /// Whether two references want the same `$defs` name (see [`crate::schema::names_clash`]).
    clash: bool,
    /// The file it was read from, to join the files it references if the whole tree is needed.
    source: Option<PathBuf>,
    /// The whole tree, once needed.
    whole: OnceLock<Document>,
}

/// One member of `paths`: its key and where its value is in the text.
#[derive(Clone)]
struct Item {
    path: String,
    range: Range<usize>,
}

/// One operation: its path item, and what names and filters it.
#[derive(Clone)]
struct Op {
    item: usize,
    method: Method,
    operation_id: Option<String>,
    tags: Vec<String>,
    deprecated: bool,
}

impl std::fmt::Debug for Paths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Paths")
            .field("bytes", &self.text.len())
            .field("items", &self.items.len())
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

/// A document of `text` (named `file`, read from `source`) with its path items kept as text, or
/// the text back when it must be read whole (see the module doc).
pub(crate) fn open(file: &str, source: Option<&Path>, text: String) -> Result<Document, String> {
    let Some((version, root, items, in_root)) = lazy_root(&text) else {
        return Err(text);
    };
    let mut doc = Document {
        file: file.to_string(),
        version,
        root,
        lazy: None,
        clash: None,
    };
    let Some((ops, clash)) = read_items(&doc, &text, &items, in_root) else {
        return Err(text);
    };
    doc.lazy = Some(Box::new(Paths {
        text,
        items,
        ops,
        clash,
        source: source.map(Path::to_path_buf),
        whole: OnceLock::new(),
    }));
    Ok(doc)
}

/// The version, the tree without path items, the path items of `text` and the distinct
/// references in that tree, if it can be lazy.
fn lazy_root(text: &str) -> Option<(SpecVersion, Value, Vec<Item>, HashSet<String>)> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let (root, items, noted) = split(text)?;
    let root = Value::Object(root);
    // Swagger 2.0 is upgraded as a whole; an unknown version is the whole read's error.
    let version = crate::load::detect_version("", &root)
        .ok()
        .filter(|v| *v != SpecVersion::Swagger2)?;
    let mut followable = true;
    let mut in_root = HashSet::new();
    let note = |r: &str| {
        followable &= is_followable(r);
        keep_once(&mut in_root, r);
    };
    // Noted while parsing (Microsoft Graph v1: 1.7 ms on one thread, walking the tree 4.6 ms).
    match noted {
        Some(noted) => noted.distinct().into_iter().for_each(note),
        None => crate::schema::each_reference(&root, note),
    }
    followable.then_some((version, root, items, in_root))
}

/// Add reference `r` to `refs`, copied only the first time it is met.
fn keep_once(refs: &mut HashSet<String>, r: &str) {
    if !refs.contains(r) {
        refs.insert(r.to_string());
    }
}

/// The top-level members of `text` parsed (`paths` left empty), the members of `paths`, and the
/// references in the members parsed (`None` where not known exactly: a repeated key).
type Split = (Map<String, Value>, Vec<Item>, Option<References>);

/// The top-level members of `text` parsed, except `paths`, the members of `paths` as ranges, and
/// the references in the members parsed (see [`Split`]).
fn split(text: &str) -> Option<Split> {
    let two = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    std::thread::scope(|scope| {
        // `components` (a seventh of Graph's text, after its `paths`) parsed beside the scan,
        // where a guess puts it; taken only if the scan finds it there.
        let mut ahead = two.then(|| {
            scope.spawn(|| {
                let raw = components_guess(text)?;
                Some((raw, crate::json::parse_noting_text(raw.text).ok()?))
            })
        });
        let members = open_members(text, |key| usize::from(key == "paths"))?;
        let mut root = Map::new();
        let mut items = None;
        let mut noted = Some(References::new());
        for (key, member) in members {
            // A repeated key, `paths` included (it is in `root` as `{}`).
            if root.contains_key(&key) {
                return None;
            }
            match member {
                Member::Opened(_, members) => {
                    let members = members.into_iter().map(|(path, m)| match m {
                        Member::Raw(raw) => Some((path, raw)),
                        Member::Opened(..) => None,
                    });
                    items = Some(path_items(text, members.collect::<Option<_>>()?)?);
                    root.insert(key, Value::Object(Map::new()));
                }
                Member::Raw(raw) => {
                    if raw.nesting > MAX_DEPTH - 1 {
                        return None;
                    }
                    let guessed = match key == "components" {
                        true => ahead.take().and_then(|thread| thread.join().ok().flatten()),
                        false => None,
                    };
                    let (value, refs) = match guessed {
                        Some((at, parsed)) if std::ptr::eq(at.text, raw.text) => parsed,
                        _ => crate::json::parse_noting_text(raw.text).ok()?,
                    };
                    noted = noted.zip(refs).map(|(mut all, refs)| {
                        all.extend(refs);
                        all
                    });
                    // The member's own references (a top-level `$ref` or `mapping`).
                    if let Some(all) = &mut noted {
                        all.member(&key, &value);
                    }
                    root.insert(key, value);
                }
            }
        }
        Some((root, items?, noted))
    })
}

/// JSON's whitespace.
const SPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// Where the top-level member `components` of `text` seems to be: the last `"components"` key
/// whose value is an object followed only by other members and the end of the document (a
/// member nested deeper is followed by the ends of the objects around it). A guess, which the
/// scan confirms or not: nothing but where the value is comes from it.
fn components_guess(text: &str) -> Option<Raw<'_>> {
    let key = b"\"components\"";
    let at = memchr::memmem::rfind(text.as_bytes(), key)?;
    if !text[..at].trim_end_matches(SPACE).ends_with([',', '{']) {
        return None;
    }
    let value = text[at + key.len()..]
        .trim_start_matches(SPACE)
        .strip_prefix(':')?;
    let raw = crate::json::value_at(value)?;
    if !raw.text.starts_with('{') {
        return None;
    }
    let mut rest = after(text, raw.text);
    loop {
        rest = rest.trim_start_matches(SPACE);
        let Some(member) = rest.strip_prefix(',') else {
            return rest
                .strip_prefix('}')?
                .trim_matches(SPACE)
                .is_empty()
                .then_some(raw);
        };
        let key = crate::json::value_at(member)?;
        if !key.text.starts_with('"') {
            return None;
        }
        let value = after(text, key.text)
            .trim_start_matches(SPACE)
            .strip_prefix(':')?;
        rest = after(text, crate::json::value_at(value)?.text);
    }
}

/// The text of `text` after `part`, a part of it.
fn after<'a>(text: &'a str, part: &str) -> &'a str {
    let end = part.as_ptr() as usize + part.len() - text.as_ptr() as usize;
    &text[end..]
}

/// The members of `paths` (raw parts of `text`) as ranges of `text`.
fn path_items(text: &str, members: Vec<(String, Raw<'_>)>) -> Option<Vec<Item>> {
    let mut keys = HashSet::with_capacity(members.len());
    let mut items = Vec::with_capacity(members.len());
    for (path, value) in members {
        if value.nesting > MAX_DEPTH - 2 || !keys.insert(path.clone()) {
            return None;
        }
        let value = value.text;
        let start = value.as_ptr() as usize - text.as_ptr() as usize;
        items.push(Item {
            path,
            range: start..start + value.len(),
        });
    }
    Some(items)
}

/// Whether reference `r` resolves the same without the path items in the tree: a local
/// reference (`#/...`) to anything but `paths` or the whole document. References to other files
/// are not (the bundle rewrites them).
fn is_followable(r: &str) -> bool {
    let Some(pointer) = r.strip_prefix('#') else {
        return false;
    };
    if pointer.is_empty() {
        return false;
    }
    // Not a pointer (`#name`): not found, with or without the path items.
    let Some(pointer) = pointer.strip_prefix('/') else {
        return true;
    };
    let first = pointer.split('/').next().unwrap_or("");
    unescape_token(&crate::refs::percent_decode_token(first)) != "paths"
}

impl Paths {
    /// The whole tree of the document, parsed from the kept text on the first call.
    pub(crate) fn whole(&self, file: &str) -> Result<&Document> {
        if let Some(doc) = self.whole.get() {
            return Ok(doc);
        }
        let root = crate::load::parse_tree(file, self.text.as_bytes())?;
        let root = match &self.source {
            Some(path) => crate::bundle::bundle(path, root)?,
            None => root,
        };
        let doc = crate::load::from_tree(file, root)?;
        Ok(self.whole.get_or_init(|| doc))
    }

    /// Whether [`Paths::whole`] has parsed the whole tree.
    pub(crate) fn parsed_whole(&self) -> bool {
        self.whole.get().is_some()
    }

    /// Path item `i` parsed.
    pub(crate) fn item(&self, i: usize) -> serde_json::Result<Value> {
        parse_item(&self.text, &self.items[i])
    }

    /// The key of path item `i`.
    pub(crate) fn path(&self, i: usize) -> &str {
        &self.items[i].path
    }

    /// Every operation, in document order: its path item and what names and filters it.
    pub(crate) fn operations(&self) -> impl Iterator<Item = (usize, Identity<'_>)> {
        self.ops.iter().map(|op| {
            let identity = Identity {
                method: op.method,
                path: &self.items[op.item].path,
                operation_id: op.operation_id.as_deref(),
                tags: op.tags.iter().map(String::as_str).collect(),
                deprecated: op.deprecated,
            };
            (op.item, identity)
        })
    }

    /// How many operations the document has.
    pub(crate) fn operation_count(&self) -> usize {
        self.ops.len()
    }

    /// Whether two references in the document want the same `$defs` name.
    pub(crate) fn clash(&self) -> bool {
        self.clash
    }
}

fn parse_item(text: &str, item: &Item) -> serde_json::Result<Value> {
    crate::json::parse_str(&text[item.range.clone()])
}

/// Read every path item of `text` as [`model::read`] would read it in `doc` (the document
/// without them): the operations, and whether two references (theirs, or `in_root`, those of
/// the document without them) want the same `$defs` name. `None`
/// when the document must be read whole: the head or an item has an error, or an item has a
/// reference [`is_followable`] refuses (or the second thread panicked: the whole read then
/// meets the same fault on one thread).
fn read_items(
    doc: &Document,
    text: &str,
    items: &[Item],
    in_root: HashSet<String>,
) -> Option<(Vec<Op>, bool)> {
    /// Path items read at a time by one thread.
    const RUN: usize = 32;
    let servers = model::read_head(doc).ok()?.servers;
    type Part = Option<(Vec<Op>, HashSet<String>)>;
    let read_run = |run: &std::ops::Range<usize>| -> Part {
        let (mut ops, mut refs) = (Vec::new(), HashSet::new());
        for i in run.clone() {
            let item = &text[items[i].range.clone()];
            // Schemas and extensions unbuilt; with a repeated key, whole and walked below.
            let (tree, noted) = match crate::json::parse_path_item_skeleton(item).ok()? {
                (tree, noted) if noted.exact => (tree, noted),
                _ => crate::json::parse_str_noting(item).ok()?,
            };
            let mut followable = true;
            if noted.exact {
                for r in noted.into_strings() {
                    followable &= is_followable(&r);
                    refs.insert(r);
                }
            } else {
                crate::schema::each_reference(&tree, |r| {
                    followable &= is_followable(r);
                    keep_once(&mut refs, r);
                });
            }
            if !followable {
                return None;
            }
            // `x-` members of `paths` are extensions, not paths (their references count above).
            let path = &items[i].path;
            if path.starts_with("x-") {
                continue;
            }
            for op in model::read_path_item(doc, path, &tree, &servers, None).ok()? {
                ops.push(Op {
                    item: i,
                    method: op.method,
                    operation_id: op.operation_id.map(str::to_string),
                    tags: op.tags.iter().map(|t| t.to_string()).collect(),
                    deprecated: op.deprecated,
                });
            }
        }
        Some((ops, refs))
    };
    // Runs of items taken in turn by two threads, so that they finish together (cut in two
    // halves by bytes, Graph v1's second half took a fifth longer than its first).
    let runs: Vec<std::ops::Range<usize>> = (0..items.len())
        .step_by(RUN)
        .map(|start| start..(start + RUN).min(items.len()))
        .collect();
    let (mut ops, mut refs) = (Vec::new(), HashSet::new());
    for (run_ops, run_refs) in crate::par::each_taken(&runs, |run| read_run(run))? {
        ops.extend(run_ops);
        refs.extend(run_refs);
    }
    // With the document's own references (all followable: see `lazy_root`).
    refs.extend(in_root);
    let clash = crate::schema::clash_among(refs.iter().map(String::as_str));
    Some((ops, clash))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guess finds the top-level `components` wherever it is among the members, and no
    /// member of that name nested deeper; the split is the same whether it guessed or not.
    #[test]
    fn components_are_guessed_at_the_top_level_only() {
        fn guess(text: &str) -> Option<&str> {
            components_guess(text).map(|raw| raw.text)
        }
        let c = r#"{"schemas": {"A": {"properties": {"x": {"type": "string"}}}}}"#;
        let p = r#"{"/a": {"get": {"responses": {}}}}"#;
        let last = format!(r#"{{"openapi": "3.0.0", "paths": {p}, "components": {c} }}"#);
        let first = format!(r#"{{ "components" :{c},"paths": {p}, "x-y": [1, {{}}]}}"#);
        assert_eq!(guess(&last), Some(c));
        assert_eq!(guess(&first), Some(c));
        // A property named `components`, or a `components` that is not an object, is no guess.
        let nested = r#"{"paths": {}, "components": {"schemas": {"A": {"properties": {"components": {}}}}}}"#;
        let inside_paths =
            format!(r#"{{"components": {c}, "paths": {{"/a": {{"components": {{}}}}}}}}"#);
        let not_object = r#"{"paths": {}, "components": 1}"#;
        let in_string = r#"{"paths": {}, "info": {"title": "\"components\": {}"}}"#;
        for text in [nested, &inside_paths, not_object, in_string] {
            assert_eq!(guess(text), None, "{text}");
        }
        // Two of them: the guess is the second, the scan meets the first (and then refuses the
        // repeated key).
        let twice = format!(r#"{{"components": {{}}, "paths": {p}, "components": {c}}}"#);
        assert_eq!(guess(&twice), Some(c));
        assert!(split(&twice).is_none());
        for text in [&last, &first, nested, &inside_paths] {
            let (root, items, _) = split(text).unwrap();
            let whole: Value = serde_json::from_str(text).unwrap();
            assert_eq!(root["components"], whole["components"], "{text}");
            assert_eq!(items.len(), whole["paths"].as_object().unwrap().len());
        }
    }

    #[test]
    fn followable_references_stay_out_of_paths() {
        for r in [
            "#/components/schemas/Pet",
            "#/x-paths",
            "#/pathsX/a",
            "#nope",
        ] {
            assert!(is_followable(r), "{r}");
        }
        for r in [
            "#/paths/~1a/get",
            "#/p%61ths/~1a",
            "#/paths",
            "#",
            "other.json#/a",
            "x.yaml",
        ] {
            assert!(!is_followable(r), "{r}");
        }
    }

    #[test]
    fn items_are_ranges_of_the_text() {
        let text = r##"{"openapi": "3.1.0", "paths": { "/a" : {"get": {}} , "/b":{} }, "x": 1,
            "components": {"schemas": {"A": {"$ref": "#/x"}, "B": {"items": {"$ref": "#/x"}},
            "C": {"discriminator": {"mapping": {"c": "#/y"}}}}}}"##;
        let (version, root, items, in_root) = lazy_root(text).unwrap();
        assert_eq!(version, SpecVersion::OpenApi31);
        assert!(
            root.to_string()
                .starts_with(r#"{"openapi":"3.1.0","paths":{},"x":1,"#)
        );
        let mut in_root: Vec<String> = in_root.into_iter().collect();
        in_root.sort();
        assert_eq!(in_root, ["#/x", "#/y"]);
        let found: Vec<(&str, &str)> = items
            .iter()
            .map(|i| (i.path.as_str(), &text[i.range.clone()]))
            .collect();
        assert_eq!(found, [("/a", r#"{"get": {}}"#), ("/b", "{}")]);
        // Noted while parsing, a top-level member's own reference too.
        let top = r##"{"openapi": "3.1.0", "paths": {}, "$ref": "#/top",
            "components": {"schemas": {"A": {"$ref": "#/a"}}}}"##;
        let (_, _, _, in_root) = lazy_root(top).unwrap();
        let mut in_root: Vec<String> = in_root.into_iter().collect();
        in_root.sort();
        assert_eq!(in_root, ["#/a", "#/top"]);
        // A repeated key: what the tree keeps, walked (the replaced reference is not counted).
        let repeated = r##"{"openapi": "3.1.0", "paths": {}, "components": {"schemas":
            {"A": {"$ref": "#/gone"}, "A": {"$ref": "#/kept"}}}, "$ref": "#/top"}"##;
        let (_, _, _, in_root) = lazy_root(repeated).unwrap();
        let mut in_root: Vec<String> = in_root.into_iter().collect();
        in_root.sort();
        assert_eq!(in_root, ["#/kept", "#/top"]);
        let (_, _, _, in_root) = lazy_root(&repeated.replace("#/gone", "#/paths/~1a")).unwrap();
        assert!(!in_root.contains("#/paths/~1a"));
        assert!(lazy_root(r#"{"swagger": "2.0", "paths": {}}"#).is_none());
        assert!(lazy_root(r#"{"openapi": "3.0.0"}"#).is_none(), "no paths");
        assert!(lazy_root(r#"{"openapi": "3.0.0", "paths": []}"#).is_none());
        let twice = r#"{"openapi": "3.0.0", "paths": {}, "paths": {}}"#;
        assert!(lazy_root(twice).is_none(), "repeated paths");
    }

    /// What the first reading keeps of a path item's operations (see `read_items`), or its
    /// error.
    fn first_reading(doc: &Document, path: &str, item: &Value) -> String {
        let servers = model::read_head(doc).unwrap().servers;
        match model::read_path_item(doc, path, item, &servers, None) {
            Ok(ops) => format!(
                "{:?}",
                ops.iter().map(|op| op.identity()).collect::<Vec<_>>()
            ),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Reading a path item's skeleton gives what reading the whole item gives: the same
    /// operations with the same names, tags and flags, or the same error, for every path item
    /// of every spec and for items with an error at each level the reader checks (and schemas
    /// of every JSON type, which it does not).
    #[test]
    fn the_skeleton_reads_as_the_whole_item() {
        let mut docs = Vec::new();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if let Ok(bytes) = std::fs::read(&path)
                && let Ok(doc) = crate::load::parse("spec", &bytes)
            {
                docs.push(doc);
            }
        }
        let items = [
            r#"{"get": {"operationId": "a", "tags": ["t"], "deprecated": true, "parameters":
               [{"name": "q", "in": "query", "schema": "not a schema"}], "responses": {"200":
               {"content": {"application/json": {"schema": 3}}}}}, "x-a": 1}"#,
            r#"{"get": {"parameters": [{"in": "query", "schema": {}}]}}"#,
            r#"{"get": {"parameters": [{"name": "q", "in": "nowhere", "schema": {}}]}}"#,
            r#"{"get": {"parameters": [{"name": "q", "in": "query", "style": "odd"}]}}"#,
            r#"{"get": {"parameters": {"name": "q"}}}"#,
            r#"{"parameters": [{"name": "q", "in": "path", "schema": []}], "post": 5}"#,
            r#"{"get": {"tags": "t"}}"#,
            r#"{"put": {"requestBody": {"content": {"a/json": {"schema": null, "encoding": 1}}}}}"#,
            r#"{"put": {"requestBody": {"content": []}}}"#,
            r#"{"get": {"responses": {"200": {"content": {"a/json": []}}}}}"#,
            r#"{"get": {"responses": {"201": 7}}}"#,
            r#"{"get": {"operationId": 1}}"#,
            r#"{"post": {"requestBody": {"content": {"schema": {"encoding": 1}}}}}"#,
            r#"{"get": {"x-mcp-annotations": {"readOnlyHint": "yes"}}}"#,
            r##"{"$ref": "#/components/pathItems/nowhere"}"##,
            r#"["not an object"]"#,
        ];
        let base = crate::load::parse(
            "t.json",
            br#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#,
        )
        .unwrap();
        let mut checked = 0;
        let crafted = items
            .iter()
            .map(|text| (&base, "/a".to_string(), text.to_string()));
        let specs = docs.iter().flat_map(|doc| {
            let paths = doc.root.get("paths").and_then(Value::as_object);
            paths
                .into_iter()
                .flatten()
                .map(move |(p, item)| (doc, p.clone(), item.to_string()))
        });
        for (doc, path, text) in specs.chain(crafted) {
            let whole: Value = serde_json::from_str(&text).unwrap();
            let (skeleton, _) = crate::json::parse_path_item_skeleton(&text).unwrap();
            assert_eq!(
                first_reading(doc, &path, &skeleton),
                first_reading(doc, &path, &whole),
                "{path}: {text}"
            );
            checked += 1;
        }
        assert!(checked >= 60, "{checked}");
    }

    /// A repeated key in a path item, where its tree is built (here an operation's extension):
    /// the references its parse noted are not trusted, those left in its tree are (the replaced
    /// `$ref` into `paths`, or to the name that clashes, is gone). In a schema, which the first
    /// reading skips: every reference written counts, the replaced one too, which can only make
    /// the document read whole or its tools built on one thread.
    #[test]
    fn a_repeated_key_in_a_path_item_counts_what_is_left() {
        let text = |at_operation: &str, in_schema: &str| {
            format!(
                r##"{{"openapi": "3.0.3", "info": {{"title": "t", "version": "1"}},
                "paths": {{"/a": {{"get": {{"x-r": {at_operation}, "responses": {{"200":
                {{"description": "ok", "content": {{"application/json": {{"schema":
                {in_schema}}}}}}}}}}}}}}},
                "components": {{"schemas": {{"A B": {{}}, "A_B": {{}},
                "C": {{"$ref": "#/components/schemas/A_B"}}}}}}}}"##
            )
        };
        let into_paths = r##"{"$ref": "#/paths/~1b", "$ref": "#/components/schemas/A_B"}"##;
        let clashing =
            r##"{"$ref": "#/components/schemas/A%20B", "$ref": "#/components/schemas/A_B"}"##;
        let plain = r##"{"$ref": "#/components/schemas/A%20B"}"##;
        for (schema, clash) in [(into_paths, false), (clashing, false), (plain, true)] {
            let text = text(schema, "{}");
            let whole: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(crate::schema::names_clash(&whole), clash, "{schema}");
            let doc = open("t.json", None, text).unwrap();
            let paths = doc
                .lazy
                .as_ref()
                .unwrap_or_else(|| panic!("read whole: {schema}"));
            assert_eq!(paths.clash(), clash, "{schema}");
        }
        assert!(open("t.json", None, text("{}", into_paths)).is_err());
        for schema in [clashing, plain] {
            let doc = open("t.json", None, text("{}", schema)).unwrap();
            assert!(doc.lazy.as_ref().unwrap().clash(), "{schema}");
        }
    }
}
