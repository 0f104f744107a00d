//! Schema: converts OpenAPI schemas (3.0 dialect, or 3.1/3.2 which are already JSON Schema 2020-12)
//! into self-contained JSON Schema 2020-12.
//!
//! - 3.0 keywords are translated: `nullable` -> `type` arrays (or `anyOf` with `null`), boolean
//!   `exclusiveMinimum/Maximum` -> numeric, `example` -> `examples`, `format: binary` ->
//!   `contentEncoding: base64` (binary travels base64-encoded in JSON arguments).
//! - 3.1 keywords pass through untouched (`const`, `examples`, `prefixItems`, boolean schemas,
//!   `$ref` siblings, `type` arrays).
//! - `readOnly` properties are dropped from input schemas and `writeOnly` ones from output schemas
//!   (and from `required`). `x-` keys, `xml`, `externalDocs`, `$id`/`$schema`/`$anchor` are dropped;
//!   values that would break the 2020-12 metaschema (a boolean `required`, a negative `minLength`,
//!   an unknown `type` name) are dropped too, since no validator could use them.
//! - Every `$ref` (to `components`, or to any local pointer) becomes `#/$defs/NAME`. Each referenced
//!   schema is converted once per direction and cached; a tool's schema gets exactly the `$defs` it
//!   reaches, so recursive schemas work and no `$ref` dangles. `inline_refs` inlines all
//!   non-recursive definitions instead.

use crate::error::{Error, Result, escape_token};
use crate::refs;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Arc;

/// Which side of the call a schema describes; it decides whether `readOnly` or `writeOnly`
/// properties are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Arguments the client sends: `readOnly` properties are dropped.
    Input,
    /// Results the client receives: `writeOnly` properties are dropped.
    Output,
}

/// Deepest schema nesting we convert (the parsers already stop at 128 levels).
const MAX_DEPTH: usize = 256;
/// Deepest nesting `inline_refs` may produce before it keeps a `$ref`.
const MAX_INLINE_DEPTH: usize = 64;

/// A converted schema and the definitions it references directly.
#[derive(Debug, Clone, Default)]
pub struct Converted {
    pub value: Value,
    pub refs: Vec<usize>,
    /// Compact JSON size of `value` in bytes (set for cached definitions).
    pub size: usize,
}

/// A finished tool schema: its root object plus the definitions it reaches (`$defs`, sorted by
/// name). Definitions are shared between the tools that use them rather than copied; they are
/// written out under `$defs` when the schema is serialized.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    pub root: Value,
    pub defs: Vec<(String, Arc<Converted>)>,
}

impl Schema {
    /// A schema without definitions.
    pub fn plain(root: Value) -> Self {
        Schema {
            root,
            defs: Vec::new(),
        }
    }

    /// The schema as one JSON value, `$defs` included.
    pub fn to_value(&self) -> Value {
        if self.defs.is_empty() {
            return self.root.clone();
        }
        let mut m = match &self.root {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        let defs = self
            .defs
            .iter()
            .map(|(k, c)| (k.clone(), c.value.clone()))
            .collect();
        m.insert("$defs".into(), Value::Object(defs));
        Value::Object(m)
    }
}

impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        self.to_value() == other.to_value()
    }
}

impl std::ops::Index<&str> for Schema {
    type Output = Value;
    /// A keyword of the root (`$defs` is not part of the root: use [`Schema::to_value`]).
    fn index(&self, key: &str) -> &Value {
        &self.root[key]
    }
}

impl serde::Serialize for Schema {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(root) = &self.root else {
            return self.root.serialize(s);
        };
        if self.defs.is_empty() {
            return root.serialize(s);
        }
        struct Defs<'a>(&'a [(String, Arc<Converted>)]);
        impl serde::Serialize for Defs<'_> {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, c)| (k, &c.value)))
            }
        }
        let mut m = s.serialize_map(Some(root.len() + 1))?;
        for (k, v) in root {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("$defs", &Defs(&self.defs))?;
        m.end()
    }
}

/// Limits on how much of the referenced definitions one tool schema carries. Definitions past a
/// limit become described stubs that accept any value of their type, so a cut schema still
/// accepts every instance the full one accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes (compact JSON) one schema may hold, counting kept definitions nearest first.
    pub budget: Option<usize>,
    /// Most levels of `$ref` to expand (1: only definitions the schema names directly).
    pub max_ref_depth: Option<usize>,
}

/// Converts schemas of one document, caching each referenced definition per direction.
pub struct Converter<'a> {
    file: &'a str,
    root: &'a Value,
    /// Inline every non-recursive definition instead of emitting `$defs`.
    pub inline_refs: bool,
    /// Size and depth limits for each finished schema.
    pub limits: Limits,
    pointers: Vec<String>,
    names: Vec<String>,
    by_pointer: HashMap<String, usize>,
    by_name: HashMap<String, usize>,
    regexes: HashMap<String, bool>,
    cache: HashMap<(usize, Direction), Arc<Converted>>,
}

impl<'a> Converter<'a> {
    pub fn new(file: &'a str, root: &'a Value) -> Self {
        Converter {
            file,
            root,
            inline_refs: false,
            limits: Limits::default(),
            pointers: Vec::new(),
            names: Vec::new(),
            by_pointer: HashMap::new(),
            by_name: HashMap::new(),
            regexes: HashMap::new(),
            cache: HashMap::new(),
        }
    }

    /// The document the schemas come from.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// The file name used in messages.
    pub fn file(&self) -> &'a str {
        self.file
    }

    /// Convert one schema found at JSON pointer `at` (used in error messages).
    pub fn convert(&mut self, schema: &Value, dir: Direction, at: &str) -> Result<Converted> {
        let mut refs = Vec::new();
        let value = self.conv(schema, dir, at, &mut refs, 0)?;
        Ok(Converted {
            value,
            refs,
            size: 0,
        })
    }

    /// Whether a raw schema is marked `readOnly` (or `writeOnly` for [`Direction::Output`]),
    /// directly or on the schema its `$ref` names.
    pub fn hidden(&self, schema: &Value, dir: Direction) -> bool {
        let key = match dir {
            Direction::Input => "readOnly",
            Direction::Output => "writeOnly",
        };
        let marked = |v: &Value| v.get(key).and_then(Value::as_bool) == Some(true);
        if marked(schema) {
            return true;
        }
        refs::ref_of(schema)
            .and_then(|r| refs::lookup(self.root, r))
            .is_some_and(marked)
    }

    /// Attach the `$defs` that `root` reaches through `refs` (or inline them) and return the
    /// finished, self-contained schema.
    pub fn finish(&mut self, root: Value, refs: &[usize], dir: Direction) -> Result<Schema> {
        if refs.is_empty() {
            return Ok(Schema::plain(root));
        }
        // Breadth-first over the cached definitions, nearest first, so that a size budget or a
        // depth limit keeps what is closest to the root and stubs the rest.
        let mut used = json_size(&root);
        let mut queue: VecDeque<(usize, usize)> = refs.iter().map(|&id| (id, 1)).collect();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut kept: HashMap<usize, Arc<Converted>> = HashMap::new();
        let mut stubs: Vec<(usize, Value)> = Vec::new();
        while let Some((id, level)) = queue.pop_front() {
            if !seen.insert(id) {
                continue;
            }
            let c = self.definition(id, dir)?;
            let too_deep = self.limits.max_ref_depth.is_some_and(|max| level > max);
            let too_big = self.limits.budget.is_some_and(|b| used + c.size > b);
            if too_deep || too_big {
                let why = if too_deep {
                    "reference depth limit"
                } else {
                    "schema size budget"
                };
                let stub = stub(&self.names[id], &c.value, why);
                used += json_size(&stub);
                stubs.push((id, stub));
                continue;
            }
            used += c.size;
            queue.extend(c.refs.iter().map(|&r| (r, level + 1)));
            kept.insert(id, c);
        }
        let mut defs: Vec<(String, Arc<Converted>)> = kept
            .into_iter()
            .map(|(id, c)| (self.names[id].clone(), c))
            .chain(stubs.into_iter().map(|(id, stub)| {
                let c = Converted {
                    value: stub,
                    refs: Vec::new(),
                    size: 0,
                };
                (self.names[id].clone(), Arc::new(c))
            }))
            .collect();
        defs.sort_by(|a, b| a.0.cmp(&b.0));
        if self.inline_refs {
            return Ok(self.inline_all(root, defs));
        }
        Ok(Schema { root, defs })
    }

    /// Look through `$ref`s and `allOf` of a converted schema to see whether it describes an object.
    pub fn is_object(&mut self, schema: &Value, dir: Direction) -> Result<bool> {
        self.is_object_at(schema, dir, 0)
    }

    fn is_object_at(&mut self, schema: &Value, dir: Direction, depth: usize) -> Result<bool> {
        let Some(obj) = schema.as_object() else {
            return Ok(false);
        };
        if depth > 16 {
            return Ok(false);
        }
        match obj.get("type") {
            Some(Value::String(t)) => return Ok(t == "object"),
            Some(_) => return Ok(false),
            None => {}
        }
        if obj.contains_key("properties") {
            return Ok(true);
        }
        if let Some(r) = obj.get("$ref").and_then(Value::as_str)
            && let Some(id) = self.id_of_def_ref(r)
        {
            let def = self.definition(id, dir)?;
            if self.is_object_at(&def.value, dir, depth + 1)? {
                return Ok(true);
            }
        }
        if let Some(Value::Array(parts)) = obj.get("allOf") {
            for p in parts {
                if self.is_object_at(p, dir, depth + 1)? {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// The definition named by a converted `#/$defs/NAME` reference.
    fn id_of_def_ref(&self, reference: &str) -> Option<usize> {
        let name = crate::error::unescape_token(reference.strip_prefix("#/$defs/")?);
        self.by_name.get(&name).copied()
    }

    /// The converted form of definition `id`, converting and caching it on first use.
    fn definition(&mut self, id: usize, dir: Direction) -> Result<Arc<Converted>> {
        if let Some(c) = self.cache.get(&(id, dir)) {
            return Ok(c.clone());
        }
        let pointer = self.pointers[id].clone();
        let root = self.root;
        let target = refs::lookup(root, &format!("#{pointer}"))
            .ok_or_else(|| Error::at(self.file, &pointer, "`$ref` target does not exist"))?;
        let mut c = self.convert(target, dir, &pointer)?;
        c.size = json_size(&c.value);
        let c = Arc::new(c);
        self.cache.insert((id, dir), c.clone());
        Ok(c)
    }

    /// Whether `pattern` is a regular expression JSON Schema validators accept (checked with the
    /// same engine the `jsonschema` crate uses; cached per document).
    fn valid_regex(&mut self, pattern: &str) -> bool {
        if let Some(&ok) = self.regexes.get(pattern) {
            return ok;
        }
        let ok =
            jsonschema::draft202012::meta::is_valid(&serde_json::json!({ "pattern": pattern }))
                && jsonschema::draft202012::new(&serde_json::json!({ "pattern": pattern })).is_ok();
        self.regexes.insert(pattern.to_string(), ok);
        ok
    }

    /// Whether `obj[key] == v` only repeats the same keyword of the schema `obj`'s `$ref` names.
    fn repeats_target(&self, obj: &Map<String, Value>, key: &str, v: &Value) -> bool {
        obj.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| refs::lookup(self.root, r))
            .and_then(|target| target.get(key))
            .is_some_and(|t| t == v)
    }

    /// Register the definition a `$ref` names, checking that it exists.
    fn register(&mut self, reference: &str, at: &str) -> Result<usize> {
        refs::check_local(self.file, reference, at)?;
        let pointer = canonical_pointer(reference);
        if let Some(&id) = self.by_pointer.get(&pointer) {
            return Ok(id);
        }
        if refs::lookup(self.root, reference).is_none() {
            return Err(Error::at(
                self.file,
                at,
                format!("`$ref` target {reference} does not exist"),
            ));
        }
        let base = def_name(&pointer);
        let mut name = base.clone();
        let mut n = 2;
        while self.by_name.contains_key(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let id = self.pointers.len();
        self.by_name.insert(name.clone(), id);
        self.names.push(name);
        self.pointers.push(pointer.clone());
        self.by_pointer.insert(pointer, id);
        Ok(id)
    }

    fn conv(
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
            if filter && self.hidden(s, dir) {
                hidden.push(k.clone());
                continue;
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
        let mut out = Map::with_capacity(obj.len());
        let mut hidden: Vec<String> = Vec::new();
        for (k, v) in obj {
            let key = k.as_str();
            let kept: Option<Value> = match key {
                _ if key.starts_with("x-") => None,
                "nullable" | "example" | "xml" | "externalDocs" | "$schema" | "$id" | "$anchor"
                | "$dynamicAnchor" | "$dynamicRef" | "$recursiveRef" | "$recursiveAnchor"
                | "$vocabulary" | "$defs" | "definitions" | "additionalItems" => None,
                "exclusiveMinimum" | "exclusiveMaximum" => v.is_number().then(|| v.clone()),
                "$ref" => match v.as_str() {
                    Some(r) => {
                        let id = self.register(r, at)?;
                        if !refs.contains(&id) {
                            refs.push(id);
                        }
                        Some(Value::String(format!(
                            "#/$defs/{}",
                            escape_token(&self.names[id])
                        )))
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
                "type" => clean_type(v),
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
                // A `$ref` sibling that repeats the target's own text says nothing new.
                "title" | "description" if self.repeats_target(obj, key, v) => None,
                "title" | "description" | "$comment" | "contentEncoding" | "contentMediaType" => {
                    v.is_string().then(|| v.clone())
                }
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
        if !hidden.is_empty()
            && let Some(Value::Array(req)) = out.get_mut("required")
        {
            req.retain(|r| r.as_str().is_none_or(|r| !hidden.iter().any(|h| h == r)));
            if req.is_empty() {
                out.remove("required");
            }
        }
        // OpenAPI 3.0 boolean exclusive bounds become the numeric 2020-12 form.
        for (flag, bound) in [
            ("exclusiveMinimum", "minimum"),
            ("exclusiveMaximum", "maximum"),
        ] {
            if obj.get(flag) == Some(&Value::Bool(true))
                && let Some(b) = out.remove(bound)
            {
                out.insert(flag.into(), b);
            }
        }
        if let Some(ex) = obj.get("example")
            && !out.contains_key("examples")
            && let Some(list) = examples(std::iter::once(ex))
        {
            out.insert("examples".into(), list);
        }
        if obj.get("type").and_then(Value::as_str) == Some("file") {
            out.insert("type".into(), Value::String("string".into()));
            out.entry("contentEncoding")
                .or_insert_with(|| Value::String("base64".into()));
        }
        if obj.get("nullable").and_then(Value::as_bool) == Some(true) {
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
                    let id = self.register(r, at)?;
                    *target = Value::String(format!("#/$defs/{}", escape_token(&self.names[id])));
                }
            }
        }
        Ok(d)
    }

    fn inline_all(&self, root: Value, defs: Vec<(String, Arc<Converted>)>) -> Schema {
        let by_id: HashMap<usize, Arc<Converted>> = defs
            .into_iter()
            .filter_map(|(name, c)| Some((*self.by_name.get(&name)?, c)))
            .collect();
        // A definition is recursive when it can reach itself; those stay in `$defs`.
        let mut recursive: Vec<usize> = by_id
            .keys()
            .copied()
            .filter(|&id| reaches(&by_id, id, id))
            .collect();
        recursive.sort_by(|a, b| self.names[*a].cmp(&self.names[*b]));
        let by_name: HashMap<&str, usize> = by_id
            .keys()
            .map(|&id| (self.names[id].as_str(), id))
            .collect();
        let inl = Inliner {
            defs: &by_id,
            by_name: &by_name,
            recursive: &recursive,
        };
        let root = inl.inline(&root, 0);
        let defs = recursive
            .iter()
            .map(|id| {
                let value = inl.inline(&by_id[id].value, 0);
                (
                    self.names[*id].clone(),
                    Arc::new(Converted {
                        value,
                        refs: Vec::new(),
                        size: 0,
                    }),
                )
            })
            .collect();
        Schema { root, defs }
    }
}

struct Inliner<'d> {
    defs: &'d HashMap<usize, Arc<Converted>>,
    by_name: &'d HashMap<&'d str, usize>,
    recursive: &'d [usize],
}

impl Inliner<'_> {
    fn inline(&self, v: &Value, depth: usize) -> Value {
        match v {
            Value::Object(obj) => {
                let target = obj
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .map(crate::error::unescape_token)
                    .and_then(|n| self.by_name.get(n.as_str()).copied())
                    .filter(|id| !self.recursive.contains(id) && depth < MAX_INLINE_DEPTH);
                let mut out = Map::with_capacity(obj.len());
                for (k, child) in obj {
                    if k == "$ref" && target.is_some() {
                        continue;
                    }
                    out.insert(k.clone(), self.inline(child, depth + 1));
                }
                match target {
                    None => Value::Object(out),
                    Some(id) => {
                        let body = self.inline(&self.defs[&id].value, depth + 1);
                        merge_into(body, out)
                    }
                }
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.inline(i, depth + 1)).collect())
            }
            _ => v.clone(),
        }
    }
}

/// Compact JSON size of `v` in bytes, without building the string.
pub fn json_size(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// What stands in for a definition past a limit: any value of the definition's type, described.
fn stub(name: &str, def: &Value, why: &str) -> Value {
    let mut m = Map::new();
    if let Some(t) = def.get("type").filter(|t| t.is_string()) {
        m.insert("type".into(), t.clone());
    }
    let summary = def
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.lines().next())
        .map(|d| d.chars().take(160).collect::<String>());
    let text = match summary {
        Some(d) if !d.trim().is_empty() => format!("{name}: {} (not expanded: {why})", d.trim()),
        _ => format!("{name} (not expanded: {why})"),
    };
    m.insert("description".into(), Value::String(text));
    Value::Object(m)
}

/// Combine an inlined definition with the keywords that stood beside its `$ref`.
fn merge_into(body: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return body;
    }
    match body {
        Value::Object(mut b) if siblings.keys().all(|k| !b.contains_key(k)) => {
            b.extend(siblings);
            Value::Object(b)
        }
        other => {
            let mut out = Map::new();
            out.insert("allOf".into(), Value::Array(vec![other]));
            out.extend(siblings);
            Value::Object(out)
        }
    }
}

fn reaches(defs: &HashMap<usize, Arc<Converted>>, from: usize, goal: usize) -> bool {
    let mut stack = defs.get(&from).map(|c| c.refs.clone()).unwrap_or_default();
    let mut seen = HashSet::new();
    while let Some(id) = stack.pop() {
        if id == goal {
            return true;
        }
        if seen.insert(id)
            && let Some(c) = defs.get(&id)
        {
            stack.extend(c.refs.iter().copied());
        }
    }
    false
}

/// `#/components/schemas/A%20B` -> `/components/schemas/A B` (percent-decoded JSON pointer).
fn canonical_pointer(reference: &str) -> String {
    let frag = &reference[1..];
    if !frag.contains('%') {
        return frag.to_string();
    }
    frag.split('/')
        .map(|t| refs::percent_decode_token(t).into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A readable, URI-safe `$defs` key for a pointer.
fn def_name(pointer: &str) -> String {
    let tokens: Vec<String> = pointer
        .trim_start_matches('/')
        .split('/')
        .map(crate::error::unescape_token)
        .collect();
    let parts: &[String] = match tokens.as_slice() {
        // A bundled file (see `bundle`): name it by what is inside, else by the file's stem.
        [b, file, rest @ ..] if b == crate::bundle::BUNDLE_KEY => {
            return def_name_in_file(file, rest);
        }
        [c, s, rest @ ..] if c == "components" && s == "schemas" && !rest.is_empty() => rest,
        [d, rest @ ..] if d == "definitions" && !rest.is_empty() => rest,
        [c, rest @ ..] if c == "components" && !rest.is_empty() => rest,
        all => all,
    };
    let joined = parts.join(".");
    let mut name: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        name.push_str("root");
    }
    name
}

fn def_name_in_file(file: &str, rest: &[String]) -> String {
    if rest.is_empty() {
        let stem = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        return def_name(&format!("/{}", escape_token(&stem)));
    }
    let inner: String = rest
        .iter()
        .map(|t| format!("/{}", escape_token(t)))
        .collect();
    def_name(&inner)
}

/// Example values as a 2020-12 `examples` array. Values holding a `$ref` key are dropped: they are
/// document defects (a reference where a value belongs) and would read as dangling references.
fn examples<'v>(values: impl Iterator<Item = &'v Value>) -> Option<Value> {
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

fn clean_type(v: &Value) -> Option<Value> {
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

fn clean_required(v: &Value) -> Option<Value> {
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

fn clean_dependent_required(v: &Value) -> Option<Value> {
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
fn nullable(mut out: Map<String, Value>) -> Map<String, Value> {
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
    use super::*;
    use serde_json::json;

    fn conv(doc: &Value, schema: Value, dir: Direction) -> Value {
        let mut c = Converter::new("t", doc);
        let out = c.convert(&schema, dir, "/x").unwrap();
        c.finish(out.value, &out.refs, dir).unwrap().to_value()
    }

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
        assert_eq!(o["required"], json!(["id", "n"]));
        assert!(o["properties"].get("pw").is_none());
    }

    #[test]
    fn recursive_refs_use_defs_and_inline_keeps_cycles() {
        let doc = json!({"components": {"schemas": {
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}, "tag": {"$ref": "#/components/schemas/Tag"}}},
            "Tag": {"type": "string", "x-internal": true, "example": "t"}}}});
        let v = conv(
            &doc,
            json!({"$ref": "#/components/schemas/Node"}),
            Direction::Output,
        );
        assert_eq!(
            v["$defs"]["Tag"],
            json!({"type": "string", "examples": ["t"]})
        );
        assert_eq!(
            v["$defs"]["Node"]["properties"]["next"]["$ref"],
            "#/$defs/Node"
        );

        let mut c = Converter::new("t", &doc);
        c.inline_refs = true;
        let out = c
            .convert(
                &json!({"$ref": "#/components/schemas/Node"}),
                Direction::Output,
                "/x",
            )
            .unwrap();
        let v = c
            .finish(out.value, &out.refs, Direction::Output)
            .unwrap()
            .to_value();
        assert_eq!(
            v["$defs"]["Node"]["properties"]["tag"],
            json!({"type": "string", "examples": ["t"]})
        );
        assert!(v["$defs"].get("Tag").is_none());
    }

    #[test]
    fn openapi_31_keywords_survive() {
        let doc = json!({});
        let s = json!({"type": ["string", "null"], "const": "x", "exclusiveMinimum": 0,
            "examples": ["x"], "prefixItems": [true, {"type": "integer"}]});
        assert_eq!(conv(&doc, s.clone(), Direction::Input), s);
    }

    #[test]
    fn invalid_patterns_are_left_out_with_a_comment() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "string", "pattern": "^[\\w-.]+$"}),
            Direction::Input,
        );
        assert_eq!(v["type"], "string");
        assert!(v.get("pattern").is_none());
        assert!(
            v["$comment"]
                .as_str()
                .unwrap()
                .contains("not a valid regular expression")
        );
        let ok = conv(
            &doc,
            json!({"type": "string", "pattern": "^\\p{L}+$"}),
            Direction::Input,
        );
        assert_eq!(ok["pattern"], "^\\p{L}+$");
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
        let other = json!({"$ref": "#/components/schemas/A", "description": "The owner's A."});
        assert_eq!(
            conv(&doc, other, Direction::Input)["description"],
            "The owner's A."
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
    fn missing_ref_is_an_error() {
        let doc = json!({});
        let mut c = Converter::new("t", &doc);
        let e = c
            .convert(
                &json!({"$ref": "#/components/schemas/Nope"}),
                Direction::Input,
                "/x",
            )
            .unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
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
