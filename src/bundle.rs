//! Bundle: joins a document split across files into one tree, so every later stage sees only
//! local `$ref`s.
//!
//! Each file reached through a relative `$ref` (`paths/pets.yaml`, `../schemas/pet.yaml#/Pet`) is
//! read once and placed whole under `/$bundle/<path relative to the root file>`; every `$ref` to it
//! becomes a local pointer there (`#/$bundle/schemas~1pet.yaml/Pet`). References inside a
//! referenced file are resolved relative to *that* file. Cycles across files are fine, since only
//! reference strings are rewritten. Remote (`http://`, `https://`) references are refused: there is
//! no network access.

use crate::error::{Error, Result, escape_token};
use crate::load::Clash;
use rustc_hash::FxHashSet;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The top-level key that holds bundled files.
pub const BUNDLE_KEY: &str = "$bundle";
/// At most this many files are joined.
const MAX_FILES: usize = 1000;

/// Resolve the external references of `root` (read from `root_path`) in place.
pub fn bundle(root_path: &Path, root: Value) -> Result<Value> {
    bundle_noting_clash(root_path, root, None).map(|(root, _)| root)
}

/// [`bundle`], and, when every reference was local already (the tree is then returned as it
/// came), whether two of them want the same `$defs` name (as
/// [`crate::schema::names_clash`] would say), or the references to tell it from: the
/// references found once answer both. `noted`: the tree's references if the parse noted them,
/// else the tree is walked for them.
pub(crate) fn bundle_noting_clash(
    root_path: &Path,
    mut root: Value,
    noted: Option<crate::json::References>,
) -> Result<(Value, Option<Clash>)> {
    let root_file = root_path.display().to_string();
    let base = root_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut b = Bundler {
        root_dir: base.canonicalize().unwrap_or(base.clone()),
        keys: HashMap::new(),
        queue: Vec::new(),
        files: Vec::new(),
    };
    let clash = match noted {
        Some(noted) => (root.is_object() && noted.iter().all(is_local))
            .then(|| Clash::Among(std::sync::Arc::new(noted))),
        None => {
            local_references(&root).map(|found| Clash::Known(crate::schema::clash_among(found)))
        }
    };
    if let Some(clash) = clash {
        return Ok((root, Some(clash)));
    }
    // References back into the root document become plain local references.
    if let Ok(canonical) = root_path.canonicalize() {
        b.keys.insert(canonical, String::new());
    }
    b.rewrite(&mut root, &root_file, &base, None)?;
    if b.queue.is_empty() {
        return Ok((root, None));
    }
    while let Some((key, path)) = b.queue.pop() {
        let shown = path.display().to_string();
        let bytes = crate::file::read(&path)
            .map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?
            .into_vec();
        let mut tree = crate::load::parse_tree(&shown, &bytes)?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        b.rewrite(&mut tree, &shown, &dir, Some(&key))?;
        b.files.push((key, tree));
    }
    let Value::Object(map) = &mut root else {
        return Ok((root, None));
    };
    let mut bundled = Map::new();
    b.files.sort_by(|a, c| a.0.cmp(&c.0));
    for (key, tree) in b.files {
        bundled.insert(key, tree);
    }
    map.insert(BUNDLE_KEY.into(), Value::Object(bundled));
    Ok((root, None))
}

/// Every distinct reference of the root file (each `$ref` string and discriminator `mapping`
/// value, as [`crate::schema::each_reference`] finds them), if all are local (`#...`, or empty),
/// so that bundling leaves the tree as it is: the common case, found by reading the tree (on two
/// threads for a large one) rather than by the rewriting walk. A bare schema name as a `mapping`
/// value only means the walk runs, finding nothing to rewrite.
fn local_references(root: &Value) -> Option<FxHashSet<&str>> {
    if !root.is_object() {
        // Not a document: the walk's errors come first, as ever.
        return None;
    }
    let found = crate::schema::distinct_references(root);
    found.iter().all(|r| is_local(r)).then_some(found)
}

/// Whether reference `r` is within the document (`#...`, or empty).
fn is_local(r: &str) -> bool {
    r.is_empty() || r.starts_with('#')
}

struct Bundler {
    root_dir: PathBuf,
    /// Canonical path -> key under `$bundle`.
    keys: HashMap<PathBuf, String>,
    /// Files still to read: (key, path).
    queue: Vec<(String, PathBuf)>,
    files: Vec<(String, Value)>,
}

impl Bundler {
    /// Rewrite every `$ref` in `tree` (a file in `dir`; `own_key` is its key, `None` for the root).
    fn rewrite(
        &mut self,
        tree: &mut Value,
        file: &str,
        dir: &Path,
        own_key: Option<&str>,
    ) -> Result<()> {
        let mut path = Vec::new();
        self.walk(tree, file, dir, own_key, &mut path)
    }

    fn walk<'v>(
        &mut self,
        v: &'v mut Value,
        file: &str,
        dir: &Path,
        own: Option<&str>,
        path: &mut Vec<&'v str>,
    ) -> Result<()> {
        match v {
            Value::Object(map) => {
                // One pass over the members (no lookup of `$ref` in every object: this walk
                // visits every object of the document).
                for (k, child) in map.iter_mut() {
                    match child {
                        Value::String(r) if k == "$ref" => {
                            if let Some(new) = self.target(r, file, dir, own, path)? {
                                *r = new;
                            }
                        }
                        Value::Object(_) | Value::Array(_) => {
                            path.push(k.as_str());
                            self.walk(child, file, dir, own, path)?;
                            path.pop();
                        }
                        _ => {}
                    }
                }
            }
            Value::Array(items) => {
                for child in items.iter_mut() {
                    if matches!(child, Value::Object(_) | Value::Array(_)) {
                        // Array indices are not tracked; messages name the enclosing key.
                        self.walk(child, file, dir, own, path)?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The local form of reference `r`, or `None` when it stays as it is.
    fn target(
        &mut self,
        r: &str,
        file: &str,
        dir: &Path,
        own: Option<&str>,
        at: &[&str],
    ) -> Result<Option<String>> {
        let pointer = || {
            at.iter()
                .map(|t| format!("/{}", escape_token(t)))
                .collect::<String>()
        };
        let (location, fragment) = match r.split_once('#') {
            Some((l, f)) => (l, f),
            None => (r, ""),
        };
        if location.is_empty() {
            // Local to this file: inside a bundled file it points into that file's subtree.
            return Ok(own.map(|key| format!("#/{BUNDLE_KEY}/{}{fragment}", escape_token(key))));
        }
        if location.contains("://") {
            return Err(Error::at(
                file,
                &pointer(),
                format!("remote `$ref`s are not fetched (no network access): {r}"),
            ));
        }
        let joined = dir.join(location);
        let canonical = joined.canonicalize().map_err(|e| {
            Error::at(
                file,
                &pointer(),
                format!("`$ref` to a missing file: {r} ({}: {e})", joined.display()),
            )
        })?;
        let key = match self.keys.get(&canonical) {
            Some(k) if k.is_empty() => return Ok(Some(format!("#{fragment}"))),
            Some(k) => k.clone(),
            None => {
                if self.keys.len() >= MAX_FILES {
                    return Err(Error::at(
                        file,
                        &pointer(),
                        format!("more than {MAX_FILES} files referenced"),
                    ));
                }
                let rel = canonical.strip_prefix(&self.root_dir).unwrap_or(&canonical);
                let key = rel.to_string_lossy().replace('\\', "/");
                self.keys.insert(canonical.clone(), key.clone());
                self.queue.push((key.clone(), canonical));
                key
            }
        };
        Ok(Some(format!(
            "#/{BUNDLE_KEY}/{}{fragment}",
            escape_token(&key)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree with a reference that is not local, wherever it is, is refused (and joined by
    /// the rewriting walk); one whose references are all local is not.
    #[test]
    fn local_references_refuse_any_other() {
        let local = serde_json::json!({"components": {"schemas": {"A": {"$ref": "#/B"}}}});
        assert_eq!(local_references(&local).map(|r| r.len()), Some(1));
        assert!(local_references(&serde_json::json!([{"$ref": "#/a"}])).is_none());
        for (at, refusing) in [
            serde_json::json!({"$ref": "other.yaml"}),
            serde_json::json!({"components": {"$ref": "other.yaml"}}),
            serde_json::json!({"components": {"schemas": {"A": {"$ref": "other.yaml#/A"}}}}),
            serde_json::json!({"list": [{"$ref": "other.yaml"}]}),
        ]
        .iter()
        .enumerate()
        {
            assert!(local_references(refusing).is_none(), "{at}");
        }
    }

    /// A document read from a file whose references are all local knows whether two of them
    /// want the same `$defs` name, and says what [`crate::schema::names_clash`] says; a Swagger
    /// 2.0 document (its references rewritten by the upgrade) and one that joins files do not.
    #[test]
    fn loading_knows_whether_names_clash() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let clash = r##"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": {"schemas": {"A B": {}, "A_B": {},
            "C": {"properties": {"x": {"$ref": "#/components/schemas/A%20B"}, "y": {"$ref": "#/components/schemas/A_B"}}}}}}"##;
        let plain = clash.replace("A%20B", "A_B");
        let joined = clash.replace("#/components/schemas/A%20B", "other.json");
        write("other.json", "{}");
        let swagger = r##"{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {},
            "definitions": {"A": {"$ref": "#/definitions/B"}, "B": {}}}"##;
        // A repeated key: the references noted while parsing are not trusted, the tree is
        // walked (the first `$ref` to `A%20B` is replaced, so no clash is left).
        let repeated = clash.replace(
            r##""x": {"$ref": "#/components/schemas/A%20B"}"##,
            r##""x": {"$ref": "#/components/schemas/A%20B", "$ref": "#/components/schemas/A_B"}"##,
        );
        assert_ne!(repeated, clash);
        for (name, text, known) in [
            ("clash.json", clash, Some(true)),
            ("repeated.json", repeated.as_str(), Some(false)),
            ("plain.json", plain.as_str(), Some(false)),
            ("joined.json", joined.as_str(), None),
            ("swagger.json", swagger, None),
        ] {
            let doc = crate::load::load_file(&write(name, text)).unwrap();
            let found = doc.clash.as_ref().map(Clash::get);
            assert_eq!(found, known, "{name}");
            if let Some(clash) = found {
                assert_eq!(clash, crate::schema::names_clash(doc.root()), "{name}");
            }
        }
        for (path, _) in crate::test_support::spec_trees() {
            let Ok(doc) = crate::load::load_file(&path) else {
                continue;
            };
            if let Some(clash) = doc.clash.as_ref().map(Clash::get) {
                let walked = crate::schema::names_clash(doc.root());
                assert_eq!(clash, walked, "{}", path.display());
            }
        }
    }

    #[test]
    fn relative_refs_are_joined_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("schemas")).unwrap();
        std::fs::write(
            dir.path().join("schemas/pet.yaml"),
            "Pet:\n  type: object\n  properties:\n    owner: {$ref: 'owner.yaml'}\n    self: {$ref: '#/Pet'}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("schemas/owner.yaml"),
            "type: object\nproperties:\n  pet: {$ref: 'pet.yaml#/Pet'}\n",
        )
        .unwrap();
        let root =
            serde_json::json!({"a": {"$ref": "schemas/pet.yaml#/Pet"}, "b": {"$ref": "#/a"}});
        let out = bundle(&dir.path().join("api.yaml"), root).unwrap();
        assert_eq!(out["a"]["$ref"], "#/$bundle/schemas~1pet.yaml/Pet");
        assert_eq!(out["b"]["$ref"], "#/a");
        let pet = &out["$bundle"]["schemas/pet.yaml"]["Pet"];
        assert_eq!(
            pet["properties"]["owner"]["$ref"],
            "#/$bundle/schemas~1owner.yaml"
        );
        assert_eq!(
            pet["properties"]["self"]["$ref"],
            "#/$bundle/schemas~1pet.yaml/Pet"
        );
        assert_eq!(
            out["$bundle"]["schemas/owner.yaml"]["properties"]["pet"]["$ref"],
            "#/$bundle/schemas~1pet.yaml/Pet"
        );
    }

    #[test]
    fn missing_and_remote_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = bundle(
            &dir.path().join("api.yaml"),
            serde_json::json!({"a": {"$ref": "nope.yaml"}}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("missing file: nope.yaml"), "{e}");
        let e = bundle(
            &dir.path().join("api.yaml"),
            serde_json::json!({"a": {"$ref": "https://x/y.yaml"}}),
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("remote `$ref`s are not fetched"),
            "{e}"
        );
    }
}
