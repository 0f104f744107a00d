//! The `$defs` registry: each `$ref` target gets one readable, URI-safe, unique name, and
//! converted `#/$defs/NAME` references resolve back to it.

use super::Converter;
use crate::error::{Error, Result, escape_token};
use crate::refs;
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::collections::hash_map::Entry;
use std::path::Path;
use std::sync::Arc;

impl Converter<'_> {
    /// The definition named by a converted `#/$defs/NAME` reference.
    pub(super) fn id_of_def_ref(&self, reference: &str) -> Option<usize> {
        self.id_of_name(&crate::error::unescape_token(
            reference.strip_prefix("#/$defs/")?,
        ))
    }

    /// The definition named `name` in `$defs`.
    pub(super) fn id_of_name(&self, name: &str) -> Option<usize> {
        self.registry().by_name.get(name).copied()
    }

    /// Register the definition a `$ref` names, checking that it exists; its id and name.
    pub(super) fn register(&mut self, reference: &str, at: &str) -> Result<(usize, Arc<str>)> {
        // Met before by this converter: known without the shared lock (two converters taking
        // it for every `$ref` of the definitions they convert made each wait for the other).
        if let Some(known) = self.references.get(reference) {
            return Ok(known.clone());
        }
        let known = self.register_shared(reference, at)?;
        self.references.insert(reference.to_string(), known.clone());
        Ok(known)
    }

    /// [`Converter::register`] in the shared registry.
    fn register_shared(&mut self, reference: &str, at: &str) -> Result<(usize, Arc<str>)> {
        refs::check_local(self.file, reference, at)?;
        let pointer = canonical_pointer(reference);
        let known = {
            let registry = self.registry();
            let id = registry.by_pointer.get(&pointer).copied();
            id.map(|id| (id, registry.names[id].clone()))
        };
        if let Some(known) = known {
            return Ok(known);
        }
        if refs::lookup(self.root, reference).is_none() {
            return Err(Error::at(
                self.file,
                at,
                format!("`$ref` target {reference} does not exist"),
            ));
        }
        let base = def_name(&pointer);
        let mut registry = self.registry();
        // Another converter may have registered it since the look above.
        if let Some(&id) = registry.by_pointer.get(&pointer) {
            return Ok((id, registry.names[id].clone()));
        }
        let mut name = base.clone();
        let mut n = 2;
        while registry.by_name.contains_key(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        let id = registry.pointers.len();
        let shared: Arc<str> = name.as_str().into();
        registry.by_name.insert(name, id);
        registry.names.push(shared.clone());
        registry.pointers.push(pointer.clone());
        registry.by_pointer.insert(pointer, id);
        Ok((id, shared))
    }
}

/// Whether two different local references in `root` would ask for the same `$defs` name. Only
/// then does a name depend on which reference is registered first (the second gets `_2`), so
/// without a clash every [`Converter`] of the document names every definition alike, whatever
/// order it converts tools in. Counts every `$ref` string and discriminator `mapping` value,
/// which covers (and may exceed) what conversion registers.
pub fn names_clash(root: &Value) -> bool {
    clash_among(super::distinct_references(root))
}

/// Whether two of `references` (each once) are local and ask for the same `$defs` name.
pub(crate) fn clash_among<'r>(references: impl IntoIterator<Item = &'r str>) -> bool {
    let mut named: FxHashMap<String, String> = FxHashMap::default();
    references
        .into_iter()
        .filter(|r| r.starts_with('#'))
        .any(|reference| {
            let pointer = canonical_pointer(reference);
            match named.entry(def_name(&pointer)) {
                Entry::Occupied(e) => *e.get() != pointer,
                Entry::Vacant(e) => {
                    e.insert(pointer);
                    false
                }
            }
        })
}

/// `#/components/schemas/A%20B` -> `/components/schemas/A B`: the plain JSON pointer to the node
/// [`refs::lookup`] finds (each token percent-decoded, so `%2F` is a `/` inside a key, written
/// `~1`). Two spellings of a reference give the same pointer exactly when they name the same node.
fn canonical_pointer(reference: &str) -> String {
    let frag = &reference[1..];
    if !frag.contains('%') {
        return frag.to_string();
    }
    frag.split('/')
        .map(|t| {
            let decoded = refs::percent_decode_token(t);
            escape_token(&crate::error::unescape_token(&decoded))
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A readable, URI-safe `$defs` key for a pointer: its tokens after `components/schemas`,
/// `definitions` or `components` (unescaped), joined by `.`, every character but `[A-Za-z0-9_.-]`
/// made `_` ([`crate::naming::key_safe`]); `root` if that leaves nothing. Written in one pass
/// over the pointer: every distinct reference of a document is named once by
/// [`names_clash`] and once more when registered (AWS EC2: 3,031 references).
fn def_name(pointer: &str) -> String {
    let trimmed = pointer.trim_start_matches('/');
    // Compared raw: a token with no `~` is its own unescaped form, and none of these has one.
    let mut tokens = trimmed.split('/');
    let first = tokens.next().unwrap_or("");
    let second = tokens.next();
    let has_more = tokens.next().is_some();
    if first == crate::bundle::BUNDLE_KEY && second.is_some() {
        let tokens: Vec<String> = trimmed
            .split('/')
            .map(crate::error::unescape_token)
            .collect();
        return def_name_in_file(&tokens[1], &tokens[2..]);
    }
    let skip = match (first, second) {
        ("components", Some("schemas")) if has_more => 2,
        ("definitions", Some(_)) | ("components", Some(_)) => 1,
        _ => 0,
    };
    let mut name = String::with_capacity(trimmed.len());
    for (i, token) in trimmed.split('/').skip(skip).enumerate() {
        if i > 0 {
            name.push('.');
        }
        push_key_safe_unescaped(&mut name, token);
    }
    if name.is_empty() {
        name.push_str("root");
    }
    name
}

/// Append `key_safe(unescape_token(token))`: `~0` and `~1` become `~` and `/`, which
/// `key_safe` makes `_` as it does a lone `~` and every other character outside
/// `[A-Za-z0-9_.-]`.
fn push_key_safe_unescaped(out: &mut String, token: &str) {
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '~' {
            chars.next_if(|&n| n == '0' || n == '1');
        }
        out.push(crate::naming::key_safe_char(c));
    }
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

#[cfg(test)]
mod tests {
    use crate::schema::{Converter, Direction};
    use serde_json::json;

    /// `def_name` as it was written first (tokens unescaped, joined, made key-safe), to compare.
    fn def_name_plainly(pointer: &str) -> String {
        let tokens: Vec<String> = pointer
            .trim_start_matches('/')
            .split('/')
            .map(crate::error::unescape_token)
            .collect();
        let parts: &[String] = match tokens.as_slice() {
            // A bundled file (see `bundle`): name it by what is inside, else by the file's stem.
            [b, file, rest @ ..] if b == crate::bundle::BUNDLE_KEY => {
                return super::def_name_in_file(file, rest);
            }
            [c, s, rest @ ..] if c == "components" && s == "schemas" && !rest.is_empty() => rest,
            [d, rest @ ..] if d == "definitions" && !rest.is_empty() => rest,
            [c, rest @ ..] if c == "components" && !rest.is_empty() => rest,
            all => all,
        };
        let joined = parts.join(".");
        let mut name = crate::naming::key_safe(&joined);
        if name.is_empty() {
            name.push_str("root");
        }
        name
    }

    /// The one-pass `def_name` names every pointer as the plain one does: pointers of up to
    /// five tokens (after up to two slashes), each a prefix it strips or characters it treats
    /// apart (`~`, `0`, `1`, `.`, `_`, `-`, space, non-ASCII).
    #[test]
    fn def_name_is_the_plain_one() {
        let words = ["components", "schemas", "definitions", "$bundle", "a.yaml"];
        let atoms = [
            "A", "z9", "~", "0", "1", ".", "_", "-", " ", "é", "日本", "%20", "~0", "~1", "~01",
        ];
        let mut next = crate::test_support::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50_000 {
            let mut pointer = "/".repeat(next(3));
            for i in 0..next(6) {
                if i > 0 {
                    pointer.push('/');
                }
                if next(2) == 0 {
                    pointer.push_str(words[next(words.len())]);
                } else {
                    (0..next(4)).for_each(|_| pointer.push_str(atoms[next(atoms.len())]));
                }
            }
            assert_eq!(
                super::def_name(&pointer),
                def_name_plainly(&pointer),
                "{pointer:?}"
            );
        }
    }

    #[test]
    fn clashing_names_are_found() {
        use super::names_clash;
        // `A B` and `A_B` both want the name `A_B`.
        let clash = json!({"x": {"$ref": "#/components/schemas/A%20B"}, "y": [{"$ref": "#/components/schemas/A_B"}]});
        assert!(names_clash(&clash));
        let mapped = json!({"x": {"$ref": "#/components/schemas/A_B"},
            "d": {"mapping": {"a": "#/components/schemas/A%20B"}}});
        assert!(names_clash(&mapped));
        let same = json!({"x": {"$ref": "#/components/schemas/A"}, "y": {"$ref": "#/components/schemas/A"},
            "z": {"$ref": "#/components/parameters/A"}, "w": {"$ref": "other.json#/A_B"}});
        assert!(!names_clash(&same));
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
