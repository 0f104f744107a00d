//! Paths: a document's path items kept as JSON text, each parsed when a tool or a pointer needs
//! it, so that the tree of a large document never holds every path item at once.

use super::references::ItemMember;
#[cfg(doc)]
use super::references::read_item;
use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::ops::Range;
use std::sync::OnceLock;

/// The members of a document's `paths` object, in document order.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    /// Where `paths` stood among the top-level members (`None`: the document has no `paths`
    /// object, and whatever `paths` holds stays in the tree).
    at: Option<usize>,
    /// The text the items are ranges of: the document's own JSON text, or the items written
    /// out one after another.
    source: String,
    items: IndexMap<String, Item>,
}

#[derive(Debug, Clone)]
struct Item {
    text: Range<usize>,
    /// Its members as read with its references (see [`read_item`]).
    members: Option<Vec<ItemMember>>,
    tree: OnceLock<Option<Value>>,
}

/// One path item as JSON text, with its tree once a pointer has reached into it.
#[derive(Debug, Clone, Copy)]
pub struct PathItem<'p> {
    text: &'p str,
    members: Option<&'p [ItemMember]>,
    tree: &'p OnceLock<Option<Value>>,
}

impl<'p> PathItem<'p> {
    /// The item as JSON text.
    pub fn text(self) -> &'p str {
        self.text
    }

    /// Its members, in document order, each with what its value says of an operation; `None`
    /// when the item is not an object (see [`read_item`]).
    pub fn members(self) -> Option<&'p [ItemMember]> {
        self.members
    }

    /// The item parsed afresh, for a caller that drops it when done.
    pub fn parse(self) -> serde_json::Result<Value> {
        serde_json::from_str(self.text)
    }

    /// The item parsed once and kept with it (for pointers into `#/paths`, which are few).
    pub fn tree(self) -> Option<&'p Value> {
        self.tree.get_or_init(|| self.parse().ok()).as_ref()
    }
}

impl Paths {
    /// `paths` of a top-level object split off by the JSON reader: its place among the
    /// members, the document's text, and where each item's text is in it.
    pub(super) fn from_ranges(
        at: usize,
        source: String,
        items: IndexMap<String, Range<usize>>,
    ) -> Paths {
        let items = items
            .into_iter()
            .map(|(k, text)| {
                let (members, tree) = (None, OnceLock::new());
                (
                    k,
                    Item {
                        text,
                        members,
                        tree,
                    },
                )
            })
            .collect();
        Paths {
            at: Some(at),
            source,
            items,
        }
    }

    /// Take `paths` out of `root` when it is an object, each item written out as JSON text.
    pub(super) fn split(root: &mut Map<String, Value>) -> serde_json::Result<Paths> {
        let Some(at) = root.keys().position(|k| k == "paths") else {
            return Ok(Paths::default());
        };
        if !root.get("paths").is_some_and(Value::is_object) {
            return Ok(Paths::default());
        }
        let Some(Value::Object(items)) = root.shift_remove("paths") else {
            return Ok(Paths::default());
        };
        let mut source = String::new();
        let mut ranges = IndexMap::with_capacity(items.len());
        for (k, v) in items {
            let start = source.len();
            source.push_str(&serde_json::to_string(&v)?);
            ranges.insert(k, start..source.len());
        }
        Ok(Paths::from_ranges(at, source, ranges))
    }

    /// Put the items back into `root` at their place: the whole tree, for the stages that
    /// rewrite it (bundling, the Swagger 2.0 upgrade) and for callers that want it.
    pub(super) fn join_into(&self, root: &mut Map<String, Value>) -> serde_json::Result<()> {
        let Some(at) = self.at else {
            return Ok(());
        };
        let items = self
            .iter()
            .map(|(k, item)| Ok((k.to_string(), item.parse()?)))
            .collect::<serde_json::Result<Map<String, Value>>>()?;
        root.shift_insert(at.min(root.len()), "paths".into(), Value::Object(items));
        Ok(())
    }

    /// Give the items their members (as [`read_item`] found them), in order.
    pub(super) fn set_members(&mut self, members: Vec<Option<Vec<ItemMember>>>) {
        for (item, members) in self.items.values_mut().zip(members) {
            item.members = members;
        }
    }

    fn item<'p>(&'p self, item: &'p Item) -> PathItem<'p> {
        PathItem {
            // The reader made the ranges of this text.
            text: self.source.get(item.text.clone()).unwrap_or_default(),
            members: item.members.as_deref(),
            tree: &item.tree,
        }
    }

    /// The path items with their keys (`x-` keys included), in document order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, PathItem<'_>)> {
        self.items.iter().map(|(k, v)| (k.as_str(), self.item(v)))
    }

    /// The path item at key `path`.
    pub fn get(&self, path: &str) -> Option<PathItem<'_>> {
        self.items.get(path).map(|v| self.item(v))
    }

    /// The item at position `i`.
    pub fn get_index(&self, i: usize) -> Option<(&str, PathItem<'_>)> {
        self.items
            .get_index(i)
            .map(|(k, v)| (k.as_str(), self.item(v)))
    }

    /// Whether the document has a `paths` object (kept here rather than in the tree).
    pub fn is_object(&self) -> bool {
        self.at.is_some()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Split off and joined again, a tree is unchanged, member order included.
    #[test]
    fn split_and_join_keep_the_tree() {
        let tree = json!({"openapi": "3.1.0", "paths": {"/b": {"get": {"x": [1, 2.5, null]}}, "/a": {}},
            "components": {}});
        let mut root = tree.as_object().unwrap().clone();
        let paths = Paths::split(&mut root).unwrap();
        assert_eq!(root.keys().collect::<Vec<_>>(), ["openapi", "components"]);
        assert_eq!(
            paths.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            ["/b", "/a"]
        );
        assert_eq!(paths.get("/b").unwrap().tree(), Some(&tree["paths"]["/b"]));
        paths.join_into(&mut root).unwrap();
        assert_eq!(Value::Object(root).to_string(), tree.to_string());
        let mut odd = json!({"paths": [1]}).as_object().unwrap().clone();
        assert!(!Paths::split(&mut odd).unwrap().is_object());
        assert_eq!(odd["paths"], json!([1]));
    }
}
