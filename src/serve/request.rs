//! Request: turns one `tools/call`'s arguments and the tool's call mapping into the HTTP request
//! to send (URL, query, headers, cookies, body); pure, so every serialization rule is unit-tested.
//!
//! Parameters follow OpenAPI's `style`/`explode` rules. Every value is percent-encoded so that it
//! stays inside its own slot: a path argument is always exactly one segment (`a/b c?` ->
//! `a%2Fb%20c%3F`, `..` -> `%2E%2E`), a query value never adds a parameter (`&`, `=` and `#` are
//! encoded even with `allowReserved`), and header or cookie values with control characters are
//! refused rather than sent.

use crate::model::json_rank;
use crate::tool::{ArgIn, Argument, Body, Call};
use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};
use std::fmt;

/// Everything but RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded.
const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `allowReserved: true`: RFC 3986 reserved characters stay as they are, except the ones that
/// would end the value or the URL (`&`, `=`, `#`) and `+` (read as a space by form decoders).
const RESERVED_OK: &AsciiSet = &STRICT
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b',')
    .remove(b';')
    .remove(b'[')
    .remove(b']');

/// Query keys: as strict, but `[` and `]` stay readable (`filter[name]`, deepObject).
const KEY: &AsciiSet = &STRICT.remove(b'[').remove(b']');

/// Literal parts of the path template: keep the path's own punctuation.
const TEMPLATE: &AsciiSet = &STRICT
    .remove(b'/')
    .remove(b':')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'%');

/// Cookie values: what RFC 6265 forbids in a cookie-octet (and `%`, so the encoding is reversible).
const COOKIE: &AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b',')
    .add(b';')
    .add(b'\\')
    .add(b'%');

/// An argument that cannot be put into the request; the message names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    pub argument: String,
    pub message: String,
}

impl ArgError {
    fn new(argument: &str, message: impl Into<String>) -> Self {
        ArgError {
            argument: argument.to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "argument `{}`: {}", self.argument, self.message)
    }
}

/// One `key=value` of the query string, both already percent-encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryPair {
    pub key: String,
    pub value: String,
    /// A credential: shown as `***` in logs and messages.
    pub secret: bool,
}

/// The HTTP request for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    pub method: &'static str,
    /// Base URL and encoded path, without the query.
    pub url: String,
    pub query: Vec<QueryPair>,
    /// Header name and value, in order; `Cookie` is built from `cookies` when sent.
    pub headers: Vec<(String, String)>,
    /// `name=value` pairs (value encoded) for the `Cookie` header.
    pub cookies: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Prepared {
    /// The URL to send, with the query.
    pub fn full_url(&self) -> String {
        self.url_with(|p| &p.value)
    }

    /// The URL for logs and messages: credential values replaced by `***`, and any user
    /// information (`user:password@`) in the base URL removed.
    pub fn shown_url(&self) -> String {
        strip_userinfo(&self.url_with(|p| if p.secret { "***" } else { &p.value }))
    }

    fn url_with(&self, value: impl Fn(&QueryPair) -> &str) -> String {
        let mut url = self.url.clone();
        for (i, p) in self.query.iter().enumerate() {
            url.push(if i == 0 { '?' } else { '&' });
            url.push_str(&p.key);
            url.push('=');
            url.push_str(value(p));
        }
        url
    }

    /// The `Cookie` header value, if any cookie is set.
    pub fn cookie_header(&self) -> Option<String> {
        if self.cookies.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        Some(parts.join("; "))
    }

    /// Set a header, replacing any earlier one of the same name (case-insensitive).
    pub fn set_header(&mut self, name: &str, value: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.to_string()));
    }

    /// Whether a header of that name is set.
    pub fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    /// Set a query parameter (raw name and value), replacing any earlier one of that name.
    pub fn set_query(&mut self, name: &str, value: &str, secret: bool) {
        let key = encode(name, KEY);
        self.query.retain(|p| p.key != key);
        self.query.push(QueryPair {
            key,
            value: encode(value, STRICT),
            secret,
        });
    }

    /// Set a cookie (raw name and value), replacing any earlier one of that name.
    pub fn set_cookie(&mut self, name: &str, value: &str) {
        self.cookies.retain(|(n, _)| n != name);
        self.cookies.push((name.to_string(), encode(value, COOKIE)));
    }
}

fn strip_userinfo(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..scheme_end + 3], &rest[at + 1..]),
        None => url.to_string(),
    }
}

fn encode(s: &str, set: &'static AsciiSet) -> String {
    utf8_percent_encode(s, set).to_string()
}

/// Headers that describe the connection or the message framing: the HTTP client sets them, an
/// argument may not.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "content-type",
    "cookie",
];

/// Build the request for `call` with `args` (already validated against the input schema), to be
/// sent to `base` (no trailing slash). `input_schema` tells which body properties are base64.
pub fn build(
    call: &Call,
    input_schema: &Value,
    base: &str,
    args: &Map<String, Value>,
) -> Result<Prepared, ArgError> {
    let mut out = Prepared {
        method: call.method.as_str(),
        url: format!("{}{}", base.trim_end_matches('/'), path(call, args)?),
        query: Vec::new(),
        headers: Vec::new(),
        cookies: Vec::new(),
        body: None,
    };
    for a in &call.arguments {
        let Some(value) = args.get(&a.name) else {
            continue;
        };
        let wire = a.original.as_deref().unwrap_or(&a.name);
        match a.location {
            ArgIn::Query => {
                if value.is_null() {
                    continue;
                }
                let set = if a.allow_reserved {
                    RESERVED_OK
                } else {
                    STRICT
                };
                out.query
                    .extend(
                        query_pairs(a, wire, value, set)
                            .into_iter()
                            .map(|(key, value)| QueryPair {
                                key,
                                value,
                                secret: false,
                            }),
                    );
            }
            ArgIn::Header => {
                if value.is_null() {
                    continue;
                }
                if RESERVED_HEADERS.contains(&wire.to_ascii_lowercase().as_str()) {
                    continue;
                }
                let text = header_value(a, value);
                if text.chars().any(|c| c.is_control() && c != '\t') {
                    return Err(ArgError::new(
                        &a.name,
                        "a header value cannot contain control characters (line breaks)",
                    ));
                }
                if !text.is_ascii() {
                    return Err(ArgError::new(&a.name, "a header value must be ASCII text"));
                }
                out.headers.push((wire.to_string(), text));
            }
            ArgIn::Cookie => {
                if value.is_null() {
                    continue;
                }
                out.cookies.extend(cookie_pairs(a, wire, value));
            }
            ArgIn::Path | ArgIn::Body | ArgIn::WholeBody => {}
        }
    }
    if let Some(b) = &call.body
        && let Some((content_type, bytes)) = body(call, b, input_schema, args)?
    {
        out.headers.push(("Content-Type".into(), content_type));
        out.body = Some(bytes);
    }
    Ok(out)
}

/// The path with every `{name}` replaced by its encoded argument.
fn path(call: &Call, args: &Map<String, Value>) -> Result<String, ArgError> {
    let mut out = String::new();
    let mut rest = call.path.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&encode(&rest[..open], TEMPLATE));
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            // An unbalanced `{`: literal text.
            out.push_str(&encode(&rest[open..], TEMPLATE));
            return Ok(out);
        };
        let name = &after[..close];
        let arg = call
            .arguments
            .iter()
            .find(|a| a.location == ArgIn::Path && a.original.as_deref() == Some(name));
        let Some(arg) = arg else {
            return Err(ArgError::new(
                name,
                format!(
                    "the path {} has no parameter declared for {{{name}}}",
                    call.path
                ),
            ));
        };
        let Some(value) = args.get(&arg.name) else {
            return Err(ArgError::new(&arg.name, "is required (path parameter)"));
        };
        out.push_str(&path_value(arg, name, value));
        rest = &after[close + 1..];
    }
    out.push_str(&encode(rest, TEMPLATE));
    Ok(out)
}

/// A primitive as text: strings as they are, numbers and booleans in JSON spelling, `null` empty;
/// arrays and objects nested inside another value as JSON text.
fn atom_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// One encoded atom of a path value; a lone `.` or `..` is encoded too, so it stays a name.
fn path_atom(v: &Value) -> String {
    let text = atom_text(v);
    if text == "." || text == ".." {
        return text.replace('.', "%2E");
    }
    encode(&text, STRICT)
}

/// Path parameter: `simple` (default), `label` or `matrix`.
fn path_value(a: &Argument, name: &str, value: &Value) -> String {
    let explode = a.explode.unwrap_or(false);
    if a.content_type.is_some() {
        return encode(&content_text(a, value), STRICT);
    }
    let name = encode(name, STRICT);
    let style = a.style.unwrap_or("simple");
    match value {
        Value::Array(items) => {
            let atoms: Vec<String> = items.iter().map(path_atom).collect();
            match (style, explode) {
                ("label", false) => format!(".{}", atoms.join(",")),
                ("label", true) => atoms.iter().map(|x| format!(".{x}")).collect(),
                ("matrix", false) => format!(";{name}={}", atoms.join(",")),
                ("matrix", true) => atoms.iter().map(|x| format!(";{name}={x}")).collect(),
                _ => atoms.join(","),
            }
        }
        Value::Object(map) => {
            let kv: Vec<(String, String)> = map
                .iter()
                .map(|(k, v)| (encode(k, STRICT), path_atom(v)))
                .collect();
            let flat = || {
                kv.iter()
                    .flat_map(|(k, v)| [k.clone(), v.clone()])
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let pairs = |sep: &str, lead: &str| {
                kv.iter()
                    .map(|(k, v)| format!("{lead}{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(sep)
            };
            match (style, explode) {
                ("label", false) => format!(".{}", flat()),
                ("label", true) => pairs("", "."),
                ("matrix", false) => format!(";{name}={}", flat()),
                ("matrix", true) => pairs("", ";"),
                (_, false) => flat(),
                (_, true) => pairs(",", ""),
            }
        }
        v => match style {
            "label" => format!(".{}", path_atom(v)),
            "matrix" => format!(";{name}={}", path_atom(v)),
            _ => path_atom(v),
        },
    }
}

/// A parameter declared with `content`: JSON text for JSON media types, else the plain value.
fn content_text(a: &Argument, value: &Value) -> String {
    match (&a.content_type, value) {
        (Some(ct), v) if json_rank(ct).is_some() => v.to_string(),
        (_, v) => atom_text(v),
    }
}

/// Query parameter pairs (encoded) by `style`/`explode`: `form` (default; arrays as repeated keys
/// when exploded, comma-joined when not), `spaceDelimited`, `pipeDelimited`, `deepObject`.
fn query_pairs(
    a: &Argument,
    name: &str,
    value: &Value,
    set: &'static AsciiSet,
) -> Vec<(String, String)> {
    let key = encode(name, KEY);
    if a.content_type.is_some() {
        return vec![(key, encode(&content_text(a, value), set))];
    }
    styled_pairs(
        name,
        a.style.unwrap_or("form"),
        a.explode.unwrap_or(true),
        value,
        set,
    )
}

/// The pairs of one value in a `form`-family style (shared by query and form bodies).
fn styled_pairs(
    name: &str,
    style: &str,
    explode: bool,
    value: &Value,
    set: &'static AsciiSet,
) -> Vec<(String, String)> {
    let key = encode(name, KEY);
    let atom = |v: &Value| encode(&atom_text(v), set);
    match value {
        Value::Array(items) => {
            let delimiter = match style {
                "spaceDelimited" => "%20",
                "pipeDelimited" => "%7C",
                _ => ",",
            };
            if explode {
                items.iter().map(|v| (key.clone(), atom(v))).collect()
            } else {
                let joined: Vec<String> = items.iter().map(atom).collect();
                vec![(key, joined.join(delimiter))]
            }
        }
        Value::Object(map) => match (style, explode) {
            ("deepObject", _) => {
                let mut out = Vec::new();
                deep(&key, map, set, &mut out);
                out
            }
            (_, true) => map.iter().map(|(k, v)| (encode(k, KEY), atom(v))).collect(),
            (_, false) => {
                let delimiter = match style {
                    "spaceDelimited" => "%20",
                    "pipeDelimited" => "%7C",
                    _ => ",",
                };
                let flat: Vec<String> = map
                    .iter()
                    .flat_map(|(k, v)| [encode(k, set), atom(v)])
                    .collect();
                vec![(key, flat.join(delimiter))]
            }
        },
        v => vec![(key, atom(v))],
    }
}

/// deepObject: `name[key]=value`, nested objects as `name[a][b]`, arrays as repeated keys.
fn deep(
    prefix: &str,
    map: &Map<String, Value>,
    set: &'static AsciiSet,
    out: &mut Vec<(String, String)>,
) {
    for (k, v) in map {
        let key = format!("{prefix}[{}]", encode(k, STRICT));
        match v {
            Value::Object(inner) => deep(&key, inner, set, out),
            Value::Array(items) => {
                for item in items {
                    out.push((key.clone(), encode(&atom_text(item), set)));
                }
            }
            Value::Null => {}
            other => out.push((key, encode(&atom_text(other), set))),
        }
    }
}

/// Header parameter (`simple` style): arrays comma-joined, objects as `k,v` or `k=v` pairs.
fn header_value(a: &Argument, value: &Value) -> String {
    if a.content_type.is_some() {
        return content_text(a, value);
    }
    let explode = a.explode.unwrap_or(false);
    match value {
        Value::Array(items) => items.iter().map(atom_text).collect::<Vec<_>>().join(","),
        Value::Object(map) if explode => map
            .iter()
            .map(|(k, v)| format!("{k}={}", atom_text(v)))
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| [k.clone(), atom_text(v)])
            .collect::<Vec<_>>()
            .join(","),
        v => atom_text(v),
    }
}

/// Cookie parameter (`form` style): `name=value`; arrays comma-joined, or one cookie per item when
/// exploded; objects as `name=k,v` or, exploded, one cookie per property.
fn cookie_pairs(a: &Argument, name: &str, value: &Value) -> Vec<(String, String)> {
    let atom = |v: &Value| encode(&atom_text(v), COOKIE);
    if a.content_type.is_some() {
        return vec![(name.to_string(), encode(&content_text(a, value), COOKIE))];
    }
    let explode = a.explode.unwrap_or(true);
    match value {
        Value::Array(items) if explode => {
            items.iter().map(|v| (name.to_string(), atom(v))).collect()
        }
        Value::Array(items) => vec![(
            name.to_string(),
            items.iter().map(atom).collect::<Vec<_>>().join(","),
        )],
        Value::Object(map) if explode => map.iter().map(|(k, v)| (k.clone(), atom(v))).collect(),
        Value::Object(map) => vec![(
            name.to_string(),
            map.iter()
                .flat_map(|(k, v)| [encode(k, COOKIE), atom(v)])
                .collect::<Vec<_>>()
                .join(","),
        )],
        v => vec![(name.to_string(), atom(v))],
    }
}

/// The body's parts in argument order: (name in the request, schema of the argument, value).
type Parts<'a> = Vec<(String, Option<&'a Value>, &'a Value)>;

/// The request body and its `Content-Type`, or `None` when no body argument was given.
fn body(
    call: &Call,
    b: &Body,
    input_schema: &Value,
    args: &Map<String, Value>,
) -> Result<Option<(String, Vec<u8>)>, ArgError> {
    let schema_of = |arg: &str| input_schema.get("properties").and_then(|p| p.get(arg));
    let essence = b
        .content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if !b.spread {
        let Some(arg) = call
            .arguments
            .iter()
            .find(|a| a.location == ArgIn::WholeBody)
        else {
            return Ok(None);
        };
        let Some(value) = args.get(&arg.name) else {
            return Ok(None);
        };
        let schema = schema_of(&arg.name);
        return whole_body(b, &essence, &arg.name, schema, input_schema, value).map(Some);
    }
    let parts: Parts<'_> = call
        .arguments
        .iter()
        .filter(|a| a.location == ArgIn::Body)
        .filter_map(|a| {
            let value = args.get(&a.name)?;
            let wire = a.original.clone().unwrap_or_else(|| a.name.clone());
            Some((wire, schema_of(&a.name), value))
        })
        .collect();
    if parts.is_empty() && !b.required {
        return Ok(None);
    }
    let encoding = b.encoding.as_ref();
    if essence == "application/x-www-form-urlencoded" {
        let pairs = form_pairs(&parts, encoding);
        return Ok(Some((b.content_type.clone(), pairs.into_bytes())));
    }
    if essence.starts_with("multipart/") {
        return multipart(&parts, encoding, input_schema, &essence).map(Some);
    }
    // JSON (and anything else declared with an object schema).
    let mut object = Map::new();
    for (name, _, value) in &parts {
        object.insert(name.clone(), (*value).clone());
    }
    let bytes = serde_json::to_vec(&Value::Object(object)).unwrap_or_default();
    Ok(Some((json_content_type(&b.content_type), bytes)))
}

/// A JSON media type to send: wildcards (`*/*`, `application/*`) become `application/json`.
fn json_content_type(declared: &str) -> String {
    if declared.contains('*') {
        "application/json".into()
    } else {
        declared.to_string()
    }
}

fn whole_body(
    b: &Body,
    essence: &str,
    arg: &str,
    schema: Option<&Value>,
    root: &Value,
    value: &Value,
) -> Result<(String, Vec<u8>), ArgError> {
    if json_rank(essence).is_some() {
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        return Ok((json_content_type(&b.content_type), bytes));
    }
    if essence == "application/x-www-form-urlencoded" {
        let bytes = match value {
            Value::Object(map) => {
                let parts: Parts<'_> = map.iter().map(|(k, v)| (k.clone(), None, v)).collect();
                form_pairs(&parts, b.encoding.as_ref()).into_bytes()
            }
            other => atom_text(other).into_bytes(),
        };
        return Ok((b.content_type.clone(), bytes));
    }
    if essence.starts_with("multipart/") {
        let Value::Object(map) = value else {
            return Err(ArgError::new(
                arg,
                "a multipart body must be an object (one part per property)",
            ));
        };
        let parts: Parts<'_> = map.iter().map(|(k, v)| (k.clone(), None, v)).collect();
        return multipart(&parts, b.encoding.as_ref(), root, essence);
    }
    let content_type = if b.content_type.contains('*') {
        "application/octet-stream".to_string()
    } else {
        b.content_type.clone()
    };
    let bytes = match value {
        Value::String(s) if schema.is_some_and(|s| is_base64(s, root)) => decode_base64(arg, s)?,
        Value::String(s) => s.clone().into_bytes(),
        other => other.to_string().into_bytes(),
    };
    Ok((content_type, bytes))
}

/// `application/x-www-form-urlencoded`: each property by its `encoding` entry (`style` form and
/// `explode` true by default; a JSON `contentType` sends the value as JSON text).
fn form_pairs(parts: &Parts<'_>, encoding: Option<&Value>) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, _, value) in parts {
        if value.is_null() {
            continue;
        }
        let enc = encoding.and_then(|e| e.get(name.as_str()));
        let field = |k: &str| enc.and_then(|e| e.get(k));
        let style = field("style").and_then(Value::as_str).unwrap_or("form");
        let explode = field("explode")
            .and_then(Value::as_bool)
            .unwrap_or(style == "form");
        let set = if field("allowReserved").and_then(Value::as_bool) == Some(true) {
            RESERVED_OK
        } else {
            STRICT
        };
        let json = field("contentType")
            .and_then(Value::as_str)
            .is_some_and(|ct| json_rank(ct).is_some());
        if json {
            pairs.push((encode(name, KEY), encode(&value.to_string(), set)));
        } else {
            pairs.extend(styled_pairs(name, style, explode, value, set));
        }
    }
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// One part of a multipart body.
struct Part {
    name: String,
    filename: Option<String>,
    content_type: Option<String>,
    data: Vec<u8>,
}

/// `multipart/form-data`: one part per property; arrays as repeated parts; base64 (binary)
/// properties decoded and sent as files; objects as JSON parts.
fn multipart(
    parts: &Parts<'_>,
    encoding: Option<&Value>,
    root: &Value,
    essence: &str,
) -> Result<(String, Vec<u8>), ArgError> {
    let mut out: Vec<Part> = Vec::new();
    for (name, schema, value) in parts {
        let declared = encoding
            .and_then(|e| e.get(name.as_str()))
            .and_then(|e| e.get("contentType"))
            .and_then(Value::as_str)
            .and_then(|ct| ct.split(',').next())
            .map(|ct| ct.trim().to_string())
            .filter(|ct| !ct.is_empty() && !ct.contains('*'));
        let binary = schema.is_some_and(|s| is_base64(s, root));
        let items_binary = schema
            .and_then(|s| s.get("items"))
            .is_some_and(|s| is_base64(s, root));
        let items: Vec<(&Value, bool)> = match value {
            Value::Array(items) if !declared.as_deref().is_some_and(is_json) => {
                items.iter().map(|v| (v, items_binary)).collect()
            }
            Value::Null => Vec::new(),
            v => vec![(v, binary)],
        };
        for (v, binary) in items {
            let part = match v {
                Value::String(s) if binary => Part {
                    name: name.clone(),
                    filename: Some(name.clone()),
                    content_type: Some(
                        declared
                            .clone()
                            .unwrap_or_else(|| "application/octet-stream".into()),
                    ),
                    data: decode_base64(name, s)?,
                },
                Value::Object(_) | Value::Array(_) => Part {
                    name: name.clone(),
                    filename: None,
                    content_type: Some(
                        declared
                            .clone()
                            .unwrap_or_else(|| "application/json".into()),
                    ),
                    data: v.to_string().into_bytes(),
                },
                other => Part {
                    name: name.clone(),
                    filename: None,
                    content_type: declared.clone(),
                    data: atom_text(other).into_bytes(),
                },
            };
            out.push(part);
        }
    }
    let boundary = boundary(&out);
    let mut bytes = Vec::new();
    for p in &out {
        bytes.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let mut disposition = format!(
            "Content-Disposition: form-data; name=\"{}\"",
            quoted(&p.name)
        );
        if let Some(f) = &p.filename {
            disposition.push_str(&format!("; filename=\"{}\"", quoted(f)));
        }
        bytes.extend_from_slice(disposition.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        if let Some(ct) = &p.content_type {
            bytes.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
        }
        bytes.extend_from_slice(b"\r\n");
        bytes.extend_from_slice(&p.data);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((format!("{essence}; boundary={boundary}"), bytes))
}

fn is_json(ct: &str) -> bool {
    json_rank(ct).is_some()
}

/// A name inside a quoted Content-Disposition parameter.
fn quoted(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == '"' { '\'' } else { c })
        .collect()
}

/// A boundary that occurs in no part.
fn boundary(parts: &[Part]) -> String {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut n: u128 = seed;
    loop {
        let candidate = format!("openapi-mcp-{:016x}", n as u64);
        let bytes = candidate.as_bytes();
        if !parts
            .iter()
            .any(|p| p.data.windows(bytes.len()).any(|w| w == bytes))
        {
            return candidate;
        }
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
}

/// Whether a property's schema marks it as base64-encoded binary (following a local `$ref`).
fn is_base64(schema: &Value, root: &Value) -> bool {
    let mut schema = schema;
    for _ in 0..8 {
        if schema.get("contentEncoding").and_then(Value::as_str) == Some("base64") {
            return true;
        }
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => match r.strip_prefix('#').and_then(|p| root.pointer(p)) {
                Some(target) => schema = target,
                None => return false,
            },
            None => return false,
        }
    }
    false
}

fn decode_base64(arg: &str, text: &str) -> Result<Vec<u8>, ArgError> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let engines = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    engines
        .iter()
        .find_map(|e| e.decode(compact.as_bytes()).ok())
        .ok_or_else(|| ArgError::new(arg, "is not valid base64 (binary data travels as base64)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Method;
    use serde_json::json;

    fn param(name: &str, location: ArgIn, style: &'static str, explode: bool) -> Argument {
        Argument {
            name: name.to_string(),
            location,
            original: Some(name.to_string()),
            style: Some(style),
            explode: Some(explode),
            allow_reserved: false,
            content_type: None,
        }
    }

    fn call(path: &str, arguments: Vec<Argument>, body: Option<Body>) -> Call {
        Call {
            method: Method::Post,
            path: path.to_string(),
            servers: vec![],
            arguments,
            body,
            output_wrapped: None,
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn url(c: &Call, a: Value) -> String {
        build(c, &json!({}), "http://h", &args(a))
            .unwrap()
            .full_url()
    }

    #[test]
    fn path_values_stay_one_segment() {
        let c = call(
            "/files/{id}",
            vec![param("id", ArgIn::Path, "simple", false)],
            None,
        );
        assert_eq!(
            url(&c, json!({"id": "a/b c?"})),
            "http://h/files/a%2Fb%20c%3F"
        );
        assert_eq!(url(&c, json!({"id": ".."})), "http://h/files/%2E%2E");
        assert_eq!(
            url(&c, json!({"id": "x#y&z=%"})),
            "http://h/files/x%23y%26z%3D%25"
        );
        assert_eq!(url(&c, json!({"id": 42})), "http://h/files/42");
        assert_eq!(
            url(&c, json!({"id": ["a", "b/c"]})),
            "http://h/files/a,b%2Fc"
        );
    }

    #[test]
    fn path_styles() {
        let styled = |style, explode, v| {
            let c = call(
                "/p/{id}",
                vec![param("id", ArgIn::Path, style, explode)],
                None,
            );
            url(&c, json!({ "id": v }))
        };
        assert_eq!(styled("label", false, json!(["a", "b"])), "http://h/p/.a,b");
        assert_eq!(styled("label", true, json!(["a", "b"])), "http://h/p/.a.b");
        assert_eq!(styled("matrix", false, json!(5)), "http://h/p/;id=5");
        assert_eq!(
            styled("matrix", true, json!(["a", "b"])),
            "http://h/p/;id=a;id=b"
        );
        assert_eq!(
            styled("simple", false, json!({"r": 1, "g": 2})),
            "http://h/p/r,1,g,2"
        );
        assert_eq!(
            styled("simple", true, json!({"r": 1, "g": 2})),
            "http://h/p/r=1,g=2"
        );
    }

    #[test]
    fn missing_path_parameter_is_named() {
        let c = call(
            "/p/{id}",
            vec![param("id", ArgIn::Path, "simple", false)],
            None,
        );
        let e = build(&c, &json!({}), "http://h", &Map::new()).unwrap_err();
        assert_eq!(e.argument, "id");
        let undeclared = call("/p/{other}", vec![], None);
        let e = build(&undeclared, &json!({}), "http://h", &Map::new()).unwrap_err();
        assert!(e.to_string().contains("{other}"), "{e}");
    }

    #[test]
    fn query_styles() {
        let q = |style, explode, v| {
            let c = call("/s", vec![param("tag", ArgIn::Query, style, explode)], None);
            url(&c, json!({ "tag": v }))
        };
        assert_eq!(
            q("form", true, json!(["a", "b c"])),
            "http://h/s?tag=a&tag=b%20c"
        );
        assert_eq!(q("form", false, json!(["a", "b"])), "http://h/s?tag=a,b");
        assert_eq!(
            q("spaceDelimited", false, json!(["a", "b"])),
            "http://h/s?tag=a%20b"
        );
        assert_eq!(
            q("pipeDelimited", false, json!(["a", "b"])),
            "http://h/s?tag=a%7Cb"
        );
        assert_eq!(
            q("form", true, json!({"x": 1, "y": "z"})),
            "http://h/s?x=1&y=z"
        );
        assert_eq!(
            q("form", false, json!({"x": 1, "y": "z"})),
            "http://h/s?tag=x,1,y,z"
        );
        assert_eq!(
            q("deepObject", true, json!({"x": 1, "n": {"m": true}})),
            "http://h/s?tag[x]=1&tag[n][m]=true"
        );
        assert_eq!(
            q("form", true, json!("a&b=c#d")),
            "http://h/s?tag=a%26b%3Dc%23d"
        );
        assert_eq!(q("form", true, json!(null)), "http://h/s");
    }

    #[test]
    fn allow_reserved_keeps_reserved_but_not_separators() {
        let mut p = param("path", ArgIn::Query, "form", true);
        p.allow_reserved = true;
        let c = call("/s", vec![p], None);
        assert_eq!(
            url(&c, json!({"path": "/a/b:c,d&e=f#g h"})),
            "http://h/s?path=/a/b:c,d%26e%3Df%23g%20h"
        );
    }

    #[test]
    fn content_parameters_are_json() {
        let mut p = param("filter", ArgIn::Query, "form", true);
        p.style = None;
        p.explode = None;
        p.content_type = Some("application/json".into());
        let c = call("/s", vec![p], None);
        assert_eq!(
            url(&c, json!({"filter": {"a": [1]}})),
            "http://h/s?filter=%7B%22a%22%3A%5B1%5D%7D"
        );
    }

    #[test]
    fn headers_and_cookies() {
        let c = call(
            "/s",
            vec![
                param("X-Trace", ArgIn::Header, "simple", false),
                param("session", ArgIn::Cookie, "form", true),
                param("prefs", ArgIn::Cookie, "form", false),
            ],
            None,
        );
        let r = build(
            &c,
            &json!({}),
            "http://h",
            &args(json!({"X-Trace": ["a", 1], "session": "a b;c", "prefs": ["x", "y"]})),
        )
        .unwrap();
        assert_eq!(r.headers, vec![("X-Trace".to_string(), "a,1".to_string())]);
        assert_eq!(
            r.cookie_header().as_deref(),
            Some("session=a%20b%3Bc; prefs=x,y")
        );
        let e = build(
            &c,
            &json!({}),
            "http://h",
            &args(json!({"X-Trace": "a\r\nX-Evil: 1"})),
        )
        .unwrap_err();
        assert_eq!(e.argument, "X-Trace");
        let e = build(&c, &json!({}), "http://h", &args(json!({"X-Trace": "é"}))).unwrap_err();
        assert!(e.to_string().contains("ASCII"), "{e}");
    }

    fn body_arg(name: &str) -> Argument {
        Argument {
            name: name.to_string(),
            location: ArgIn::Body,
            original: Some(name.to_string()),
            style: None,
            explode: None,
            allow_reserved: false,
            content_type: None,
        }
    }

    fn spread(ct: &str, encoding: Option<Value>) -> Option<Body> {
        Some(Body {
            content_type: ct.to_string(),
            required: true,
            spread: true,
            encoding,
        })
    }

    #[test]
    fn json_body_spread_and_whole() {
        let c = call(
            "/p",
            vec![body_arg("name"), body_arg("tags")],
            spread("application/json", None),
        );
        let r = build(
            &c,
            &json!({}),
            "http://h",
            &args(json!({"tags": ["a"], "name": "n"})),
        )
        .unwrap();
        assert_eq!(
            r.body.as_deref(),
            Some(br#"{"name":"n","tags":["a"]}"#.as_slice())
        );
        assert_eq!(
            r.headers,
            vec![("Content-Type".into(), "application/json".into())]
        );

        let mut whole = body_arg("body");
        whole.location = ArgIn::WholeBody;
        whole.original = None;
        let b = Body {
            content_type: "application/json".into(),
            required: false,
            spread: false,
            encoding: None,
        };
        let c = call("/p", vec![whole], Some(b));
        let r = build(&c, &json!({}), "http://h", &args(json!({"body": [1, 2]}))).unwrap();
        assert_eq!(r.body.as_deref(), Some(b"[1,2]".as_slice()));
        let r = build(&c, &json!({}), "http://h", &Map::new()).unwrap();
        assert_eq!(r.body, None, "an optional body left out is not sent");
    }

    #[test]
    fn form_body() {
        let c = call(
            "/login",
            vec![body_arg("user"), body_arg("scopes"), body_arg("meta")],
            spread(
                "application/x-www-form-urlencoded",
                Some(json!({"meta": {"contentType": "application/json"}})),
            ),
        );
        let r = build(
            &c,
            &json!({}),
            "http://h",
            &args(json!({"user": "a b&c", "scopes": ["r", "w"], "meta": {"k": 1}})),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(r.body.unwrap()).unwrap(),
            "user=a%20b%26c&scopes=r&scopes=w&meta=%7B%22k%22%3A1%7D"
        );
    }

    #[test]
    fn multipart_body_decodes_binary() {
        let schema = json!({"properties": {
            "file": {"type": "string", "contentEncoding": "base64"},
            "caption": {"type": "string"}
        }});
        let c = call(
            "/files",
            vec![body_arg("file"), body_arg("caption")],
            spread(
                "multipart/form-data",
                Some(json!({"file": {"contentType": "image/png, image/jpeg"}})),
            ),
        );
        let r = build(
            &c,
            &schema,
            "http://h",
            &args(json!({"file": "AAEC/w==", "caption": "hi"})),
        )
        .unwrap();
        let ct = &r.headers[0].1;
        let boundary = ct.split("boundary=").nth(1).unwrap();
        let expected = [
            format!("--{boundary}\r\n").into_bytes(),
            b"Content-Disposition: form-data; name=\"file\"; filename=\"file\"\r\n".to_vec(),
            b"Content-Type: image/png\r\n\r\n".to_vec(),
            vec![0, 1, 2, 255],
            b"\r\n".to_vec(),
            format!("--{boundary}\r\n").into_bytes(),
            b"Content-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n".to_vec(),
            format!("--{boundary}--\r\n").into_bytes(),
        ]
        .concat();
        assert_eq!(r.body.unwrap(), expected);
        assert!(ct.starts_with("multipart/form-data; boundary="));

        let e = build(
            &c,
            &schema,
            "http://h",
            &args(json!({"file": "not base64!"})),
        )
        .unwrap_err();
        assert_eq!(e.argument, "file");
    }

    #[test]
    fn text_and_binary_bodies() {
        let mut whole = body_arg("body");
        whole.location = ArgIn::WholeBody;
        whole.original = None;
        let b = |ct: &str| Body {
            content_type: ct.to_string(),
            required: true,
            spread: false,
            encoding: None,
        };
        let c = call("/n", vec![whole.clone()], Some(b("text/plain")));
        let r = build(&c, &json!({}), "http://h", &args(json!({"body": "héllo"}))).unwrap();
        assert_eq!(r.body.unwrap(), "héllo".as_bytes());
        let schema =
            json!({"properties": {"body": {"type": "string", "contentEncoding": "base64"}}});
        let c = call("/b", vec![whole], Some(b("application/octet-stream")));
        let r = build(&c, &schema, "http://h", &args(json!({"body": "aGk="}))).unwrap();
        assert_eq!(r.body.unwrap(), b"hi");
    }

    #[test]
    fn shown_url_hides_secrets_and_userinfo() {
        let mut p = Prepared {
            method: "GET",
            url: "https://u:p@h/x".into(),
            query: vec![],
            headers: vec![],
            cookies: vec![],
            body: None,
        };
        p.set_query("q", "1", false);
        p.set_query("api_key", "s3cret", true);
        assert_eq!(p.full_url(), "https://u:p@h/x?q=1&api_key=s3cret");
        assert_eq!(p.shown_url(), "https://h/x?q=1&api_key=***");
    }
}
