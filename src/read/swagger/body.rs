//! Request bodies: choosing an operation's body among its own and its path item's body and form
//! parameters, and building the 3.0 `requestBody` from a body parameter or from form fields.

use super::params::{Param, param_schema, style_fields};
use super::refs::is_shared;
use super::schema::schema_of;
use super::{JSON, Tokens, Upgrader, push};
use crate::error::Result;
use serde_json::{Map, Value};

const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";

impl Upgrader<'_> {
    /// The operation's request body: its own body parameter (the last one), else its form
    /// fields, else the path item's the same way. Form fields of both levels merge by name.
    pub(super) fn operation_body(
        &mut self,
        own: &[Param],
        inherited: &[Param],
        at: &[String],
        consumes: &[String],
    ) -> Result<Option<Value>> {
        let is_body = |p: &&Param| matches!(p, Param::Body { .. });
        let own_forms: Vec<&Param> = own
            .iter()
            .filter(|p| matches!(p, Param::Form { .. }))
            .collect();
        let body = match own.iter().rev().find(is_body) {
            Some(b) => Some(b),
            None if own_forms.is_empty() => inherited.iter().rev().find(is_body),
            None => None,
        };
        let mut forms: Vec<&Param> = inherited
            .iter()
            .filter(|p| match p {
                Param::Form { param, .. } => !own_forms.iter().any(|o| match o {
                    Param::Form { param: own, .. } => own.get("name") == param.get("name"),
                    _ => false,
                }),
                _ => false,
            })
            .collect();
        forms.extend(own_forms);
        let body_at = push(at, "requestBody");
        Ok(match body {
            Some(Param::Body {
                param,
                reference,
                at: param_at,
            }) => Some(match reference {
                Some(r) if consumes == self.consumes && is_shared(r, "parameters") => {
                    let mut m = Map::new();
                    m.insert("$ref".into(), r.clone().into());
                    Value::Object(m)
                }
                _ => {
                    let converted = self.request_body(param, param_at, consumes)?;
                    self.moved(push(param_at, "schema"), body_schema_at(&body_at, consumes));
                    converted
                }
            }),
            _ if !forms.is_empty() => Some(self.form_body(&forms, consumes)?),
            _ => None,
        })
    }

    /// An `in: body` parameter as a 3.0 request body with one entry per media type.
    pub(super) fn request_body(
        &self,
        p: &Map<String, Value>,
        at: &[String],
        consumes: &[String],
    ) -> Result<Value> {
        let schema = schema_of(self.file, p, at)?;
        let mut out = Map::new();
        if let Some(d) = p.get("description") {
            out.insert("description".into(), d.clone());
        }
        let mut content = Map::new();
        for media in consumes {
            let mut entry = Map::new();
            if let Some(s) = &schema {
                entry.insert("schema".into(), s.clone());
            }
            content.insert(media.clone(), Value::Object(entry));
        }
        out.insert("content".into(), Value::Object(content));
        if let Some(r) = p.get("required") {
            out.insert("required".into(), r.clone());
        }
        for (k, v) in p.iter().filter(|(k, _)| k.starts_with("x-")) {
            out.insert(k.clone(), v.clone());
        }
        Ok(Value::Object(out))
    }

    /// `formData` parameters as one object schema under a form or multipart media type.
    pub(super) fn form_body(&self, forms: &[&Param], consumes: &[String]) -> Result<Value> {
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut encoding = Map::new();
        let mut file = false;
        for f in forms {
            let Param::Form { param, at } = f else {
                continue;
            };
            let name = match param.get("name") {
                Some(Value::String(n)) => n.clone(),
                _ => return Err(self.err(at, "form parameter has no `name` string")),
            };
            file |= param.get("type").and_then(Value::as_str) == Some("file");
            let mut schema = param_schema(self.file, param, at)?;
            if let Value::Object(s) = &mut schema {
                for (k, v) in param {
                    if k == "description" || (k.starts_with("x-") && k != "x-nullable") {
                        s.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
            if let Some(e) = style_fields(param, &schema, "formData") {
                encoding.insert(name.clone(), Value::Object(e));
            }
            let is_required = matches!(param.get("required"), Some(Value::Bool(true)))
                || param.get("required").and_then(Value::as_str) == Some("true");
            required.retain(|r| r.as_str() != Some(&name));
            if is_required {
                required.push(name.clone().into());
            }
            properties.insert(name, schema);
        }
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        let body_required = !required.is_empty();
        if body_required {
            schema.insert("required".into(), Value::Array(required));
        }
        let media: Vec<String> = if file {
            vec![MULTIPART.into()]
        } else {
            let listed: Vec<String> = consumes
                .iter()
                .filter(|m| is_form_media(m))
                .cloned()
                .collect();
            if listed.is_empty() {
                vec![FORM.into()]
            } else {
                listed
            }
        };
        let mut content = Map::new();
        for m in media {
            let mut entry = Map::new();
            entry.insert("schema".into(), Value::Object(schema.clone()));
            if !encoding.is_empty() {
                entry.insert("encoding".into(), Value::Object(encoding.clone()));
            }
            content.insert(m, Value::Object(entry));
        }
        let mut out = Map::new();
        out.insert("content".into(), Value::Object(content));
        if body_required {
            out.insert("required".into(), true.into());
        }
        Ok(Value::Object(out))
    }
}

/// Where a body parameter's schema lands: under the first media type of its request body.
pub(super) fn body_schema_at(body: &[String], consumes: &[String]) -> Tokens {
    let media = consumes.first().map_or(JSON, String::as_str);
    [body, &["content".into(), media.into(), "schema".into()]].concat()
}

fn is_form_media(media: &str) -> bool {
    let m = media.split(';').next().unwrap_or("").trim();
    m.eq_ignore_ascii_case(FORM) || m.eq_ignore_ascii_case(MULTIPART)
}

#[cfg(test)]
mod tests {
    use crate::read::swagger::tests::up;
    use serde_json::json;

    #[test]
    fn operation_bodies_and_parameters() {
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "consumes": ["application/json", "text/xml"],
            "parameters": {
                "b": {"name": "b", "in": "body", "required": true, "schema": {"type": "object"}},
                "f": {"name": "f", "in": "formData", "type": "file", "required": true}},
            "paths": {
                "/a/{id}": {
                    "x-item": true,
                    "parameters": [
                        {"name": "id", "in": "path", "required": true, "type": "array",
                         "items": {"type": "integer"}},
                        {"name": "body", "in": "body", "schema": {"type": "string"}}],
                    "put": {"parameters": [{"$ref": "#/parameters/b"}], "responses": {}},
                    "post": {"consumes": ["application/xml"],
                             "parameters": [{"$ref": "#/parameters/b"}], "responses": {}},
                    "get": {"responses": {}},
                    "patch": {"parameters": [{"$ref": "#/parameters/f"},
                                             {"name": "n", "in": "formData", "type": "array",
                                              "items": {"type": "string"}, "collectionFormat": "multi"}],
                              "responses": {}}},
                "/form": {"post": {
                    "consumes": ["application/x-www-form-urlencoded"],
                    "parameters": [{"name": "a", "in": "formData", "type": "string", "description": "d"}]}}
            }
        }));
        let item = &v["paths"]["/a/{id}"];
        assert_eq!(item["x-item"], true);
        assert_eq!(
            item["parameters"],
            json!([{"name": "id", "in": "path", "required": true, "style": "simple", "explode": false,
                    "schema": {"type": "array", "items": {"type": "integer"}}}])
        );
        // Shared body with the document's media types: a reference.
        assert_eq!(
            item["put"]["requestBody"],
            json!({"$ref": "#/components/requestBodies/b"})
        );
        // Other media types: inlined.
        assert_eq!(
            item["post"]["requestBody"],
            json!({"content": {"application/xml": {"schema": {"type": "object"}}}, "required": true})
        );
        // The path item's body applies to every operation without its own.
        assert_eq!(
            item["get"]["requestBody"]["content"]["text/xml"]["schema"],
            json!({"type": "string"})
        );
        assert!(item["get"].get("parameters").is_none());
        // A file makes the form multipart; own form fields win over the path item's body.
        let patch = &item["patch"]["requestBody"];
        assert_eq!(patch["required"], true);
        assert_eq!(
            patch["content"]["multipart/form-data"],
            json!({"schema": {"type": "object", "properties": {
                    "f": {"type": "string", "format": "binary"},
                    "n": {"type": "array", "items": {"type": "string"}}},
                  "required": ["f"]},
                  "encoding": {"n": {"style": "form", "explode": true}}})
        );
        let form = &v["paths"]["/form"]["post"]["requestBody"];
        assert_eq!(
            form,
            &json!({"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object",
                "properties": {"a": {"type": "string", "description": "d"}}}}}})
        );
    }
}
