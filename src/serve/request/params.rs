//! Query, header and cookie parameters: one argument's value written by its `style`/`explode`
//! (or its `content` media type) as encoded query pairs, a header value or cookies.

use super::encode::{COOKIE, COOKIE_NAME, KEY, STRICT, atom_text, content_text, encode};
use crate::tool::Argument;
use percent_encoding::AsciiSet;
use serde_json::{Map, Value};

/// Query parameter pairs (encoded) by `style`/`explode`: `form` (default; arrays as repeated keys
/// when exploded, comma-joined when not), `spaceDelimited`, `pipeDelimited`, `deepObject`.
pub(super) fn query_pairs(
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
pub(super) fn styled_pairs(
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
pub(super) fn header_value(a: &Argument, value: &Value) -> String {
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
pub(super) fn cookie_pairs(a: &Argument, name: &str, value: &Value) -> Vec<(String, String)> {
    let atom = |v: &Value| encode(&atom_text(v), COOKIE);
    let name = encode(name, COOKIE_NAME);
    if a.content_type.is_some() {
        return vec![(name, encode(&content_text(a, value), COOKIE))];
    }
    let explode = a.explode.unwrap_or(true);
    match value {
        Value::Array(items) if explode => items.iter().map(|v| (name.clone(), atom(v))).collect(),
        Value::Array(items) => vec![(name, items.iter().map(atom).collect::<Vec<_>>().join(","))],
        // Each property is a cookie of its own: its key is a name, encoded like one.
        Value::Object(map) if explode => map
            .iter()
            .map(|(k, v)| (encode(k, COOKIE_NAME), atom(v)))
            .collect(),
        Value::Object(map) => vec![(
            name,
            map.iter()
                .flat_map(|(k, v)| [encode(k, COOKIE), atom(v)])
                .collect::<Vec<_>>()
                .join(","),
        )],
        v => vec![(name, atom(v))],
    }
}

#[cfg(test)]
mod tests {
    use crate::serve::request::build;
    use crate::serve::request::tests::{args, call, param, url};
    use crate::tool::ArgIn;
    use serde_json::json;

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
        // Exploded object cookie: each key is a cookie name, encoded so it cannot add a cookie.
        let c = call(
            "/s",
            vec![param("prefs", ArgIn::Cookie, "form", true)],
            None,
        );
        let r = build(
            &c,
            &json!({}),
            "http://h",
            &args(json!({"prefs": {"x=1; sid": "attacker", "ok": "1"}})),
        )
        .unwrap();
        assert_eq!(
            r.cookie_header().as_deref(),
            Some("x%3D1%3B%20sid=attacker; ok=1")
        );
    }
}
