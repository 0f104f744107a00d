//! Bundle: joins a document split across files into one tree, so every later stage sees only
//! local `$ref`s.
//!
//! Each file reached through a relative `$ref` (`paths/pets.yaml`, `../schemas/pet.yaml#/Pet`) is
//! read once and placed whole under `/$bundle/<path relative to the root file>`; every `$ref` to it
//! becomes a local pointer there (`#/$bundle/schemas~1pet.yaml/Pet`). References inside a
//! referenced file are resolved relative to *that* file. Cycles across files are fine, since only
//! reference strings are rewritten. Remote (`http://`, `https://`) references are refused: there is
//! no network access. So are absolute file references, references outside the allowed folder (the
//! root document's, unless the caller widens it: `--ref-root`) and anything but a regular file
//! (`/proc`, devices, FIFOs): a document may be a third party's, and its `$ref`s must not pull
//! local files into the tools.

use super::pointer::escape_token;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The top-level key that holds bundled files.
pub const BUNDLE_KEY: &str = "$bundle";
/// At most this many files are joined.
const MAX_FILES: usize = 1000;

/// Resolve the external references of `root` (read from `root_path`) in place. Referenced files
/// must lie under `allowed` (default: the folder of `root_path`).
pub fn bundle(root_path: &Path, mut root: Value, allowed: Option<&Path>) -> Result<Value> {
    let root_file = root_path.display().to_string();
    let base = root_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let root_dir = base.canonicalize().unwrap_or(base.clone());
    let allowed = match allowed {
        Some(dir) => dir.canonicalize().map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?,
        None => root_dir.clone(),
    };
    let mut b = Bundler {
        root_dir,
        allowed,
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
    /// Every referenced file must be under this folder (canonical).
    allowed: PathBuf,
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
        if Path::new(location).has_root()
            || location.starts_with(['/', '\\'])
            || has_drive(location)
        {
            return Err(Error::at(
                file,
                &pointer(),
                format!(
                    "absolute file `$ref`s are refused (write it relative to the document): {r}"
                ),
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
        if !canonical.starts_with(&self.allowed) {
            return Err(Error::at(
                file,
                &pointer(),
                format!(
                    "`$ref` to a file outside {} is refused (pass --ref-root DIR to allow a wider folder): {r}",
                    self.allowed.display()
                ),
            ));
        }
        // `/proc` and `/sys` files call themselves regular but are the system's live state.
        let system = ["/proc", "/sys", "/dev"]
            .iter()
            .any(|d| canonical.starts_with(d));
        if system || !std::fs::metadata(&canonical).is_ok_and(|m| m.is_file()) {
            return Err(Error::at(
                file,
                &pointer(),
                format!("`$ref` to something that is not a regular file: {r}"),
            ));
        }
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

/// `C:...`: a Windows drive, absolute or relative to that drive's folder.
fn has_drive(location: &str) -> bool {
    let b = location.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
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
        let out = bundle(&dir.path().join("api.yaml"), root, None).unwrap();
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
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("missing file: nope.yaml"), "{e}");
        let e = bundle(
            &dir.path().join("api.yaml"),
            serde_json::json!({"a": {"$ref": "https://x/y.yaml"}}),
            None,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("remote `$ref`s are not fetched"),
            "{e}"
        );
    }

    #[test]
    fn files_outside_the_folder_are_refused_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("api")).unwrap();
        std::fs::create_dir_all(dir.path().join("common")).unwrap();
        std::fs::write(dir.path().join("common/s.yaml"), "type: string\n").unwrap();
        let root = dir.path().join("api/openapi.yaml");
        let tree = || serde_json::json!({"a": {"$ref": "../common/s.yaml"}});
        let e = bundle(&root, tree(), None).unwrap_err().to_string();
        assert!(e.contains("outside") && e.contains("--ref-root"), "{e}");
        let out = bundle(&root, tree(), Some(dir.path())).unwrap();
        let bundled = out["$bundle"].as_object().unwrap();
        assert_eq!(bundled.values().next().unwrap()["type"], "string");
        // A path that climbs out and back in stays allowed.
        let back = serde_json::json!({"a": {"$ref": "../api/../api/x.yaml"}});
        std::fs::write(dir.path().join("api/x.yaml"), "type: integer\n").unwrap();
        assert!(bundle(&root, back, None).is_ok());
        let absolute = dir.path().join("common/s.yaml").display().to_string();
        for r in [absolute.as_str(), "/etc/hostname", "C:/x.yaml"] {
            let e = bundle(
                &root,
                serde_json::json!({"a": {"$ref": r}}),
                Some(dir.path()),
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("absolute file `$ref`s are refused"), "{r}: {e}");
        }
        // Not a regular file: a folder, and (on Unix) a FIFO.
        std::fs::create_dir(dir.path().join("api/sub")).unwrap();
        let e = bundle(&root, serde_json::json!({"a": {"$ref": "sub"}}), None).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        #[cfg(target_os = "linux")]
        {
            // Reached relatively with the whole file system allowed: still refused.
            let up = "../".repeat(root.components().count());
            let r = format!("{up}proc/self/status");
            let e = bundle(
                &root,
                serde_json::json!({"a": {"$ref": r}}),
                Some(Path::new("/")),
            )
            .unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        #[cfg(unix)]
        {
            let fifo = dir.path().join("api/pipe");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e =
                    bundle(&root, serde_json::json!({"a": {"$ref": "pipe"}}), None).unwrap_err();
                assert!(e.to_string().contains("not a regular file"), "{e}");
            }
        }
    }
}
