//! Listing: a document's operations (method, operationId, tags, deprecation) found from what
//! the reader kept of each path item's members, each read whole later by the thread that
//! builds its tool.

use super::reader::{At, PATHS_RUN, Reader, unparsed};
use super::{Entry, Method, Outline};
use crate::error::Result;
use crate::read::paths::PathItem;
use serde_json::Value;

impl<'a> Reader<'a> {
    /// See [`super::outline`].
    pub(super) fn outline<X: Send>(
        &self,
        each: &(impl Fn(&Entry<'a>) -> X + Sync),
    ) -> Result<(Outline<'a>, Vec<X>)> {
        use rayon::prelude::*;
        let head = self.head()?;
        self.check_paths()?;
        let items: Vec<(usize, &'a str, PathItem<'a>)> = (0..self.doc.paths.len())
            .filter_map(|i| {
                let (path, item) = self.doc.paths.get_index(i)?;
                (!path.starts_with("x-")).then_some((i, path, item))
            })
            .collect();
        let parts = items
            .par_chunks(PATHS_RUN)
            .map(|run| {
                let mut entries = Vec::new();
                for &(i, path, item) in run {
                    self.entries(i, path, item, &head.servers, &mut entries)?;
                }
                let xs: Vec<X> = entries.iter().map(each).collect();
                Ok((entries, xs))
            })
            .collect::<Vec<Result<_>>>();
        let (mut entries, mut xs) = (Vec::new(), Vec::new());
        for part in parts {
            let (e, x) = part?;
            entries.extend(e);
            xs.extend(x);
        }
        let outline = Outline {
            title: head.title,
            version: head.version,
            servers: head.servers,
            webhooks: head.webhooks,
            entries,
        };
        Ok((outline, xs))
    }

    /// The entries of path item `i` at `path`: from its members when it is a plain object of
    /// well-typed operations, else read in full (for a `$ref`, or for the reader's message).
    fn entries(
        &self,
        i: usize,
        path: &'a str,
        item: PathItem<'_>,
        servers: &[String],
        out: &mut Vec<Entry<'a>>,
    ) -> Result<()> {
        if let Some(listed) = light_entries(item) {
            out.extend(
                listed
                    .into_iter()
                    .map(|(method, operation_id, tags, deprecated)| Entry {
                        item: i,
                        path,
                        method,
                        operation_id,
                        tags,
                        deprecated,
                    }),
            );
            return Ok(());
        }
        let tree = item.parse().map_err(|_| unparsed(path))?;
        let mut ops = Vec::new();
        let reader = Reader { doc: self.doc };
        reader.path_item(
            path,
            &tree,
            &At::Text("/paths").key(path),
            servers,
            None,
            &mut ops,
        )?;
        out.extend(ops.into_iter().map(|op| Entry {
            item: i,
            path,
            method: op.method,
            operation_id: op.operation_id.map(str::to_string),
            tags: op.tags.iter().map(|t| t.to_string()).collect(),
            deprecated: op.deprecated,
        }));
        Ok(())
    }
}

/// An operation as listed from its item's members: method, operationId, tags, deprecated.
type Listed = (Method, Option<String>, Vec<String>, bool);

/// The operations of a path item as its members were read with its references, read as the
/// reader reads their operationId, tags and deprecation, when the item is an object without
/// `$ref` whose operations are objects with those three of the types the reader accepts;
/// `None` otherwise (and for an item that is not an object: see [`PathItem::members`]).
fn light_entries(item: PathItem<'_>) -> Option<Vec<Listed>> {
    let members = item.members()?;
    if members.iter().any(|m| m.key == "$ref") {
        return None;
    }
    let mut out = Vec::new();
    for method in Method::ALL {
        let Some(head) = members.iter().find(|m| m.key == method.key()) else {
            continue;
        };
        if !head.object {
            return None;
        }
        let operation_id = match &head.operation_id {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.trim().is_empty()),
            Some(_) => return None,
        };
        let tags = match &head.tags {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect(),
            Some(_) => return None,
        };
        let deprecated = match &head.deprecated {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
            Some(_) => return None,
        };
        out.push((method, operation_id, tags, deprecated));
    }
    Some(out)
}
