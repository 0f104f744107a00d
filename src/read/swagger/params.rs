//! Parameters: sorting a 2.0 parameter list into kept parameters, a body and form fields, and
//! converting non-body parameters (shared or not) to 3.0, `collectionFormat` to `style`/`explode`.

use super::body::body_schema_at;
use super::refs::is_shared;
use super::schema::schema;
use super::{Tokens, Upgrader, pointer, push};
use crate::error::Result;
use crate::read::kind;
use serde_json::{Map, Value};

/// Keywords Swagger puts on a non-body parameter (or header) that belong in its 3.0 `schema`.
const SCHEMA_KEYS: [&str; 16] = [
    "type",
    "format",
    "items",
    "enum",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "multipleOf",
];

/// A parameter list entry, sorted by where it goes in 3.0.
pub(super) enum Param {
    /// Stays a parameter: converted, or a `$ref` kept for rewriting.
    Keep { value: Value, index: usize },
    /// `in: body`: becomes the request body. `reference` is the `$ref` it was reached through.
    Body {
        param: Map<String, Value>,
        reference: Option<String>,
        at: Tokens,
    },
    /// `in: formData`: one property of a form body.
    Form {
        param: Map<String, Value>,
        at: Tokens,
    },
}

impl Upgrader<'_> {
    /// The shared `parameters` as 3.0 `(parameters, requestBodies)`: a body parameter becomes a
    /// shared request body, a form parameter is dropped (it is inlined where used).
    pub(super) fn shared_parameters(
        &mut self,
        params: &Map<String, Value>,
    ) -> Result<(Map<String, Value>, Map<String, Value>)> {
        let mut parameters = Map::new();
        let mut bodies = Map::new();
        for (name, p) in params {
            let at = vec!["parameters".to_string(), name.clone()];
            let obj = self.object(p, &at, "a parameter")?;
            let new_param = vec!["components".into(), "parameters".into(), name.clone()];
            let new_body = vec!["components".into(), "requestBodies".into(), name.clone()];
            // A reference is followed and its target converted here: the target may be
            // anywhere (a bundled file, another shared parameter) and is in Swagger form.
            let (obj, src_at, followed) = match obj.get("$ref").and_then(Value::as_str) {
                None => (obj, at.clone(), false),
                Some(r) => match self.resolve(r) {
                    Some((Value::Object(t), t_at)) => (t, t_at, true),
                    _ => {
                        parameters.insert(name.clone(), p.clone());
                        self.moved(at, new_param);
                        continue;
                    }
                },
            };
            match param_in(obj) {
                Some("body") => {
                    let consumes = self.consumes.clone();
                    bodies.insert(name.clone(), self.request_body(obj, &src_at, &consumes)?);
                    if !followed {
                        self.moved(push(&at, "schema"), body_schema_at(&new_body, &consumes));
                    }
                    self.moved(at, new_body);
                }
                Some("formData") => {}
                _ => {
                    parameters.insert(name.clone(), self.parameter(obj, &src_at)?);
                    if !followed {
                        self.moved_keys(obj, &at, &new_param);
                    }
                    self.moved(at, new_param);
                }
            }
        }
        Ok((parameters, bodies))
    }

    pub(super) fn parameter_list(&self, list: Option<&Value>, at: &[String]) -> Result<Vec<Param>> {
        let items = match list {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(self.err(
                    at,
                    format!("`parameters` must be an array, found {}", kind(other)),
                ));
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (index, p) in items.iter().enumerate() {
            let p_at = push(at, &index.to_string());
            let obj = self.object(p, &p_at, "a parameter")?;
            if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
                // Body and form parameters are always taken apart; other parameters stay a
                // reference when they are shared (`#/parameters/X`), else the target is inlined.
                let keep = Param::Keep {
                    value: p.clone(),
                    index,
                };
                out.push(match self.resolve(r) {
                    Some((Value::Object(t), t_at)) => match param_in(t) {
                        Some("body") => Param::Body {
                            param: t.clone(),
                            reference: Some(r.to_string()),
                            at: t_at,
                        },
                        Some("formData") => Param::Form {
                            param: t.clone(),
                            at: t_at,
                        },
                        _ if is_shared(r, "parameters") => keep,
                        _ => Param::Keep {
                            value: self.parameter(t, &t_at)?,
                            index,
                        },
                    },
                    _ => keep,
                });
                continue;
            }
            out.push(match param_in(obj) {
                Some("body") => Param::Body {
                    param: obj.clone(),
                    reference: None,
                    at: p_at,
                },
                Some("formData") => Param::Form {
                    param: obj.clone(),
                    at: p_at,
                },
                _ => Param::Keep {
                    value: self.parameter(obj, &p_at)?,
                    index,
                },
            });
        }
        Ok(out)
    }

    /// The kept parameters as a list, recording their new indices.
    pub(super) fn keep_list(&mut self, params: &[Param], at: &[String]) -> Value {
        let mut list = Vec::new();
        for p in params {
            if let Param::Keep { value, index } = p {
                let old = push(at, &index.to_string());
                let new = push(at, &list.len().to_string());
                if let Some(obj) = value.as_object()
                    && !obj.contains_key("$ref")
                    && let Some(Value::Object(src)) =
                        crate::read::pointer::lookup(self.root, &format!("#{}", pointer(&old)))
                {
                    self.moved_keys(src, &old, &new);
                }
                self.moved(old, new);
                list.push(value.clone());
            }
        }
        Value::Array(list)
    }

    /// Record where the keywords of a non-body parameter (or header) went: into its `schema`.
    pub(super) fn moved_keys(&mut self, p: &Map<String, Value>, at: &[String], new_at: &[String]) {
        for k in SCHEMA_KEYS {
            if p.contains_key(k) {
                self.moved(push(at, k), [new_at, &["schema".into(), k.into()]].concat());
            }
        }
    }

    /// A non-body parameter: schema keywords into `schema`, `collectionFormat` into `style`.
    pub(super) fn parameter(&self, p: &Map<String, Value>, at: &[String]) -> Result<Value> {
        let location = param_in(p).unwrap_or("query");
        let schema = param_schema(self.file, p, at)?;
        let mut out = Map::with_capacity(p.len() + 2);
        for (k, v) in p {
            if !is_schema_key(k) {
                out.insert(k.clone(), v.clone());
            }
        }
        if let Some(style) = style_fields(p, &schema, location) {
            out.extend(style);
        }
        out.insert("schema".into(), schema);
        Ok(Value::Object(out))
    }
}

/// The `in` of a parameter object.
pub(super) fn param_in(p: &Map<String, Value>) -> Option<&str> {
    p.get("in").and_then(Value::as_str)
}

/// Whether a keyword of a non-body parameter (or header) goes into its 3.0 `schema` (or is
/// spelled differently there), so it is not copied as it is.
pub(super) fn is_schema_key(k: &str) -> bool {
    SCHEMA_KEYS.contains(&k) || matches!(k, "x-nullable" | "collectionFormat" | "schema")
}

/// The 3.0 schema of a non-body parameter, form field or header.
pub(super) fn param_schema(file: &str, p: &Map<String, Value>, at: &[String]) -> Result<Value> {
    let mut s = match p.get("schema") {
        Some(Value::Object(s)) => s.clone(),
        _ => Map::new(),
    };
    for k in SCHEMA_KEYS {
        if let Some(v) = p.get(k) {
            s.entry(k).or_insert_with(|| v.clone());
        }
    }
    if let Some(n @ Value::Bool(_)) = p.get("x-nullable") {
        s.entry("nullable").or_insert_with(|| n.clone());
    }
    // Nested items objects may carry their own collectionFormat, which 3.0 cannot express.
    let mut cur = s.get_mut("items");
    while let Some(Value::Object(items)) = cur {
        if let Some(format) = items.remove("collectionFormat") {
            items.insert("x-collectionFormat".into(), format);
        }
        cur = items.get_mut("items");
    }
    schema(file, &Value::Object(s), &mut at.to_vec(), 0)
}

/// `style`, `explode` and the `collectionFormat` to keep as `x-collectionFormat` (when 3.0 has
/// no equivalent), for a parameter at `location` whose converted schema is `schema`. `None` when
/// the parameter is no array and names no format.
pub(super) fn collection(
    p: &Map<String, Value>,
    schema: &Value,
    location: &str,
) -> Option<(&'static str, bool, Option<String>)> {
    let array = schema.get("type").and_then(Value::as_str) == Some("array");
    let format = p.get("collectionFormat").and_then(Value::as_str);
    if !array {
        // Meaningless on a non-array in 2.0; kept for the record only.
        return format.map(|f| {
            let (style, explode, _) = collection_style(location, "csv");
            (style, explode, Some(f.to_string()))
        });
    }
    let (style, explode, keep) = collection_style(location, format.unwrap_or("csv"));
    Some((
        style,
        explode,
        keep.then(|| format.unwrap_or("csv").to_string()),
    ))
}

/// [`collection`] as the fields of a parameter or encoding object: `style`, `explode` and any
/// `x-collectionFormat`.
pub(super) fn style_fields(
    p: &Map<String, Value>,
    schema: &Value,
    location: &str,
) -> Option<Map<String, Value>> {
    let (style, explode, keep) = collection(p, schema, location)?;
    let mut out = Map::new();
    out.insert("style".into(), style.into());
    out.insert("explode".into(), explode.into());
    if let Some(format) = keep {
        out.insert("x-collectionFormat".into(), format.into());
    }
    Some(out)
}

/// Swagger `collectionFormat` -> 3.0 (`style`, `explode`, whether 3.0 lacks an equivalent).
fn collection_style(location: &str, format: &str) -> (&'static str, bool, bool) {
    match location {
        "path" | "header" => ("simple", false, format != "csv"),
        _ => match format {
            "csv" => ("form", false, false),
            "ssv" => ("spaceDelimited", false, false),
            "pipes" => ("pipeDelimited", false, false),
            "multi" => ("form", true, false),
            _ => ("form", false, true),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collection_formats_map_to_styles() {
        assert_eq!(collection_style("query", "csv"), ("form", false, false));
        assert_eq!(collection_style("query", "multi"), ("form", true, false));
        assert_eq!(
            collection_style("query", "ssv"),
            ("spaceDelimited", false, false)
        );
        assert_eq!(
            collection_style("query", "pipes"),
            ("pipeDelimited", false, false)
        );
        assert_eq!(collection_style("query", "tsv"), ("form", false, true));
        assert_eq!(collection_style("path", "csv"), ("simple", false, false));
        assert_eq!(collection_style("header", "pipes"), ("simple", false, true));
        let p = json!({"type": "array", "collectionFormat": "tsv"});
        let p = p.as_object().unwrap();
        let s = json!({"type": "array"});
        assert_eq!(
            collection(p, &s, "query"),
            Some(("form", false, Some("tsv".to_string())))
        );
        // Arrays default to csv, which 3.0 spells form + explode false for queries.
        let p = Map::new();
        assert_eq!(collection(&p, &s, "query"), Some(("form", false, None)));
        assert_eq!(collection(&p, &json!({"type": "string"}), "query"), None);
    }
}
