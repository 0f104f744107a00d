//! Schemas: a Swagger 2.0 schema rewritten keyword by keyword into the 3.0 dialect.

use super::{MAX_DEPTH, Tokens, pointer, push};
use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// A Swagger schema in the 3.0 dialect: `x-nullable` -> `nullable`, `type: file` -> binary
/// string, a string `discriminator` -> `{propertyName}`; every other keyword kept.
pub(super) fn schema(file: &str, v: &Value, at: &mut Tokens, depth: usize) -> Result<Value> {
    if depth > MAX_DEPTH {
        return Err(Error::at(
            file,
            &pointer(at),
            format!("schema nested more than {MAX_DEPTH} levels deep"),
        ));
    }
    let Value::Object(obj) = v else {
        return Ok(v.clone());
    };
    let is_file = obj.get("type").and_then(Value::as_str) == Some("file");
    let mut out = Map::with_capacity(obj.len() + 1);
    for (k, v) in obj {
        at.push(k.clone());
        let kept = match (k.as_str(), v) {
            ("x-nullable", Value::Bool(b)) => {
                out.entry("nullable").or_insert(Value::Bool(*b));
                None
            }
            ("type", _) if is_file => {
                out.insert("type".into(), "string".into());
                out.insert("format".into(), "binary".into());
                None
            }
            ("format", _) if is_file => None,
            ("discriminator", Value::String(name)) => {
                let mut d = Map::new();
                d.insert("propertyName".into(), name.clone().into());
                Some(Value::Object(d))
            }
            ("properties" | "patternProperties", Value::Object(m)) => {
                let mut converted = Map::with_capacity(m.len());
                for (name, s) in m {
                    at.push(name.clone());
                    converted.insert(name.clone(), schema(file, s, at, depth + 1)?);
                    at.pop();
                }
                Some(Value::Object(converted))
            }
            ("additionalProperties" | "not" | "additionalItems" | "items", Value::Object(_)) => {
                Some(schema(file, v, at, depth + 1)?)
            }
            ("items" | "allOf" | "anyOf" | "oneOf", Value::Array(list)) => {
                let mut converted = Vec::with_capacity(list.len());
                for (i, s) in list.iter().enumerate() {
                    at.push(i.to_string());
                    converted.push(schema(file, s, at, depth + 1)?);
                    at.pop();
                }
                Some(Value::Array(converted))
            }
            _ => Some(v.clone()),
        };
        at.pop();
        if let Some(kept) = kept {
            out.insert(k.clone(), kept);
        }
    }
    Ok(Value::Object(out))
}

/// The converted `schema` of a body parameter or response at `at`, when it has one.
pub(super) fn schema_of(
    file: &str,
    obj: &Map<String, Value>,
    at: &[String],
) -> Result<Option<Value>> {
    obj.get("schema")
        .map(|s| schema(file, s, &mut push(at, "schema"), 0))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::swagger::upgrade;
    use serde_json::json;

    fn conv(s: Value) -> Value {
        schema("t", &s, &mut Vec::new(), 0).unwrap()
    }

    #[test]
    fn schema_keywords_become_3_0() {
        let s = json!({"type": "object", "discriminator": "kind", "x-nullable": true,
            "properties": {
                "f": {"type": "file", "format": "whatever"},
                "tags": {"type": "array", "items": {"type": "string", "x-nullable": true}},
                "kind": {"type": "string", "example": {"type": "file", "x-nullable": true}}},
            "allOf": [{"$ref": "#/definitions/A", "x-nullable": true}],
            "additionalProperties": {"type": "file"}});
        assert_eq!(
            conv(s),
            json!({"type": "object", "discriminator": {"propertyName": "kind"}, "nullable": true,
                "properties": {
                    "f": {"type": "string", "format": "binary"},
                    "tags": {"type": "array", "items": {"type": "string", "nullable": true}},
                    "kind": {"type": "string", "example": {"type": "file", "x-nullable": true}}},
                "allOf": [{"$ref": "#/definitions/A", "nullable": true}],
                "additionalProperties": {"type": "string", "format": "binary"}})
        );
    }

    #[test]
    fn deep_schemas_are_an_error_not_an_overflow() {
        let mut s = json!({"type": "string"});
        for _ in 0..300 {
            s = json!({"type": "array", "items": s});
        }
        let e = schema("t", &s, &mut vec!["definitions".into(), "A".into()], 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at #/definitions/A/items/items"), "{e}");
        assert!(e.contains("nested more than 256"), "{e}");
        let e = upgrade(
            "t",
            json!({"swagger": "2.0", "definitions": {"A": s}, "paths": {}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("#/definitions/A/items"), "{e}");
    }
}
