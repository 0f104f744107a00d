//! Responses: `schema` and `examples` into `content` under the `produces` media types, and
//! headers into the 3.0 header form (keywords into `schema`).

use super::params::{collection, is_schema_key, param_schema};
use super::refs::is_shared;
use super::schema::schema_of;
use super::{Upgrader, push};
use crate::error::Result;
use serde_json::{Map, Value};

impl Upgrader<'_> {
    /// An operation's `responses`, each converted (`x-` entries kept as they are).
    pub(super) fn responses(
        &mut self,
        v: &Value,
        at: &[String],
        produces: &[String],
    ) -> Result<Value> {
        let mut converted = Map::new();
        if !v.is_null() {
            for (code, r) in self.object(v, at, "`responses`")? {
                let c_at = push(at, code);
                let value = if code.starts_with("x-") {
                    r.clone()
                } else {
                    self.response(r, &c_at, &c_at, produces)?
                };
                converted.insert(code.clone(), value);
            }
        }
        Ok(Value::Object(converted))
    }

    /// A response: `schema` and `examples` into `content`, headers into the 3.0 form.
    pub(super) fn response(
        &mut self,
        r: &Value,
        at: &[String],
        new_at: &[String],
        produces: &[String],
    ) -> Result<Value> {
        let obj = self.object(r, at, "a response")?;
        if let Some(reference) = obj.get("$ref") {
            // Shared responses stay references; any other local target is converted in place.
            let target = reference
                .as_str()
                .filter(|r| !is_shared(r, "responses"))
                .and_then(|r| self.resolve(r));
            return match target {
                Some((t, t_at)) => self.inlined(|up| up.response(t, &t_at, &t_at, produces)),
                None => Ok(r.clone()),
            };
        }
        let schema = schema_of(self.file, obj, at)?;
        let examples = match obj.get("examples") {
            Some(Value::Object(e)) => Some(e),
            _ => None,
        };
        let mut content = Map::new();
        if schema.is_some() || examples.is_some_and(|e| !e.is_empty()) {
            let extra = examples
                .into_iter()
                .flatten()
                .map(|(m, _)| m)
                .filter(|m| !produces.contains(m));
            for media in produces.iter().chain(extra) {
                let mut entry = Map::new();
                if let Some(s) = &schema {
                    entry.insert("schema".into(), s.clone());
                }
                if let Some(ex) = examples.and_then(|e| e.get(media)) {
                    entry.insert("example".into(), ex.clone());
                }
                content.insert(media.clone(), Value::Object(entry));
            }
            if schema.is_some()
                && let Some(first) = produces.first()
            {
                let to = [new_at, &["content".into(), first.clone(), "schema".into()]].concat();
                self.moved(push(at, "schema"), to);
            }
        }
        let mut content = (!content.is_empty()).then_some(Value::Object(content));
        let mut out = Map::with_capacity(obj.len());
        for (k, v) in obj {
            match k.as_str() {
                "schema" | "examples" => {
                    if let Some(c) = content.take() {
                        out.insert("content".into(), c);
                    }
                }
                "headers" => {
                    let headers = self.headers(v, &push(at, k), &push(new_at, k))?;
                    out.insert(k.clone(), headers);
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        Ok(Value::Object(out))
    }

    /// A response's headers: keywords into `schema`, a `collectionFormat` 3.0 cannot express
    /// kept as `x-collectionFormat`.
    fn headers(&mut self, v: &Value, at: &[String], new_at: &[String]) -> Result<Value> {
        let Value::Object(headers) = v else {
            return Ok(v.clone());
        };
        let mut out = Map::with_capacity(headers.len());
        for (name, h) in headers {
            let Value::Object(h) = h else {
                out.insert(name.clone(), h.clone());
                continue;
            };
            let h_at = push(at, name);
            let schema = param_schema(self.file, h, &h_at)?;
            let mut header = Map::new();
            for (k, v) in h {
                if !is_schema_key(k) {
                    header.insert(k.clone(), v.clone());
                }
            }
            if let Some((_, _, Some(format))) = collection(h, &schema, "header") {
                header.insert("x-collectionFormat".into(), format.into());
            }
            header.insert("schema".into(), schema);
            self.moved_keys(h, &h_at, &push(new_at, name));
            out.insert(name.clone(), Value::Object(header));
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use crate::read::swagger::tests::up;
    use serde_json::json;

    #[test]
    fn responses_headers_and_examples() {
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "produces": ["application/json", "application/xml"],
            "responses": {"NF": {"description": "nf"}},
            "paths": {"/a": {"get": {
                "produces": ["text/csv"],
                "responses": {
                    "200": {"description": "ok", "schema": {"type": "file"},
                            "headers": {"X-Ids": {"type": "array", "items": {"type": "integer"},
                                                  "collectionFormat": "pipes", "description": "ids"}},
                            "examples": {"text/csv": "a,b", "application/json": [1]}},
                    "404": {"$ref": "#/responses/NF"},
                    "x-r": 1}}}}
        }));
        let r = &v["paths"]["/a"]["get"]["responses"];
        assert_eq!(
            r["200"],
            json!({"description": "ok",
                "content": {
                    "text/csv": {"schema": {"type": "string", "format": "binary"}, "example": "a,b"},
                    "application/json": {"schema": {"type": "string", "format": "binary"}, "example": [1]}},
                "headers": {"X-Ids": {"description": "ids", "x-collectionFormat": "pipes",
                    "schema": {"type": "array", "items": {"type": "integer"}}}}})
        );
        assert_eq!(r["404"]["$ref"], "#/components/responses/NF");
        assert_eq!(r["x-r"], 1);
    }
}
