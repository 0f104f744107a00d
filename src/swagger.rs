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

use crate::error::{Error, Result, escape_token, unescape_token};
use crate::model::{Method, kind};
use crate::refs;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// Deepest schema nesting rewritten before the document is refused.
pub const MAX_DEPTH: usize = 256;
/// `$ref` hops followed when classifying a referenced parameter.
const MAX_HOPS: usize = 32;
const JSON: &str = "application/json";
const FORM: &str = "application/x-www-form-urlencoded";
const MULTIPART: &str = "multipart/form-data";
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

/// A parameter list entry, sorted by where it goes in 3.0.
enum Param {
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

fn push(at: &[String], token: &str) -> Tokens {
    let mut t = at.to_vec();
    t.push(token.to_string());
    t
}

/// JSON pointer text of `tokens`.
fn pointer(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", escape_token(t)))
        .collect()
}

impl<'a> Upgrader<'a> {
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

    fn moved(&mut self, from: Tokens, to: Tokens) {
        if self.recording {
            self.moves.entry(from).or_insert(to);
        }
    }

    /// Run `f` to convert a copy of a `$ref` target, without recording moves.
    fn inlined<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let was = std::mem::replace(&mut self.recording, false);
        let out = f(self);
        self.recording = was;
        out
    }

    fn document(&mut self) -> Result<Value> {
        let root = self.root;
        let src = self.object(root, &[], "the document")?;
        self.consumes = string_list(self.file, src.get("consumes"), &["consumes".into()])?
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| vec![JSON.into()]);
        self.produces = string_list(self.file, src.get("produces"), &["produces".into()])?
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| vec![JSON.into()]);
        self.host = opt_string(self.file, src, "host", &[])?;
        self.base = opt_string(self.file, src, "basePath", &[])?;
        let schemes = string_list(self.file, src.get("schemes"), &["schemes".into()])?;
        self.servers = server_urls(
            self.host.as_deref(),
            self.base.as_deref(),
            schemes.as_deref().unwrap_or(&[]),
        );

        let mut out = Map::new();
        out.insert("openapi".into(), "3.0.3".into());
        if let Some(info) = src.get("info") {
            out.insert("info".into(), info.clone());
        }
        if !self.servers.is_empty() {
            out.insert("servers".into(), server_objects(&self.servers));
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

    /// Record where the keywords of a non-body parameter (or header) went: into its `schema`.
    fn moved_keys(&mut self, p: &Map<String, Value>, at: &[String], new_at: &[String]) {
        for k in SCHEMA_KEYS {
            if p.contains_key(k) {
                self.moved(push(at, k), [new_at, &["schema".into(), k.into()]].concat());
            }
        }
    }

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
            } else if Method::parse(k).is_some_and(|m| m.key() == k) {
                let op = self.operation(v, &push(at, k), &inherited)?;
                out.insert(k.clone(), op);
            } else {
                out.insert(k.clone(), v.clone());
            }
        }
        Ok(Value::Object(out))
    }

    /// The kept parameters as a list, recording their new indices.
    fn keep_list(&mut self, params: &[Param], at: &[String]) -> Value {
        let mut list = Vec::new();
        for p in params {
            if let Param::Keep { value, index } = p {
                let old = push(at, &index.to_string());
                let new = push(at, &list.len().to_string());
                if let Some(obj) = value.as_object()
                    && !obj.contains_key("$ref")
                    && let Some(Value::Object(src)) =
                        refs::lookup(self.root, &format!("#{}", pointer(&old)))
                {
                    self.moved_keys(src, &old, &new);
                }
                self.moved(old, new);
                list.push(value.clone());
            }
        }
        Value::Array(list)
    }

    fn parameter_list(&self, list: Option<&Value>, at: &[String]) -> Result<Vec<Param>> {
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

    /// Follow a local `$ref` chain in the original document.
    fn resolve(&self, reference: &str) -> Option<(&'a Value, Tokens)> {
        let mut r = reference;
        for _ in 0..MAX_HOPS {
            let target = refs::lookup(self.root, r)?;
            match refs::ref_of(target) {
                Some(next) if next.starts_with('#') => r = next,
                Some(_) => return None,
                None => return Some((target, ref_tokens(r)?)),
            }
        }
        None
    }

    fn operation(&mut self, op: &Value, at: &[String], inherited: &[Param]) -> Result<Value> {
        let obj = self.object(op, at, "an operation")?;
        let consumes = string_list(self.file, obj.get("consumes"), &push(at, "consumes"))?
            .map(|m| if m.is_empty() { vec![JSON.into()] } else { m })
            .unwrap_or_else(|| self.consumes.clone());
        let produces = string_list(self.file, obj.get("produces"), &push(at, "produces"))?
            .map(|m| if m.is_empty() { vec![JSON.into()] } else { m })
            .unwrap_or_else(|| self.produces.clone());
        let params_at = push(at, "parameters");
        let own = self.parameter_list(obj.get("parameters"), &params_at)?;

        // The body: the operation's own (last body parameter, else its form fields), else the
        // path item's the same way. Form fields of both levels merge by name.
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
        let mut request_body = match body {
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
                    let converted = self.request_body(param, param_at, &consumes)?;
                    self.moved(
                        push(param_at, "schema"),
                        body_schema_at(&body_at, &consumes),
                    );
                    converted
                }
            }),
            _ if !forms.is_empty() => Some(self.form_body(&forms, &consumes)?),
            _ => None,
        };

        let mut out = Map::with_capacity(obj.len() + 1);
        for (k, v) in obj {
            match k.as_str() {
                "consumes" | "produces" => {}
                "schemes" => {
                    let schemes = string_list(self.file, Some(v), &push(at, k))?;
                    let urls = server_urls(
                        self.host.as_deref(),
                        self.base.as_deref(),
                        schemes.as_deref().unwrap_or(&[]),
                    );
                    if urls != self.servers && self.host.is_some() {
                        out.insert("servers".into(), server_objects(&urls));
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
                    let r_at = push(at, k);
                    let mut converted = Map::new();
                    match v {
                        Value::Null => {}
                        v => {
                            for (code, r) in self.object(v, &r_at, "`responses`")? {
                                let c_at = push(&r_at, code);
                                let value = if code.starts_with("x-") {
                                    r.clone()
                                } else {
                                    self.response(r, &c_at, &c_at, &produces)?
                                };
                                converted.insert(code.clone(), value);
                            }
                        }
                    }
                    out.insert(k.clone(), Value::Object(converted));
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

    /// A non-body parameter: schema keywords into `schema`, `collectionFormat` into `style`.
    fn parameter(&self, p: &Map<String, Value>, at: &[String]) -> Result<Value> {
        let location = param_in(p).unwrap_or("query");
        let schema = param_schema(self.file, p, at)?;
        let mut out = Map::with_capacity(p.len() + 2);
        for (k, v) in p {
            if SCHEMA_KEYS.contains(&k.as_str())
                || matches!(k.as_str(), "x-nullable" | "collectionFormat" | "schema")
            {
                continue;
            }
            out.insert(k.clone(), v.clone());
        }
        if let Some((style, explode, keep)) = collection(p, &schema, location) {
            out.insert("style".into(), style.into());
            out.insert("explode".into(), explode.into());
            if let Some(format) = keep {
                out.insert("x-collectionFormat".into(), format.into());
            }
        }
        out.insert("schema".into(), schema);
        Ok(Value::Object(out))
    }

    /// An `in: body` parameter as a 3.0 request body with one entry per media type.
    fn request_body(
        &self,
        p: &Map<String, Value>,
        at: &[String],
        consumes: &[String],
    ) -> Result<Value> {
        let schema = match p.get("schema") {
            Some(s) => Some(schema(self.file, s, &mut push(at, "schema"), 0)?),
            None => None,
        };
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
    fn form_body(&self, forms: &[&Param], consumes: &[String]) -> Result<Value> {
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
            if let Some((style, explode, keep)) = collection(param, &schema, "formData") {
                let mut e = Map::new();
                e.insert("style".into(), style.into());
                e.insert("explode".into(), explode.into());
                if let Some(format) = keep {
                    e.insert("x-collectionFormat".into(), format.into());
                }
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

    /// A response: `schema` and `examples` into `content`, headers into the 3.0 form.
    fn response(
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
        let schema = match obj.get("schema") {
            Some(s) => Some(schema(self.file, s, &mut push(at, "schema"), 0)?),
            None => None,
        };
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
                if !SCHEMA_KEYS.contains(&k.as_str())
                    && !matches!(k.as_str(), "x-nullable" | "collectionFormat" | "schema")
                {
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

/// The `in` of a parameter object.
fn param_in(p: &Map<String, Value>) -> Option<&str> {
    p.get("in").and_then(Value::as_str)
}

/// Whether `reference` names a shared object of the document, `#/<section>/X`.
fn is_shared(reference: &str, section: &str) -> bool {
    ref_tokens(reference).is_some_and(|t| t.len() == 2 && t[0] == section)
}

/// Where a body parameter's schema lands: under the first media type of its request body.
fn body_schema_at(body: &[String], consumes: &[String]) -> Tokens {
    let media = consumes.first().map_or(JSON, String::as_str);
    [body, &["content".into(), media.into(), "schema".into()]].concat()
}

fn is_form_media(media: &str) -> bool {
    let m = media.split(';').next().unwrap_or("").trim();
    m.eq_ignore_ascii_case(FORM) || m.eq_ignore_ascii_case(MULTIPART)
}

/// Decoded tokens of a local reference (`#/a/b%20c` -> `["a", "b c"]`).
fn ref_tokens(reference: &str) -> Option<Tokens> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    let fragment = fragment.strip_prefix('/')?;
    Some(
        fragment
            .split('/')
            .map(|t| unescape_token(&refs::percent_decode_token(t)))
            .collect(),
    )
}

fn opt_string(
    file: &str,
    obj: &Map<String, Value>,
    key: &str,
    at: &[String],
) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(other) => Err(Error::at(
            file,
            &pointer(&push(at, key)),
            format!("`{key}` must be a string, found {}", kind(other)),
        )),
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

/// Server URLs from `host`, `basePath` and `schemes`.
fn server_urls(host: Option<&str>, base: Option<&str>, schemes: &[String]) -> Vec<String> {
    let base_given = base.is_some();
    let base = base.map(|b| b.trim_end_matches('/')).unwrap_or("");
    let base = if base.is_empty() || base.starts_with('/') {
        base.to_string()
    } else {
        format!("/{base}")
    };
    let host = host
        .map(|h| h.trim_end_matches('/'))
        .filter(|h| !h.is_empty());
    let Some(host) = host else {
        return match base.as_str() {
            _ if !base_given => Vec::new(),
            "" => vec!["/".into()],
            b => vec![b.to_string()],
        };
    };
    let default = ["https".to_string()];
    let schemes = if schemes.is_empty() {
        &default[..]
    } else {
        schemes
    };
    let mut out: Vec<String> = Vec::new();
    for scheme in schemes {
        let url = if host.contains("://") {
            format!("{host}{base}")
        } else {
            format!("{}://{host}{base}", scheme.to_ascii_lowercase())
        };
        if !out.contains(&url) {
            out.push(url);
        }
    }
    out
}

fn server_objects(urls: &[String]) -> Value {
    Value::Array(
        urls.iter()
            .map(|u| {
                let mut m = Map::new();
                m.insert("url".into(), u.clone().into());
                Value::Object(m)
            })
            .collect(),
    )
}

/// The 3.0 schema of a non-body parameter, form field or header.
fn param_schema(file: &str, p: &Map<String, Value>, at: &[String]) -> Result<Value> {
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
fn collection(
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

/// A Swagger security scheme in its 3.0 form.
fn security_scheme(s: &Value) -> Value {
    let Value::Object(obj) = s else {
        return s.clone();
    };
    let mut out = Map::new();
    let extras = |out: &mut Map<String, Value>| {
        for (k, v) in obj {
            if k == "description" || k.starts_with("x-") {
                out.insert(k.clone(), v.clone());
            }
        }
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("basic") => {
            out.insert("type".into(), "http".into());
            out.insert("scheme".into(), "basic".into());
            extras(&mut out);
        }
        Some("oauth2") => {
            let (flow, keys): (&str, &[&str]) = match obj.get("flow").and_then(Value::as_str) {
                Some("implicit") => ("implicit", &["authorizationUrl"]),
                Some("password") => ("password", &["tokenUrl"]),
                Some("application") => ("clientCredentials", &["tokenUrl"]),
                Some("accessCode") => ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
                _ => return s.clone(),
            };
            let mut f = Map::new();
            for k in keys {
                if let Some(v) = obj.get(*k) {
                    f.insert((*k).into(), v.clone());
                }
            }
            let scopes = match obj.get("scopes") {
                Some(v @ Value::Object(_)) => v.clone(),
                _ => Value::Object(Map::new()),
            };
            f.insert("scopes".into(), scopes);
            let mut flows = Map::new();
            flows.insert(flow.into(), Value::Object(f));
            out.insert("type".into(), "oauth2".into());
            out.insert("flows".into(), Value::Object(flows));
            extras(&mut out);
        }
        _ => return s.clone(),
    }
    Value::Object(out)
}

/// A Swagger schema in the 3.0 dialect: `x-nullable` -> `nullable`, `type: file` -> binary
/// string, a string `discriminator` -> `{propertyName}`; every other keyword kept.
fn schema(file: &str, v: &Value, at: &mut Tokens, depth: usize) -> Result<Value> {
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

/// Rewrite every local `$ref` whose target moved, walking with an explicit stack (no recursion).
fn rewrite_refs(root: &mut Value, moves: &HashMap<Tokens, Tokens>) {
    let mut stack: Vec<&mut Value> = vec![root];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get_mut("$ref")
                    && let Some(new) = rewrite_ref(r, moves)
                {
                    *r = new;
                }
                stack.extend(m.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// Convert, in place, the schemas that converted parts reach by `$ref` outside `paths` and
/// `components`: files that `bundle` joined under `$bundle`, and `x-` sections.
fn convert_outside(file: &str, out: &mut Value) -> Result<()> {
    let mut queue: Vec<String> = Vec::new();
    for key in ["paths", "components"] {
        if let Some(v) = out.get(key) {
            collect_refs(v, &mut queue);
        }
    }
    let mut done: HashSet<Tokens> = HashSet::new();
    while let Some(r) = queue.pop() {
        let Some(tokens) = ref_tokens(&r) else {
            continue;
        };
        let outside = tokens
            .first()
            .is_some_and(|t| t == crate::bundle::BUNDLE_KEY || t.starts_with("x-"));
        if !outside || !done.insert(tokens.clone()) {
            continue;
        }
        let Some(target) = lookup_mut(out, &tokens) else {
            continue;
        };
        // Converting twice is harmless (the rewrite is idempotent), so overlapping targets are fine.
        let converted = schema(file, target, &mut tokens.clone(), 0)?;
        collect_refs(&converted, &mut queue);
        *target = converted;
    }
    Ok(())
}

/// Every local `$ref` string under `v`.
fn collect_refs(v: &Value, out: &mut Vec<String>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref")
                    && r.starts_with('#')
                {
                    out.push(r.clone());
                }
                stack.extend(m.values());
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
}

fn lookup_mut<'v>(root: &'v mut Value, tokens: &[String]) -> Option<&'v mut Value> {
    let mut node = root;
    for t in tokens {
        node = match node {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(items) => items.get_mut(t.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node)
}

/// The new form of `reference` when its longest moved prefix is in `moves`; the rest of the
/// pointer is kept as written.
fn rewrite_ref(reference: &str, moves: &HashMap<Tokens, Tokens>) -> Option<String> {
    let raw: Vec<&str> = reference.strip_prefix("#/")?.split('/').collect();
    let decoded = ref_tokens(reference)?;
    for k in (1..=decoded.len()).rev() {
        if let Some(new) = moves.get(&decoded[..k]) {
            let mut out = String::from("#");
            for t in new {
                out.push('/');
                out.push_str(&escape_token(t).replace('%', "%25"));
            }
            for t in &raw[k..] {
                out.push('/');
                out.push_str(t);
            }
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn up(doc: Value) -> Value {
        upgrade("t.json", doc).unwrap_or_else(|e| panic!("{e}"))
    }

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

    #[test]
    fn servers_from_host_base_path_and_schemes() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            server_urls(Some("api.x.com"), Some("/v1/"), &s(&["http", "https"])),
            s(&["http://api.x.com/v1", "https://api.x.com/v1"])
        );
        assert_eq!(
            server_urls(Some("api.x.com"), None, &[]),
            s(&["https://api.x.com"])
        );
        assert_eq!(server_urls(None, Some("/v2"), &s(&["http"])), s(&["/v2"]));
        assert_eq!(server_urls(None, Some("/"), &[]), s(&["/"]));
        assert_eq!(server_urls(None, None, &[]), Vec::<String>::new());
    }

    #[test]
    fn security_schemes_map() {
        assert_eq!(
            security_scheme(&json!({"type": "basic", "description": "d"})),
            json!({"type": "http", "scheme": "basic", "description": "d"})
        );
        let k = json!({"type": "apiKey", "name": "k", "in": "header"});
        assert_eq!(security_scheme(&k), k);
        assert_eq!(
            security_scheme(&json!({"type": "oauth2", "flow": "accessCode",
                "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {"r": "read"}})),
            json!({"type": "oauth2", "flows": {"authorizationCode": {
                "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {"r": "read"}}}})
        );
        assert_eq!(
            security_scheme(
                &json!({"type": "oauth2", "flow": "application", "tokenUrl": "https://t"})
            ),
            json!({"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}}})
        );
    }

    #[test]
    fn refs_follow_the_longest_moved_prefix() {
        let mut moves = HashMap::new();
        moves.insert(
            vec!["definitions".to_string()],
            vec!["components".to_string(), "schemas".to_string()],
        );
        moves.insert(
            vec!["parameters".to_string(), "b".to_string()],
            vec![
                "components".to_string(),
                "requestBodies".to_string(),
                "b".to_string(),
            ],
        );
        moves.insert(
            vec![
                "parameters".to_string(),
                "b".to_string(),
                "schema".to_string(),
            ],
            vec!["x".to_string(), "a/b%".to_string()],
        );
        let r = |s: &str| rewrite_ref(s, &moves);
        assert_eq!(
            r("#/definitions/Foo%20Bar/properties/x").as_deref(),
            Some("#/components/schemas/Foo%20Bar/properties/x")
        );
        assert_eq!(
            r("#/parameters/b").as_deref(),
            Some("#/components/requestBodies/b")
        );
        assert_eq!(
            r("#/parameters/b/schema/items").as_deref(),
            Some("#/x/a~1b%25/items")
        );
        assert_eq!(r("#/parameters/c"), None);
        assert_eq!(r("other.yaml#/definitions/A"), None);
        assert_eq!(r("https://x/y.json#/definitions/A"), None);
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

    #[test]
    fn refs_into_moved_parts_of_paths_are_rewritten() {
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "paths": {"/a": {"post": {
                "parameters": [
                    {"name": "b", "in": "body", "schema": {"type": "object"}},
                    {"name": "q", "in": "query", "type": "array", "items": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "schema": {"type": "integer"}}}},
                "get": {"parameters": [{"$ref": "#/paths/~1a/post/parameters/1"}],
                    "responses": {"200": {"description": "ok", "schema": {"properties": {
                        "b": {"$ref": "#/paths/~1a/post/parameters/0/schema"},
                        "i": {"$ref": "#/paths/~1a/post/parameters/1/items"},
                        "r": {"$ref": "#/paths/~1a/post/responses/200/schema"}}}}}}}}
        }));
        let get = &v["paths"]["/a"]["get"];
        // A reference to a parameter that is not shared is inlined in its converted form.
        assert_eq!(
            get["parameters"][0],
            v["paths"]["/a"]["post"]["parameters"][0]
        );
        assert_eq!(get["parameters"][0]["schema"]["type"], "array");
        let props = &get["responses"]["200"]["content"]["application/json"]["schema"]["properties"];
        assert_eq!(
            props["b"]["$ref"],
            "#/paths/~1a/post/requestBody/content/application~1json/schema"
        );
        assert_eq!(
            props["i"]["$ref"],
            "#/paths/~1a/post/parameters/0/schema/items"
        );
        assert_eq!(
            props["r"]["$ref"],
            "#/paths/~1a/post/responses/200/content/application~1json/schema"
        );
        for r in [&props["b"], &props["i"], &props["r"]] {
            let r = r["$ref"].as_str().unwrap();
            assert!(refs::lookup(&v, r).is_some(), "{r} dangles");
        }
    }

    #[test]
    fn references_into_bundled_files_are_converted() {
        // What `bundle` makes of a split document: other files under `$bundle`, local refs.
        let v = up(json!({
            "swagger": "2.0", "info": {"title": "t", "version": "1"},
            "paths": {
                "/a": {"$ref": "#/$bundle/a.yaml"},
                "/b": {"get": {
                    "parameters": [{"$ref": "#/$bundle/p.yaml/limit"}],
                    "responses": {"200": {"$ref": "#/$bundle/p.yaml/ok"}}}}},
            "$bundle": {
                "a.yaml": {"post": {"parameters": [{"$ref": "#/$bundle/p.yaml/body"}]}},
                "p.yaml": {
                    "limit": {"name": "limit", "in": "query", "type": "integer"},
                    "body": {"name": "b", "in": "body", "schema": {"$ref": "#/$bundle/s.yaml/Pet"}},
                    "ok": {"description": "ok", "schema": {"$ref": "#/$bundle/s.yaml/Pet"}}},
                "s.yaml": {"Pet": {"type": "object", "properties": {
                    "tag": {"type": "string", "x-nullable": true},
                    "owner": {"$ref": "#/$bundle/s.yaml/Owner"}}},
                    "Owner": {"type": "object", "discriminator": "kind"}}}
        }));
        let paths = &v["paths"];
        assert_eq!(
            paths["/a"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/$bundle/s.yaml/Pet"
        );
        assert_eq!(
            paths["/b"]["get"]["parameters"][0],
            json!({"name": "limit", "in": "query", "schema": {"type": "integer"}})
        );
        assert_eq!(
            paths["/b"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            "#/$bundle/s.yaml/Pet"
        );
        let s = &v["$bundle"]["s.yaml"];
        assert_eq!(s["Pet"]["properties"]["tag"]["nullable"], true);
        assert_eq!(s["Owner"]["discriminator"], json!({"propertyName": "kind"}));
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
