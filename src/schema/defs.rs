//! The `$defs` names: each `$ref` target gets one readable, URI-safe name, decided from the
//! document alone (never from the order tools are built in), and converted `#/$defs/NAME`
//! references resolve back to it.
//!
//! A definition is named by its pointer ([`def_name`]). Where two definitions of a document
//! would get the same name (`A B` and `A_B` both give `A_B`), the one at
//! `#/components/schemas/NAME` keeps it and every other gets `NAME_` and six hex digits of a
//! stable hash of its own pointer, so that adding or removing a definition renames no other.

use super::Converter;
use crate::error::{Error, Result};
use crate::read::pointer::{self, escape_token, unescape_token};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;
use std::sync::Arc;

impl Converter<'_> {
    /// The definition named by a converted `#/$defs/NAME` reference.
    pub(super) fn id_of_def_ref(&self, reference: &str) -> Option<usize> {
        self.id_of_name(&unescape_token(reference.strip_prefix("#/$defs/")?))
    }

    /// The definition named `name` in `$defs`.
    pub(super) fn id_of_name(&self, name: &str) -> Option<usize> {
        self.registry().by_name.get(name).copied()
    }

    /// Register the definition a `$ref` names, checking that it exists; its id and name.
    pub(super) fn register(&mut self, reference: &str, at: &str) -> Result<(usize, Arc<str>)> {
        // Met before by this converter: known without the shared lock.
        if let Some(known) = self.references.get(reference) {
            return Ok(known.clone());
        }
        let known = self.register_shared(reference, at)?;
        self.references.insert(reference.to_string(), known.clone());
        Ok(known)
    }

    /// [`Converter::register`] in the shared registry.
    fn register_shared(&mut self, reference: &str, at: &str) -> Result<(usize, Arc<str>)> {
        pointer::check_local(self.file, reference, at)?;
        let pointer = pointer::canonical(reference);
        if pointer::lookup(self.root, reference).is_none() {
            return Err(Error::at(
                self.file,
                at,
                format!("`$ref` target {reference} does not exist"),
            ));
        }
        let mut registry = self.registry();
        if let Some(&id) = registry.by_pointer.get(&pointer) {
            return Ok((id, registry.names[id].clone()));
        }
        let name = registry.clashes.name(&pointer);
        let id = registry.pointers.len();
        let shared: Arc<str> = name.as_str().into();
        registry.by_name.insert(name, id);
        registry.names.push(shared.clone());
        registry.pointers.push(pointer.clone());
        registry.by_pointer.insert(pointer, id);
        Ok((id, shared))
    }
}

/// The names given to definitions whose [`def_name`] another definition of the document wants
/// too, by pointer (usually none).
#[derive(Debug, Default)]
pub(super) struct Clashes(FxHashMap<String, String>);

impl Clashes {
    /// The clashing names among a document's local references (`$ref` strings and
    /// discriminator `mapping` values: what conversion can register, and perhaps more).
    pub(super) fn of<'r>(references: impl IntoIterator<Item = &'r str>) -> Clashes {
        let pointers: FxHashSet<String> = references
            .into_iter()
            .filter(|r| r.starts_with('#'))
            .map(pointer::canonical)
            .collect();
        let mut by_name: FxHashMap<String, Vec<&str>> = FxHashMap::default();
        for p in &pointers {
            by_name.entry(def_name(p)).or_default().push(p);
        }
        let mut renamed = FxHashMap::default();
        for (name, group) in by_name.into_iter().filter(|(_, g)| g.len() > 1) {
            let keeps = format!("/components/schemas/{}", escape_token(&name));
            for p in group.into_iter().filter(|p| **p != keeps) {
                let hash = stable_hash(p) >> 40;
                renamed.insert(p.to_string(), format!("{name}_{hash:06x}"));
            }
        }
        Clashes(renamed)
    }

    /// The `$defs` name of the definition at `pointer` (canonical, see [`pointer::canonical`]).
    pub(super) fn name(&self, pointer: &str) -> String {
        match self.0.get(pointer) {
            Some(name) => name.clone(),
            None => def_name(pointer),
        }
    }

    /// Whether any two definitions want the same name.
    #[cfg(test)]
    fn any(&self) -> bool {
        !self.0.is_empty()
    }
}

/// A readable, URI-safe `$defs` key for a pointer: its tokens after `components/schemas`,
/// `definitions` or `components` (unescaped), joined by `.`, every character but `[A-Za-z0-9_.-]`
/// made `_` ([`key_safe`]); `root` if that leaves nothing. A bundled file (see
/// [`crate::read::bundle`]) is named by what is inside it, else by the file's stem.
fn def_name(pointer: &str) -> String {
    let tokens: Vec<String> = pointer
        .trim_start_matches('/')
        .split('/')
        .map(unescape_token)
        .collect();
    let parts: &[String] = match tokens.as_slice() {
        [b, file, rest @ ..] if b == crate::read::bundle::BUNDLE_KEY => {
            return def_name_in_file(file, rest);
        }
        [c, s, rest @ ..] if c == "components" && s == "schemas" && !rest.is_empty() => rest,
        [d, rest @ ..] if d == "definitions" && !rest.is_empty() => rest,
        [c, rest @ ..] if c == "components" && !rest.is_empty() => rest,
        all => all,
    };
    let mut name = key_safe(&parts.join("."));
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
    def_name(&pointer::from_tokens(rest.iter().map(String::as_str)))
}

/// FNV-1a, 64 bit: a tiny stable hash (std's hashers are not stable across releases).
pub(crate) fn stable_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `s` with every character outside `[A-Za-z0-9_.-]` replaced by `_` (argument and `$defs`
/// names: safe in a URI fragment and in every client's property names).
pub(crate) fn key_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::schema::{Converter, Direction};
    use serde_json::json;

    #[test]
    fn clashing_names_get_a_suffix_from_their_own_pointer() {
        use super::Clashes;
        let of = |tree: &serde_json::Value| {
            Clashes::of(crate::read::references::distinct_references(tree))
        };
        // `A B` and `A_B` both want the name `A_B`; the definition at that name keeps it.
        let clash = json!({"x": {"$ref": "#/components/schemas/A%20B"}, "y": [{"$ref": "#/components/schemas/A_B"}]});
        let names = of(&clash);
        assert!(names.any());
        assert_eq!(names.name("/components/schemas/A_B"), "A_B");
        let renamed = names.name("/components/schemas/A B");
        assert!(
            renamed.starts_with("A_B_") && renamed.len() == 10,
            "{renamed}"
        );
        // The same whichever other definitions there are.
        let more = json!({"x": {"$ref": "#/components/schemas/A%20B"}, "y": {"$ref": "#/components/schemas/A+B"},
            "d": {"mapping": {"a": "#/components/schemas/A_B"}}});
        let more = of(&more);
        assert_eq!(more.name("/components/schemas/A B"), renamed);
        assert_ne!(more.name("/components/schemas/A+B"), renamed);
        assert_eq!(more.name("/components/schemas/A_B"), "A_B");
        let same = json!({"x": {"$ref": "#/components/schemas/A"}, "y": {"$ref": "#/components/schemas/A"},
            "z": {"$ref": "#/components/parameters/A"}, "w": {"$ref": "other.json#/A_B"}});
        assert!(!of(&same).any());
    }

    /// A reference is valid or not by itself, whatever was registered before it.
    #[test]
    fn percent_encoded_references_name_what_lookup_finds() {
        let doc = json!({"components": {"schemas": {
            "Pet": {"type": "object", "properties": {"name": {"type": "string"}}},
            "A%41": {"type": "integer"}, "AA": {"type": "boolean"}, "B/C": {"type": "null"}}}});
        let encoded = json!({"$ref": "#/components/schemas/Pet%2Fproperties%2Fname"});
        let plain = json!({"$ref": "#/components/schemas/Pet/properties/name"});
        for first in [&plain, &encoded] {
            let mut c = Converter::new("t", &doc);
            let _ = c.convert(first, Direction::Input, "/x");
            let e = c.convert(&encoded, Direction::Input, "/y").unwrap_err();
            assert!(e.to_string().contains("does not exist"), "{e}");
        }
        // `%25` is a `%`: `A%2541` is the schema `A%41`, not `AA`.
        let c = crate::schema::tests::conv(
            &doc,
            json!({"$ref": "#/components/schemas/A%2541"}),
            Direction::Input,
        );
        assert_eq!(c["$defs"]["A_41"]["type"], "integer", "{c}");
        // `%2F` is a `/` inside a key.
        let c = crate::schema::tests::conv(
            &doc,
            json!({"$ref": "#/components/schemas/B%2FC"}),
            Direction::Input,
        );
        assert_eq!(c["$defs"]["B_C"]["type"], "null", "{c}");
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
}
