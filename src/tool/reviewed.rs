//! Reviewed hints: a hints file's `defaults:` and entries (one per tool), checked against the
//! tools' names and applied over the suggestions. Precedence, most specific first: a tool's
//! entry, the document's extensions, `defaults:`, the suggestion. Reading and writing the file is
//! `review`'s.

use crate::error::{Error, Result};
use crate::tool::suggest::{Confidence, Hint, HintSource};
use crate::tool::{Review, Tool};
use indexmap::IndexMap;
use serde::Deserialize;

/// A parsed hints file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HintsFile {
    /// Values for every tool (openWorldHint above all: a decision about the whole API).
    #[serde(default)]
    pub defaults: Option<Defaults>,
    #[serde(default, deserialize_with = "unique_entries")]
    pub tools: Option<IndexMap<String, Entry>>,
    /// Entries whose tool disappeared, kept by `--update` for a human to re-home or delete.
    #[serde(default, deserialize_with = "unique_entries")]
    pub removed: Option<IndexMap<String, Entry>>,
}

/// Entries by tool name, a name given twice being an error: otherwise the later entry would
/// silently win and `--update` would drop the other (say, a reviewed entry moved back from
/// `removed:` beside the unreviewed one added meanwhile).
fn unique_entries<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<IndexMap<String, Entry>>, D::Error> {
    struct Entries;
    impl<'de> serde::de::Visitor<'de> for Entries {
        type Value = Option<IndexMap<String, Entry>>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of tool names to entries")
        }

        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = IndexMap::new();
            while let Some(name) = m.next_key::<String>()? {
                if out.contains_key(&name) {
                    return Err(serde::de::Error::custom(format!(
                        "tool {name:?} has two entries; keep one"
                    )));
                }
                let entry: Entry = m.next_value()?;
                out.insert(name, entry);
            }
            Ok(Some(out))
        }
    }
    d.deserialize_any(Entries)
}

/// One tool's reviewed hints.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    /// `METHOD /path`, informational.
    pub operation: Option<String>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
    pub title: Option<String>,
    #[serde(default)]
    pub reviewed: bool,
    pub note: Option<String>,
}

/// The `defaults:` block: hints for every tool, below a tool's entry and the document's
/// extensions, above the suggestion.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Defaults {
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
    #[serde(default)]
    pub reviewed: bool,
    pub note: Option<String>,
}

impl Defaults {
    /// What `hints` writes: openWorldHint true, for a human to decide.
    pub fn starter() -> Defaults {
        Defaults {
            open_world_hint: Some(true),
            ..Defaults::default()
        }
    }

    fn apply_to(&self, tool: &mut Tool) {
        let set = |hint: &mut Hint, value: Option<bool>| {
            let Some(value) = value else {
                return;
            };
            if matches!(hint.source, HintSource::Extension(_)) {
                return;
            }
            if self.reviewed || hint.value != value {
                *hint = Hint {
                    value,
                    source: HintSource::Defaults,
                    reason: match (&self.note, self.reviewed) {
                        (Some(n), true) => n.clone(),
                        (None, true) => "set for every tool in `defaults:`, reviewed".into(),
                        (_, false) => "set for every tool in `defaults:`, not yet reviewed".into(),
                    },
                    confidence: Confidence::Sure,
                };
            }
        };
        set(&mut tool.hints.read_only, self.read_only_hint);
        set(&mut tool.hints.destructive, self.destructive_hint);
        set(&mut tool.hints.idempotent, self.idempotent_hint);
        set(&mut tool.hints.open_world, self.open_world_hint);
    }
}

impl HintsFile {
    /// Whether a human has reviewed the `defaults:` block.
    pub fn defaults_reviewed(&self) -> bool {
        self.defaults.as_ref().is_some_and(|d| d.reviewed)
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = (&String, &Entry)> {
        self.tools.iter().flatten()
    }

    /// Apply the file to `tools`. An entry naming a tool that does not exist is an error.
    pub fn apply(&self, tools: &mut [Tool]) -> Result<()> {
        let known: std::collections::HashSet<&str> =
            tools.iter().map(|t| t.name.as_str()).collect();
        self.check_names(|name| known.contains(name))?;
        for tool in tools.iter_mut() {
            self.apply_one(tool);
        }
        Ok(())
    }

    /// Fail when an entry names a tool for which `exists` is false.
    pub fn check_names(&self, exists: impl Fn(&str) -> bool) -> Result<()> {
        let unknown: Vec<&str> = self
            .entries()
            .map(|(name, _)| name.as_str())
            .filter(|name| !exists(name))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        Err(Error::Usage(format!(
            "the hints file names tools that do not exist: {} (renamed? `openapi-mcp hints SPEC --update FILE` moves them under `removed:`)",
            unknown.join(", ")
        )))
    }

    /// Apply `defaults:`, then the entry for `tool`, if there is one.
    pub fn apply_one(&self, tool: &mut Tool) {
        if let Some(d) = &self.defaults {
            d.apply_to(tool);
        }
        if let Some(entry) = self.tools.as_ref().and_then(|m| m.get(&tool.name)) {
            entry.apply_to(tool);
        }
    }
}

impl Entry {
    fn apply_to(&self, tool: &mut Tool) {
        let set = |hint: &mut Hint, value: Option<bool>| {
            let Some(value) = value else {
                return;
            };
            if self.reviewed {
                *hint = Hint {
                    value,
                    source: HintSource::Reviewed,
                    reason: match &self.note {
                        Some(n) => n.clone(),
                        None => "reviewed in the hints file".into(),
                    },
                    confidence: Confidence::Sure,
                };
            } else if hint.value != value {
                *hint = Hint {
                    value,
                    source: HintSource::File,
                    reason: "set in the hints file, not yet reviewed".into(),
                    confidence: Confidence::Sure,
                };
            }
        };
        set(&mut tool.hints.read_only, self.read_only_hint);
        set(&mut tool.hints.destructive, self.destructive_hint);
        set(&mut tool.hints.idempotent, self.idempotent_hint);
        set(&mut tool.hints.open_world, self.open_world_hint);
        if let Some(t) = &self.title {
            tool.title = t.clone();
        }
        tool.review = Some(Review {
            reviewed: self.reviewed,
            note: self.note.clone(),
        });
    }

    /// A new, unreviewed entry holding the tool's suggested hints; openWorldHint is left to
    /// `defaults:` unless the document set it for this operation.
    pub fn suggested(tool: &Tool) -> Entry {
        let own_open_world = matches!(tool.hints.open_world.source, HintSource::Extension(_));
        Entry {
            operation: Some(tool.operation()),
            read_only_hint: Some(tool.hints.read_only.value),
            destructive_hint: Some(tool.hints.destructive.value),
            idempotent_hint: Some(tool.hints.idempotent.value),
            open_world_hint: own_open_world.then_some(tool.hints.open_world.value),
            title: None,
            reviewed: false,
            note: None,
        }
    }
}
