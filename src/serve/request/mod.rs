//! Request: turns one `tools/call`'s arguments and the tool's call mapping into the HTTP request
//! to send (URL, query, headers, cookies, body); pure, so every serialization rule is unit-tested.
//!
//! Parameters follow OpenAPI's `style`/`explode` rules. Every value is percent-encoded so that it
//! stays inside its own slot: a path argument is always exactly one segment (`a/b c?` ->
//! `a%2Fb%20c%3F`, `..` -> `%2E%2E`), a query value never adds a parameter (`&`, `=` and `#` are
//! encoded even with `allowReserved`), and header or cookie values with control characters are
//! refused rather than sent.
//!
//! The builder and the [`Prepared`] request live here; the encodings live in one file each:
//! `encode` (percent-encoding sets, values as text), `path` (the URL path and its parameters),
//! `params` (query, header and cookie parameters), `body` (JSON, form, text and binary bodies)
//! and `multipart` (`multipart/form-data` bodies).

mod body;
mod encode;
mod multipart;
mod params;
mod path;

use crate::tool::{ArgIn, Call};
use body::body;
use encode::{COOKIE, COOKIE_NAME, KEY, RESERVED_OK, STRICT, encode};
use params::{cookie_pairs, header_value, query_pairs};
use path::path;
use serde_json::{Map, Value};
use std::fmt;

/// An argument that cannot be put into the request; the message names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgError {
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
pub(crate) struct QueryPair {
    pub key: String,
    pub value: String,
    /// A credential: shown as `***` in logs and messages.
    pub secret: bool,
}

/// The HTTP request for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prepared {
    pub method: &'static str,
    /// Base URL and encoded path, without the query.
    pub url: String,
    pub query: Vec<QueryPair>,
    /// Header name and value, in order; `Cookie` is built from `cookies` when sent.
    pub headers: Vec<(String, String)>,
    /// `name=value` pairs (value encoded) for the `Cookie` header: the credentials' first.
    pub cookies: Vec<(String, String)>,
    /// How many of `cookies` are credentials (at the front).
    pub credential_cookies: usize,
    pub body: Option<Vec<u8>>,
}

impl Prepared {
    /// The URL to send, with the query.
    pub(crate) fn full_url(&self) -> String {
        self.url_with(|p| &p.value)
    }

    /// The URL for logs and messages: credential values replaced by `***`, and any user
    /// information (`user:password@`) in the base URL removed.
    pub(crate) fn shown_url(&self) -> String {
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
    pub(crate) fn cookie_header(&self) -> Option<String> {
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
    pub(crate) fn set_header(&mut self, name: &str, value: &str) {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.to_string()));
    }

    /// Set a query parameter (raw name and value), replacing any earlier one of that name.
    pub(crate) fn set_query(&mut self, name: &str, value: &str, secret: bool) {
        let key = encode(name, KEY);
        self.query.retain(|p| p.key != key);
        self.query.push(QueryPair {
            key,
            value: encode(value, STRICT),
            secret,
        });
    }

    /// Set a credential cookie (raw name and value), first, so a back end that keeps the first
    /// of two same-named cookies keeps it. The name of an argument cookie it would meet (as
    /// written, or as PHP reads names: `.`, space and `[` as `_`) is returned instead, and
    /// nothing is set.
    pub(crate) fn set_cookie(&mut self, name: &str, value: &str) -> Result<(), String> {
        let name = encode(name, COOKIE_NAME);
        let (credentials, arguments) = self.cookies.split_at(self.credential_cookies);
        if let Some((clash, _)) = arguments
            .iter()
            .find(|(n, _)| php_name(n) == php_name(&name))
        {
            return Err(clash.clone());
        }
        let value = encode(value, COOKIE);
        match credentials.iter().position(|(n, _)| *n == name) {
            Some(i) => self.cookies[i].1 = value,
            None => {
                self.cookies.insert(0, (name, value));
                self.credential_cookies += 1;
            }
        }
        Ok(())
    }

    /// Drop the argument cookies named like one in `header`, a `Cookie` header value given with
    /// `--header`: that cookie is the operator's and an argument may not shadow it.
    pub(crate) fn drop_cookies_named_in(&mut self, header: &str) {
        let names: Vec<&str> = header
            .split(';')
            .filter_map(|pair| pair.split('=').next())
            .map(str::trim)
            .collect();
        let shadows = |n: &String| names.iter().any(|m| php_name(m) == php_name(n));
        let credentials = self.credential_cookies;
        let mut i = 0;
        self.cookies.retain(|(n, _)| {
            i += 1;
            i <= credentials || !shadows(n)
        });
    }
}

/// A cookie name as PHP reads it, which other back ends follow: percent-decoded (names are kept
/// encoded as they are sent), leading spaces dropped, and `.`, space and `[` as `_`.
fn php_name(name: &str) -> String {
    let decoded = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
    decoded.trim_start().replace(['.', ' ', '['], "_")
}

/// The forms a credential value takes when it is sent: as it is (headers), percent-encoded for
/// the query and for a cookie.
pub(crate) fn sent_forms(value: &str) -> Vec<String> {
    vec![
        value.to_string(),
        encode(value, STRICT),
        encode(value, COOKIE),
    ]
}

pub(crate) fn strip_userinfo(url: &str) -> String {
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

/// Whether `url` keeps the scheme, host, port and path prefix of `base` (no trailing slash):
/// it is `base` itself or continues it with `/`, and its path carries no `?`, `#` or `\\`.
fn stays_under(base: &str, url: &str) -> bool {
    match url.strip_prefix(base) {
        Some("") => true,
        Some(rest) => rest.starts_with('/') && !rest.contains(['?', '#', '\\']),
        None => false,
    }
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
pub(crate) fn build(
    call: &Call,
    input_schema: &Value,
    base: &str,
    args: &Map<String, Value>,
) -> Result<Prepared, ArgError> {
    let base = base.trim_end_matches('/');
    let url = format!("{base}{}", path(call, args)?);
    if !stays_under(base, &url) {
        return Err(ArgError::new(
            &call.path,
            format!(
                "the request URL would leave the base URL {}; nothing was sent",
                strip_userinfo(base)
            ),
        ));
    }
    let mut out = Prepared {
        method: call.method.as_str(),
        url,
        query: Vec::new(),
        headers: Vec::new(),
        cookies: Vec::new(),
        credential_cookies: 0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Method;
    use crate::tool::{Argument, Body};
    use serde_json::json;

    pub(super) fn param(
        name: &str,
        location: ArgIn,
        style: &'static str,
        explode: bool,
    ) -> Argument {
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

    pub(super) fn call(path: &str, arguments: Vec<Argument>, body: Option<Body>) -> Call {
        Call {
            method: Method::Post,
            path: path.to_string(),
            servers: vec![],
            arguments,
            body,
            output_wrapped: None,
            fields: false,
            security: Vec::new(),
        }
    }

    pub(super) fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    pub(super) fn url(c: &Call, a: Value) -> String {
        build(c, &json!({}), "http://h", &args(a))
            .unwrap()
            .full_url()
    }

    pub(super) fn body_arg(name: &str) -> Argument {
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

    pub(super) fn spread(ct: &str, encoding: Option<Value>) -> Option<Body> {
        Some(Body {
            content_type: ct.to_string(),
            required: true,
            spread: true,
            encoding,
        })
    }

    #[test]
    fn credential_cookies_come_first_and_cannot_be_shadowed() {
        let mut p = Prepared {
            method: "GET",
            url: "https://h/x".into(),
            query: vec![],
            headers: vec![],
            cookies: vec![("lang".into(), "en".into())],
            credential_cookies: 0,
            body: None,
        };
        p.set_cookie("s_id", "real").unwrap();
        p.set_cookie("s_id", "renewed").unwrap();
        assert_eq!(p.cookie_header().as_deref(), Some("s_id=renewed; lang=en"));
        // An argument cookie that PHP would read as `s_id` (and which it would keep, being first).
        // Names are kept as they are sent, percent-encoded; PHP decodes them first.
        for shadow in [
            "s_id", "s.id", "s id", "s[id", "s%20id", "s%5Bid", "%20s_id", "s%2Eid",
        ] {
            let mut q = Prepared {
                cookies: vec![(shadow.into(), "evil".into())],
                credential_cookies: 0,
                ..p.clone()
            };
            assert_eq!(q.set_cookie("s_id", "real"), Err(shadow.to_string()));
        }
        p.drop_cookies_named_in("s.id=x; lang=y");
        assert_eq!(p.cookie_header().as_deref(), Some("s_id=renewed"));
        let mut q = Prepared {
            cookies: vec![("s%5Bid".into(), "evil".into()), ("ok".into(), "1".into())],
            credential_cookies: 0,
            ..p.clone()
        };
        q.drop_cookies_named_in("s_id=operator");
        assert_eq!(q.cookies, [("ok".to_string(), "1".to_string())]);
    }

    #[test]
    fn shown_url_hides_secrets_and_userinfo() {
        let mut p = Prepared {
            method: "GET",
            url: "https://u:p@h/x".into(),
            query: vec![],
            headers: vec![],
            cookies: vec![],
            credential_cookies: 0,
            body: None,
        };
        p.set_query("q", "1", false);
        p.set_query("api_key", "s3cret", true);
        assert_eq!(p.full_url(), "https://u:p@h/x?q=1&api_key=s3cret");
        assert_eq!(p.shown_url(), "https://h/x?q=1&api_key=***");
    }
}
