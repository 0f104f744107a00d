//! Text encodings shared by every part of the request: the percent-encoding sets (which
//! characters each slot may carry as they are) and how a JSON value is written as text.

use crate::model::json_rank;
use crate::tool::Argument;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// Everything but RFC 3986 unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded.
pub(super) const STRICT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `allowReserved: true`: RFC 3986 reserved characters stay as they are, except the ones that
/// would end the value or the URL (`&`, `=`, `#`) and `+` (read as a space by form decoders).
pub(super) const RESERVED_OK: &AsciiSet = &STRICT
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
pub(super) const KEY: &AsciiSet = &STRICT.remove(b'[').remove(b']');

/// Literal parts of the path template: keep the path's own punctuation.
pub(super) const TEMPLATE: &AsciiSet = &STRICT
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
pub(super) const COOKIE: &AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b',')
    .add(b';')
    .add(b'\\')
    .add(b'%');

/// Cookie names: everything but an HTTP token character (RFC 7230 `tchar`) is encoded, and `%`,
/// so a name cannot carry `=`, `;` or a space into the header and end up naming another cookie.
pub(super) const COOKIE_NAME: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'*')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

pub(super) fn encode(s: &str, set: &'static AsciiSet) -> String {
    utf8_percent_encode(s, set).to_string()
}

/// A primitive as text: strings as they are, numbers and booleans in JSON spelling, `null` empty;
/// arrays and objects nested inside another value as JSON text.
pub(super) fn atom_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A parameter declared with `content`: JSON text for JSON media types, else the plain value.
pub(super) fn content_text(a: &Argument, value: &Value) -> String {
    match (&a.content_type, value) {
        (Some(ct), v) if json_rank(ct).is_some() => v.to_string(),
        (_, v) => atom_text(v),
    }
}
