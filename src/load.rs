//! Loading: bytes -> one JSON tree (`serde_json::Value`, key order kept) plus the detected
//! specification version.
//!
//! Why not `openapiv3`: that crate models OpenAPI 3.0 only. An ordinary 3.1 document
//! (`type: [string, "null"]`, numeric `exclusiveMinimum`) fails to parse as a whole, and keywords it
//! does not know (`const`, `examples`, siblings of `$ref`) are dropped silently. We therefore keep the
//! document as a JSON tree and read it through our own thin typed model (`model`), while schemas stay
//! `Value`s until `schema` converts them to JSON Schema 2020-12. Nothing is lost on the way.
//!
//! JSON or YAML is decided from the content (a document whose first character is `{` is JSON), never
//! from the file name. JSON is parsed by `json`, YAML by `yaml` (merge keys `<<` applied, scalar
//! keys such as response codes turned into strings); both bound nesting depth, and YAML alias
//! expansion.

use crate::error::{Error, Location, Result};
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

/// A parsed document: its JSON tree, version and the name used in messages.
#[derive(Debug, Clone)]
pub struct Document {
    pub file: String,
    pub version: SpecVersion,
    /// The tree (see [`Document::root`]). Not public, so that what loading found out about it
    /// (`clash`) stays true.
    pub(crate) root: Value,
    /// The path items kept as text (see `lazy`), if any.
    pub(crate) lazy: Option<Box<crate::lazy::Paths>>,
    /// Whether two references in `root` want the same `$defs` name (see
    /// [`crate::schema::names_clash`]), or the references to tell from, when loading found
    /// out on the way.
    pub(crate) clash: Option<Clash>,
}

/// What loading found out about the references of a document's tree.
#[derive(Debug, Clone)]
pub(crate) enum Clash {
    /// Whether two of them want the same `$defs` name.
    Known(bool),
    /// All of them (each local), noted while parsing, as a set per part of the text (one
    /// reference may be in several): whether two want the same name is worked out when
    /// needed, by the threads that build tools (see `stream`).
    Among(std::sync::Arc<crate::json::References>),
}

impl Clash {
    /// Whether two references want the same `$defs` name.
    pub(crate) fn get(&self) -> bool {
        match self {
            Clash::Known(clash) => *clash,
            Clash::Among(references) => crate::schema::clash_among(references.distinct()),
        }
    }
}

impl Document {
    /// The tree. In a document from [`load_file_lazy`] that kept its path items as text, `paths`
    /// is empty here: [`Document::tree`] gives the whole tree.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// The document with its whole tree: itself, unless it keeps its path items as text; then
    /// the whole tree is parsed from that text (and the files it references joined) on the first
    /// call.
    pub fn tree(&self) -> Result<&Document> {
        match &self.lazy {
            None => Ok(self),
            Some(paths) => paths.whole(&self.file),
        }
    }

    /// Whether the path items are kept as text (see [`load_file_lazy`]).
    pub fn is_lazy(&self) -> bool {
        self.lazy.is_some()
    }

    /// Whether a lazy document has parsed its whole tree (for tests: the streaming conversion
    /// never needs it).
    #[doc(hidden)]
    pub fn parsed_whole(&self) -> bool {
        self.lazy.as_ref().is_some_and(|p| p.parsed_whole())
    }
}

/// Read a document from a file, joining the files its relative `$ref`s reach (see `bundle`).
pub fn load_file(path: &std::path::Path) -> Result<Document> {
    load_lazy(path, usize::MAX)
}

/// Read a document as [`load_file`] does, except that a JSON document of
/// [`crate::lazy::MIN_LAZY`] bytes or more keeps its path items as text, each parsed when a tool
/// needs it: the streaming conversion ([`crate::stream::convert_to`]) then never holds the whole
/// tree. The tools are the same. Other readers get the whole tree from [`Document::tree`].
pub fn load_file_lazy(path: &std::path::Path) -> Result<Document> {
    load_lazy(path, crate::lazy::MIN_LAZY)
}

/// [`load_file_lazy`] with the size from which path items are kept as text (tests use 0).
#[doc(hidden)]
pub fn load_lazy(path: &std::path::Path, min: usize) -> Result<Document> {
    let bytes = crate::file::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_lazy(&path.display().to_string(), Some(path), bytes, min)
}

/// [`parse`] as [`load_file_lazy`] reads: a large JSON document keeps its path items as text.
pub fn parse_lazy(file: &str, bytes: Vec<u8>) -> Result<Document> {
    read_lazy(file, None, bytes.into(), crate::lazy::MIN_LAZY)
}

/// `bytes`, read from `source` (when a file), as a lazy document if it is at least `min` bytes
/// and can be one, else whole.
fn read_lazy(
    file: &str,
    source: Option<&std::path::Path>,
    bytes: crate::file::Bytes,
    min: usize,
) -> Result<Document> {
    // The text, or the bytes if they are not UTF-8 (for the parse's error).
    let text = if bytes.as_slice().len() >= min {
        // The text moves into the lazy document, and comes back if it cannot be one.
        match bytes.into_text() {
            Ok(text) => match crate::lazy::open(file, source, text) {
                Ok(doc) => return Ok(doc),
                Err(text) => Ok(text),
            },
            Err(bytes) => Err(bytes),
        }
    } else {
        bytes.into_text()
    };
    let (root, references) = match &text {
        Ok(text) => parse_tree_noting(file, text.as_bytes(), Some(text))?,
        Err(bytes) => parse_tree_noting(file, bytes, None)?,
    };
    match source {
        Some(path) => {
            let (root, clash) = crate::bundle::bundle_noting_clash(path, root, references)?;
            let mut doc = from_tree(file, root)?;
            // Swagger 2.0's references were rewritten by the upgrade.
            if doc.version != SpecVersion::Swagger2 {
                doc.clash = clash;
            }
            Ok(doc)
        }
        None => from_tree(file, root),
    }
}

/// Parse `bytes` (named `file` in messages) into a [`Document`]. External `$ref`s are not
/// followed (there is no folder to resolve them against); use [`load_file`] for that.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Document> {
    from_tree(file, parse_tree(file, bytes)?)
}

/// Make a [`Document`] of an already parsed tree.
pub fn from_tree(file: &str, root: Value) -> Result<Document> {
    let version = detect_version(file, &root)?;
    let root = if version == SpecVersion::Swagger2 {
        crate::swagger::upgrade(file, root)?
    } else {
        root
    };
    Ok(Document {
        file: file.to_string(),
        version,
        root,
        lazy: None,
        clash: None,
    })
}

/// Parse JSON or YAML text into a JSON tree, without any OpenAPI checks.
pub fn parse_tree(file: &str, bytes: &[u8]) -> Result<Value> {
    parse_tree_noting(file, bytes, None).map(|(tree, _)| tree)
}

/// [`parse_tree`], with the tree's references when the parse noted them (JSON without
/// repeated keys), so that loading a file needs no walk of the tree to find them. `text` is
/// `bytes` as text, when already known to be UTF-8.
fn parse_tree_noting(
    file: &str,
    bytes: &[u8],
    text: Option<&str>,
) -> Result<(Value, Option<crate::json::References>)> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // The same text, without the byte-order mark.
    let text = text.map(|t| &t[t.len() - bytes.len()..]);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let Some(&first) = first else {
        return Err(input(file, Location::None, "empty document"));
    };
    if first == b'{' || first == b'[' {
        let parsed = match text {
            Some(text) => crate::json::parse_noting_text(text),
            None => crate::json::parse_noting(bytes),
        };
        parsed.map_err(|e| {
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
        let text = text
            .map_or_else(|| std::str::from_utf8(bytes), Ok)
            .map_err(|e| {
                input(
                    file,
                    Location::None,
                    format!(
                        "not UTF-8 text (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                )
            })?;
        crate::yaml::parse(file, text).map(|tree| (tree, None))
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
                crate::model::kind(root)
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

    /// A byte-order mark is skipped, in JSON (a file large enough to be read in halves, its
    /// text known to be UTF-8 on the way, and a small one) and in YAML.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let long = "d".repeat(crate::file::MIN_SPLIT_READ as usize);
        let json = format!(
            r#"{{"openapi": "3.0.0", "info": {{"title": "t", "version": "1", "description": "{long}"}}, "paths": {{}}}}"#
        );
        let small = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#;
        let yaml = "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n";
        for (name, text) in [
            ("big.json", json.as_str()),
            ("small.json", small),
            ("y.yaml", yaml),
        ] {
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
