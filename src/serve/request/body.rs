//! The request body: JSON (spread from the arguments or whole), form-urlencoded, text, and binary
//! sent from base64; `multipart` bodies are built in the sibling module.

use super::ArgError;
use super::encode::{KEY, RESERVED_OK, STRICT, atom_text, encode};
use super::multipart::multipart;
use super::params::styled_pairs;
use crate::model::json_rank;
use crate::tool::{ArgIn, Body, Call};
use base64::Engine as _;
use serde_json::{Map, Value};

/// The body's parts in argument order: (name in the request, schema of the argument, value).
pub(super) type Parts<'a> = Vec<(String, Option<&'a Value>, &'a Value)>;

/// The request body and its `Content-Type`, or `None` when no body argument was given.
pub(super) fn body(
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

/// Whether a property's schema marks it as base64-encoded binary (following a local `$ref`).
pub(super) fn is_base64(schema: &Value, root: &Value) -> bool {
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

pub(super) fn decode_base64(arg: &str, text: &str) -> Result<Vec<u8>, ArgError> {
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
    use crate::serve::request::build;
    use crate::serve::request::tests::{args, body_arg, call, spread};
    use crate::tool::{ArgIn, Body};
    use serde_json::{Map, json};

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
}
