//! Keyword values rewritten for 2020-12: `type`, `required`, `dependentRequired` and `examples`
//! cleaned of what no validator could use, and OpenAPI 3.0 `nullable: true` applied.

use serde_json::{Map, Value};

/// Example values as a 2020-12 `examples` array. Values holding a `$ref` key are dropped: they are
/// document defects (a reference where a value belongs) and would read as dangling references.
pub(super) fn examples<'v>(values: impl Iterator<Item = &'v Value>) -> Option<Value> {
    fn has_ref(v: &Value, depth: usize) -> bool {
        match v {
            _ if depth > 64 => true,
            Value::Object(m) => m.contains_key("$ref") || m.values().any(|c| has_ref(c, depth + 1)),
            Value::Array(items) => items.iter().any(|c| has_ref(c, depth + 1)),
            _ => false,
        }
    }
    let kept: Vec<Value> = values.filter(|v| !has_ref(v, 0)).cloned().collect();
    (!kept.is_empty()).then_some(Value::Array(kept))
}

pub(super) fn clean_type(v: &Value) -> Option<Value> {
    const NAMES: [&str; 7] = [
        "null", "boolean", "object", "array", "number", "string", "integer",
    ];
    match v {
        Value::String(s) if NAMES.contains(&s.as_str()) => Some(v.clone()),
        Value::String(s) if s == "file" => Some(Value::String("string".into())),
        Value::Array(items) => {
            let mut out: Vec<Value> = Vec::new();
            for t in items {
                if let Some(s) = t.as_str()
                    && NAMES.contains(&s)
                    && !out.contains(t)
                {
                    out.push(t.clone());
                }
            }
            match out.len() {
                0 => None,
                1 => out.pop(),
                _ => Some(Value::Array(out)),
            }
        }
        _ => None,
    }
}

pub(super) fn clean_required(v: &Value) -> Option<Value> {
    let Value::Array(items) = v else {
        return None;
    };
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for r in items {
        if r.is_string() && !out.contains(r) {
            out.push(r.clone());
        }
    }
    (!out.is_empty()).then_some(Value::Array(out))
}

pub(super) fn clean_dependent_required(v: &Value) -> Option<Value> {
    let Value::Object(m) = v else {
        return None;
    };
    let mut out = Map::new();
    for (k, list) in m {
        if let Some(list) = clean_required(list) {
            out.insert(k.clone(), list);
        }
    }
    Some(Value::Object(out))
}

/// Apply OpenAPI 3.0 `nullable: true` to a converted schema.
pub(super) fn nullable(mut out: Map<String, Value>) -> Map<String, Value> {
    let null = Value::String("null".into());
    if let Some(Value::Array(e)) = out.get_mut("enum")
        && !e.contains(&Value::Null)
    {
        e.push(Value::Null);
    }
    let composite = ["$ref", "allOf", "oneOf", "anyOf", "enum", "const"]
        .iter()
        .any(|k| out.contains_key(*k));
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            let t = Value::String(std::mem::take(t));
            out.insert("type".into(), Value::Array(vec![t, null]));
            out
        }
        Some(Value::Array(ts)) => {
            if !ts.contains(&null) {
                ts.push(null);
            }
            out
        }
        _ if composite => {
            // Keep annotations outside so readers (and readOnly checks) still see them.
            let mut outer = Map::new();
            for k in [
                "title",
                "description",
                "default",
                "examples",
                "deprecated",
                "readOnly",
                "writeOnly",
            ] {
                if let Some(v) = out.remove(k) {
                    outer.insert(k.into(), v);
                }
            }
            if out.contains_key("enum") && out.len() == 1 {
                outer.extend(out);
                return outer;
            }
            let mut null_schema = Map::new();
            null_schema.insert("type".into(), null);
            outer.insert(
                "anyOf".into(),
                Value::Array(vec![Value::Object(out), Value::Object(null_schema)]),
            );
            outer
        }
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Direction;
    use crate::schema::tests::conv;
    use serde_json::json;

    #[test]
    fn nullable_becomes_type_array() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "string", "nullable": true, "enum": ["a"]}),
            Direction::Input,
        );
        assert_eq!(v, json!({"type": ["string", "null"], "enum": ["a", null]}));
    }

    #[test]
    fn nullable_ref_becomes_any_of() {
        let doc = json!({"components": {"schemas": {"A": {"type": "string"}}}});
        let v = conv(
            &doc,
            json!({"$ref": "#/components/schemas/A", "nullable": true, "description": "d"}),
            Direction::Input,
        );
        assert_eq!(
            v,
            json!({"description": "d", "anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}], "$defs": {"A": {"type": "string"}}})
        );
    }

    #[test]
    fn examples_holding_refs_are_dropped() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "string", "example": {"$ref": "#/x"}}),
            Direction::Input,
        );
        assert_eq!(v, json!({"type": "string"}));
    }

    #[test]
    fn invalid_keyword_values_are_dropped() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "strin", "required": true, "minLength": -1, "examples": {"a": 1}}),
            Direction::Input,
        );
        assert_eq!(v, json!({"examples": [1]}));
    }
}
