//! Model: the thin typed view of an OpenAPI document that the tool builder needs — operations
//! with their parameters, request body and success response. Structure is checked here (wrong
//! types are errors naming the JSON pointer); schemas stay borrowed `Value`s for `schema`.

use crate::error::{Error, Result};
use crate::load::{Document, SpecVersion};
use crate::lookup::get;
use crate::refs;
use serde_json::{Map, Value};

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
    /// Server URLs in effect (operation, else path item, else document), variables substituted.
    pub servers: Vec<String>,
    pub hints: Vec<HintOverride>,
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

/// Read the operations of `doc` (its whole tree: see [`Document::tree`]).
pub fn read(doc: &Document) -> Result<Api<'_>> {
    Ok(read_with(doc, |_| ())?.0)
}

/// [`read`], with `each` of every operation, in order, worked out by the thread that read it
/// (the plan names operations so, rather than start threads again for it once all are read).
pub(crate) fn read_with<'d, X: Send>(
    doc: &'d Document,
    each: impl Fn(&Operation<'d>) -> X + Sync,
) -> Result<(Api<'d>, Vec<X>)> {
    Reader { doc: doc.tree()? }.api(&each)
}

/// What [`read`] takes from the document besides its paths.
#[derive(Debug, Clone)]
pub(crate) struct Head<'a> {
    pub title: &'a str,
    pub version: &'a str,
    /// The document's server URLs, variables substituted.
    pub servers: Vec<String>,
    pub webhooks: usize,
}

/// Read what `doc` says besides its paths, as [`read`] does before the paths.
pub(crate) fn read_head(doc: &Document) -> Result<Head<'_>> {
    Reader { doc }.head()
}

/// The operations of one path item (`item`, the value of `path` in `paths`, which need not be
/// part of `doc.root`), as [`read`] reads them, or only the one of method `only`; `servers`: the
/// document's, from [`read_head`].
pub(crate) fn read_path_item<'a>(
    doc: &'a Document,
    path: &str,
    item: &'a Value,
    servers: &[String],
    only: Option<Method>,
) -> Result<Vec<Operation<'a>>> {
    let mut out = Vec::new();
    let at = At::Text("/paths").key(path);
    Reader { doc }.path_item(path, item, &at, servers, only, &mut out)?;
    Ok(out)
}

/// Where a node is, as a JSON pointer written out only for a message: reading an operation
/// passes a dozen of them down, and nearly every one goes unused.
#[derive(Clone, Copy)]
enum At<'p> {
    /// A pointer already written out (where a `$ref` led, or a fixed place).
    Text(&'p str),
    /// A member of the node at the parent.
    Key(&'p At<'p>, &'p str),
    /// An element of the array at the parent.
    Index(&'p At<'p>, usize),
}

impl<'p> At<'p> {
    fn key(&'p self, key: &'p str) -> At<'p> {
        At::Key(self, key)
    }

    fn index(&'p self, i: usize) -> At<'p> {
        At::Index(self, i)
    }
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Text(t) => f.write_str(t),
            At::Key(parent, key) => {
                parent.fmt(f)?;
                f.write_str("/")?;
                crate::error::write_escaped_token(f, key)
            }
            At::Index(parent, i) => write!(f, "{parent}/{i}"),
        }
    }
}

/// The JSON type name of `v`, for messages.
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

struct Reader<'a> {
    doc: &'a Document,
}

/// From this many paths on, [`Reader::path_items`] reads on two threads.
const PARALLEL_PATHS: usize = crate::par::MIN_ITEMS;
/// Path items a thread reads at a time.
const PATHS_RUN: usize = 16;

impl<'a> Reader<'a> {
    fn err(&self, pointer: &str, message: impl Into<String>) -> Error {
        Error::at(&self.doc.file, pointer, message)
    }

    fn object(&self, v: &'a Value, at: &At) -> Result<&'a Map<String, Value>> {
        v.as_object().ok_or_else(|| {
            self.err(
                &at.to_string(),
                format!("expected an object, found {}", kind(v)),
            )
        })
    }

    fn opt_str(&self, obj: &'a Map<String, Value>, key: &str, at: &At) -> Result<Option<&'a str>> {
        match get(obj, key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(self.err(
                &at.key(key).to_string(),
                format!("`{key}` must be a string, found {}", kind(other)),
            )),
        }
    }

    fn opt_bool(&self, obj: &Map<String, Value>, key: &str, at: &At) -> Result<Option<bool>> {
        match get(obj, key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            // "true"/"false" strings are a common slip; accept them rather than refuse the document.
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(self.err(
                &at.key(key).to_string(),
                format!("`{key}` must be a boolean, found {}", kind(other)),
            )),
        }
    }

    /// An optional array field: absent or null is empty, anything else but an array is an error.
    fn opt_array(&self, v: Option<&'a Value>, what: &str, at: &At) -> Result<&'a [Value]> {
        match v {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.err(
                &at.to_string(),
                format!("`{what}` must be an array, found {}", kind(other)),
            )),
        }
    }

    /// `v`, or the node its `$ref` (chain) leads to, with the pointer to that node when it is
    /// not `at`.
    fn follow(&self, v: &'a Value, at: &At) -> Result<(&'a Value, Option<String>)> {
        if refs::ref_of(v).is_none() {
            return Ok((v, None));
        }
        let (target, pointer) =
            refs::follow_from(&self.doc.file, &self.doc.root, v, &|| at.to_string())?;
        Ok((target, Some(pointer)))
    }

    fn api<X: Send>(
        &self,
        each: &(impl Fn(&Operation<'a>) -> X + Sync),
    ) -> Result<(Api<'a>, Vec<X>)> {
        let head = self.head()?;
        let (operations, xs) = match self.root()?.get("paths") {
            None | Some(Value::Null) => (Vec::new(), Vec::new()),
            Some(paths) => {
                let paths: Vec<(&'a String, &'a Value)> = self
                    .object(paths, &At::Text("/paths"))?
                    .iter()
                    .filter(|(path, _)| !path.starts_with("x-"))
                    .collect();
                self.path_items(&paths, &head.servers, each)?
            }
        };
        let api = Api {
            title: head.title,
            version: head.version,
            spec: self.doc.version,
            operations,
            webhooks: head.webhooks,
        };
        Ok((api, xs))
    }

    fn root(&self) -> Result<&'a Map<String, Value>> {
        self.object(&self.doc.root, &At::Text(""))
    }

    fn head(&self) -> Result<Head<'a>> {
        let root = self.root()?;
        let info_at = At::Text("/info");
        let info = match get(root, "info") {
            Some(v) => Some(self.object(v, &info_at)?),
            None => None,
        };
        let title = match info {
            Some(i) => self.opt_str(i, "title", &info_at)?.unwrap_or(""),
            None => "",
        };
        let version = match info {
            Some(i) => self.opt_str(i, "version", &info_at)?.unwrap_or(""),
            None => "",
        };
        let servers = self.servers(get(root, "servers"), &At::Text("/servers"))?;
        let webhooks = match get(root, "webhooks") {
            Some(Value::Object(m)) => m.len(),
            _ => 0,
        };
        Ok(Head {
            title,
            version,
            servers,
            webhooks,
        })
    }

    /// The operations of `paths`, in order, each with `each` of it. Many paths are read on two
    /// threads; the first error in document order is the one reported, as when read in one pass.
    fn path_items<X: Send>(
        &self,
        paths: &[(&'a String, &'a Value)],
        root_servers: &[String],
        each: &(impl Fn(&Operation<'a>) -> X + Sync),
    ) -> Result<(Vec<Operation<'a>>, Vec<X>)> {
        let read = |paths: &[(&'a String, &'a Value)]| -> Result<(Vec<Operation<'a>>, Vec<X>)> {
            let mut out = Vec::new();
            let paths_at = At::Text("/paths");
            for (path, item) in paths {
                self.path_item(
                    path,
                    item,
                    &paths_at.key(path),
                    root_servers,
                    None,
                    &mut out,
                )?;
            }
            let xs = out.iter().map(each).collect();
            Ok((out, xs))
        };
        if paths.len() < PARALLEL_PATHS {
            return read(paths);
        }
        // Runs of path items taken in turn by two threads, so that they finish together: path
        // items differ a lot in size (in two halves, Kubernetes' second took twice the first).
        let runs: Vec<&[(&'a String, &'a Value)]> = paths.chunks(PATHS_RUN).collect();
        // `None` only if the second thread panicked: read again on this one, for the panic.
        let parts = crate::par::each_taken(&runs, |run| Some(read(run)))
            .unwrap_or_else(|| runs.iter().map(|run| read(run)).collect());
        let (mut operations, mut xs) = (Vec::new(), Vec::new());
        for part in parts {
            let (ops, x) = part?;
            operations.extend(ops);
            xs.extend(x);
        }
        Ok((operations, xs))
    }

    fn path_item(
        &self,
        path: &str,
        item: &'a Value,
        at: &At,
        root_servers: &[String],
        only: Option<Method>,
        out: &mut Vec<Operation<'a>>,
    ) -> Result<()> {
        let (item, led) = self.follow(item, at)?;
        let item_at = led.as_deref().map_or(*at, At::Text);
        let item = self.object(item, &item_at)?;
        let shared = self.parameters(get(item, "parameters"), &item_at.key("parameters"))?;
        let path_servers = match get(item, "servers") {
            Some(s) => self.servers(Some(s), &item_at.key("servers"))?,
            None => root_servers.to_vec(),
        };
        for method in Method::ALL {
            if only.is_some_and(|m| m != method) {
                continue;
            }
            let Some(op) = get(item, method.key()) else {
                continue;
            };
            let op_at = item_at.key(method.key());
            out.push(self.operation(method, path, op, &op_at, &shared, &path_servers)?);
        }
        Ok(())
    }

    fn operation(
        &self,
        method: Method,
        path: &str,
        op: &'a Value,
        at: &At,
        shared: &[Parameter<'a>],
        path_servers: &[String],
    ) -> Result<Operation<'a>> {
        let obj = self.object(op, at)?;
        let own = self.parameters(get(obj, "parameters"), &at.key("parameters"))?;
        // Operation-level parameters override path-level ones with the same name and location.
        let mut parameters: Vec<Parameter<'a>> = shared
            .iter()
            .filter(|p| {
                !own.iter()
                    .any(|o| o.name == p.name && o.location == p.location)
            })
            .cloned()
            .collect();
        parameters.extend(own);

        let tags = self
            .opt_array(get(obj, "tags"), "tags", &at.key("tags"))?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let servers = match get(obj, "servers") {
            Some(s) => self.servers(Some(s), &at.key("servers"))?,
            None => path_servers.to_vec(),
        };
        let body = match get(obj, "requestBody") {
            None | Some(Value::Null) => None,
            Some(b) => self.request_body(b, &at.key("requestBody"))?,
        };
        let (response, has_success) = self.success(get(obj, "responses"), &at.key("responses"))?;
        let mut hints = Vec::new();
        for source in ["x-speakeasy-mcp", "x-mcp-annotations"] {
            if let Some(v) = get(obj, source) {
                hints.push(self.hint_override(source, v, &at.key(source))?);
            }
        }
        Ok(Operation {
            method,
            path: path.to_string(),
            pointer: at.to_string(),
            operation_id: self
                .opt_str(obj, "operationId", at)?
                .filter(|s| !s.trim().is_empty()),
            summary: self.opt_str(obj, "summary", at)?,
            description: self.opt_str(obj, "description", at)?,
            tags,
            deprecated: self.opt_bool(obj, "deprecated", at)?.unwrap_or(false),
            parameters,
            body,
            response,
            has_success,
            servers,
            hints,
        })
    }

    fn parameters(&self, list: Option<&'a Value>, at: &At) -> Result<Vec<Parameter<'a>>> {
        let items = self.opt_array(list, "parameters", at)?;
        let mut out: Vec<Parameter<'a>> = Vec::with_capacity(items.len());
        for (i, p) in items.iter().enumerate() {
            if let Some(p) = self.parameter(p, &at.index(i))? {
                // A later duplicate (same name and location) replaces the earlier one.
                out.retain(|q| !(q.name == p.name && q.location == p.location));
                out.push(p);
            }
        }
        Ok(out)
    }

    fn parameter(&self, p: &'a Value, at: &At) -> Result<Option<Parameter<'a>>> {
        let (p, led) = self.follow(p, at)?;
        let at = led.as_deref().map_or(*at, At::Text);
        let obj = self.object(p, &at)?;
        let name = self
            .opt_str(obj, "name", &at)?
            .ok_or_else(|| self.err(&at.to_string(), "parameter has no `name`"))?;
        let location = match self.opt_str(obj, "in", &at)? {
            Some("path") => ParamIn::Path,
            Some("query") | Some("querystring") => ParamIn::Query,
            Some("header") => ParamIn::Header,
            Some("cookie") => ParamIn::Cookie,
            Some(other) => {
                return Err(self.err(
                    &at.key("in").to_string(),
                    format!("unknown parameter location {other:?}"),
                ));
            }
            None => {
                return Err(self.err(&at.to_string(), format!("parameter {name:?} has no `in`")));
            }
        };
        // OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
        if location == ParamIn::Header
            && ["accept", "content-type", "authorization"]
                .contains(&name.to_ascii_lowercase().as_str())
        {
            return Ok(None);
        }
        let (schema, content_type) = match (get(obj, "schema"), get(obj, "content")) {
            (Some(s), _) => (Some(s), None),
            (None, Some(Value::Object(content))) => match content.iter().next() {
                Some((media, m)) => {
                    let m = self.object(m, &at.key("content").key(media))?;
                    (get(m, "schema"), Some(media.clone()))
                }
                None => (None, None),
            },
            _ => (None, None),
        };
        let default_style = match location {
            ParamIn::Path | ParamIn::Header => "simple",
            ParamIn::Query | ParamIn::Cookie => "form",
        };
        let style = match self.opt_str(obj, "style", &at)? {
            Some(s) => match s {
                "matrix" => "matrix",
                "label" => "label",
                "simple" => "simple",
                "form" => "form",
                "spaceDelimited" => "spaceDelimited",
                "pipeDelimited" => "pipeDelimited",
                "deepObject" => "deepObject",
                "cookie" => "cookie",
                other => {
                    return Err(self.err(
                        &at.key("style").to_string(),
                        format!("unknown parameter style {other:?}"),
                    ));
                }
            },
            None => default_style,
        };
        let explode = self
            .opt_bool(obj, "explode", &at)?
            .unwrap_or(style == "form");
        Ok(Some(Parameter {
            name: name.to_string(),
            location,
            required: location == ParamIn::Path
                || self.opt_bool(obj, "required", &at)?.unwrap_or(false),
            deprecated: self.opt_bool(obj, "deprecated", &at)?.unwrap_or(false),
            description: self.opt_str(obj, "description", &at)?,
            schema,
            content_type,
            style,
            explode,
            allow_reserved: self.opt_bool(obj, "allowReserved", &at)?.unwrap_or(false),
            example: get(obj, "example"),
        }))
    }

    fn request_body(&self, b: &'a Value, at: &At) -> Result<Option<RequestBody<'a>>> {
        let (b, led) = self.follow(b, at)?;
        let at = led.as_deref().map_or(*at, At::Text);
        let obj = self.object(b, &at)?;
        let content_at = at.key("content");
        let content = match get(obj, "content") {
            None | Some(Value::Null) => return Ok(None),
            Some(c) => self.object(c, &content_at)?,
        };
        let Some((media, entry)) = content.iter().min_by_key(|(media, _)| body_rank(media)) else {
            return Ok(None);
        };
        let entry_at = content_at.key(media);
        let entry = self.object(entry, &entry_at)?;
        let encoding = match get(entry, "encoding") {
            Some(e) => Some(self.object(e, &entry_at.key("encoding"))?),
            None => None,
        };
        Ok(Some(RequestBody {
            required: self.opt_bool(obj, "required", &at)?.unwrap_or(false),
            description: self.opt_str(obj, "description", &at)?,
            content_type: media.clone(),
            kind: body_kind(media),
            schema: get(entry, "schema"),
            encoding,
        }))
    }

    fn success(
        &self,
        responses: Option<&'a Value>,
        at: &At,
    ) -> Result<(Option<Response<'a>>, bool)> {
        let responses = match responses {
            None | Some(Value::Null) => return Ok((None, false)),
            Some(r) => self.object(r, at)?,
        };
        let mut codes: Vec<(&String, &'a Value)> = responses
            .iter()
            .filter(|(code, _)| success_order(code).is_some())
            .collect();
        codes.sort_by_key(|(code, _)| success_order(code));
        let has_success = !codes.is_empty();
        for (code, r) in codes {
            let code_at = at.key(code);
            let (r, led) = self.follow(r, &code_at)?;
            let r_at = led.as_deref().map_or(code_at, At::Text);
            let r = self.object(r, &r_at)?;
            let Some(content) = get(r, "content") else {
                continue;
            };
            let content = self.object(content, &r_at.key("content"))?;
            let best = content
                .iter()
                .filter_map(|(media, m)| Some((json_rank(media)?, media, m)))
                .min_by_key(|(rank, _, _)| *rank);
            if let Some((_, media, m)) = best
                && let Some(schema) = m.as_object().and_then(|m| get(m, "schema"))
            {
                return Ok((
                    Some(Response {
                        status: code.clone(),
                        content_type: media.clone(),
                        schema,
                    }),
                    true,
                ));
            }
        }
        Ok((None, has_success))
    }

    fn servers(&self, list: Option<&'a Value>, at: &At) -> Result<Vec<String>> {
        let items = self.opt_array(list, "servers", at)?;
        let mut out = Vec::new();
        for (i, s) in items.iter().enumerate() {
            let s_at = at.index(i);
            let obj = self.object(s, &s_at)?;
            let Some(url) = self.opt_str(obj, "url", &s_at)? else {
                continue;
            };
            let mut url = url.to_string();
            if let Some(Value::Object(vars)) = get(obj, "variables") {
                for (name, var) in vars {
                    if let Some(default) = var.get("default") {
                        let default = match default {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        url = url.replace(&format!("{{{name}}}"), &default);
                    }
                }
            }
            if !out.contains(&url) {
                out.push(url);
            }
        }
        Ok(out)
    }

    fn hint_override(&self, source: &'static str, v: &'a Value, at: &At) -> Result<HintOverride> {
        let obj = self.object(v, at)?;
        // x-speakeasy-mcp keeps hints either at its top level or under `annotations`.
        let a_at = at.key("annotations");
        let (obj, at) = match get(obj, "annotations") {
            Some(a) => (self.object(a, &a_at)?, a_at),
            None => (obj, *at),
        };
        Ok(HintOverride {
            source,
            read_only: self.opt_bool(obj, "readOnlyHint", &at)?,
            destructive: self.opt_bool(obj, "destructiveHint", &at)?,
            idempotent: self.opt_bool(obj, "idempotentHint", &at)?,
            open_world: self.opt_bool(obj, "openWorldHint", &at)?,
            title: self.opt_str(obj, "title", &at)?.map(str::to_string),
        })
    }
}

/// Order of success responses: 200..299 ascending, then the `2XX` range.
fn success_order(code: &str) -> Option<u16> {
    if code.eq_ignore_ascii_case("2XX") {
        return Some(300);
    }
    match code.parse::<u16>() {
        Ok(n) if (200..300).contains(&n) => Some(n),
        _ => None,
    }
}

/// The essence of a media type: lower-case, parameters dropped.
fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Rank of a JSON-like media type (lower is better); `None` for non-JSON.
pub fn json_rank(media: &str) -> Option<u8> {
    let m = essence(media);
    if m == "application/json" {
        Some(0)
    } else if m.ends_with("+json") || m.ends_with("/json") {
        Some(1)
    } else if m == "*/*" || m == "application/*" {
        Some(2)
    } else {
        None
    }
}

fn body_kind(media: &str) -> BodyKind {
    let m = essence(media);
    if json_rank(&m).is_some() {
        BodyKind::Json
    } else if m == "application/x-www-form-urlencoded" {
        BodyKind::Form
    } else if m == "multipart/form-data" || m.starts_with("multipart/") {
        BodyKind::Multipart
    } else if m.starts_with("text/") {
        BodyKind::Text
    } else {
        BodyKind::Other
    }
}

/// Preference among a request body's media types: JSON, form, multipart, text, anything else.
fn body_rank(media: &str) -> (u8, u8) {
    let m = essence(media);
    match body_kind(&m) {
        BodyKind::Json => (0, json_rank(&m).unwrap_or(9)),
        BodyKind::Form => (1, 0),
        BodyKind::Multipart => (2, u8::from(m != "multipart/form-data")),
        BodyKind::Text => (3, u8::from(m != "text/plain")),
        BodyKind::Other => (4, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn api(text: &str) -> Result<usize> {
        let doc = crate::load::parse("t.yaml", text.as_bytes())?;
        Ok(read(&doc)?.operations.len())
    }

    #[test]
    fn success_codes_are_ordered() {
        assert!(success_order("201") > success_order("200"));
        assert!(success_order("2XX") > success_order("299"));
        assert_eq!(success_order("default"), None);
        assert_eq!(success_order("404"), None);
    }

    #[test]
    fn body_media_preference() {
        let mut media = [
            "text/plain",
            "multipart/form-data",
            "application/json",
            "application/x-www-form-urlencoded",
        ];
        media.sort_by_key(|m| body_rank(m));
        assert_eq!(media[0], "application/json");
        assert_eq!(media[1], "application/x-www-form-urlencoded");
    }

    /// Many paths are read on two threads at once; the error reported is still the first in
    /// document order, whichever thread meets it.
    #[test]
    fn the_first_bad_path_is_reported() {
        let mut paths = serde_json::Map::new();
        for i in 0..2 * PARALLEL_PATHS {
            let item = match i {
                10 => json!({"get": {"parameters": 5, "responses": {}}}),
                // In another run, perhaps read by the other thread.
                i if i == PARALLEL_PATHS + 10 => json!({"get": 7}),
                _ => json!({"get": {"responses": {}}}),
            };
            paths.insert(format!("/p{i}"), item);
        }
        let doc =
            json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths});
        let doc = crate::load::parse("t", doc.to_string().as_bytes()).unwrap();
        let e = read(&doc).unwrap_err().to_string();
        assert!(e.contains("/paths/~1p10/get/parameters"), "{e}");
        let ok = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": (0..2 * PARALLEL_PATHS).map(|i| (format!("/p{i}"), json!({"get": {"responses": {}}}))).collect::<serde_json::Map<_, _>>()});
        let ok = crate::load::parse("t", ok.to_string().as_bytes()).unwrap();
        let ops = read(&ok).unwrap().operations;
        assert_eq!(ops.len(), 2 * PARALLEL_PATHS);
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
        let doc = crate::load::parse(
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
}
