//! Bundle: joins a document split across files into one tree, so every later stage sees only
//! local `$ref`s.
//!
//! Each file reached through a relative `$ref` (`paths/pets.yaml`, `../schemas/pet.yaml#/Pet`) is
//! read once and placed whole under `/$bundle/<path relative to the root file>`; every `$ref` to it
//! becomes a local pointer there (`#/$bundle/schemas~1pet.yaml/Pet`). References inside a
//! referenced file are resolved relative to *that* file. Cycles across files are fine, since only
//! reference strings are rewritten. Remote (`http://`, `https://`) references are refused: there is
//! no network access.

use super::pointer::escape_token;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The top-level key that holds bundled files.
pub const BUNDLE_KEY: &str = "$bundle";
/// At most this many files are joined.
const MAX_FILES: usize = 1000;

/// Resolve the external references of `root` (read from `root_path`) in place.
pub fn bundle(root_path: &Path, mut root: Value) -> Result<Value> {
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
    // Every reference local: nothing to join (the common case, found without the rewriting walk).
    if root.is_object()
        && super::references::distinct_references(&root)
            .iter()
            .all(|r| r.is_empty() || r.starts_with('#'))
    {
        return Ok(root);
    }
    // References back into the root document become plain local references.
    if let Ok(canonical) = root_path.canonicalize() {
        b.keys.insert(canonical, String::new());
    }
    b.rewrite(&mut root, &root_file, &base, None)?;
    if b.queue.is_empty() {
        return Ok(root);
    }
    while let Some((key, path)) = b.queue.pop() {
        let shown = path.display().to_string();
        let bytes = super::file::read(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let mut tree = crate::read::parse_tree(&shown, &bytes)?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        b.rewrite(&mut tree, &shown, &dir, Some(&key))?;
        b.files.push((key, tree));
    }
    let Value::Object(map) = &mut root else {
        return Ok(root);
    };
    let mut bundled = Map::new();
    b.files.sort_by(|a, c| a.0.cmp(&c.0));
    for (key, tree) in b.files {
        bundled.insert(key, tree);
    }
    map.insert(BUNDLE_KEY.into(), Value::Object(bundled));
    Ok(root)
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
