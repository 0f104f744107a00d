//! Schema: converts OpenAPI schemas (3.0 dialect, or 3.1/3.2 which are already JSON Schema 2020-12)
//! into self-contained JSON Schema 2020-12.
//!
//! - 3.0 keywords are translated: `nullable` -> `type` arrays (or `anyOf` with `null`), boolean
//!   `exclusiveMinimum/Maximum` -> numeric, `example` -> `examples`, `format: binary` ->
//!   `contentEncoding: base64` (binary travels base64-encoded in JSON arguments).
//! - 3.1 keywords pass through untouched (`const`, `examples`, `prefixItems`, boolean schemas,
//!   `$ref` siblings, `type` arrays).
//! - `readOnly` properties are dropped from input schemas and `writeOnly` ones from output schemas
//!   (and from `required`). Output schemas also leave out what could refuse an answer with fewer
//!   fields than the API sent (`required`, `minProperties`, `dependentRequired`, `not`, `if`,
//!   `uniqueItems`, ...; `oneOf` becomes `anyOf`), so that a `_fields` projection stays valid.
//!   `x-` keys, `xml`, `externalDocs`, `$id`/`$schema`/`$anchor` are dropped;
//!   values that would break the 2020-12 metaschema (a boolean `required`, a negative `minLength`,
//!   an unknown `type` name) are dropped too, since no validator could use them.
//! - Every `$ref` (to `components`, or to any local pointer) becomes `#/$defs/NAME`. Each referenced
//!   schema is converted once per direction and cached (once for both when none of its properties
//!   is marked `readOnly` or `writeOnly` and it has none of the keywords output schemas leave
//!   out); a tool's schema gets exactly the `$defs` it reaches, so
//!   recursive schemas work and no `$ref` dangles. `inline_refs` inlines all non-recursive
//!   definitions instead.
//!
//! The stages live in one file each: `keywords` walks a schema and converts each keyword (with
//! the value rewrites in `values`), `defs` names and registers `$ref` targets, `pattern` checks
//! regular expressions, `references` finds every `$ref` in a tree, `limits` attaches the reached `$defs` within a size budget, `inline`
//! inlines non-recursive definitions, and `output` holds the finished [`Schema`].

mod defs;
mod inline;
mod keywords;
mod limits;
mod output;
mod pattern;
mod values;

pub(crate) use defs::{key_safe, stable_hash};
pub(crate) use limits::Limits;
pub(crate) use output::Schema;
pub(crate) use output::{write_str, write_value};
pub use pattern::is_valid_regex;

use crate::error::{Error, Result};
use crate::read::pointer::{self as refs, Tree};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

/// Which side of the call a schema describes; it decides whether `readOnly` or `writeOnly`
/// properties are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// Arguments the client sends: `readOnly` properties are dropped.
    Input,
    /// Results the client receives: `writeOnly` properties are dropped.
    Output,
}

/// A converted schema and the definitions it references directly.
#[derive(Debug, Default)]
pub(crate) struct Converted {
    pub value: Value,
    pub refs: Vec<usize>,
    /// Compact JSON size of `value` in bytes (set for cached definitions).
    pub size: usize,
    /// `value` as compact JSON, rendered when a shared definition is converted (else on first
    /// use): a definition is shared by many tools, and shared definitions are most of a large
    /// tools list, so `--format json` renders each once and copies the text.
    compact: OnceLock<Box<str>>,
}

/// A copy renders its text again when needed (its `value` may be changed).
impl Clone for Converted {
    fn clone(&self) -> Self {
        Converted {
            value: self.value.clone(),
            refs: self.refs.clone(),
            size: self.size,
            compact: OnceLock::new(),
        }
    }
}

impl Converted {
    /// A converted schema with nothing measured or rendered yet.
    pub(crate) fn new(value: Value, refs: Vec<usize>) -> Self {
        Converted {
            value,
            refs,
            ..Converted::default()
        }
    }

    /// `value` as compact JSON, the same bytes `serde_json::to_writer` gives it (rendered on
    /// first use; `value` must not change after that, which holds for the shared definitions).
    /// Another thread may render it at the same time; the texts are equal.
    pub(crate) fn compact(&self) -> &str {
        self.compact.get_or_init(|| render(&self.value))
    }
}

/// `value` as compact JSON text.
fn render(value: &Value) -> Box<str> {
    let mut text = Vec::new();
    output::write_value(&mut text, value);
    // Written from `&str`s and JSON punctuation only, so always UTF-8.
    String::from_utf8(text)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        .into_boxed_str()
}

/// Converts schemas of one document, caching each referenced definition per direction.
///
/// Converters made by [`Converter::sharing`] share one [`Registry`]: each definition is named
/// and converted once, whichever converter (thread) meets it first.
pub(crate) struct Converter<'a> {
    file: &'a str,
    root: &'a dyn Tree,
    /// Inline every non-recursive definition instead of emitting `$defs`.
    pub inline_refs: bool,
    /// Size and depth limits for each finished schema.
    pub limits: Limits,
    registry: Arc<Mutex<Registry>>,
    /// The definitions this converter has taken from the registry, so that a tool's `$defs` are
    /// found without taking the shared lock again.
    seen: FxHashMap<(usize, Direction), Arc<Converted>>,
    regexes: HashMap<String, bool>,
    /// Stubs of definitions cut by a limit, by (id, direction, cut by depth rather than size).
    stubs: FxHashMap<(usize, Direction, bool), Arc<Converted>>,
    /// What each set of definitions (sorted, by direction) reaches, for schemas that reach the
    /// same ones; see `limits`.
    reached: [FxHashMap<Box<[usize]>, limits::Reach>; 2],
    /// The references this converter has registered, as written, with their definitions' ids
    /// and names: registered again without the shared lock (nothing in the registry changes
    /// once written, and a failed registration is not kept).
    references: FxHashMap<String, (usize, Arc<str>)>,
    /// The names this converter has looked up, by definition id: found again without the lock.
    names: Vec<Option<Arc<str>>>,
    /// Set when a property met since it was last cleared is marked `readOnly` or `writeOnly`,
    /// so that the conversion depends on its direction.
    sided: bool,
}

/// The definitions `$ref`s name, with their `$defs` names and converted forms: what converters
/// of one document share, whatever threads they run on (names come from the document alone,
/// see `defs`).
#[derive(Debug, Default)]
pub(crate) struct Registry {
    pointers: Vec<String>,
    /// `$defs` names by definition id (shared by every tool that uses the definition).
    names: Vec<Arc<str>>,
    by_pointer: HashMap<String, usize>,
    by_name: HashMap<String, usize>,
    cache: FxHashMap<(usize, Direction), Arc<Converted>>,
    /// Whether each `pattern` met is a regular expression validators accept.
    regexes: HashMap<String, bool>,
    /// The names of definitions that want another's name.
    clashes: defs::Clashes,
}

impl Registry {
    /// An empty registry for the definitions of a tree with these references (every `$ref`
    /// string and discriminator `mapping` value in it).
    pub(crate) fn new<'r>(references: impl IntoIterator<Item = &'r str>) -> Registry {
        Registry {
            clashes: defs::Clashes::of(references),
            ..Registry::default()
        }
    }

    /// An empty registry for the definitions of `doc`.
    pub(crate) fn of(doc: &crate::read::Document) -> Registry {
        Registry::new(doc.references().iter().map(String::as_str))
    }
}

impl<'a> Converter<'a> {
    /// A converter for the schemas of a plain tree.
    #[cfg(test)]
    pub(crate) fn new(file: &'a str, root: &'a Value) -> Self {
        let registry = Registry::new(crate::read::references::distinct_references(root));
        Converter::sharing(file, root, Arc::new(Mutex::new(registry)))
    }

    /// A converter that shares `registry` with others of the same document and options.
    pub(crate) fn sharing(
        file: &'a str,
        root: &'a dyn Tree,
        registry: Arc<Mutex<Registry>>,
    ) -> Self {
        Converter {
            file,
            root,
            inline_refs: false,
            limits: Limits::default(),
            registry,
            seen: FxHashMap::default(),
            regexes: HashMap::new(),
            stubs: FxHashMap::default(),
            reached: Default::default(),
            references: FxHashMap::default(),
            names: Vec::new(),
            sided: false,
        }
    }

    /// The shared registry. A poisoned lock is taken over: nothing that can panic runs while a
    /// registration's four insertions are made (short of running out of memory, which aborts).
    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `$defs` name of definition `id`.
    pub(super) fn name_of(&mut self, id: usize) -> Arc<str> {
        if let Some(Some(name)) = self.names.get(id) {
            return name.clone();
        }
        let name = self.registry().names[id].clone();
        if self.names.len() <= id {
            self.names.resize(id + 1, None);
        }
        self.names[id] = Some(name.clone());
        name
    }

    /// The document the schemas come from.
    pub(crate) fn root(&self) -> &'a dyn Tree {
        self.root
    }

    /// The file name used in messages.
    pub(crate) fn file(&self) -> &'a str {
        self.file
    }

    /// Convert one schema found at JSON pointer `at` (used in error messages).
    pub(crate) fn convert(
        &mut self,
        schema: &Value,
        dir: Direction,
        at: &str,
    ) -> Result<Converted> {
        let mut refs = Vec::new();
        let value = self.conv(schema, dir, at, &mut refs, 0)?;
        Ok(Converted::new(value, refs))
    }

    /// Whether a raw schema is marked `readOnly` (or `writeOnly` for [`Direction::Output`]),
    /// directly or on the schema its `$ref` names.
    pub(crate) fn hidden(&self, schema: &Value, dir: Direction) -> bool {
        let (read_only, write_only) = self.marks(schema);
        match dir {
            Direction::Input => read_only,
            Direction::Output => write_only,
        }
    }

    /// Whether a raw schema is marked `readOnly` and whether `writeOnly`, directly or on the
    /// schema its `$ref` names.
    pub(super) fn marks(&self, schema: &Value) -> (bool, bool) {
        // A scan of a schema's few keys, made for every property, is cheaper than hashing each.
        fn scan(v: &Value) -> (bool, bool, Option<&str>) {
            let (mut read_only, mut write_only, mut reference) = (false, false, None);
            for (k, x) in v.as_object().into_iter().flatten() {
                match k.as_str() {
                    "readOnly" => read_only = x.as_bool() == Some(true),
                    "writeOnly" => write_only = x.as_bool() == Some(true),
                    "$ref" => reference = x.as_str(),
                    _ => {}
                }
            }
            (read_only, write_only, reference)
        }
        let (mut read_only, mut write_only, reference) = scan(schema);
        if !(read_only && write_only)
            && let Some(target) = reference.and_then(|r| refs::lookup(self.root, r))
        {
            let (r, w, _) = scan(target);
            read_only |= r;
            write_only |= w;
        }
        (read_only, write_only)
    }

    /// Look through `$ref`s and `allOf` of a converted schema to see whether it describes an object.
    pub(crate) fn is_object(&mut self, schema: &Value, dir: Direction) -> Result<bool> {
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

    /// The converted form of definition `id`, converting and caching it on first use.
    fn definition(&mut self, id: usize, dir: Direction) -> Result<Arc<Converted>> {
        if let Some(c) = self.seen.get(&(id, dir)) {
            return Ok(c.clone());
        }
        let c = self.definition_shared(id, dir)?;
        self.seen.insert((id, dir), c.clone());
        Ok(c)
    }

    /// [`Converter::definition`] from the shared registry, converted there if it is not yet.
    fn definition_shared(&mut self, id: usize, dir: Direction) -> Result<Arc<Converted>> {
        let pointer = {
            let registry = self.registry();
            if let Some(c) = registry.cache.get(&(id, dir)) {
                return Ok(c.clone());
            }
            registry.pointers[id].clone()
        };
        // Converted without the lock held: conversion registers and converts other definitions.
        let root = self.root;
        let target = refs::lookup_pointer(root, &pointer)
            .ok_or_else(|| Error::at(self.file, &pointer, "`$ref` target does not exist"))?;
        if refs::ref_of(target).is_some() {
            // A definition that is only a reference must lead to one that is not: `A: {$ref: B}`
            // with `B: {$ref: A}` says nothing, and written as `$defs` it would send a validator
            // round the loop for ever.
            refs::follow_from(self.file, root, target, &|| pointer.clone())?;
        }
        // Converting a definition registers the definitions it names but converts none of
        // them, so the flag tells about this definition's own properties alone.
        let outer = std::mem::replace(&mut self.sided, false);
        let converted = self.convert(target, dir, &pointer);
        let sided = std::mem::replace(&mut self.sided, outer);
        let mut c = converted?;
        // Rendered now: its length is the size the budget counts, and `--format json` (the
        // default) copies the text into every tool that carries the definition.
        let text = render(&c.value);
        c.size = text.len();
        c.compact = OnceLock::from(text);
        let c = Arc::new(c);
        let mut registry = self.registry();
        // With no property marked `readOnly` or `writeOnly`, the direction changes nothing: the
        // other direction's conversion would be the same, so it is not made.
        if !sided {
            let other = match dir {
                Direction::Input => Direction::Output,
                Direction::Output => Direction::Input,
            };
            registry
                .cache
                .entry((id, other))
                .or_insert_with(|| c.clone());
        }
        // Another converter may have converted it meanwhile, alike; the first one is kept.
        Ok(registry.cache.entry((id, dir)).or_insert(c).clone())
    }
}

/// `text` without the characters a reader cannot see but a model reads: C0 and C1 controls
/// other than tab and newline (an escape sequence, a carriage return) and the bidirectional
/// overrides and isolates (U+202A-U+202E, U+2066-U+2069), which can make text read one way on
/// screen and another way to the model.
pub(crate) fn shown_text(text: &str) -> String {
    let hidden = |c: char| {
        (c.is_control() && c != '\t' && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if text.contains(hidden) {
        text.chars().filter(|&c| !hidden(c)).collect()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition with no property marked `readOnly` or `writeOnly` is converted once for
    /// both directions, alike to a conversion made for the other direction alone; one with such
    /// a property (directly or through the `$ref` it names, `readOnly` or `writeOnly`) is
    /// converted for each, whichever direction comes first, and whatever was converted before.
    #[test]
    fn definitions_are_shared_between_directions_unless_a_property_is_marked() {
        let doc = serde_json::json!({"components": {"schemas": {
            "Plain": {"type": "object", "properties": {
                "a": {"type": "string"},
                "m": {"$ref": "#/components/schemas/ByRef"}
            }},
            "ByRef": {"type": "object", "properties": {
                "id": {"$ref": "#/components/schemas/Id"},
                "x": {"type": "integer"}
            }},
            "Direct": {"type": "object", "properties": {
                "secret": {"type": "string", "writeOnly": true},
                "x": {"type": "integer"}
            }},
            "Id": {"type": "string", "readOnly": true}
        }}});
        let other = |d| match d {
            Direction::Input => Direction::Output,
            Direction::Output => Direction::Input,
        };
        let alone = |name: &str, dir| {
            let mut c = Converter::new("t", &doc);
            let (id, _) = c
                .register(&format!("#/components/schemas/{name}"), "/x")
                .unwrap();
            c.definition(id, dir).unwrap().value.clone()
        };
        for first in [Direction::Input, Direction::Output] {
            for marked_first in [false, true] {
                let mut c = Converter::new("t", &doc);
                let id = |c: &mut Converter<'_>, name: &str| {
                    c.register(&format!("#/components/schemas/{name}"), "/x")
                        .unwrap()
                        .0
                };
                let (plain, by_ref, direct) = (
                    id(&mut c, "Plain"),
                    id(&mut c, "ByRef"),
                    id(&mut c, "Direct"),
                );
                let case = format!("{first:?} first, marked first: {marked_first}");
                let marked = |c: &mut Converter<'_>| {
                    for (def, hidden_in, key) in [
                        (by_ref, Direction::Input, "id"),
                        (direct, Direction::Output, "secret"),
                    ] {
                        let one = c.definition(def, first).unwrap();
                        let two = c.definition(def, other(first)).unwrap();
                        assert!(!Arc::ptr_eq(&one, &two), "{case}");
                        for (d, conv) in [(first, &one), (other(first), &two)] {
                            let has = conv.value["properties"].get(key).is_some();
                            assert_eq!(has, d != hidden_in, "{case}: {key} in {d:?}");
                        }
                    }
                };
                if marked_first {
                    marked(&mut c);
                    // A schema of a tool (not a definition) with a marked property.
                    let tool = serde_json::json!({"properties": {"p": {"readOnly": true}}});
                    c.convert(&tool, first, "/x").unwrap();
                }
                let one = c.definition(plain, first).unwrap();
                let two = c.definition(plain, other(first)).unwrap();
                assert!(Arc::ptr_eq(&one, &two), "{case}");
                assert_eq!(two.value, alone("Plain", other(first)), "{case}");
                if !marked_first {
                    marked(&mut c);
                }
            }
        }
    }

    /// A definition with a keyword output schemas leave out (`required`, `uniqueItems`, ...) is
    /// converted for each direction, whichever comes first: the output form never has it.
    #[test]
    fn definitions_with_what_outputs_leave_out_are_converted_for_each_direction() {
        let doc = serde_json::json!({"components": {"schemas": {
            "R": {"type": "object", "required": ["a"], "properties": {
                "a": {"type": "array", "uniqueItems": true}}}
        }}});
        for first in [Direction::Input, Direction::Output] {
            let mut c = Converter::new("t", &doc);
            let (id, _) = c.register("#/components/schemas/R", "/x").unwrap();
            c.definition(id, first).unwrap();
            let input = c.definition(id, Direction::Input).unwrap();
            let output = c.definition(id, Direction::Output).unwrap();
            assert_eq!(
                input.value["required"],
                serde_json::json!(["a"]),
                "{first:?}"
            );
            assert!(output.value.get("required").is_none(), "{first:?}");
            assert!(
                output.value.pointer("/properties/a/uniqueItems").is_none(),
                "{first:?}"
            );
        }
    }

    /// Convert `schema` (found in `doc`) and finish it into one JSON value, `$defs` included.
    pub(super) fn conv(doc: &Value, schema: Value, dir: Direction) -> Value {
        let mut c = Converter::new("t", doc);
        let out = c.convert(&schema, dir, "/x").unwrap();
        c.finish(out.value, &out.refs, dir).unwrap().to_value()
    }
}
