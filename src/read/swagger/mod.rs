//! Swagger 2.0: rewrites a Swagger 2.0 tree into the OpenAPI 3.0 layout on load, so `model` and
//! `schema` read one shape and nothing that 3.0 can express is lost.
//!
//! Decisions where the mapping is not one-to-one:
//! - Servers: one per scheme (in the order of `schemes`, `https` when none is given) as
//!   `scheme://host/basePath`; without `host` one relative server from `basePath`; none without
//!   either. An operation's own `schemes` become its `servers` when they differ.
//! - Media types: operation `consumes`/`produces`, else the document's, else `application/json`
//!   (an empty list clears the document's, as in 2.0).
//! - `in: body` becomes `requestBody` (its `name` has no 3.0 place and is dropped); a `$ref` to a
//!   shared body parameter becomes `requestBody: {$ref: #/components/requestBodies/X}` while the
//!   operation accepts the document's media types, and is inlined when it does not (a shared
//!   request body has one fixed `content`). A body parameter wins over `formData` ones at the
//!   same level (2.0 forbids mixing them); a later body parameter replaces an earlier one.
//! - `in: formData` parameters become one object schema under `multipart/form-data` when a
//!   parameter is `type: file` (-> `format: binary`), else under the form media types `consumes`
//!   lists (`application/x-www-form-urlencoded` when it lists none). The body is required when a
//!   form parameter is. Shared `formData` parameters have no 3.0 component: they are inlined where
//!   used and not kept in `components`.
//! - `collectionFormat` (default `csv` for arrays) -> `style`/`explode`; 3.0 has no `tsv` (and
//!   no non-`csv` format for path or header values): those keep `style` form/simple with
//!   `explode: false` plus `x-collectionFormat`. Array form fields get the same `encoding`.
//! - Path-item `body`/`formData` parameters move into each operation of the path item; the
//!   operation's own body or form fields replace a path-level body, form fields merge by name.
//! - `$ref`s to shared objects (`#/definitions/X`, `#/parameters/X`, `#/responses/X`,
//!   `#/securityDefinitions/X`), into them, or into the parameters and responses rewritten under
//!   `paths` are redirected through a table of everything that moved. A `$ref` to a parameter,
//!   response or path item anywhere else (e.g. a file `bundle` joined under `$bundle`) is
//!   followed and a converted copy takes its place; schemas that converted parts reach outside
//!   `paths` and `components` are converted where they are. Remote refs stay as written (the
//!   loader refuses them).
//!
//! Schema recursion is bounded by [`MAX_DEPTH`]; `$ref` rewriting walks with an explicit stack.
//!
//! This file holds the document -> path item -> operation flow; the submodules convert the parts
//! it meets (parameters, bodies, responses, schemas, security schemes, servers) and keep the
//! table of moved `$ref` targets.

mod body;
mod params;
mod refs;
mod responses;
mod schema;
mod security;
mod servers;

use crate::error::{Error, Result};
use crate::read::kind;

/// The keys of a path item that hold operations (as `model::Method` reads them).
const OPERATION_KEYS: [&str; 9] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace", "query",
];
use params::Param;
use refs::{convert_outside, rewrite_refs};
use schema::schema;
use security::security_scheme;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Deepest schema nesting rewritten before the document is refused.
pub const MAX_DEPTH: usize = 256;
const JSON: &str = "application/json";

/// A JSON pointer as unescaped reference tokens.
type Tokens = Vec<String>;

/// Rewrite a Swagger 2.0 document into the OpenAPI 3.0 layout.
pub fn upgrade(file: &str, root: Value) -> Result<Value> {
    let mut up = Upgrader {
        file,
        root: &root,
        consumes: Vec::new(),
        produces: Vec::new(),
        host: None,
        base: None,
        servers: Vec::new(),
        moves: HashMap::new(),
        recording: true,
    };
    let mut out = up.document()?;
    rewrite_refs(&mut out, &up.moves);
    convert_outside(file, &mut out)?;
    Ok(out)
}

/// Conversion state: the source tree, the document-level defaults and the move table.
struct Upgrader<'a> {
    file: &'a str,
    root: &'a Value,
    /// Document-level media types (defaults applied).
    consumes: Vec<String>,
    produces: Vec<String>,
    host: Option<String>,
    base: Option<String>,
    /// Document-level server URLs.
    servers: Vec<String>,
    /// Old location -> new location, for `$ref` rewriting.
    moves: HashMap<Tokens, Tokens>,
    /// Off while converting a copy of something that stays where it is (a followed `$ref`).
    recording: bool,
}

/// `at` extended by one token.
fn push(at: &[String], token: &str) -> Tokens {
    let mut t = at.to_vec();
    t.push(token.to_string());
    t
}

/// JSON pointer text of `tokens`.
fn pointer(tokens: &[String]) -> String {
    crate::read::pointer::from_tokens(tokens.iter().map(String::as_str))
}

impl Upgrader<'_> {
    fn err(&self, at: &[String], message: impl Into<String>) -> Error {
        Error::at(self.file, &pointer(at), message)
    }

    fn object<'v>(
        &self,
        v: &'v Value,
        at: &[String],
        what: &str,
    ) -> Result<&'v Map<String, Value>> {
        v.as_object()
            .ok_or_else(|| self.err(at, format!("{what} must be an object, found {}", kind(v))))
    }

    /// The media types `obj` lists under `key` (`consumes` or `produces`): `absent` when it has
    /// none, `application/json` when the list is empty.
    fn media_types(
        &self,
        obj: &Map<String, Value>,
        key: &str,
        at: &[String],
        absent: &[String],
    ) -> Result<Vec<String>> {
        Ok(string_list(self.file, obj.get(key), &push(at, key))?
            .map(|m| if m.is_empty() { vec![JSON.into()] } else { m })
            .unwrap_or_else(|| absent.to_vec()))
    }

    /// The whole document: top-level fields, `paths`, then the shared sections as `components`.
    fn document(&mut self) -> Result<Value> {
        let root = self.root;
        let src = self.object(root, &[], "the document")?;
        self.consumes = self.media_types(src, "consumes", &[], &[JSON.into()])?;
        self.produces = self.media_types(src, "produces", &[], &[JSON.into()])?;
        self.document_servers(src)?;

        let mut out = Map::new();
        out.insert("openapi".into(), "3.0.3".into());
        if let Some(info) = src.get("info") {
            out.insert("info".into(), info.clone());
        }
        if !self.servers.is_empty() {
            out.insert("servers".into(), servers::server_objects(&self.servers));
        }
        for (k, v) in src {
            match k.as_str() {
                "swagger"
                | "info"
                | "host"
                | "basePath"
                | "schemes"
                | "consumes"
                | "produces"
                | "definitions"
                | "parameters"
                | "responses"
                | "securityDefinitions"
                | "components" => {}
                "paths" => {
                    let paths = self.paths(v)?;
                    out.insert(k.clone(), paths);
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        let components = self.components(src)?;
        if !components.is_empty() {
            out.insert("components".into(), Value::Object(components));
        }
        Ok(Value::Object(out))
    }

    /// `definitions`, `responses`, `parameters` and `securityDefinitions` merged into any
    /// `components` already present.
    fn components(&mut self, src: &Map<String, Value>) -> Result<Map<String, Value>> {
        let mut out = match src.get("components") {
            Some(Value::Object(c)) => c.clone(),
            _ => Map::new(),
        };
        let file = self.file;
        let section = |key: &str| -> Result<Option<&Map<String, Value>>> {
            match src.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Object(m)) => Ok(Some(m)),
                Some(other) => Err(Error::at(
                    file,
                    &format!("/{key}"),
                    format!("`{key}` must be an object, found {}", kind(other)),
                )),
            }
        };
        if let Some(defs) = section("definitions")? {
            let mut schemas = Map::new();
            for (name, s) in defs {
                let mut at = vec!["definitions".to_string(), name.clone()];
                schemas.insert(name.clone(), schema(self.file, s, &mut at, 0)?);
            }
            self.moved(
                vec!["definitions".into()],
                vec!["components".into(), "schemas".into()],
            );
            out.insert("schemas".into(), Value::Object(schemas));
        }
        if let Some(responses) = section("responses")? {
            let mut converted = Map::new();
            for (name, r) in responses {
                let at = vec!["responses".to_string(), name.clone()];
                let new_at = vec!["components".into(), "responses".into(), name.clone()];
                let produces = self.produces.clone();
                converted.insert(name.clone(), self.response(r, &at, &new_at, &produces)?);
            }
            self.moved(
                vec!["responses".into()],
                vec!["components".into(), "responses".into()],
            );
            out.insert("responses".into(), Value::Object(converted));
        }
        if let Some(params) = section("parameters")? {
            let (parameters, bodies) = self.shared_parameters(params)?;
            if !parameters.is_empty() {
                out.insert("parameters".into(), Value::Object(parameters));
            }
            if !bodies.is_empty() {
                out.insert("requestBodies".into(), Value::Object(bodies));
            }
        }
        if let Some(schemes) = section("securityDefinitions")? {
            let converted = schemes
                .iter()
                .map(|(name, s)| (name.clone(), security_scheme(s)))
                .collect();
            self.moved(
                vec!["securityDefinitions".into()],
                vec!["components".into(), "securitySchemes".into()],
            );
            out.insert("securitySchemes".into(), Value::Object(converted));
        }
        Ok(out)
    }

    /// `paths`: each path item converted, `x-` entries kept as they are.
    fn paths(&mut self, v: &Value) -> Result<Value> {
        let at = vec!["paths".to_string()];
        let paths = match v {
            Value::Null => return Ok(Value::Null),
            v => self.object(v, &at, "`paths`")?,
        };
        let mut out = Map::with_capacity(paths.len());
        for (path, item) in paths {
            let converted = if path.starts_with("x-") {
                item.clone()
            } else {
                self.path_item(item, &push(&at, path))?
            };
            out.insert(path.clone(), converted);
        }
        Ok(Value::Object(out))
    }

    /// A path item: its kept parameters stay, its body and form parameters move into each
    /// operation. A `$ref`'d path item is converted as a copy.
    fn path_item(&mut self, item: &Value, at: &[String]) -> Result<Value> {
        let obj = self.object(item, at, "a path item")?;
        if let Some(r) = obj.get("$ref").and_then(Value::as_str)
            && let Some((target, t_at)) = self.resolve(r)
        {
            // The target is in Swagger form too: convert a copy here.
            return self.inlined(|up| up.path_item(target, &t_at));
        }
        let params_at = push(at, "parameters");
        let shared = self.parameter_list(obj.get("parameters"), &params_at)?;
        let (kept, inherited): (Vec<Param>, Vec<Param>) = shared
            .into_iter()
            .partition(|p| matches!(p, Param::Keep { .. }));
        let mut out = Map::with_capacity(obj.len());
        for (k, v) in obj {
            if k == "parameters" {
                if !kept.is_empty() {
                    let list = self.keep_list(&kept, &params_at);
                    out.insert(k.clone(), list);
                }
            } else if OPERATION_KEYS.contains(&k.as_str()) {
                let op = self.operation(v, &push(at, k), &inherited)?;
                out.insert(k.clone(), op);
            } else {
                out.insert(k.clone(), v.clone());
            }
        }
        Ok(Value::Object(out))
    }

    /// An operation in 3.0 form; `inherited` are its path item's body and form parameters.
    fn operation(&mut self, op: &Value, at: &[String], inherited: &[Param]) -> Result<Value> {
        let obj = self.object(op, at, "an operation")?;
        let consumes = self.media_types(obj, "consumes", at, &self.consumes)?;
        let produces = self.media_types(obj, "produces", at, &self.produces)?;
        let params_at = push(at, "parameters");
        let own = self.parameter_list(obj.get("parameters"), &params_at)?;
        let mut request_body = self.operation_body(&own, inherited, at, &consumes)?;

        let mut out = Map::with_capacity(obj.len() + 1);
        for (k, v) in obj {
            match k.as_str() {
                "consumes" | "produces" => {}
                "schemes" => {
                    if let Some(servers) = self.operation_servers(v, &push(at, k))? {
                        out.insert("servers".into(), servers);
                    }
                }
                "parameters" => {
                    if own.iter().any(|p| matches!(p, Param::Keep { .. })) {
                        let list = self.keep_list(&own, &params_at);
                        out.insert(k.clone(), list);
                    }
                    if let Some(b) = request_body.take() {
                        out.insert("requestBody".into(), b);
                    }
                }
                "responses" => {
                    if let Some(b) = request_body.take() {
                        out.insert("requestBody".into(), b);
                    }
                    let responses = self.responses(v, &push(at, k), &produces)?;
                    out.insert(k.clone(), responses);
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        if let Some(b) = request_body {
            out.insert("requestBody".into(), b);
        }
        Ok(Value::Object(out))
    }
}

/// A list of strings (a single string counts as a list of one); `None` when absent.
fn string_list(file: &str, v: Option<&Value>, at: &[String]) -> Result<Option<Vec<String>>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(vec![s.trim().to_string()])),
        Some(Value::Array(items)) => Ok(Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        )),
        Some(other) => Err(Error::at(
            file,
            &pointer(at),
            format!("expected a list of strings, found {}", kind(other)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub(super) fn up(doc: Value) -> Value {
        upgrade("t.json", doc).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn document_layout() {
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "host": "h.example", "basePath": "/b", "schemes": ["http"],
            "x-top": 1, "security": [{"k": []}],
            "definitions": {"A": {"type": "string", "x-nullable": true}},
            "parameters": {
                "q": {"name": "q", "in": "query", "type": "integer", "minimum": 1},
                "b": {"name": "b", "in": "body", "schema": {"$ref": "#/definitions/A"}},
                "f": {"name": "f", "in": "formData", "type": "string"}},
            "responses": {"E": {"description": "e", "schema": {"$ref": "#/definitions/A"}}},
            "securityDefinitions": {"k": {"type": "apiKey", "name": "k", "in": "query"}},
            "paths": {}
        }));
        assert_eq!(v["openapi"], "3.0.3");
        assert!(v.get("swagger").is_none() && v.get("host").is_none());
        assert_eq!(v["servers"], json!([{"url": "http://h.example/b"}]));
        assert_eq!(v["x-top"], 1);
        assert_eq!(v["security"], json!([{"k": []}]));
        let c = &v["components"];
        assert_eq!(
            c["schemas"]["A"],
            json!({"type": "string", "nullable": true})
        );
        assert_eq!(
            c["parameters"]["q"],
            json!({"name": "q", "in": "query", "schema": {"type": "integer", "minimum": 1}})
        );
        assert_eq!(
            c["requestBodies"]["b"],
            json!({"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}})
        );
        assert!(
            c["parameters"].get("f").is_none(),
            "formData has no 3.0 component"
        );
        assert_eq!(
            c["responses"]["E"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/A"
        );
        assert_eq!(c["securitySchemes"]["k"]["type"], "apiKey");
    }

    #[test]
    fn structural_defects_name_the_pointer() {
        let base = |paths: Value| json!({"swagger": "2.0", "info": {}, "paths": paths});
        let cases = [
            (base(json!(5)), "at #/paths: `paths` must be an object"),
            (
                base(json!({"/a": []})),
                "at #/paths/~1a: a path item must be an object",
            ),
            (
                base(json!({"/a": {"get": 1}})),
                "at #/paths/~1a/get: an operation",
            ),
            (
                base(json!({"/a": {"get": {"parameters": {}}}})),
                "at #/paths/~1a/get/parameters: `parameters` must be an array",
            ),
            (
                base(json!({"/a": {"get": {"parameters": [3]}}})),
                "at #/paths/~1a/get/parameters/0: a parameter must be an object",
            ),
            (
                base(json!({"/a": {"get": {"responses": {"200": "ok"}}}})),
                "at #/paths/~1a/get/responses/200: a response must be an object",
            ),
            (
                base(json!({"/a": {"get": {"parameters": [{"in": "formData"}]}}})),
                "at #/paths/~1a/get/parameters/0: form parameter has no `name`",
            ),
            (
                json!({"swagger": "2.0", "definitions": []}),
                "at #/definitions: `definitions` must be an object",
            ),
            (
                json!({"swagger": "2.0", "host": 1}),
                "at #/host: `host` must be a string",
            ),
            (json!({"swagger": "2.0", "consumes": 1}), "at #/consumes"),
        ];
        for (doc, needle) in cases {
            let e = upgrade("t.json", doc).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}\n  wanted: {needle}");
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for doc in [
            json!({"swagger": "2.0"}),
            json!({"swagger": "2.0", "paths": null, "definitions": null}),
            json!({"swagger": "2.0", "paths": {"/a": {"parameters": [{"$ref": "#/nope"}],
                "get": {"parameters": [{"$ref": "#/parameters/x"}, {"$ref": "http://x"},
                    {"$ref": "#/a"}, {"name": "q", "in": "query", "items": 1, "collectionFormat": 3}],
                    "responses": {"200": {"headers": {"h": 1}, "examples": 3, "schema": 1}}}}},
                "a": {"$ref": "#/a"}}),
            json!({"swagger": "2.0", "securityDefinitions": {"a": 1, "b": {"type": "oauth2"}}}),
        ] {
            let _ = upgrade("t", doc);
        }
        assert!(upgrade("t", json!([1])).is_err());
    }
}
