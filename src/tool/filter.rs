//! Filter: which operations become tools (tags, path globs, methods, operationIds, deprecation).

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
