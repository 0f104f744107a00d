//! Filter: which operations become tools (tags, path globs, methods, operationIds, deprecation),
//! and which of its values match no operation of the document.

use crate::error::{Error, Result};
use crate::model::{Identity, Method};
use globset::{GlobSet, GlobSetBuilder};

/// Selection rules; an empty list means "no restriction".
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Keep operations with at least one of these tags.
    pub include_tags: Vec<String>,
    /// Drop operations with any of these tags.
    pub exclude_tags: Vec<String>,
    /// Keep operations whose path template matches one of these globs (`*` stays within one
    /// segment, `**` crosses segments).
    pub include_paths: Vec<String>,
    /// Keep operations with one of these methods.
    pub methods: Vec<Method>,
    /// Keep operations with one of these operationIds.
    pub include_ops: Vec<String>,
    /// Drop operations with one of these operationIds.
    pub exclude_ops: Vec<String>,
    /// Drop deprecated operations.
    pub skip_deprecated: bool,
}

/// A [`Filter`] with its globs compiled.
pub struct Compiled<'f> {
    filter: &'f Filter,
    paths: Option<GlobSet>,
}

impl Filter {
    pub fn compile(&self) -> Result<Compiled<'_>> {
        let paths = if self.include_paths.is_empty() {
            None
        } else {
            let mut b = GlobSetBuilder::new();
            for g in &self.include_paths {
                let glob = globset::GlobBuilder::new(g)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| Error::Usage(format!("invalid --include-path glob {g:?}: {e}")))?;
                b.add(glob);
            }
            Some(
                b.build()
                    .map_err(|e| Error::Usage(format!("invalid --include-path globs: {e}")))?,
            )
        };
        Ok(Compiled {
            filter: self,
            paths,
        })
    }
}

impl Compiled<'_> {
    pub fn keeps(&self, op: &Identity<'_>) -> bool {
        let f = self.filter;
        let id = op.operation_id.unwrap_or("");
        let has_tag = |list: &[String]| op.tags.iter().any(|t| list.iter().any(|l| l == t));
        (f.include_tags.is_empty() || has_tag(&f.include_tags))
            && !has_tag(&f.exclude_tags)
            && self.paths.as_ref().is_none_or(|g| g.is_match(op.path))
            && (f.methods.is_empty() || f.methods.contains(&op.method))
            && (f.include_ops.is_empty() || f.include_ops.iter().any(|o| o == id))
            && !f.exclude_ops.iter().any(|o| o == id)
            && !(f.skip_deprecated && op.deprecated)
    }
}

impl Compiled<'_> {
    /// One line for each value of the filter that matches no operation of `ops` (the whole
    /// document, each value judged on its own): `--include-tag isues matches no operation's tag`.
    pub fn unmatched<'o>(&self, ops: impl Iterator<Item = Identity<'o>>) -> Vec<String> {
        let f = self.filter;
        let mut tags = std::collections::HashSet::new();
        let mut ids = std::collections::HashSet::new();
        let mut methods = std::collections::HashSet::new();
        let mut globs = vec![false; f.include_paths.len()];
        for op in ops {
            tags.extend(op.tags.iter().map(|t| t.to_string()));
            ids.extend(op.operation_id.map(str::to_string));
            methods.insert(op.method);
            if let Some(g) = &self.paths {
                g.matches(op.path).into_iter().for_each(|i| globs[i] = true);
            }
        }
        let mut out = Vec::new();
        let mut each = |flag: &str, values: &[String], what: &str, known: &dyn Fn(&str) -> bool| {
            for v in values.iter().filter(|v| !known(v)) {
                out.push(format!(
                    "{flag} {v} matches no operation's {what} in the document"
                ));
            }
        };
        each("--include-tag", &f.include_tags, "tag", &|v| {
            tags.contains(v)
        });
        each("--exclude-tag", &f.exclude_tags, "tag", &|v| {
            tags.contains(v)
        });
        each("--include-op", &f.include_ops, "operationId", &|v| {
            ids.contains(v)
        });
        each("--exclude-op", &f.exclude_ops, "operationId", &|v| {
            ids.contains(v)
        });
        for (g, hit) in f.include_paths.iter().zip(globs) {
            if !hit {
                out.push(format!(
                    "--include-path {g} matches no operation's path in the document"
                ));
            }
        }
        for m in f.methods.iter().filter(|m| !methods.contains(m)) {
            out.push(format!(
                "--methods {} matches no operation's method in the document",
                m.key()
            ));
        }
        out
    }
}
