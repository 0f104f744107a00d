//! Listing: a document's operations found from their path items' text (method, operationId,
//! tags, deprecation), each read whole later by the thread that builds its tool.

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

    /// The entries of path item `i` at `path`: from its text when it is a plain object of
    /// well-typed operations, else read in full (for a `$ref`, or for the reader's message).
    fn entries(
        &self,
        i: usize,
        path: &'a str,
        item: PathItem<'_>,
        servers: &[String],
        out: &mut Vec<Entry<'a>>,
    ) -> Result<()> {
        if let Some(listed) = light_entries(item.text()) {
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

/// An operation as listed from text: method, operationId, tags, deprecated.
type Listed = (Method, Option<String>, Vec<String>, bool);

/// The operations of a path item's text, read as the reader reads their operationId, tags and
/// deprecation, when the item is an object without `$ref` whose operations are objects with
/// those three of the types the reader accepts (and no key repeated, none escaped); `None`
/// otherwise. The text is read once, without building trees.
fn light_entries(text: &str) -> Option<Vec<Listed>> {
    let Item(heads) = serde_json::from_str(text).ok()?;
    let mut out = Vec::new();
    for (method, head) in Method::ALL.into_iter().zip(heads) {
        let Some(head) = head else {
            continue;
        };
        let operation_id = match head.operation_id {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s).filter(|s| !s.trim().is_empty()),
            Some(_) => return None,
        };
        let tags = match head.tags {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|t| match t {
                    Value::String(s) => Some(s),
                    _ => None,
                })
                .collect(),
            Some(_) => return None,
        };
        let deprecated = match head.deprecated {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
            Some(_) => return None,
        };
        out.push((method, operation_id, tags, deprecated));
    }
    Some(out)
}

/// A path item's operations, in [`Method::ALL`]'s order, as read by [`light_entries`].
struct Item([Option<Head>; Method::ALL.len()]);

/// The members of an operation the listing reads.
#[derive(Default)]
struct Head {
    operation_id: Option<Value>,
    tags: Option<Value>,
    deprecated: Option<Value>,
}

impl<'de> serde::Deserialize<'de> for Item {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Item, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Item;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a path item object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Item, A::Error> {
                use serde::de::Error;
                let mut heads: [Option<Head>; Method::ALL.len()] = Default::default();
                while let Some(key) = map.next_key::<&str>()? {
                    if key == "$ref" {
                        return Err(A::Error::custom("a $ref item"));
                    }
                    match Method::ALL.iter().position(|m| m.key() == key) {
                        Some(i) if heads[i].is_some() => {
                            return Err(A::Error::custom("a repeated key"));
                        }
                        Some(i) => heads[i] = Some(map.next_value()?),
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(Item(heads))
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> serde::Deserialize<'de> for Head {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Head, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Head;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operation object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
                use serde::de::Error;
                let mut head = Head::default();
                while let Some(key) = map.next_key::<&str>()? {
                    let slot = match key {
                        "operationId" => &mut head.operation_id,
                        "tags" => &mut head.tags,
                        "deprecated" => &mut head.deprecated,
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    if slot.is_some() {
                        return Err(A::Error::custom("a repeated key"));
                    }
                    *slot = Some(map.next_value()?);
                }
                Ok(head)
            }
        }
        d.deserialize_map(V)
    }
}
