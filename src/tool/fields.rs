//! Fields: the `_fields` argument, which asks for some fields of an answer only: its schema,
//! and which tools get it (those whose answer declares fields); `serve::fields` applies it.

use crate::schema::Schema;
use indexmap::IndexMap;
use serde_json::{Value, json};

/// The argument's name.
pub(crate) const ARG: &str = "_fields";

/// The argument's description.
pub(crate) const DESCRIPTION: &str = "Only these fields of the answer: dotted paths into its body \
    (`user.login`), list items implied; `\\.` is a dot within a key.";

/// Most `$ref`s followed through one level (recursive definitions end there).
const MAX_DEPTH: usize = 32;

/// The argument's schema in `inputSchema`.
pub(crate) fn property() -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": DESCRIPTION})
}

/// Whether a tool with this output schema (its body under `wrapped` when wrapped) and these
/// input properties gets `_fields`: the body's schema declares fields at its top (an object, or
/// a list of objects), and the operation has no argument of that name itself.
pub(crate) fn applies(output: &Schema, wrapped: Option<&str>, input: &Schema) -> bool {
    let own = input
        .root()
        .get("properties")
        .is_some_and(|p| p.get(ARG).is_some());
    !own && body(output, wrapped).is_some_and(|b| !level(output, &[b]).names.is_empty())
}

/// The schema of the body: the root, or its `wrapped` property.
pub(crate) fn body<'s>(output: &'s Schema, wrapped: Option<&str>) -> Option<&'s Value> {
    match wrapped {
        None => Some(output.root()),
        Some(key) => output.root().get("properties")?.get(key),
    }
}

/// What one level of an answer holds: the declared field names with the schemas each has
/// there, and whether any key is accepted (a stub, a map, a schema saying nothing).
#[derive(Default)]
pub(crate) struct Level<'s> {
    pub(crate) names: IndexMap<&'s str, Vec<&'s Value>>,
    pub(crate) open: bool,
}

pub(crate) fn level<'s>(output: &'s Schema, nodes: &[&'s Value]) -> Level<'s> {
    let mut out = Level::default();
    for node in nodes {
        gather(output, node, &mut out, 0);
    }
    out
}

/// Add what `node` declares to `level`, through `$ref`s, list items and `allOf`/`anyOf`/`oneOf`.
fn gather<'s>(output: &'s Schema, node: &'s Value, level: &mut Level<'s>, depth: usize) {
    let m = match node {
        Value::Bool(b) => {
            level.open |= *b;
            return;
        }
        Value::Object(m) => m,
        _ => return,
    };
    let mut structured = false;
    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
        structured = true;
        match definition(output, r) {
            Some(target) if depth < MAX_DEPTH => gather(output, target, level, depth + 1),
            Some(_) => {}
            None => level.open = true,
        }
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        structured = true;
        for (k, v) in props {
            level.names.entry(k.as_str()).or_default().push(v);
        }
    }
    if let Some(items) = m.get("items") {
        structured = true;
        gather(output, items, level, depth);
    }
    for key in ["prefixItems", "allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(list)) = m.get(key) {
            structured = true;
            list.iter().for_each(|s| gather(output, s, level, depth));
        }
    }
    if !structured && !scalar(m.get("type")) {
        level.open = true;
    }
}

/// Whether `type` says the value is never an object or an array.
fn scalar(t: Option<&Value>) -> bool {
    let compound = |t: &Value| matches!(t.as_str(), Some("object" | "array"));
    match t {
        Some(Value::String(_)) => t.is_some_and(|t| !compound(t)),
        Some(Value::Array(types)) => !types.iter().any(compound),
        _ => false,
    }
}

/// The definition `#/$defs/NAME` of `output`.
fn definition<'s>(output: &'s Schema, reference: &str) -> Option<&'s Value> {
    let token = reference.strip_prefix("#/$defs/")?;
    let name = token.replace("~1", "/").replace("~0", "~");
    output
        .defs
        .iter()
        .find(|(k, _)| **k == *name)
        .map(|(_, c)| &c.value)
}
