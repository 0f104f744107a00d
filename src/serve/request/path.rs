//! The URL path: the template's literal text kept readable, and each `{name}` replaced by its
//! argument in `simple`, `label` or `matrix` style, always exactly one segment.

use super::ArgError;
use super::encode::{STRICT, TEMPLATE, atom_text, content_text, encode};
use crate::tool::{ArgIn, Argument, Call};
use serde_json::{Map, Value};

/// The path with every `{name}` replaced by its encoded argument.
pub(super) fn path(call: &Call, args: &Map<String, Value>) -> Result<String, ArgError> {
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

#[cfg(test)]
mod tests {
    use crate::serve::request::build;
    use crate::serve::request::tests::{call, param, url};
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
}
