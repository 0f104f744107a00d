//! Reading: bytes -> a JSON tree (`serde_json::Value`, key order kept) with the path items kept
//! as text, and the specification version, with multi-file documents bundled and Swagger 2.0
//! upgraded to the 3.0 layout.
//!
//! Why not `openapiv3`: that crate models OpenAPI 3.0 only. An ordinary 3.1 document
//! (`type: [string, "null"]`, numeric `exclusiveMinimum`) fails to parse as a whole, and keywords it
//! does not know (`const`, `examples`, siblings of `$ref`) are dropped silently. We therefore keep the
//! document as a JSON tree and read it through our own thin typed model (`model`), while schemas stay
//! `Value`s until `schema` converts them to JSON Schema 2020-12. Nothing is lost on the way.
//!
//! JSON or YAML is decided from the content (a document whose first character is `{` or `[` is
//! JSON), never from the file name. Both parsers bound nesting depth (128), and YAML alias
//! expansion.

pub mod bundle;
pub mod file;
mod json;
pub mod paths;
pub mod pointer;
pub mod references;
pub mod swagger;
mod yaml;

use crate::error::{Error, Location, Result};
use paths::Paths;
use rustc_hash::FxHashSet;
use serde_json::Value;

/// The dialect a document is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpecVersion {
    /// Swagger 2.0 (converted on load to the 3.0 layout by `swagger`).
    Swagger2,
    /// OpenAPI 3.0.x: schemas are the OpenAPI dialect (`nullable`, boolean `exclusiveMinimum`, ...).
    OpenApi30,
    /// OpenAPI 3.1.x: schemas are JSON Schema 2020-12 with OpenAPI vocabulary.
    OpenApi31,
    /// OpenAPI 3.2.x: as 3.1, plus the `query` method.
    OpenApi32,
}

impl SpecVersion {
    pub fn label(self) -> &'static str {
        match self {
            SpecVersion::Swagger2 => "Swagger 2.0",
            SpecVersion::OpenApi30 => "OpenAPI 3.0",
            SpecVersion::OpenApi31 => "OpenAPI 3.1",
            SpecVersion::OpenApi32 => "OpenAPI 3.2",
        }
    }
}

/// A parsed document: its JSON tree (path items apart, as text), version and the name used in
/// messages.
#[derive(Debug, Clone)]
pub struct Document {
    pub file: String,
    pub version: SpecVersion,
    /// The tree: OpenAPI 3.x layout, every `$ref` local, without `paths` when that is an object
    /// (its items are in [`Document::paths`]; a pointer to `#/paths` itself finds nothing, one
    /// into an item finds it).
    pub root: Value,
    /// The path items, each parsed when needed.
    pub paths: Paths,
    /// Every distinct `$ref` string and discriminator `mapping` value in the document.
    references: FxHashSet<String>,
}

impl Document {
    /// The tree without the path items.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The whole tree, path items included (built afresh: a large document's tree is large).
    pub fn tree(&self) -> Value {
        let mut root = self.root.clone();
        if let Value::Object(m) = &mut root
            && let Err(e) = self.paths.join_into(m)
        {
            // The items were JSON text the reader wrote or checked.
            debug_assert!(false, "a path item does not parse: {e}");
        }
        root
    }

    /// Every distinct `$ref` string and discriminator `mapping` value in the document.
    pub fn references(&self) -> &FxHashSet<String> {
        &self.references
    }
}

impl pointer::Tree for Document {
    fn top(&self) -> &Value {
        &self.root
    }

    fn path_item(&self, path: &str) -> Option<&Value> {
        self.paths.get(path)?.tree()
    }
}

/// Read a document from a file, joining the files its relative `$ref`s reach (see [`bundle`]);
/// they must be in the document's folder or below it.
pub fn load_file(path: &std::path::Path) -> Result<Document> {
    load_file_in(path, None)
}

/// [`load_file`], with the referenced files allowed anywhere under `ref_root` (`None`: the
/// document's folder).
pub fn load_file_in(
    path: &std::path::Path,
    ref_root: Option<&std::path::Path>,
) -> Result<Document> {
    let bytes = file::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path.display().to_string();
    let (root, paths, references) = parse_parts(&name, bytes)?;
    if references
        .iter()
        .all(|r| r.is_empty() || r.starts_with('#'))
    {
        return assemble(&name, root, paths, references);
    }
    let tree = joined(&name, root, paths)?;
    from_tree(&name, bundle::bundle(path, tree, ref_root)?)
}

/// Parse `bytes` (named `file` in messages) into a [`Document`]. External `$ref`s are not
/// followed (there is no folder to resolve them against); use [`load_file`] for that.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Document> {
    let (root, paths, references) = parse_parts(file, bytes.to_vec())?;
    assemble(file, root, paths, references)
}

/// Make a [`Document`] of an already parsed tree.
pub fn from_tree(file: &str, root: Value) -> Result<Document> {
    let version = detect_version(file, &root)?;
    let root = if version == SpecVersion::Swagger2 {
        swagger::upgrade(file, root)?
    } else {
        root
    };
    let (root, mut paths) = split(file, root)?;
    let references = references_of(file, &root, &mut paths)?;
    Ok(Document {
        file: file.to_string(),
        version,
        root,
        paths,
        references,
    })
}

/// JSON text parsed with its path items kept as text (ranges of it); YAML parsed whole, then
/// split. With the document's references.
fn parse_parts(file: &str, bytes: Vec<u8>) -> Result<(Value, Paths, FxHashSet<String>)> {
    let from = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let json = bytes[from..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    // A text json::parse_document does not take (an item's text that does not read: a lone
    // surrogate escape, nesting too deep) is parsed plainly, for its error and position.
    let parsed = match String::from_utf8(bytes) {
        Ok(text) if json => json::parse_document(text, from).map_err(String::into_bytes),
        Ok(text) => Err(text.into_bytes()),
        Err(e) => Err(e.into_bytes()),
    };
    let (root, paths, mut references) = match parsed {
        Ok((root, paths, references)) => (Value::Object(root), paths, references),
        Err(bytes) => {
            let (root, mut paths) = split(file, parse_tree(file, &bytes)?)?;
            let references = read_items(&mut paths).map_err(|e| unreadable(file, e))?;
            (root, paths, references)
        }
    };
    extend_references(&mut references, &root);
    Ok((root, paths, references))
}

/// Take the path items out of `root`, written as text.
fn split(file: &str, mut root: Value) -> Result<(Value, Paths)> {
    let paths = match &mut root {
        Value::Object(m) => Paths::split(m).map_err(|e| unreadable(file, e))?,
        _ => Paths::default(),
    };
    Ok((root, paths))
}

/// `root` with its path items put back: the whole tree (their text freed).
fn joined(file: &str, mut root: Value, paths: Paths) -> Result<Value> {
    if let Value::Object(m) = &mut root {
        paths.join_into(m).map_err(|e| unreadable(file, e))?;
    }
    Ok(root)
}

/// A document of a tree split by the reader.
fn assemble(
    file: &str,
    root: Value,
    paths: Paths,
    references: FxHashSet<String>,
) -> Result<Document> {
    let version = detect_version(file, &root)?;
    // A Swagger 2.0 tree is upgraded whole; a `paths` object the reader left in the tree (a
    // `swagger` member besides `openapi`) is split off as from any tree.
    if version == SpecVersion::Swagger2 || !paths.is_object() && root.get("paths").is_some() {
        return from_tree(file, joined(file, root, paths)?);
    }
    Ok(Document {
        file: file.to_string(),
        version,
        root,
        paths,
        references,
    })
}

/// The distinct references of the tree and of the path items' texts (the items given their
/// members as they are read).
fn references_of(file: &str, root: &Value, paths: &mut Paths) -> Result<FxHashSet<String>> {
    let mut all = read_items(paths).map_err(|e| unreadable(file, e))?;
    extend_references(&mut all, root);
    Ok(all)
}

/// Read the path items' texts: their distinct references, returned, and their members, given
/// to them.
fn read_items(paths: &mut Paths) -> serde_json::Result<FxHashSet<String>> {
    let texts: Vec<(&str, &str)> = paths.iter().map(|(k, item)| (k, item.text())).collect();
    let (found, members) = read_texts(&texts)?;
    paths.set_members(members);
    Ok(found)
}

/// Path items' texts as read: their distinct references, and each one's members.
type ItemsRead = (FxHashSet<String>, Vec<Option<Vec<references::ItemMember>>>);

/// Read path items' texts, each with its key (on the pool).
fn read_texts(texts: &[(&str, &str)]) -> serde_json::Result<ItemsRead> {
    use rayon::prelude::*;
    let read = texts
        .par_iter()
        .map(|&(key, text)| references::read_member(key, text))
        .collect::<serde_json::Result<Vec<_>>>()?;
    let mut all = FxHashSet::default();
    let mut members = Vec::with_capacity(read.len());
    for (found, item) in read {
        all.extend(found);
        members.push(item);
    }
    Ok((all, members))
}

/// Add the distinct references of the tree `root` to `all`.
fn extend_references(all: &mut FxHashSet<String>, root: &Value) {
    let found = references::distinct_references(root);
    all.extend(found.into_iter().map(str::to_string));
}

/// A path item's text that does not read back: written or checked by the reader, so a fault.
fn unreadable(file: &str, e: serde_json::Error) -> Error {
    Error::Internal(format!(
        "{file}: a path item does not read back as JSON: {e}"
    ))
}

/// Parse JSON or YAML text into a JSON tree, without any OpenAPI checks.
pub fn parse_tree(file: &str, bytes: &[u8]) -> Result<Value> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let Some(&first) = first else {
        return Err(input(file, Location::None, "empty document"));
    };
    if first == b'{' || first == b'[' {
        json::parse(bytes).map_err(|e| {
            let location = if e.line() > 0 {
                Location::LineCol {
                    line: e.line(),
                    column: e.column(),
                }
            } else {
                Location::None
            };
            input(
                file,
                location,
                format!("invalid JSON: {}", strip_position(&e.to_string())),
            )
        })
    } else {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            input(
                file,
                Location::None,
                format!(
                    "not UTF-8 text (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            )
        })?;
        yaml::parse(file, text)
    }
}

/// JSON text parsed in parts as a large document is, whatever its size (`None` where a plain
/// parse is needed): for the fuzz target, which compares it with a plain parse.
#[doc(hidden)]
pub fn parse_json_in_parts(bytes: &[u8]) -> Option<Value> {
    json::parse_in_parts(bytes)
}

/// The JSON type of `v`, for messages (`an object`, `a string`, ...).
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn input(file: &str, location: Location, message: impl Into<String>) -> Error {
    Error::Input {
        file: file.to_string(),
        location,
        message: message.into(),
    }
}

/// Parser messages end in " at line L column C", which we already print as `file:L:C`.
pub(crate) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

pub(crate) fn detect_version(file: &str, root: &Value) -> Result<SpecVersion> {
    let Some(obj) = root.as_object() else {
        return Err(input(
            file,
            Location::None,
            format!(
                "not an OpenAPI document: the top level is {}, expected an object",
                kind(root)
            ),
        ));
    };
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    if let Some(v) = obj.get("openapi") {
        let Some(version) = text(v) else {
            return Err(Error::at(
                file,
                "/openapi",
                "`openapi` must be a version string",
            ));
        };
        let mut parts = version.split('.');
        return match (parts.next(), parts.next()) {
            (Some("3"), Some("0")) => Ok(SpecVersion::OpenApi30),
            (Some("3"), Some("1")) => Ok(SpecVersion::OpenApi31),
            (Some("3"), Some("2")) => Ok(SpecVersion::OpenApi32),
            _ => Err(Error::at(
                file,
                "/openapi",
                format!(
                    "unsupported OpenAPI version {version:?} (supported: 3.0.x, 3.1.x, 3.2.x and Swagger 2.0)"
                ),
            )),
        };
    }
    if let Some(v) = obj.get("swagger") {
        return match text(v).as_deref() {
            Some("2.0") | Some("2") => Ok(SpecVersion::Swagger2),
            other => Err(Error::at(
                file,
                "/swagger",
                format!(
                    "unsupported Swagger version {} (supported: 2.0)",
                    other.unwrap_or("(not a string)")
                ),
            )),
        };
    }
    Err(input(
        file,
        Location::None,
        "not an OpenAPI document: no `openapi` or `swagger` version field at the top level",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-order mark is skipped, in JSON and in YAML.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let small = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#;
        let yaml = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
        for (name, text) in [("small.json", small), ("y.yaml", yaml)] {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
            let doc = load_file(&path).unwrap();
            assert_eq!(
                doc.root,
                parse("t", text.as_bytes()).unwrap().root,
                "{name}"
            );
        }
    }

    /// JSON and YAML give one document: the same tree, the same path items, whatever the
    /// top-level members (`swagger` besides `openapi` included: `openapi` decides).
    #[test]
    fn json_and_yaml_give_one_document() {
        for top in [
            r#""openapi": "3.0.3""#,
            r#""openapi": "3.0.3", "swagger": "x""#,
            r#""swagger": "x", "openapi": "3.1.0""#,
        ] {
            let json = format!(
                r#"{{{top}, "info": {{"title": "t", "version": "1"}},
                "paths": {{"/a": {{"get": {{"responses": {{}}}}}}, "/b": {{}}}}}}"#
            );
            let tree: Value = serde_json::from_str(&json).unwrap();
            let yaml = yaml_serde::to_string(&tree).unwrap();
            let (j, y) = (
                parse("t", json.as_bytes()).unwrap(),
                parse("t", yaml.as_bytes()).unwrap(),
            );
            assert_eq!(j.tree(), tree, "{top}");
            assert_eq!(y.tree(), tree, "{top}");
            assert_eq!(j.root, y.root, "{top}");
            assert_eq!(j.paths.len(), 2, "{top}");
            assert_eq!(y.paths.len(), 2, "{top}");
        }
    }

    /// A document's references are those a walk of its tree finds, a `$ref` or `mapping` key
    /// among the path items included, read from JSON or YAML.
    #[test]
    fn references_are_those_of_the_tree() {
        let json = r##"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"$ref": "#/x", "mapping": {"a": "#/y", "b": {"$ref": "#/z"}},
            "/p": {"get": {"tags": [{"$ref": "#/t"}]}}}, "components": {"$ref": "#/c"}}"##;
        let tree: Value = serde_json::from_str(json).unwrap();
        let mut walked: Vec<&str> = references::distinct_references(&tree).into_iter().collect();
        walked.sort();
        assert_eq!(walked, ["#/c", "#/t", "#/x", "#/y", "#/z"]);
        let yaml = yaml_serde::to_string(&tree).unwrap();
        for text in [json, &yaml] {
            let doc = parse("t", text.as_bytes()).unwrap();
            let mut found: Vec<&str> = doc.references().iter().map(String::as_str).collect();
            found.sort();
            assert_eq!(found, walked);
        }
    }

    /// A Swagger 2.0 JSON document is parsed as a whole, so a text error in an item that a
    /// repeated key replaces is still an error.
    #[test]
    fn a_swagger_document_is_parsed_whole() {
        let text = r#"{"swagger": "2.0", "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"get": {"description": "\ud800"}}, "/a": {"get": {}}}}"#;
        let e = parse("t.json", text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("t.json:2:"), "{e}");
    }

    #[test]
    fn yaml_numeric_keys_become_strings() {
        let v = parse_tree("t.yaml", b"responses:\n  200:\n    description: ok\n").unwrap();
        assert!(v["responses"]["200"].is_object());
    }

    #[test]
    fn yaml_conversion_errors_name_the_pointer() {
        let e = parse_tree("t.yaml", b"paths:\n  /a~b:\n    x: [1, .inf]\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("/paths/~1a~0b/x/1"), "{msg}");
        assert!(msg.contains("infinite or NaN"), "{msg}");
        let e = parse_tree("t.yaml", b"a:\n  b:\n    ? [1, 2]\n    : v\n").unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("/a/b") && msg.contains("must be a scalar"),
            "{msg}"
        );
    }

    #[test]
    fn json_error_has_line_and_column() {
        let e = parse_tree("t.json", b"{\n  \"a\": [1,\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("t.json:"), "{msg}");
        assert!(msg.contains("invalid JSON"), "{msg}");
        // In a path item, which the reader keeps as text: the same plain parse's error.
        let item = br#"{"openapi": "3.0.3", "paths": {"/a": {"x": "\ud800"}}}"#;
        let msg = parse("t.json", item).unwrap_err().to_string();
        assert!(
            msg.starts_with("t.json:1:") && msg.contains("invalid JSON"),
            "{msg}"
        );
    }

    #[test]
    fn version_detection() {
        let d = parse(
            "t",
            b"openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n",
        )
        .unwrap();
        assert_eq!(d.version, SpecVersion::OpenApi31);
        let e = parse("t", b"openapi: 4.0.0\n").unwrap_err().to_string();
        assert!(e.contains("unsupported OpenAPI version"), "{e}");
        let e = parse("t", b"{\"a\": 1}").unwrap_err().to_string();
        assert!(e.contains("not an OpenAPI document"), "{e}");
    }

    #[test]
    fn yaml_merge_keys_are_applied() {
        let v = parse_tree("t", b"a: &x {k: 1}\nb:\n  <<: *x\n  j: 2\n").unwrap();
        assert_eq!(v["b"]["k"], 1);
    }
}
