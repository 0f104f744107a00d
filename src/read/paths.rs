//! Paths: a document's path items kept as JSON text, each parsed when a tool or a pointer needs
//! it, so that the tree of a large document never holds every path item at once.

use indexmap::IndexMap;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The members of a document's `paths` object, in document order.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    /// Where `paths` stood among the top-level members (`None`: the document has no `paths`
    /// object, and whatever `paths` holds stays in the tree).
    at: Option<usize>,
    items: IndexMap<String, PathItem>,
}

/// One path item as JSON text, with its tree once a pointer has reached into it.
#[derive(Debug, Clone)]
pub struct PathItem {
    text: Box<RawValue>,
    tree: OnceLock<Option<Value>>,
}

impl PathItem {
    fn new(text: Box<RawValue>) -> Self {
        PathItem {
            text,
            tree: OnceLock::new(),
        }
    }

    /// The item as JSON text.
    pub fn text(&self) -> &str {
        self.text.get()
    }

    /// The item parsed afresh, for a caller that drops it when done.
    pub fn parse(&self) -> serde_json::Result<Value> {
        serde_json::from_str(self.text.get())
    }

    /// The item parsed once and kept with it (for pointers into `#/paths`, which are few).
    pub fn tree(&self) -> Option<&Value> {
        self.tree.get_or_init(|| self.parse().ok()).as_ref()
    }
}

impl Paths {
    /// `paths` of a top-level object already split off by the JSON reader: its place among
    /// the members and its items' texts.
    pub(super) fn from_texts(at: usize, items: IndexMap<String, Box<RawValue>>) -> Paths {
        Paths {
            at: Some(at),
            items: items
                .into_iter()
                .map(|(k, v)| (k, PathItem::new(v)))
                .collect(),
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
        let items = items
            .into_iter()
            .map(|(k, v)| Ok((k, serde_json::value::to_raw_value(&v)?)))
            .collect::<serde_json::Result<_>>()?;
        Ok(Paths::from_texts(at, items))
    }

    /// Put the items back into `root` at their place: the whole tree, for the stages that
    /// rewrite it (bundling, the Swagger 2.0 upgrade) and for callers that want it.
    pub(super) fn join_into(&self, root: &mut Map<String, Value>) -> serde_json::Result<()> {
        let Some(at) = self.at else {
            return Ok(());
        };
        let items = self
            .items
            .iter()
            .map(|(k, item)| Ok((k.clone(), item.parse()?)))
            .collect::<serde_json::Result<Map<String, Value>>>()?;
        root.shift_insert(at.min(root.len()), "paths".into(), Value::Object(items));
        Ok(())
    }

    /// The path items with their keys (`x-` keys included), in document order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &PathItem)> {
        self.items.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The path item at key `path`.
    pub fn get(&self, path: &str) -> Option<&PathItem> {
        self.items.get(path)
    }

    /// The item at position `i`.
    pub fn get_index(&self, i: usize) -> Option<(&str, &PathItem)> {
        self.items.get_index(i).map(|(k, v)| (k.as_str(), v))
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
