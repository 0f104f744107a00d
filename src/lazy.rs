//! Lazy paths: a large JSON document whose path items stay text until a tool needs them.
//!
//! A parsed JSON tree takes about eight times the bytes of its text, and in a large document
//! nearly all of those bytes are `paths` (41.7 of Microsoft Graph beta's 47 MB). So for the
//! streaming conversion a large JSON document is parsed without its path items: each is kept as
//! its range of the text. The plan reads every path item once (parsed, read as the model reads
//! it, then dropped) to name the tools; each tool's builder parses its path item again. Only the
//! rest of the document (`components`, ...) and one path item per builder are ever held as trees.
//!
//! The tools are the same as from the whole tree, byte for byte. Whatever the lazy reading
//! cannot do the same way, the whole tree does instead, parsed from the kept text on first need
//! ([`crate::load::Document::tree`]): a reference into `paths` (or to the whole document), a
//! reference to another file (the bundle joins those), a Swagger 2.0 document (upgraded as a
//! whole), a repeated key, nesting near the limit, and any error, so that errors are reported by
//! the usual path, with the usual message.

use crate::error::{Result, unescape_token};
use crate::json::{MAX_DEPTH, Members, nesting, trim};
use crate::load::{Document, SpecVersion};
use crate::model::{self, Method, Operation};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// From this size on, [`crate::load::load_file_lazy`] keeps path items as text. Below it the
/// whole tree is small, and parsing path items twice would only cost time.
pub const MIN_LAZY: usize = 4 << 20;

/// The path items of a document, as text.
pub struct Paths {
    /// The whole document (without a byte order mark).
    text: String,
    /// The members of `paths`, in order.
    items: Vec<Item>,
    /// The file it was read from, to join the files it references if the whole tree is needed.
    source: Option<PathBuf>,
    /// The whole tree, once needed.
    whole: OnceLock<Document>,
}

/// One member of `paths`: its key and where its value is in the text.
struct Item {
    path: String,
    range: Range<usize>,
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

impl Clone for Paths {
    fn clone(&self) -> Self {
        Paths {
            text: self.text.clone(),
            items: self
                .items
                .iter()
                .map(|i| Item {
                    path: i.path.clone(),
                    range: i.range.clone(),
                })
                .collect(),
            source: self.source.clone(),
            whole: self.whole.clone(),
        }
    }
}

/// A document of `text` (named `file`, read from `source`) with its path items kept as text, or
/// the text back when it must be parsed whole (not a JSON object, not OpenAPI 3, a repeated key,
/// nesting near the limit, a reference the lazy reading cannot follow, any syntax error).
pub(crate) fn open(file: &str, source: Option<&Path>, text: String) -> Result<Document, String> {
    match lazy_root(&text) {
        Some((version, root, items)) => Ok(Document {
            file: file.to_string(),
            version,
            root,
            lazy: Some(Box::new(Paths {
                text,
                items,
                source: source.map(Path::to_path_buf),
                whole: OnceLock::new(),
            })),
        }),
        None => Err(text),
    }
}

/// The version, the tree without path items and the path items of `text`, if it can be lazy.
fn lazy_root(text: &str) -> Option<(SpecVersion, Value, Vec<Item>)> {
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let (root, items) = split(text)?;
    let version = match root.get("openapi") {
        Some(Value::String(v)) => match v.trim().split('.').take(2).collect::<Vec<_>>()[..] {
            ["3", "0"] => SpecVersion::OpenApi30,
            ["3", "1"] => SpecVersion::OpenApi31,
            ["3", "2"] => SpecVersion::OpenApi32,
            _ => return None,
        },
        _ => return None,
    };
    let root = Value::Object(root);
    let mut followable = true;
    crate::schema::each_reference(&root, |r| followable &= is_followable(r));
    followable.then_some((version, root, items))
}

/// The top-level members of `text` parsed, except `paths`, and the members of `paths` as ranges.
fn split(text: &str) -> Option<(Map<String, Value>, Vec<Item>)> {
    let Members(members) = serde_json::from_str(text).ok()?;
    let mut root = Map::new();
    let mut items = None;
    for (key, raw) in members {
        let raw = trim(raw.get());
        if root.contains_key(&key) || (key == "paths" && items.is_some()) {
            return None;
        }
        if key == "paths" {
            items = Some(path_items(text, raw)?);
            root.insert(key, Value::Object(Map::new()));
        } else {
            if nesting(raw) > MAX_DEPTH - 1 {
                return None;
            }
            root.insert(key, serde_json::from_str(raw).ok()?);
        }
    }
    Some((root, items?))
}

/// The members of `paths` (the object `raw`, a slice of `text`) as ranges of `text`.
fn path_items(text: &str, raw: &str) -> Option<Vec<Item>> {
    if !raw.starts_with('{') {
        return None;
    }
    let Members(members) = serde_json::from_str(raw).ok()?;
    let mut keys = HashSet::with_capacity(members.len());
    let mut items = Vec::with_capacity(members.len());
    for (path, value) in members {
        let value = trim(value.get());
        if nesting(value) > MAX_DEPTH - 2 || !keys.insert(path.clone()) {
            return None;
        }
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
    let first = pointer[1..].split('/').next().unwrap_or("");
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

    /// Path item `i` parsed.
    pub(crate) fn item(&self, i: usize) -> serde_json::Result<Value> {
        serde_json::from_str(&self.text[self.items[i].range.clone()])
    }

    /// The key of path item `i`.
    pub(crate) fn path(&self, i: usize) -> &str {
        &self.items[i].path
    }
}

/// What reading every path item found.
pub(crate) struct Read<W> {
    /// The operations `keep` kept, in document order: path item, method, and what `keep` gave.
    pub kept: Vec<(usize, Method, W)>,
    /// Operations read, kept or not.
    pub operations: usize,
    /// Whether two references would want the same `$defs` name (see
    /// [`crate::schema::names_clash`]), over the whole document.
    pub clash: bool,
}

/// Read every path item of `doc` (lazy, with `paths`) as [`model::read`] would, with the
/// document's `servers`; `keep` says which operations to keep, and what of each. `None` when
/// the whole tree must be read instead: an item has a reference [`is_followable`] refuses, or an
/// error (reported by the whole tree's reading).
pub(crate) fn read<W: Send>(
    doc: &Document,
    paths: &Paths,
    servers: &[String],
    keep: impl Fn(&Operation<'_>) -> Option<W> + Sync,
) -> Option<Read<W>> {
    type Part<W> = (Vec<(usize, Method, W)>, usize, HashSet<String>);
    let read_run = |run: &[usize]| -> Option<Part<W>> {
        let (mut kept, mut operations, mut refs) = (Vec::new(), 0, HashSet::new());
        for &i in run {
            let item = paths.item(i).ok()?;
            let mut followable = true;
            crate::schema::each_reference(&item, |r| {
                followable &= is_followable(r);
                if !refs.contains(r) {
                    refs.insert(r.to_string());
                }
            });
            if !followable {
                return None;
            }
            for op in model::read_path_item(doc, paths.path(i), &item, servers).ok()? {
                operations += 1;
                if let Some(w) = keep(&op) {
                    kept.push((i, op.method, w));
                }
            }
        }
        Some((kept, operations, refs))
    };
    let order: Vec<usize> = (0..paths.items.len()).collect();
    let weight = |&i: &usize| paths.items[i].range.len();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (first, second) = if cores > 1 && order.len() >= crate::par::MIN_ITEMS {
        let (first, second) = crate::par::halves_by_weight(&order, weight, read_run);
        (first?, second??)
    } else {
        (read_run(&order)?, (Vec::new(), 0, HashSet::new()))
    };
    let (mut kept, mut operations, mut refs) = first;
    kept.extend(second.0);
    operations += second.1;
    refs.extend(second.2);
    let mut in_root = HashSet::new();
    crate::schema::each_reference(&doc.root, |r| {
        in_root.insert(r);
    });
    let clash = crate::schema::clash_among(refs.iter().map(String::as_str).chain(in_root));
    Some(Read {
        kept,
        operations,
        clash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let text = r#"{"openapi": "3.1.0", "paths": { "/a" : {"get": {}} , "/b":{} }, "x": 1}"#;
        let (version, root, items) = lazy_root(text).unwrap();
        assert_eq!(version, SpecVersion::OpenApi31);
        assert_eq!(root.to_string(), r#"{"openapi":"3.1.0","paths":{},"x":1}"#);
        let found: Vec<(&str, &str)> = items
            .iter()
            .map(|i| (i.path.as_str(), &text[i.range.clone()]))
            .collect();
        assert_eq!(found, [("/a", r#"{"get": {}}"#), ("/b", "{}")]);
        assert!(lazy_root(r#"{"swagger": "2.0", "paths": {}}"#).is_none());
        assert!(lazy_root(r#"{"openapi": "3.0.0"}"#).is_none(), "no paths");
    }
}
