//! Reading a document into [`Api`]: its head (info, servers, webhooks) and its paths, path
//! items and operations, structure checked as read (a wrong type is an error naming the JSON
//! pointer). Parameters, bodies and responses are read in `parts`.

use super::{Api, Entry, Head, HintOverride, Method, Operation, Parameter, Requirement};
use crate::error::{Error, Result};
use crate::read::{Document, kind, pointer};
use serde_json::{Map, Value};

/// Where a node is, as a JSON pointer written out only for a message: reading an operation
/// passes a dozen of them down, and nearly every one goes unused.
#[derive(Clone, Copy)]
pub(super) enum At<'p> {
    /// A pointer already written out (where a `$ref` led, or a fixed place).
    Text(&'p str),
    /// A member of the node at the parent.
    Key(&'p At<'p>, &'p str),
    /// An element of the array at the parent.
    Index(&'p At<'p>, usize),
}

impl<'p> At<'p> {
    pub(super) fn key(&'p self, key: &'p str) -> At<'p> {
        At::Key(self, key)
    }

    pub(super) fn index(&'p self, i: usize) -> At<'p> {
        At::Index(self, i)
    }
}

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            At::Text(t) => f.write_str(t),
            At::Key(parent, key) => {
                parent.fmt(f)?;
                f.write_str("/")?;
                pointer::write_escaped_token(f, key)
            }
            At::Index(parent, i) => write!(f, "{parent}/{i}"),
        }
    }
}

pub(super) struct Reader<'a> {
    pub(super) doc: &'a Document,
}

/// Path items a thread reads at a time.
pub(super) const PATHS_RUN: usize = 16;

impl<'a> Reader<'a> {
    pub(super) fn err(&self, pointer: &str, message: impl Into<String>) -> Error {
        Error::at(&self.doc.file, pointer, message)
    }

    pub(super) fn object(&self, v: &'a Value, at: &At) -> Result<&'a Map<String, Value>> {
        v.as_object().ok_or_else(|| {
            self.err(
                &at.to_string(),
                format!("expected an object, found {}", kind(v)),
            )
        })
    }

    pub(super) fn opt_str(
        &self,
        obj: &'a Map<String, Value>,
        key: &str,
        at: &At,
    ) -> Result<Option<&'a str>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(self.err(
                &at.key(key).to_string(),
                format!("`{key}` must be a string, found {}", kind(other)),
            )),
        }
    }

    pub(super) fn opt_bool(
        &self,
        obj: &Map<String, Value>,
        key: &str,
        at: &At,
    ) -> Result<Option<bool>> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            // "true"/"false" strings are a common slip; accept them rather than refuse the document.
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(self.err(
                &at.key(key).to_string(),
                format!("`{key}` must be a boolean, found {}", kind(other)),
            )),
        }
    }

    /// An optional array field: absent or null is empty, anything else but an array is an error.
    pub(super) fn opt_array(
        &self,
        v: Option<&'a Value>,
        what: &str,
        at: &At,
    ) -> Result<&'a [Value]> {
        match v {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.err(
                &at.to_string(),
                format!("`{what}` must be an array, found {}", kind(other)),
            )),
        }
    }

    /// `v`, or the node its `$ref` (chain) leads to, with the pointer to that node when it is
    /// not `at`.
    pub(super) fn follow(&self, v: &'a Value, at: &At) -> Result<(&'a Value, Option<String>)> {
        if pointer::ref_of(v).is_none() {
            return Ok((v, None));
        }
        let (target, pointer) =
            pointer::follow_from(&self.doc.file, self.doc, v, &|| at.to_string())?;
        Ok((target, Some(pointer)))
    }

    pub(super) fn api(&self) -> Result<Api<'a>> {
        let head = self.head()?;
        self.check_paths()?;
        let paths = self
            .doc
            .paths
            .iter()
            .filter(|(path, _)| !path.starts_with("x-"))
            .map(|(path, item)| Ok((path, item.tree().ok_or_else(|| unparsed(path))?)))
            .collect::<Result<Vec<_>>>()?;
        let operations = self.path_items(&paths, &head.servers)?;
        let api = Api {
            title: head.title,
            version: head.version,
            spec: self.doc.version,
            operations,
            webhooks: head.webhooks,
        };
        Ok(api)
    }

    /// An error when the document's `paths` is neither an object (whose items the document
    /// keeps apart) nor null.
    pub(super) fn check_paths(&self) -> Result<()> {
        match self.root()?.get("paths") {
            Some(paths) if !paths.is_null() => self.object(paths, &At::Text("/paths")).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// See [`super::operation`].
    pub(super) fn one(
        &self,
        entry: &Entry<'_>,
        item: &'a Value,
        servers: &[String],
    ) -> Result<Operation<'a>> {
        let mut ops = Vec::new();
        let at = At::Text("/paths");
        self.path_item(
            entry.path,
            item,
            &at.key(entry.path),
            servers,
            Some(entry.method),
            &mut ops,
        )?;
        ops.pop().ok_or_else(|| {
            Error::Internal(format!(
                "{} {} was listed but is not in its path item",
                entry.method.as_str(),
                entry.path
            ))
        })
    }

    fn root(&self) -> Result<&'a Map<String, Value>> {
        self.object(&self.doc.root, &At::Text(""))
    }

    pub(super) fn head(&self) -> Result<Head<'a>> {
        let root = self.root()?;
        let info_at = At::Text("/info");
        let info = match root.get("info") {
            Some(v) => Some(self.object(v, &info_at)?),
            None => None,
        };
        let title = match info {
            Some(i) => self.opt_str(i, "title", &info_at)?.unwrap_or(""),
            None => "",
        };
        let version = match info {
            Some(i) => self.opt_str(i, "version", &info_at)?.unwrap_or(""),
            None => "",
        };
        let servers = self.servers(root.get("servers"), &At::Text("/servers"))?;
        let webhooks = match root.get("webhooks") {
            Some(Value::Object(m)) => m.len(),
            _ => 0,
        };
        Ok(Head {
            title,
            version,
            servers,
            webhooks,
        })
    }

    /// The operations of `paths`, in order, read in runs on the thread pool; the first error in
    /// document order is the one reported.
    fn path_items(
        &self,
        paths: &[(&'a str, &'a Value)],
        root_servers: &[String],
    ) -> Result<Vec<Operation<'a>>> {
        use rayon::prelude::*;
        let read = |paths: &[(&'a str, &'a Value)]| -> Result<Vec<Operation<'a>>> {
            let mut out = Vec::new();
            let paths_at = At::Text("/paths");
            for (path, item) in paths {
                self.path_item(
                    path,
                    item,
                    &paths_at.key(path),
                    root_servers,
                    None,
                    &mut out,
                )?;
            }
            Ok(out)
        };
        let parts: Vec<_> = paths.par_chunks(PATHS_RUN).map(read).collect();
        let mut operations = Vec::new();
        for part in parts {
            operations.extend(part?);
        }
        Ok(operations)
    }

    pub(super) fn path_item(
        &self,
        path: &str,
        item: &'a Value,
        at: &At,
        root_servers: &[String],
        only: Option<Method>,
        out: &mut Vec<Operation<'a>>,
    ) -> Result<()> {
        let (item, led) = self.follow(item, at)?;
        let item_at = led.as_deref().map_or(*at, At::Text);
        let item = self.object(item, &item_at)?;
        let shared = self.parameters(item.get("parameters"), &item_at.key("parameters"))?;
        let path_servers = match item.get("servers") {
            Some(s) => self.servers(Some(s), &item_at.key("servers"))?,
            None => root_servers.to_vec(),
        };
        for method in Method::ALL {
            if only.is_some_and(|m| m != method) {
                continue;
            }
            let Some(op) = item.get(method.key()) else {
                continue;
            };
            let op_at = item_at.key(method.key());
            out.push(self.operation(method, path, op, &op_at, &shared, &path_servers)?);
        }
        Ok(())
    }

    fn operation(
        &self,
        method: Method,
        path: &str,
        op: &'a Value,
        at: &At,
        shared: &[Parameter<'a>],
        path_servers: &[String],
    ) -> Result<Operation<'a>> {
        let obj = self.object(op, at)?;
        let own = self.parameters(obj.get("parameters"), &at.key("parameters"))?;
        // Operation-level parameters override path-level ones with the same name and location.
        let mut parameters: Vec<Parameter<'a>> = shared
            .iter()
            .filter(|p| {
                !own.iter()
                    .any(|o| o.name == p.name && o.location == p.location)
            })
            .cloned()
            .collect();
        parameters.extend(own);

        let tags = self
            .opt_array(obj.get("tags"), "tags", &at.key("tags"))?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let servers = match obj.get("servers") {
            Some(s) => self.servers(Some(s), &at.key("servers"))?,
            None => path_servers.to_vec(),
        };
        let body = match obj.get("requestBody") {
            None | Some(Value::Null) => None,
            Some(b) => self.request_body(b, &at.key("requestBody"))?,
        };
        let (response, has_success) = self.success(obj.get("responses"), &at.key("responses"))?;
        let only_accepted = obj
            .get("responses")
            .and_then(Value::as_object)
            .is_some_and(|r| {
                let mut codes = r.keys().filter(|c| c.starts_with('2')).peekable();
                codes.peek().is_some() && codes.all(|c| c == "202")
            });
        let mut hints = Vec::new();
        for source in ["x-speakeasy-mcp", "x-mcp-annotations"] {
            if let Some(v) = obj.get(source) {
                hints.push(self.hint_override(source, v, &at.key(source))?);
            }
        }
        let security = requirements(
            obj.get("security")
                .or_else(|| self.doc.root.get("security")),
        );
        Ok(Operation {
            method,
            path: path.to_string(),
            pointer: at.to_string(),
            operation_id: self
                .opt_str(obj, "operationId", at)?
                .filter(|s| !s.trim().is_empty()),
            summary: self.opt_str(obj, "summary", at)?,
            description: self.opt_str(obj, "description", at)?,
            tags,
            deprecated: self.opt_bool(obj, "deprecated", at)?.unwrap_or(false),
            parameters,
            body,
            response,
            has_success,
            only_accepted,
            servers,
            hints,
            security,
        })
    }

    pub(super) fn servers(&self, list: Option<&'a Value>, at: &At) -> Result<Vec<String>> {
        let items = self.opt_array(list, "servers", at)?;
        let mut out = Vec::new();
        for (i, s) in items.iter().enumerate() {
            let s_at = at.index(i);
            let obj = self.object(s, &s_at)?;
            let Some(url) = self.opt_str(obj, "url", &s_at)? else {
                continue;
            };
            let mut url = url.to_string();
            if let Some(Value::Object(vars)) = obj.get("variables") {
                for (name, var) in vars {
                    if let Some(default) = var.get("default") {
                        let default = match default {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        url = url.replace(&format!("{{{name}}}"), &default);
                    }
                }
            }
            if !out.contains(&url) {
                out.push(url);
            }
        }
        Ok(out)
    }

    fn hint_override(&self, source: &'static str, v: &'a Value, at: &At) -> Result<HintOverride> {
        let obj = self.object(v, at)?;
        // x-speakeasy-mcp keeps hints either at its top level or under `annotations`.
        let a_at = at.key("annotations");
        let (obj, at) = match obj.get("annotations") {
            Some(a) => (self.object(a, &a_at)?, a_at),
            None => (obj, *at),
        };
        Ok(HintOverride {
            source,
            read_only: self.opt_bool(obj, "readOnlyHint", &at)?,
            destructive: self.opt_bool(obj, "destructiveHint", &at)?,
            idempotent: self.opt_bool(obj, "idempotentHint", &at)?,
            open_world: self.opt_bool(obj, "openWorldHint", &at)?,
            title: self.opt_str(obj, "title", &at)?.map(str::to_string),
        })
    }
}

/// The error for a path item whose text does not parse (the reader wrote or checked it).
pub(super) fn unparsed(path: &str) -> Error {
    Error::Internal(format!("the path item {path} does not read back as JSON"))
}

/// A `security` value read leniently, as a server applies it: anything but an array is no
/// requirement, an alternative that is not an object is skipped, scopes that are not a list of
/// strings are none.
fn requirements(security: Option<&Value>) -> Vec<Requirement> {
    let Some(Value::Array(alternatives)) = security else {
        return Vec::new();
    };
    alternatives
        .iter()
        .filter_map(Value::as_object)
        .map(|alt| {
            alt.iter()
                .map(|(name, scopes)| {
                    let scopes = scopes
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    (name.clone(), scopes)
                })
                .collect()
        })
        .collect()
}
