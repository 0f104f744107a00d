//! Keyword conversion: walks one schema and translates each keyword from the OpenAPI dialect to
//! JSON Schema 2020-12 (dropping what the metaschema would reject, registering `$ref` targets, and
//! leaving out `readOnly`/`writeOnly` properties for the direction).

use super::values::{clean_dependent_required, clean_required, clean_type, examples, nullable};
use super::{Converter, Direction};
use crate::error::{Error, Result};
use crate::read::pointer as refs;
use crate::read::pointer::escape_token;
use serde_json::{Map, Value};

/// Deepest schema nesting we convert (the parsers already stop at 128 levels).
const MAX_DEPTH: usize = 256;

/// What [`Converter::conv_object`] notes of a schema's keywords while walking them.
#[derive(Default)]
struct Seen<'v> {
    /// `nullable: true`.
    nullable: bool,
    /// The `example` value.
    example: Option<&'v Value>,
    /// `exclusiveMinimum: true`, `exclusiveMaximum: true` (the 3.0 form).
    exclusive: [bool; 2],
    /// `type: file` (Swagger 2.0).
    file: bool,
}

impl Converter<'_> {
    /// Whether `obj[key] == v` only repeats the same keyword of the schema `obj`'s `$ref` names.
    fn repeats_target(&self, obj: &Map<String, Value>, key: &str, v: &Value) -> bool {
        // Most schemas with a description have no `$ref`: a scan of a few keys is cheaper than
        // hashing one.
        obj.iter()
            .find(|(k, _)| *k == "$ref")
            .and_then(|(_, r)| r.as_str())
            .and_then(|r| refs::lookup(self.root, r))
            .and_then(|target| target.get(key))
            .is_some_and(|t| t == v)
    }

    pub(super) fn conv(
        &mut self,
        v: &Value,
        dir: Direction,
        at: &str,
        refs: &mut Vec<usize>,
        depth: usize,
    ) -> Result<Value> {
        if depth > MAX_DEPTH {
            return Err(Error::at(self.file, at, "schema nested too deeply"));
        }
        match v {
            Value::Bool(_) => Ok(v.clone()),
            Value::Object(obj) => self.conv_object(obj, dir, at, refs, depth),
            // Not a schema: a defect of the document, but harmless to read as "anything".
            _ => Ok(Value::Object(Map::new())),
        }
    }

    fn conv_list(
        &mut self,
        v: &Value,
        dir: Direction,
        at: &str,
        refs: &mut Vec<usize>,
        depth: usize,
    ) -> Result<Option<Value>> {
        let Value::Array(items) = v else {
            return Ok(None);
        };
        if items.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(self.conv(item, dir, at, refs, depth + 1)?);
        }
        Ok(Some(Value::Array(out)))
    }

    fn conv_map(
        &mut self,
        v: &Value,
        dir: Direction,
        at: &str,
        refs: &mut Vec<usize>,
        depth: usize,
        filter: bool,
    ) -> Result<(Option<Value>, Vec<String>)> {
        let Value::Object(map) = v else {
            return Ok((None, Vec::new()));
        };
        let mut out = Map::with_capacity(map.len());
        let mut hidden = Vec::new();
        for (k, s) in map {
            if filter {
                let (read_only, write_only) = self.marks(s);
                self.sided |= read_only || write_only;
                let hide = match dir {
                    Direction::Input => read_only,
                    Direction::Output => write_only,
                };
                if hide {
                    hidden.push(k.clone());
                    continue;
                }
            }
            out.insert(k.clone(), self.conv(s, dir, at, refs, depth + 1)?);
        }
        Ok((Some(Value::Object(out)), hidden))
    }

    fn conv_object(
        &mut self,
        obj: &Map<String, Value>,
        dir: Direction,
        at: &str,
        refs: &mut Vec<usize>,
        depth: usize,
    ) -> Result<Value> {
        // Room for two more keys at the top: a parameter's schema gets its `description` and
        // `deprecated` added after conversion, and a full map would grow (copy) to take them.
        let room = if depth == 0 { 2 } else { 0 };
        let mut out = Map::with_capacity(obj.len() + room);
        let mut hidden: Vec<String> = Vec::new();
        // What the rewrites after the walk need, noted on the way instead of looked up again.
        let mut seen = Seen::default();
        // `oneOf` in an output schema, to become `anyOf` after the walk.
        let mut one_of: Option<Value> = None;
        for (k, v) in obj {
            let key = k.as_str();
            if fails_projection(key, v) {
                // The direction changes this schema: its two conversions differ (whichever is
                // made first, the other must be made too).
                self.sided = true;
            }
            if dir == Direction::Output && fails_projection(key, v) {
                if key == "oneOf" {
                    one_of = self.conv_list(v, dir, at, refs, depth)?;
                }
                continue;
            }
            let kept: Option<Value> = match key {
                _ if key.starts_with("x-") => None,
                "nullable" => {
                    seen.nullable = v.as_bool() == Some(true);
                    None
                }
                "example" => {
                    seen.example = Some(v);
                    None
                }
                "xml" | "externalDocs" | "$schema" | "$id" | "$anchor" | "$dynamicAnchor"
                | "$dynamicRef" | "$recursiveRef" | "$recursiveAnchor" | "$vocabulary"
                | "$defs" | "definitions" | "additionalItems" => None,
                "exclusiveMinimum" | "exclusiveMaximum" => {
                    if v.as_bool() == Some(true) {
                        seen.exclusive[usize::from(key == "exclusiveMaximum")] = true;
                    }
                    v.is_number().then(|| v.clone())
                }
                "$ref" => match v.as_str() {
                    Some(r) => {
                        let (id, name) = self.register(r, at)?;
                        if !refs.contains(&id) {
                            refs.push(id);
                        }
                        Some(Value::String(format!("#/$defs/{}", escape_token(&name))))
                    }
                    None => None,
                },
                "properties" => {
                    let (m, h) = self.conv_map(v, dir, at, refs, depth, true)?;
                    hidden = h;
                    m
                }
                "patternProperties" => {
                    let mut m = self.conv_map(v, dir, at, refs, depth, false)?.0;
                    if let Some(Value::Object(props)) = &mut m {
                        props.retain(|k, _| self.valid_regex(k));
                    }
                    m
                }
                "dependentSchemas" => self.conv_map(v, dir, at, refs, depth, false)?.0,
                "additionalProperties"
                | "unevaluatedProperties"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "unevaluatedItems"
                | "contentSchema" => match v {
                    Value::Bool(_) | Value::Object(_) => {
                        Some(self.conv(v, dir, at, refs, depth + 1)?)
                    }
                    _ => None,
                },
                "items" => match v {
                    // Draft-4 tuple form.
                    Value::Array(_) => {
                        if let Some(list) = self.conv_list(v, dir, at, refs, depth)? {
                            out.insert("prefixItems".into(), list);
                        }
                        None
                    }
                    Value::Bool(_) | Value::Object(_) => {
                        Some(self.conv(v, dir, at, refs, depth + 1)?)
                    }
                    _ => None,
                },
                "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
                    self.conv_list(v, dir, at, refs, depth)?
                }
                "type" => {
                    seen.file = v.as_str() == Some("file");
                    clean_type(v)
                }
                "required" => clean_required(v),
                "examples" => match v {
                    Value::Array(items) => examples(items.iter()),
                    Value::Object(m) => examples(m.values()),
                    _ => None,
                },
                "enum" => v.is_array().then(|| v.clone()),
                "multipleOf" => v.as_f64().filter(|f| *f > 0.0).map(|_| v.clone()),
                "maximum" | "minimum" => v.is_number().then(|| v.clone()),
                "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties"
                | "minProperties" | "maxContains" | "minContains" => v
                    .as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|_| v.clone()),
                "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => {
                    v.is_boolean().then(|| v.clone())
                }
                "pattern" => match v.as_str() {
                    Some(p) if self.valid_regex(p) => Some(v.clone()),
                    Some(p) => {
                        // Keep what the author meant where a reader can still see it.
                        let note = format!("pattern left out: not a valid regular expression: {p}");
                        out.insert("$comment".into(), Value::String(note));
                        None
                    }
                    None => None,
                },
                // A `$ref` sibling that repeats the target's own text says nothing new, and an
                // empty text (725 `"description": ""` in Stripe) says nothing at all.
                "title" | "description" if self.repeats_target(obj, key, v) => None,
                "title" | "description" if v.as_str().is_some_and(|t| t.trim().is_empty()) => None,
                "title" | "description" | "$comment" => {
                    v.as_str().map(|t| Value::String(super::shown_text(t)))
                }
                "contentEncoding" | "contentMediaType" => v.is_string().then(|| v.clone()),
                "format" => match v.as_str() {
                    Some("binary") => {
                        if !obj.contains_key("contentEncoding") {
                            out.insert("contentEncoding".into(), Value::String("base64".into()));
                        }
                        None
                    }
                    Some(_) => Some(v.clone()),
                    None => None,
                },
                "dependentRequired" => clean_dependent_required(v),
                "discriminator" => Some(self.discriminator(v, at)?),
                _ => Some(v.clone()),
            };
            if let Some(kept) = kept {
                out.insert(k.clone(), kept);
            }
        }
        if let Some(list) = one_of {
            if out.contains_key("anyOf") {
                // Both: the `oneOf` choice joins the `allOf` as an `anyOf` of its own.
                let mut choice = Map::new();
                choice.insert("anyOf".into(), list);
                match out.get_mut("allOf") {
                    Some(Value::Array(all)) => all.push(Value::Object(choice)),
                    _ => {
                        out.insert("allOf".into(), Value::Array(vec![Value::Object(choice)]));
                    }
                }
            } else {
                out.insert("anyOf".into(), list);
            }
        }
        if !hidden.is_empty()
            && let Some(Value::Array(req)) = out.get_mut("required")
        {
            req.retain(|r| r.as_str().is_none_or(|r| !hidden.iter().any(|h| h == r)));
            if req.is_empty() {
                out.remove("required");
            }
        }
        // OpenAPI 3.0 boolean exclusive bounds become the numeric 2020-12 form.
        for (exclusive, (flag, bound)) in seen.exclusive.into_iter().zip([
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ]) {
            if exclusive && let Some(b) = out.remove(bound) {
                out.insert(flag.into(), b);
            }
        }
        if let Some(ex) = seen.example
            && !out.contains_key("examples")
            && let Some(list) = examples(std::iter::once(ex))
        {
            out.insert("examples".into(), list);
        }
        if seen.file {
            out.insert("type".into(), Value::String("string".into()));
            out.entry("contentEncoding")
                .or_insert_with(|| Value::String("base64".into()));
        }
        if seen.nullable {
            out = nullable(out);
        }
        Ok(Value::Object(out))
    }

    fn discriminator(&mut self, v: &Value, at: &str) -> Result<Value> {
        let mut d = v.clone();
        if let Some(Value::Object(mapping)) = d.get_mut("mapping") {
            for target in mapping.values_mut() {
                if let Some(r) = target.as_str()
                    && r.starts_with('#')
                    && refs::lookup(self.root, r).is_some()
                {
                    let (_, name) = self.register(r, at)?;
                    *target = Value::String(format!("#/$defs/{}", escape_token(&name)));
                }
            }
        }
        Ok(d)
    }
}

/// Whether keyword `key` of an output schema could refuse an answer with fewer fields than the
/// API sent, or with array items made alike: a projection of the answer (`serve`'s `_fields`)
/// must still validate, so output schemas leave these out (`oneOf` becomes `anyOf`, which a
/// projection of a value matching one branch still satisfies). Output schemas are only ever
/// loosened by this: an answer valid before stays valid.
fn fails_projection(key: &str, v: &Value) -> bool {
    let compound = |v: &Value| v.is_object() || v.is_array();
    match key {
        "required" | "minProperties" | "dependentRequired" | "dependentSchemas" | "if" | "then"
        | "else" | "not" | "uniqueItems" | "maxContains" | "oneOf" => true,
        "const" => compound(v),
        "enum" => v.as_array().is_some_and(|e| e.iter().any(compound)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Direction;
    use crate::schema::tests::conv;
    use serde_json::{Value, json};

    #[test]
    fn boolean_exclusive_bounds_become_numeric() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}),
            Direction::Input,
        );
        assert_eq!(
            v,
            json!({"type": "integer", "exclusiveMinimum": 1, "maximum": 9})
        );
    }

    #[test]
    fn read_only_dropped_from_input_write_only_from_output() {
        let doc = json!({});
        let s = json!({"type": "object", "required": ["id", "pw", "n"], "properties": {
            "id": {"type": "string", "readOnly": true},
            "pw": {"type": "string", "writeOnly": true},
            "n": {"type": "string"}}});
        let i = conv(&doc, s.clone(), Direction::Input);
        assert_eq!(i["required"], json!(["pw", "n"]));
        assert!(i["properties"].get("id").is_none());
        let o = conv(&doc, s, Direction::Output);
        // Output schemas require nothing (a `_fields` projection leaves fields out).
        assert!(o.get("required").is_none());
        assert!(o["properties"].get("pw").is_none());
    }

    /// What could refuse a projected answer is left out of output schemas, `oneOf` becomes
    /// `anyOf`, and input schemas keep all of it.
    #[test]
    fn output_schemas_accept_fewer_fields() {
        let doc = json!({});
        let s = json!({"type": "object", "required": ["a"], "minProperties": 1,
            "dependentRequired": {"a": ["b"]}, "not": {"required": ["c"]},
            "if": {"required": ["a"]}, "then": {"required": ["b"]},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
            "enum": [{"a": 1}], "properties": {"l": {"type": "array", "uniqueItems": true,
                "contains": {"type": "object"}, "maxContains": 2, "const": [1]}}});
        let o = conv(&doc, s.clone(), Direction::Output);
        assert_eq!(
            o,
            json!({"type": "object", "properties": {"l": {"type": "array",
                "contains": {"type": "object"}}}, "anyOf": [{}, {}]})
        );
        let i = conv(&doc, s, Direction::Input);
        assert_eq!(
            i["oneOf"],
            json!([{"required": ["a"]}, {"required": ["b"]}])
        );
        assert_eq!(i["required"], json!(["a"]));
        let both =
            json!({"anyOf": [{"type": "object"}], "allOf": [{}], "oneOf": [{"type": "object"}]});
        assert_eq!(
            conv(&doc, both, Direction::Output),
            json!({"anyOf": [{"type": "object"}], "allOf": [{}, {"anyOf": [{"type": "object"}]}]})
        );
    }

    #[test]
    fn openapi_31_keywords_survive() {
        let doc = json!({});
        let s = json!({"type": ["string", "null"], "const": "x", "exclusiveMinimum": 0,
            "examples": ["x"], "prefixItems": [true, {"type": "integer"}]});
        assert_eq!(conv(&doc, s.clone(), Direction::Input), s);
    }

    #[test]
    fn ref_siblings_repeating_the_target_are_dropped() {
        let doc =
            json!({"components": {"schemas": {"A": {"type": "string", "description": "An A."}}}});
        let same = json!({"$ref": "#/components/schemas/A", "description": "An A."});
        assert_eq!(
            conv(&doc, same, Direction::Input)["description"],
            Value::Null
        );
        let empty = json!({"type": "string", "description": " ", "title": ""});
        assert_eq!(
            conv(&doc, empty, Direction::Input),
            json!({"type": "string"})
        );
        let other = json!({"$ref": "#/components/schemas/A", "description": "The owner's A."});
        assert_eq!(
            conv(&doc, other, Direction::Input)["description"],
            "The owner's A."
        );
    }
}
