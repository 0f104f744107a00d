//! Size and depth [`Limits`]: collecting the `$defs` a finished schema reaches, breadth-first and
//! nearest first, and replacing definitions past a limit with described stubs.

use super::{Converted, Converter, Direction, Schema};
use crate::error::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value};
use std::collections::VecDeque;
use std::sync::Arc;

/// Limits on how much of the referenced definitions one tool schema carries. Definitions past a
/// limit become described stubs that accept any value of their type, so a cut schema still
/// accepts every instance the full one accepts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most bytes (compact JSON) one schema may hold, counting kept definitions nearest first.
    pub budget: Option<usize>,
    /// Most levels of `$ref` to expand (1: only definitions the schema names directly).
    pub max_ref_depth: Option<usize>,
}

impl Converter<'_> {
    /// Attach the `$defs` that `root` reaches through `refs` (or inline them) and return the
    /// finished, self-contained schema.
    pub(crate) fn finish(
        &mut self,
        mut root: Value,
        refs: &[usize],
        dir: Direction,
    ) -> Result<Schema> {
        // The root's own size counts against the budget first (without a budget it is never
        // needed, so not measured).
        let (mut used, mut text) = (0, None);
        if let Some(budget) = self.limits.budget {
            let written;
            (root, written) = fit_root(root, budget);
            used = written.len();
            text = Some(written);
        }
        if refs.is_empty() {
            return Ok(Schema::written(root, Vec::new(), text));
        }
        if self.limits.max_ref_depth.is_none() {
            let room = self
                .limits
                .budget
                .map_or(usize::MAX, |b| b.saturating_sub(used));
            if let Some(all) = self.reached(refs, dir, room)? {
                let defs = all.defs.clone();
                if self.inline_refs {
                    return Ok(self.inline_all(root, defs));
                }
                return Ok(Schema::written(root, defs, text));
            }
        }
        // Breadth-first over the cached definitions, nearest first, so that a size budget or a
        // depth limit keeps what is closest to the root and stubs the rest.
        let mut queue: VecDeque<(usize, usize)> = refs.iter().map(|&id| (id, 1)).collect();
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut kept: FxHashMap<usize, Arc<Converted>> = FxHashMap::default();
        let mut stubs: Vec<(usize, Arc<Converted>)> = Vec::new();
        while let Some((id, level)) = queue.pop_front() {
            if !seen.insert(id) {
                continue;
            }
            let c = self.definition(id, dir)?;
            let too_deep = self.limits.max_ref_depth.is_some_and(|max| level > max);
            let too_big = self.limits.budget.is_some_and(|b| used + c.size > b);
            if too_deep || too_big {
                let stub = self.stub_of(id, dir, too_deep, &c);
                used += stub.size;
                stubs.push((id, stub));
                continue;
            }
            used += c.size;
            queue.extend(c.refs.iter().map(|&r| (r, level + 1)));
            kept.insert(id, c);
        }
        let mut defs: Vec<(Arc<str>, Arc<Converted>)> = kept
            .into_iter()
            .chain(stubs)
            .map(|(id, c)| (self.name_of(id), c))
            .collect();
        defs.sort_by(|a, b| a.0.cmp(&b.0));
        if self.inline_refs {
            return Ok(self.inline_all(root, defs));
        }
        Ok(Schema::written(root, defs, text))
    }

    /// Every definition `refs` reach, when their size fits in `room`: what the walk in
    /// [`Converter::finish`] keeps when it cuts nothing (it cuts nothing exactly when they all
    /// fit). Remembered for the set of `refs`, so that the next schema reaching from the same
    /// definitions (often most of a resource's operations) does not walk them again. The
    /// first time, they are walked in the order `finish` would walk them, converting each as
    /// it is met; the walk stops as soon as their size passes `room` (`finish` then walks
    /// again, meeting the same definitions first), so that no definition is converted that
    /// `finish` would not convert, nor earlier (with names that depend on the order of
    /// conversion, see `names_clash`, that keeps the names).
    fn reached(
        &mut self,
        refs: &[usize],
        dir: Direction,
        room: usize,
    ) -> Result<Option<Arc<Reached>>> {
        let side = dir as usize;
        let mut key: Vec<usize> = refs.to_vec();
        key.sort_unstable();
        key.dedup();
        match self.reached[side].get(key.as_slice()) {
            Some(Reach::All(all)) => return Ok((all.size <= room).then(|| all.clone())),
            Some(Reach::AtLeast(size)) if *size > room => return Ok(None),
            _ => {}
        }
        let mut queue: VecDeque<usize> = refs.iter().copied().collect();
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut defs = Vec::new();
        let mut size = 0;
        while let Some(id) = queue.pop_front() {
            if !seen.insert(id) {
                continue;
            }
            let c = self.definition(id, dir)?;
            size += c.size;
            if size > room {
                self.reached[side].insert(key.into(), Reach::AtLeast(size));
                return Ok(None);
            }
            queue.extend(c.refs.iter().copied());
            defs.push((self.name_of(id), c));
        }
        defs.sort_by(|a, b| a.0.cmp(&b.0));
        let all = Arc::new(Reached { defs, size });
        self.reached[side].insert(key.into(), Reach::All(all.clone()));
        Ok(Some(all))
    }

    /// The stub standing in for definition `id` (made once, shared like the definitions).
    fn stub_of(
        &mut self,
        id: usize,
        dir: Direction,
        by_depth: bool,
        c: &Converted,
    ) -> Arc<Converted> {
        let name = self.name_of(id);
        self.stubs
            .entry((id, dir, by_depth))
            .or_insert_with(|| {
                let why = if by_depth {
                    "reference depth limit"
                } else {
                    "schema size budget"
                };
                let mut stub = Converted::new(stub(&name, &c.value, why), Vec::new());
                stub.size = json_size(&stub.value);
                Arc::new(stub)
            })
            .clone()
    }
}

/// What a set of definitions reaches, as far as [`Converter::reached`] knows.
pub(super) enum Reach {
    All(Arc<Reached>),
    /// Their sizes add up to more than this.
    AtLeast(usize),
}

/// Every definition a set of definitions reaches (itself included), sorted by name, and the
/// sum of their sizes.
pub(super) struct Reached {
    defs: Vec<(Arc<str>, Arc<Converted>)>,
    size: usize,
}

/// Compact JSON size of `v` in bytes (what `serde_json::to_vec` gives), counted from the tree
/// without writing it: strings by their bytes plus what escaping adds, numbers as `serde_json`
/// writes them. Every tool schema is measured against the budget, and writing it to count was a
/// twentieth of a conversion (most of it escaping long descriptions byte by byte).
pub(crate) fn json_size(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => compact_size(n),
        Value::String(s) => string_size(s),
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(json_size).sum::<usize>()
        }
        Value::Object(m) => {
            2 + m.len().saturating_sub(1)
                + m.iter()
                    .map(|(k, x)| string_size(k) + 1 + json_size(x))
                    .sum::<usize>()
        }
    }
}

/// Bytes escaping adds to each byte of a string in `serde_json`'s output: `\"`, `\\` and the
/// control characters with a short escape (`\b \t \n \f \r`) take two bytes, the other
/// control characters six (`\u001f`); everything else, UTF-8 included, is written as it is.
const ESCAPE_EXTRA: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = 5;
        b += 1;
    }
    t[0x08] = 1;
    t[0x09] = 1;
    t[0x0A] = 1;
    t[0x0C] = 1;
    t[0x0D] = 1;
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t
};

/// Compact JSON size of a string: its quotes, its bytes and their escapes.
fn string_size(s: &str) -> usize {
    // Most strings escape nothing; a plain count of the bytes that do is vectorized.
    let escaped = s
        .bytes()
        .filter(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .count();
    if escaped == 0 {
        return 2 + s.len();
    }
    let extra: usize = s.bytes().map(|b| ESCAPE_EXTRA[b as usize] as usize).sum();
    2 + s.len() + extra
}

/// Compact JSON size of anything serializable, counted without building the string.
fn compact_size(v: &impl serde::Serialize) -> usize {
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
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

/// `root` made to fit `budget` where it can, with its compact text (whose length is its size). A root over the budget by itself
/// sheds its examples first: they only illustrate, and are where the corpus's largest tools put
/// their bulk (a 188 KB example, twice, in one chaingateway.io response). Still over, its nested
/// schemas are cut to described stubs, as deep as the budget allows.
fn fit_root(mut root: Value, budget: usize) -> (Value, Box<str>) {
    // Measured by writing it: the text is kept for the output.
    let text = super::render(&root);
    if text.len() <= budget {
        return (root, text);
    }
    if strip_examples(&mut root) {
        if let Value::Object(m) = &mut root {
            m.entry("$comment")
                .or_insert_with(|| Value::String("examples left out: schema size budget".into()));
        }
        let text = super::render(&root);
        if text.len() <= budget {
            return (root, text);
        }
    }
    let root = cut_to_fit(root, budget);
    let text = super::render(&root);
    (root, text)
}

/// Remove every `examples` keyword from a schema (not from instance data under `const`, `enum`,
/// `default` or `examples`); true if one was removed.
fn strip_examples(v: &mut Value) -> bool {
    match v {
        Value::Object(m) => {
            let mut removed = m
                .get("examples")
                .is_some_and(Value::is_array)
                .then(|| m.shift_remove("examples"))
                .is_some();
            for (k, x) in m.iter_mut() {
                if !matches!(k.as_str(), "const" | "enum" | "default") {
                    removed |= strip_examples(x);
                }
            }
            removed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |removed, x| strip_examples(x) | removed),
        _ => false,
    }
}

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Every direct subschema of `v`.
fn children_mut(v: &mut Value) -> Vec<&mut Value> {
    let Value::Object(m) = v else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, x) in m.iter_mut() {
        let k = k.as_str();
        if ONE.contains(&k) {
            out.push(x);
        } else if LIST.contains(&k) {
            out.extend(x.as_array_mut().into_iter().flatten());
        } else if MAP.contains(&k) {
            out.extend(x.as_object_mut().into_iter().flat_map(|m| m.values_mut()));
        }
    }
    out
}

/// How deep subschemas nest below `v` (0: none).
fn depth(v: &mut Value) -> usize {
    children_mut(v)
        .into_iter()
        .map(|c| 1 + depth(c))
        .max()
        .unwrap_or(0)
}

/// Replace the subschemas `level` levels below `v` by stubs.
fn cut_at(v: &mut Value, level: usize) {
    for c in children_mut(v) {
        if level <= 1 {
            *c = stub_inline(c);
        } else {
            cut_at(c, level - 1);
        }
    }
}

/// `root` with nested schemas cut at the deepest level that fits `budget` (at level 1 if none
/// does), noted in `$comment`.
fn cut_to_fit(mut root: Value, budget: usize) -> Value {
    let deepest = depth(&mut root);
    for level in (1..deepest).rev() {
        let mut cut = root.clone();
        cut_at(&mut cut, level);
        if level == 1 || json_size(&cut) <= budget {
            if let Value::Object(m) = &mut cut {
                let note = format!("nested schemas cut at depth {level}: schema size budget");
                match m.get_mut("$comment") {
                    Some(Value::String(c)) => *c = format!("{c}; {note}"),
                    _ => {
                        m.insert("$comment".into(), Value::String(note));
                    }
                }
            }
            return cut;
        }
    }
    root
}

/// What stands in for an inline schema past the budget: any value of its type, described.
fn stub_inline(schema: &Value) -> Value {
    let mut m = Map::new();
    if let Some(t) = schema.get("type").filter(|t| t.is_string() || t.is_array()) {
        m.insert("type".into(), t.clone());
    }
    let text = match first_line(schema) {
        Some(d) => format!("{d} (truncated: schema size budget)"),
        None => "(truncated: schema size budget)".to_string(),
    };
    m.insert("description".into(), Value::String(text));
    Value::Object(m)
}

/// The first line of a schema's description, at most 160 characters.
fn first_line(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.lines().next())
        .map(|d| d.chars().take(160).collect::<String>().trim().to_string())
        .filter(|d| !d.is_empty())
}

/// What stands in for a definition past a limit: any value of the definition's type, described.
fn stub(name: &str, def: &Value, why: &str) -> Value {
    let mut m = Map::new();
    if let Some(t) = def.get("type").filter(|t| t.is_string()) {
        m.insert("type".into(), t.clone());
    }
    let text = match first_line(def) {
        Some(d) => format!("{name}: {d} (not expanded: {why})"),
        None => format!("{name} (not expanded: {why})"),
    };
    m.insert("description".into(), Value::String(text));
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::json_size;
    use serde_json::{Value, json};

    fn written(v: &Value) -> usize {
        serde_json::to_vec(v).unwrap().len()
    }

    /// A converter remembers what each set of definitions reaches, yet every schema it
    /// finishes is the one a fresh converter makes: whatever it finished before, within the
    /// budget or cut by it, from one definition or several, in either direction.
    #[test]
    fn what_definitions_reach_is_remembered_without_changing_a_schema() {
        use super::super::{Converter, Direction, Limits};
        let r = |name: &str| json!({"$ref": format!("#/components/schemas/{name}")});
        let doc = json!({"components": {"schemas": {
            "A": {"type": "object", "properties": {"b": r("B"), "c": r("C"),
                "id": {"type": "string", "readOnly": true}}},
            "B": {"type": "object", "properties": {"c": r("C"), "a": r("A"),
                "s": {"type": "string", "description": "b".repeat(60)}}},
            "C": {"type": "string", "description": "c".repeat(100)},
            "D": {"type": "array", "items": r("C")},
        }}});
        let mut roots = Vec::new();
        for pad in [0, 80, 200] {
            let described = |mut v: Value| {
                v["description"] = json!("r".repeat(pad));
                v
            };
            roots.push(described(r("A")));
            roots.push(described(r("D")));
            roots.push(described(json!({"allOf": [r("D"), r("B")]})));
            roots.push(described(json!({"allOf": [r("B"), r("D")]})));
            roots.push(described(json!({"type": "string"})));
        }
        let finish = |c: &mut Converter, root: &Value, dir| {
            let converted = c.convert(root, dir, "#/x").unwrap();
            c.finish(converted.value, &converted.refs, dir).unwrap()
        };
        for budget in [None, Some(120), Some(250), Some(400), Some(600), Some(5000)] {
            let limits = Limits {
                budget,
                max_ref_depth: None,
            };
            let mut shared = Converter::new("t", &doc);
            shared.limits = limits;
            let (mut cut, mut whole) = (0, 0);
            let turns = roots.iter().chain(roots.iter().rev());
            for (root, dir) in turns.flat_map(|r| [(r, Direction::Input), (r, Direction::Output)]) {
                let mut fresh = Converter::new("t", &doc);
                fresh.limits = limits;
                let want = finish(&mut fresh, root, dir);
                let got = finish(&mut shared, root, dir);
                assert_eq!(got.to_value(), want.to_value(), "{budget:?} {dir:?} {root}");
                let text = want.to_value().to_string();
                match text.contains("schema size budget") {
                    true => cut += 1,
                    false if !want.defs.is_empty() => whole += 1,
                    false => {}
                }
            }
            // Both kinds met under most budgets, one after the other.
            if matches!(budget, Some(250 | 400 | 600)) {
                assert!(cut > 0 && whole > 0, "{budget:?}: {cut} cut, {whole} whole");
            }
        }
    }

    /// The count is the length `serde_json` writes, for every kind of value and every byte a
    /// string can escape.
    #[test]
    fn sizes_are_the_written_lengths() {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-17),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(-0.0),
            json!(1e300),
            json!(2.5e-8),
            json!(""),
            json!(every_ascii),
            json!("é ü 𝄞 \u{7f} \u{2028}"),
            json!([]),
            json!({}),
            json!([1, "a", null, [], {}]),
            json!({"a\"b": {"c\n": [true, {"": 0.25}]}, "": "\u{1f}\\"}),
        ];
        for v in &values {
            assert_eq!(json_size(v), written(v), "{v}");
        }
        let nested = json!({ "k": values.to_vec(), "again": {"list": values.to_vec()} });
        assert_eq!(json_size(&nested), written(&nested));
    }

    /// Strings of every length up to 80 with a byte that escapes (or one that does not) at
    /// every byte position, in ASCII text and after a two-byte character: the runs skipped many
    /// bytes at a time and the bytes after them are counted alike.
    #[test]
    fn string_sizes_at_every_position() {
        for len in 0..=80 {
            for at in 0..=len {
                for c in [0u8, 0x08, 0x0a, 0x1f, b' ', b'"', b'\\', b'a', 0x7f] {
                    for prefix in ["", "é"] {
                        let mut s = prefix.to_string() + &"x".repeat(len);
                        s.insert(prefix.len() + at, char::from(c));
                        let v = Value::String(s);
                        assert_eq!(json_size(&v), written(&v), "{v:?}");
                    }
                }
            }
        }
    }

    /// And for every document in `specs/`, as whole trees.
    #[test]
    fn sizes_of_whole_specs() {
        for (path, v) in crate::test_support::spec_trees() {
            assert_eq!(json_size(&v), written(&v), "{}", path.display());
        }
    }
}
