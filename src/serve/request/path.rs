//! The URL path: the template's literal text kept readable, and each `{name}` replaced by its
//! argument in `simple`, `label` or `matrix` style, always exactly one segment and never empty.
//! The built path
//! is checked as a whole: it starts with `/`, and no segment is `.` or `..` once percent-decoded
//! (servers that decode before normalising would climb out of the API's path prefix).

use super::ArgError;
use super::encode::{STRICT, TEMPLATE, atom_text, content_text, encode};
use crate::tool::{ArgIn, Argument, Call};
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

/// The path with every `{name}` replaced by its encoded argument; it starts with `/` (a
/// template written without one is joined as if it had it).
pub(super) fn path(call: &Call, args: &Map<String, Value>) -> Result<String, ArgError> {
    // Each piece with the argument it came from (`None`: the template's literal text).
    let mut pieces: Vec<(String, Option<&str>)> = Vec::new();
    let mut rest = call.path.as_str();
    while let Some(open) = rest.find('{') {
        pieces.push((encode(&rest[..open], TEMPLATE), None));
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            // An unbalanced `{`: literal text.
            pieces.push((encode(&rest[open..], TEMPLATE), None));
            rest = "";
            break;
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
        let piece = path_value(arg, name, value);
        if piece.is_empty() {
            // `{"id": ""}` would turn `DELETE /files/{id}` into `DELETE /files/`.
            return Err(ArgError::new(
                &arg.name,
                "is empty; a path parameter must have a value, or the request would go to \
                 another path; nothing was sent",
            ));
        }
        pieces.push((piece, Some(arg.name.as_str())));
        rest = &after[close + 1..];
    }
    pieces.push((encode(rest, TEMPLATE), None));
    let first = pieces
        .iter()
        .map(|(p, _)| p.as_str())
        .find(|p| !p.is_empty());
    if first.is_some_and(|p| !p.starts_with('/')) {
        pieces.insert(0, ("/".into(), None));
    }
    check_segments(call, &pieces)?;
    Ok(pieces.into_iter().map(|(p, _)| p).collect())
}

/// Refuse a path with a `.` or `..` segment, also where it only appears once percent-decoded
/// (`%2E%2E`, or `a%2F..` read as `a/..`); the error names the argument that made it.
fn check_segments(call: &Call, pieces: &[(String, Option<&str>)]) -> Result<(), ArgError> {
    let mut segment = String::new();
    let mut owner: Option<&str> = None;
    let check = |segment: &str, owner: Option<&str>| {
        let decoded = percent_decode_str(segment).decode_utf8_lossy();
        if !decoded.split(['/', '\\']).any(|s| s == "." || s == "..") {
            return Ok(());
        }
        Err(match owner {
            Some(arg) => ArgError::new(
                arg,
                "would make a `.` or `..` path segment, which servers read as moving up the \
                 path; nothing was sent",
            ),
            None => ArgError::new(
                &call.path,
                "the path template has a `.` or `..` segment; nothing was sent",
            ),
        })
    };
    for (text, from) in pieces {
        let mut parts = text.split('/');
        if let Some(first) = parts.next() {
            segment.push_str(first);
            owner = owner.or(*from);
        }
        for part in parts {
            check(&segment, owner)?;
            segment.clear();
            segment.push_str(part);
            owner = *from;
        }
    }
    check(&segment, owner)
}

/// One encoded atom of a path value.
fn path_atom(v: &Value) -> String {
    encode(&atom_text(v), STRICT)
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

#[cfg(test)]
mod tests {
    use crate::serve::request::build;
    use crate::serve::request::tests::{args, call, param, url};
    use crate::tool::ArgIn;
    use serde_json::{Map, json};

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
    fn dot_segments_are_refused() {
        let id = || vec![param("id", ArgIn::Path, "simple", false)];
        let refused = |template: &str, arguments, a| {
            let c = call(template, arguments, None);
            build(&c, &json!({}), "http://h/v1", &args(a)).unwrap_err()
        };
        for bad in [".", "..", "a/../b", "..\\x", "x/."] {
            let e = refused("/files/{id}", id(), json!({ "id": bad }));
            assert_eq!(e.argument, "id", "{bad}");
            assert!(e.message.contains("`..`"), "{e}");
        }
        // Two arguments that together make `..`; label style making `.` and `..`.
        let two = vec![
            param("a", ArgIn::Path, "simple", false),
            param("b", ArgIn::Path, "simple", false),
        ];
        assert_eq!(
            refused("/x/{a}{b}", two, json!({"a": ".", "b": "."})).argument,
            "a"
        );
        let label = || vec![param("id", ArgIn::Path, "label", false)];
        refused("/x/{id}", label(), json!({ "id": "" }));
        let exploded = vec![param("id", ArgIn::Path, "label", true)];
        refused("/x/{id}", exploded, json!({ "id": ["", ""] }));
        let mut content = param("id", ArgIn::Path, "simple", false);
        content.content_type = Some("text/plain".into());
        refused("/t/{id}/content", vec![content], json!({ "id": ".." }));
        // The template's own dot segments are refused too, naming the template.
        let e = refused("/a/../admin", vec![], json!({}));
        assert_eq!(e.argument, "/a/../admin");
        assert_eq!(
            refused("/a/%2E%2e/x", vec![], json!({})).argument,
            "/a/%2E%2e/x"
        );
        // A value is decoded once, as a server does: `%2E%2E` is sent as `%252E%252E`.
        let c = call("/files/{id}", id(), None);
        assert_eq!(
            url(&c, json!({"id": "%2E%2E"})),
            "http://h/files/%252E%252E"
        );
        // Dots inside a segment are fine.
        assert_eq!(url(&c, json!({"id": "a..b"})), "http://h/files/a..b");
        assert_eq!(url(&c, json!({"id": "..."})), "http://h/files/...");
    }

    #[test]
    fn a_path_without_slash_stays_under_the_base() {
        let c = call(
            "{id}",
            vec![param("id", ArgIn::Path, "simple", false)],
            None,
        );
        let at = |base: &str, id: &str| {
            build(&c, &json!({}), base, &args(json!({ "id": id })))
                .unwrap()
                .full_url()
        };
        assert_eq!(at("http://127.0.0.1", "0"), "http://127.0.0.1/0");
        assert_eq!(
            at("http://127.0.0.1", ".evil.example"),
            "http://127.0.0.1/.evil.example"
        );
        assert_eq!(at("http://127.0.0.1:80", "80"), "http://127.0.0.1:80/80");
        assert_eq!(at("https://h/v1", "x"), "https://h/v1/x");
        let sub = call(
            "{sub}/x",
            vec![param("sub", ArgIn::Path, "simple", false)],
            None,
        );
        assert_eq!(
            build(
                &sub,
                &json!({}),
                "http://h:8/v1",
                &args(json!({"sub": "@e.com"}))
            )
            .unwrap()
            .full_url(),
            "http://h:8/v1/%40e.com/x"
        );
        // Literal template text: `@` and `:` stay as they are but after the `/`.
        let lit = call("@evil.example:1/x", vec![], None);
        assert_eq!(
            build(&lit, &json!({}), "http://h", &Map::new())
                .unwrap()
                .full_url(),
            "http://h/@evil.example:1/x"
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
        // An empty value would change the path (`/p/` instead of `/p/{id}`).
        for empty in [json!(""), json!([]), json!({})] {
            let a = json!({"id": empty});
            let e = build(&c, &json!({}), "http://h", a.as_object().unwrap()).unwrap_err();
            assert_eq!(e.argument, "id", "{empty}");
            assert!(e.to_string().contains("empty"), "{e}");
        }
        let label = call(
            "/p/{id}",
            vec![param("id", ArgIn::Path, "label", false)],
            None,
        );
        let a = json!({"id": ""});
        assert!(build(&label, &json!({}), "http://h", a.as_object().unwrap()).is_err());
        let undeclared = call("/p/{other}", vec![], None);
        let e = build(&undeclared, &json!({}), "http://h", &Map::new()).unwrap_err();
        assert!(e.to_string().contains("{other}"), "{e}");
    }
}
