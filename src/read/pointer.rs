//! JSON pointers: escaping tokens, resolving local `$ref`s (pointers into the same document) and
//! following them for the non-schema objects that may be references (parameters, request bodies,
//! responses, path items). Schema `$ref`s are not followed here; `schema` rewrites them into
//! `$defs`.

use crate::error::{Error, Result};
use serde_json::Value;

/// How many `$ref` hops we follow before calling a chain circular.
const MAX_HOPS: usize = 32;

/// What pointers resolve against: a plain tree, or a [`super::Document`], whose path items are
/// kept as text and parsed when a pointer reaches into one.
pub trait Tree: Sync {
    /// The top of the tree (for a document, without its path items).
    fn top(&self) -> &Value;

    /// The path item at key `path` of `paths`, when the tree keeps path items apart.
    fn path_item(&self, _path: &str) -> Option<&Value> {
        None
    }
}

impl Tree for Value {
    fn top(&self) -> &Value {
        self
    }
}

/// Resolve a local reference (`#/a/b`, a URI fragment: each token is percent-decoded, then
/// `~1`/`~0` unescaped) against `root`. `None` when it does not exist.
pub fn lookup<'a>(root: &'a (impl Tree + ?Sized), reference: &str) -> Option<&'a Value> {
    walk(root, reference.strip_prefix('#')?, true)
}

/// Resolve a plain JSON pointer (`/a/b`, no percent-decoding) against `root`.
pub fn lookup_pointer<'a>(root: &'a (impl Tree + ?Sized), pointer: &str) -> Option<&'a Value> {
    walk(root, pointer, false)
}

fn walk<'a>(root: &'a (impl Tree + ?Sized), pointer: &str, percent: bool) -> Option<&'a Value> {
    if pointer.is_empty() {
        return Some(root.top());
    }
    if !pointer.starts_with('/') {
        return None;
    }
    let token = |t: &str| {
        let t = if percent {
            percent_decode_token(t)
        } else {
            t.into()
        };
        unescape_token(&t)
    };
    let mut tokens = pointer[1..].split('/');
    let mut node = root.top();
    let mut rest = pointer[1..].split('/');
    if tokens.next().map(token).as_deref() == Some("paths")
        && let Some(path) = tokens.next()
        && let Some(item) = root.path_item(&token(path))
    {
        node = item;
        rest = tokens;
    }
    for t in rest {
        let t = token(t);
        node = match node {
            Value::Object(map) => map.get(&*t)?,
            Value::Array(items) => items.get(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The pointer text of `tokens`: each escaped, each after a `/`.
pub fn from_tokens<'t>(tokens: impl IntoIterator<Item = &'t str>) -> String {
    let mut out = String::new();
    for t in tokens {
        out.push('/');
        // Writing into a `String` cannot fail.
        let _ = write_escaped_token(&mut out, t);
    }
    out
}

/// The decoded tokens of a local reference (`#/a/b%20c~1d` -> `["a", "b c/d"]`; `#` -> `[]`),
/// or `None` when it is not a local JSON pointer.
pub fn reference_tokens(reference: &str) -> Option<Vec<String>> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    Some(
        fragment
            .strip_prefix('/')?
            .split('/')
            .map(|t| unescape_token(&percent_decode_token(t)))
            .collect(),
    )
}

/// `#/components/schemas/A%20B` -> `/components/schemas/A B`: the plain JSON pointer to the node
/// [`lookup`] finds for a local reference (each token percent-decoded, so `%2F` is a `/` inside
/// a key, written `~1`). Two spellings of a reference give the same pointer exactly when they
/// name the same node.
pub fn canonical(reference: &str) -> String {
    let frag = reference.strip_prefix('#').unwrap_or(reference);
    if !frag.contains('%') {
        return frag.to_string();
    }
    frag.split('/')
        .map(|t| escape_token(&unescape_token(&percent_decode_token(t))))
        .collect::<Vec<_>>()
        .join("/")
}

/// Decode `%XX` escapes in a URI fragment (JSON pointers in `$ref` are URI fragments).
pub(crate) fn percent_decode_token(token: &str) -> std::borrow::Cow<'_, str> {
    if !token.contains('%') {
        return token.into();
    }
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out)
        .map(Into::into)
        .unwrap_or_else(|_| token.into())
}

/// The `$ref` string of `value`, if it is a reference object.
pub fn ref_of(value: &Value) -> Option<&str> {
    value.as_object()?.get("$ref")?.as_str()
}

/// Follow `$ref` chains from `value` (found at `at`) to the object they name.
/// Returns the object and the pointer it was found at.
pub fn follow<'a>(
    file: &str,
    root: &'a (impl Tree + ?Sized),
    value: &'a Value,
    at: &str,
) -> Result<(&'a Value, String)> {
    follow_from(file, root, value, &|| at.to_string())
}

/// [`follow`], with the pointer where `value` is found written out by `at` only when needed: for
/// a message, or as the result when `value` is no reference.
pub fn follow_from<'a>(
    file: &str,
    root: &'a (impl Tree + ?Sized),
    value: &'a Value,
    at: &dyn Fn() -> String,
) -> Result<(&'a Value, String)> {
    let mut node = value;
    // The reference that led to `node`, if any: `node` is found where it points.
    let mut led: Option<&str> = None;
    let where_ = |led: Option<&str>| led.map_or_else(at, |r| r[1..].to_string());
    for _ in 0..MAX_HOPS {
        let Some(reference) = ref_of(node) else {
            return Ok((node, where_(led)));
        };
        check_local_at(file, reference, || where_(led))?;
        node = lookup(root, reference).ok_or_else(|| {
            Error::at(
                file,
                &where_(led),
                format!("`$ref` target {reference} does not exist"),
            )
        })?;
        led = Some(reference);
    }
    Err(Error::at(
        file,
        &at(),
        "`$ref` chain is circular or longer than 32 hops",
    ))
}

/// Refuse references that leave the document.
pub fn check_local(file: &str, reference: &str, at: &str) -> Result<()> {
    check_local_at(file, reference, || at.to_string())
}

/// [`check_local`], with the pointer for the message written out only when it is needed.
fn check_local_at(file: &str, reference: &str, at: impl FnOnce() -> String) -> Result<()> {
    if reference.starts_with('#') {
        return Ok(());
    }
    let what = if reference.contains("://") {
        "remote `$ref`s are not fetched (no network access)"
    } else {
        "`$ref` to another file could not be resolved"
    };
    Err(Error::at(file, &at(), format!("{what}: {reference}")))
}

/// Escape one JSON-pointer reference token (RFC 6901).
pub fn escape_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len() + 4);
    // Writing into a `String` cannot fail.
    let _ = write_escaped_token(&mut out, token);
    out
}

/// Write `token` escaped as [`escape_token`] does, without building it first (an operation's
/// pointer is written for every operation: Microsoft Graph, twice for each of 11,422).
pub fn write_escaped_token(out: &mut impl std::fmt::Write, token: &str) -> std::fmt::Result {
    let mut rest = token;
    while let Some(i) = rest.find(['~', '/']) {
        out.write_str(&rest[..i])?;
        out.write_str(if rest.as_bytes()[i] == b'~' {
            "~0"
        } else {
            "~1"
        })?;
        rest = &rest[i + 1..];
    }
    out.write_str(rest)
}

/// Undo [`escape_token`].
pub fn unescape_token(token: &str) -> String {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~")
    } else {
        token.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lookup_pointer_with_escapes() {
        let doc = json!({"paths": {"/a/b": {"get": 1}}, "c": [10, 20], "d e": 3});
        assert_eq!(lookup(&doc, "#/paths/~1a~1b/get"), Some(&json!(1)));
        assert_eq!(lookup(&doc, "#/c/1"), Some(&json!(20)));
        assert_eq!(lookup(&doc, "#/d%20e"), Some(&json!(3)));
        assert_eq!(lookup(&doc, "#/nope"), None);
    }

    #[test]
    fn follow_detects_cycles() {
        let doc = json!({"a": {"$ref": "#/b"}, "b": {"$ref": "#/a"}});
        let err = follow("f", &doc, &doc["a"], "/a").unwrap_err().to_string();
        assert!(err.contains("circular"), "{err}");
    }

    #[test]
    fn tokens_escape_and_unescape() {
        for (token, escaped) in [
            ("", ""),
            ("plain", "plain"),
            ("/users/{id}", "~1users~1{id}"),
            ("a~/b/~", "a~0~1b~1~0"),
            ("~1", "~01"),
            ("ü/ö~", "ü~1ö~0"),
        ] {
            assert_eq!(escape_token(token), escaped);
            assert_eq!(unescape_token(escaped), token);
        }
    }
}
