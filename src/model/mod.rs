//! Model: the thin typed view of an OpenAPI document that the tool builder needs — operations
//! with their parameters, request body and success response. Structure is checked here (wrong
//! types are errors naming the JSON pointer); schemas stay borrowed `Value`s for `schema`. The
//! types and entry points are here; `reader` reads paths and operations, `outline` lists
//! operations from their path items' text, `parts` reads their parameters, request bodies and
//! success responses.

use crate::error::Result;
use crate::read::{Document, SpecVersion};
use serde_json::{Map, Value};

mod outline;
mod parts;
mod reader;

pub use parts::json_rank;
use reader::Reader;

/// HTTP methods in the order OpenAPI path items list them; tools follow this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
    Query,
}

impl Method {
    pub const ALL: [Method; 9] = [
        Method::Get,
        Method::Put,
        Method::Post,
        Method::Delete,
        Method::Options,
        Method::Head,
        Method::Patch,
        Method::Trace,
        Method::Query,
    ];

    /// Lower-case key as used in a path item.
    pub fn key(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Put => "put",
            Method::Post => "post",
            Method::Delete => "delete",
            Method::Options => "options",
            Method::Head => "head",
            Method::Patch => "patch",
            Method::Trace => "trace",
            Method::Query => "query",
        }
    }

    /// Upper-case HTTP token.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Put => "PUT",
            Method::Post => "POST",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Head => "HEAD",
            Method::Patch => "PATCH",
            Method::Trace => "TRACE",
            Method::Query => "QUERY",
        }
    }

    /// Parse a method name, case-insensitively.
    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|m| m.key().eq_ignore_ascii_case(s.trim()))
    }
}

/// Where a parameter travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ParamIn {
    Path,
    Query,
    Header,
    Cookie,
}

impl ParamIn {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamIn::Path => "path",
            ParamIn::Query => "query",
            ParamIn::Header => "header",
            ParamIn::Cookie => "cookie",
        }
    }
}

/// One parameter after `$ref`s are followed and path-level parameters merged in.
#[derive(Debug, Clone)]
pub struct Parameter<'a> {
    pub name: String,
    pub location: ParamIn,
    pub required: bool,
    pub deprecated: bool,
    pub description: Option<&'a str>,
    /// The parameter's schema (`schema`, or the schema of its single `content` entry).
    pub schema: Option<&'a Value>,
    /// Set when the parameter uses `content` instead of `schema`: the value is serialized as this
    /// media type (usually JSON) rather than by `style`.
    pub content_type: Option<String>,
    pub style: &'static str,
    pub explode: bool,
    pub allow_reserved: bool,
    pub example: Option<&'a Value>,
}

/// How a request body is encoded, from its media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Json,
    Form,
    Multipart,
    Text,
    Other,
}

/// The chosen representation of an operation's request body.
#[derive(Debug, Clone)]
pub struct RequestBody<'a> {
    pub required: bool,
    pub description: Option<&'a str>,
    pub content_type: String,
    pub kind: BodyKind,
    /// `None` when the media type declares no schema (anything goes).
    pub schema: Option<&'a Value>,
    /// The `encoding` map of form and multipart bodies.
    pub encoding: Option<&'a Map<String, Value>>,
}

/// The success response whose schema becomes the tool's `outputSchema`.
#[derive(Debug, Clone)]
pub struct Response<'a> {
    pub status: String,
    pub content_type: String,
    pub schema: &'a Value,
}

/// One alternative of a security requirement: each scheme's name with the scopes it needs.
pub type Requirement = Vec<(String, Vec<String>)>;

/// Hint values set in the document by a vendor extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HintOverride {
    /// The extension they came from, e.g. `x-mcp-annotations`.
    pub source: &'static str,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub title: Option<String>,
}

/// One operation: method + path and everything a tool needs from it.
#[derive(Debug, Clone)]
pub struct Operation<'a> {
    pub method: Method,
    pub path: String,
    /// JSON pointer of the operation object, for messages.
    pub pointer: String,
    pub operation_id: Option<&'a str>,
    pub summary: Option<&'a str>,
    pub description: Option<&'a str>,
    pub tags: Vec<&'a str>,
    pub deprecated: bool,
    pub parameters: Vec<Parameter<'a>>,
    pub body: Option<RequestBody<'a>>,
    /// First 2xx response with a JSON schema.
    pub response: Option<Response<'a>>,
    /// Whether any 2xx response is declared at all (with or without a schema).
    pub has_success: bool,
    /// Every 2xx response declared is 202 Accepted (the request is taken, the work done later).
    pub only_accepted: bool,
    /// Server URLs in effect (operation, else path item, else document), variables substituted.
    pub servers: Vec<String>,
    pub hints: Vec<HintOverride>,
    /// The security requirement in effect: the operation's own `security`, else the document's.
    /// Alternatives, each the schemes (with their scopes) that must all be applied.
    pub security: Vec<Requirement>,
}

/// What names an operation and what a filter looks at.
#[derive(Debug, Clone)]
pub struct Identity<'a> {
    pub method: Method,
    pub path: &'a str,
    pub operation_id: Option<&'a str>,
    pub tags: Vec<&'a str>,
    pub deprecated: bool,
}

impl Operation<'_> {
    /// What names the operation and what a filter looks at.
    pub fn identity(&self) -> Identity<'_> {
        Identity {
            method: self.method,
            path: &self.path,
            operation_id: self.operation_id,
            tags: self.tags.clone(),
            deprecated: self.deprecated,
        }
    }
}

/// The whole document as the tool builder sees it.
#[derive(Debug, Clone)]
pub struct Api<'a> {
    pub title: &'a str,
    pub version: &'a str,
    pub spec: SpecVersion,
    pub operations: Vec<Operation<'a>>,
    /// Number of webhooks (3.1+); they are not callable and become no tools.
    pub webhooks: usize,
}

/// Read the operations of `doc` (every path item is parsed, and kept with the document).
pub fn read(doc: &Document) -> Result<Api<'_>> {
    Reader { doc }.api()
}

/// One operation as a plan lists it before reading it whole: its path item (by position in
/// [`Document::paths`]), method and what names and filters it.
#[derive(Debug, Clone)]
pub struct Entry<'d> {
    pub item: usize,
    pub path: &'d str,
    pub method: Method,
    pub operation_id: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
}

impl Entry<'_> {
    /// What names the operation and what a filter looks at.
    pub fn identity(&self) -> Identity<'_> {
        Identity {
            method: self.method,
            path: self.path,
            operation_id: self.operation_id.as_deref(),
            tags: self.tags.iter().map(String::as_str).collect(),
            deprecated: self.deprecated,
        }
    }
}

/// What a document says besides its operations: title, version, servers, webhooks.
#[derive(Debug, Clone)]
pub struct Outline<'d> {
    pub title: &'d str,
    pub version: &'d str,
    /// The document's server URLs, variables substituted.
    pub servers: Vec<String>,
    /// Number of webhooks (3.1+); they are not callable and become no tools.
    pub webhooks: usize,
    /// Every operation, in document order.
    pub entries: Vec<Entry<'d>>,
}

/// List the operations of `doc` without reading them whole (path items on the thread pool,
/// each read for what names it only, unless it is a `$ref` or malformed: then it is read in full,
/// for the reader's own message). `each` is worked out for every entry by the thread that
/// lists it. The first error in document order is the one reported.
pub fn outline<'d, X: Send>(
    doc: &'d Document,
    each: impl Fn(&Entry<'d>) -> X + Sync,
) -> Result<(Outline<'d>, Vec<X>)> {
    Reader { doc }.outline(&each)
}

/// Read operation `entry` whole, from `item`, the tree of its path item (parsed by the caller,
/// who drops it when done).
pub fn operation<'a>(
    doc: &'a Document,
    entry: &Entry<'_>,
    item: &'a Value,
    servers: &[String],
) -> Result<Operation<'a>> {
    Reader { doc }.one(entry, item, servers)
}

/// What [`read`] takes from the document besides its paths.
#[derive(Debug, Clone)]
struct Head<'a> {
    title: &'a str,
    version: &'a str,
    /// The document's server URLs, variables substituted.
    servers: Vec<String>,
    webhooks: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Listed from their items' text, the operations of every spec are those read whole: the
    /// same methods, paths, operationIds, tags and deprecation, in the same order; with a
    /// `$ref` item, mistyped fields, and (in text) repeated and escaped keys, which are read
    /// whole.
    #[test]
    fn outline_lists_what_read_reads() {
        let odd = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/r": {"$ref": "#/paths/~1a"}, "/a": {"get": {"operationId": " ", "tags": ["x", 1],
            "deprecated": "true"}, "post": {"operationId": "p", "operationId": "q"}},
            "x-no": {"get": {}}}});
        let text = r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
            "/e": {"g\u0065t": {"operationId": "escaped"}, "put": {"tags": ["\u0074"]}},
            "/d": {"get": {"operationId": "one"}, "get": {"operationId": "two", "tags": ["b"]}},
            "/o": {"put": {"operationId": null, "operationId": "late", "tags": ["a"]}},
            "/k": {"parameters": [], "parameters": [], "delete": {"deprecated": true}},
            "/n": {"head": {"operationId": "h", "tags": null, "deprecated": null}}}}"#;
        let mut docs: Vec<(std::path::PathBuf, crate::read::Document)> =
            crate::test_support::spec_trees()
                .into_iter()
                .chain([("odd".into(), odd)])
                .filter_map(|(path, tree)| Some((path, crate::read::from_tree("spec", tree).ok()?)))
                .collect();
        docs.push((
            "odd text".into(),
            crate::read::parse("t", text.as_bytes()).unwrap(),
        ));
        let mut compared = 0;
        for (path, doc) in docs {
            let Ok(api) = read(&doc) else {
                continue;
            };
            let (outline, _) = outline(&doc, |_| ()).unwrap();
            let read: Vec<String> = api
                .operations
                .iter()
                .map(|o| format!("{:?}", o.identity()))
                .collect();
            let listed: Vec<String> = outline
                .entries
                .iter()
                .map(|e| format!("{:?}", e.identity()))
                .collect();
            assert_eq!(read, listed, "{}", path.display());
            compared += read.len();
        }
        assert!(compared > 80, "{compared}");
    }

    /// An item's operations are listed from its members whatever else it holds: a repeated
    /// key or a large object in an extension does not send it to the full reader, whose error
    /// about an operation the filters may drop would stop the listing.
    #[test]
    fn the_listing_does_not_read_unrelated_members() {
        let many: String = (0..300).map(|i| format!(r#""k{i}": {i}, "#)).collect();
        for extra in [r#""k": 1, "k": 2"#.to_string(), format!("{many}\"end\": 0")] {
            let text = format!(
                r#"{{"openapi": "3.1.0", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a":
                {{"get": {{"operationId": "g"}}, "put": {{"parameters": 5}}, "x-a": {{{extra}}}}}}}}}"#
            );
            let doc = crate::read::parse("t.json", text.as_bytes()).unwrap();
            let (outline, _) = outline(&doc, |_| ()).unwrap();
            let ids: Vec<_> = outline.entries.iter().map(|e| e.method).collect();
            assert_eq!(ids, [Method::Get, Method::Put]);
            assert!(read(&doc).is_err());
        }
    }

    fn api(text: &str) -> Result<usize> {
        let doc = crate::read::parse("t.yaml", text.as_bytes())?;
        Ok(read(&doc)?.operations.len())
    }

    /// Many paths are read in runs on the thread pool; the error reported is still the first in
    /// document order, whichever thread meets it.
    #[test]
    fn the_first_bad_path_is_reported() {
        let mut paths = serde_json::Map::new();
        for i in 0..2 * 64 {
            let item = match i {
                10 => json!({"get": {"parameters": 5, "responses": {}}}),
                // In another run, perhaps read by the other thread.
                i if i == 64 + 10 => json!({"get": 7}),
                _ => json!({"get": {"responses": {}}}),
            };
            paths.insert(format!("/p{i}"), item);
        }
        let doc =
            json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths});
        let doc = crate::read::parse("t", doc.to_string().as_bytes()).unwrap();
        let e = read(&doc).unwrap_err().to_string();
        assert!(e.contains("/paths/~1p10/get/parameters"), "{e}");
        let ok = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": (0..2 * 64).map(|i| (format!("/p{i}"), json!({"get": {"responses": {}}}))).collect::<serde_json::Map<_, _>>()});
        let ok = crate::read::parse("t", ok.to_string().as_bytes()).unwrap();
        let ops = read(&ok).unwrap().operations;
        assert_eq!(ops.len(), 2 * 64);
        assert!(
            ops.iter()
                .enumerate()
                .all(|(i, op)| op.path == format!("/p{i}"))
        );
    }

    #[test]
    fn paths_of_wrong_type_is_an_error() {
        let e = api("openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths: [1]\n").unwrap_err();
        assert!(
            e.to_string().contains("at #/paths: expected an object"),
            "{e}"
        );
    }

    #[test]
    fn path_parameters_merge_and_override() {
        let doc = crate::read::parse(
            "t",
            br#"{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a/{id}":{
              "parameters":[{"name":"id","in":"path","schema":{"type":"string"}},{"name":"q","in":"query"}],
              "get":{"parameters":[{"name":"q","in":"query","required":true}],"responses":{}}}}}"#,
        )
        .unwrap();
        let api = read(&doc).unwrap();
        let ps = &api.operations[0].parameters;
        assert_eq!(ps.len(), 2);
        assert!(ps[0].required, "path parameters are always required");
        assert!(
            ps[1].required,
            "operation-level q overrides the path-level one"
        );
    }

    /// An operation's own `security` wins over the document's, an empty one means none, and a
    /// value that is not a list is no requirement.
    #[test]
    fn security_requirements_are_read_per_operation() {
        let doc = crate::read::parse(
            "t",
            br#"{"openapi":"3.0.3","info":{"title":"t","version":"1"},"security":[{"key":[]}],
              "paths":{"/a":{"get":{"responses":{}},
                             "put":{"security":[{"oauth":["write","read"]},{}],"responses":{}},
                             "post":{"security":[],"responses":{}},
                             "patch":{"security":"key","responses":{}}}}}"#,
        )
        .unwrap();
        let ops = read(&doc).unwrap().operations;
        let by = |m: Method| &ops.iter().find(|o| o.method == m).unwrap().security;
        assert_eq!(by(Method::Get), &vec![vec![("key".to_string(), vec![])]]);
        assert_eq!(
            by(Method::Put),
            &vec![
                vec![("oauth".to_string(), vec!["write".into(), "read".into()])],
                vec![]
            ]
        );
        assert!(by(Method::Post).is_empty());
        assert!(by(Method::Patch).is_empty());
    }
}
