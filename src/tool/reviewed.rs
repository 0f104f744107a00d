//! Reviewed hints: a hints file's `defaults:` and entries (one per tool), matched to the tools
//! (by name, else by operation, so that a decision follows a renamed tool) and applied over the
//! suggestions, with the entries' curation (name, description, disabled). Precedence, most
//! specific first: a tool's entry, the document's extensions, `defaults:`, the suggestion.
//! The file is read here (YAML or JSON, errors with line and column); writing and updating it is
//! `review::hints_file`'s.

use crate::error::{Error, Location, Result};
use crate::tool::naming::{self, NameStyle};
use crate::tool::suggest::{Confidence, Hint, HintSource};
use crate::tool::{Review, Tool};
use indexmap::IndexMap;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// A parsed hints file.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HintsFile {
    /// Values for every tool (openWorldHint above all: a decision about the whole API).
    #[serde(default)]
    pub defaults: Option<Defaults>,
    #[serde(default, deserialize_with = "unique_entries")]
    pub tools: Option<IndexMap<String, HintEntry>>,
    /// Entries whose tool disappeared, kept by `--update` for a human to re-home or delete.
    #[serde(default, deserialize_with = "unique_entries")]
    pub removed: Option<IndexMap<String, HintEntry>>,
    /// The file's name and text, to point at an entry in a message.
    #[serde(skip)]
    pub source: Source,
}

/// Where a parsed hints file came from: its name and text. Not part of the file's content, so
/// any two compare equal.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl PartialEq for Source {
    fn eq(&self, _: &Source) -> bool {
        true
    }
}

/// Entries by tool name, a name given twice being an error: otherwise the later entry would
/// silently win and `--update` would drop the other (say, a reviewed entry moved back from
/// `removed:` beside the unreviewed one added meanwhile).
fn unique_entries<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<IndexMap<String, HintEntry>>, D::Error> {
    struct Entries;
    impl<'de> serde::de::Visitor<'de> for Entries {
        type Value = Option<IndexMap<String, HintEntry>>;

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
                let entry: HintEntry = m.next_value()?;
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
pub struct HintEntry {
    /// `METHOD /path`, informational.
    pub operation: Option<String>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
    pub title: Option<String>,
    /// The tool's curated name, used as written.
    pub name: Option<String>,
    /// Replaces the description the model sees.
    pub description: Option<String>,
    /// `true`: the tool is dropped; `false`: kept although `defaults:` disables tools.
    pub disabled: Option<bool>,
    /// The tool's result budget under `serve`, in bytes (over `--max-result-bytes`); also
    /// written as `_meta["anthropic/maxResultSizeChars"]`.
    pub max_result_bytes: Option<u64>,
    #[serde(default)]
    pub reviewed: bool,
    pub note: Option<String>,
}

/// The range of an entry's `maxResultBytes`: `serve --max-result-bytes`'s least, and the
/// largest answer `serve` reads (10 MiB).
pub const MAX_RESULT_BYTES: std::ops::RangeInclusive<u64> = 1024..=10 * 1024 * 1024;

/// The `defaults:` block: hints for every tool, below a tool's entry and the document's
/// extensions, above the suggestion.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Defaults {
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
    /// `true`: every tool without `disabled: false` in its entry is dropped.
    pub disabled: Option<bool>,
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

/// What an entry is matched against: a tool's name (before the file's curation), its
/// `METHOD /path` and its operationId.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub name: &'a str,
    pub operation: String,
    pub operation_id: Option<&'a str>,
}

impl<'a> Candidate<'a> {
    pub fn of(tool: &'a Tool) -> Candidate<'a> {
        Candidate {
            name: &tool.name,
            operation: tool.operation(),
            operation_id: tool.origin.operation_id.as_deref(),
        }
    }
}

/// An entry applied to a tool of another name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    /// The entry's key.
    pub entry: String,
    /// The tool's name now.
    pub tool: String,
    /// How they were matched: `operation GET /x` or `operationId getX`.
    pub by: String,
}

/// Which entry applies to which tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// For each candidate, the key of its entry.
    pub entries: Vec<Option<String>>,
    /// Entries matched through a rename.
    pub renamed: Vec<Renamed>,
    /// Keys of entries that match no candidate.
    pub unmatched: Vec<String>,
}

impl Resolution {
    /// One line for each entry applied through a rename, for standard error.
    pub fn notes(&self, file: &str) -> Vec<String> {
        self.renamed
            .iter()
            .map(|r| {
                format!(
                    "{file}: entry `{}` applied to tool `{}` (renamed; matched by its {}); \
                     `openapi-mcp hints SPEC --update {file}` moves the entry to the new name",
                    r.entry, r.tool, r.by
                )
            })
            .collect()
    }
}

/// `METHOD /path` with the method upper-cased and the space between them normalized.
fn normal_operation(op: &str) -> Option<String> {
    let (method, path) = op.trim().split_once(char::is_whitespace)?;
    Some(format!("{} {}", method.to_ascii_uppercase(), path.trim()))
}

/// The names an operationId gives in each style, as an entry written under another
/// `--name-style` (or the operationId itself) has them.
fn operation_id_names(id: &str) -> Vec<String> {
    let styles = [
        NameStyle::Snake,
        NameStyle::Camel,
        NameStyle::Kebab,
        NameStyle::Original,
    ];
    let mut out = vec![id.to_string()];
    out.extend(styles.iter().map(|s| naming::styled(id, *s)));
    out
}

impl HintsFile {
    /// Parse a hints file (YAML or JSON). `name` is used in messages.
    pub fn parse(name: &str, text: &str) -> Result<HintsFile> {
        let source = Source {
            name: name.to_string(),
            text: text.to_string(),
        };
        if text.trim().is_empty() {
            return Ok(HintsFile {
                source,
                ..HintsFile::default()
            });
        }
        let mut file: HintsFile = yaml_serde::from_str(text).map_err(|e| Error::Input {
            file: name.to_string(),
            location: e
                .location()
                .map(|l| Location::LineCol {
                    line: l.line(),
                    column: l.column(),
                })
                .unwrap_or(Location::None),
            message: format!(
                "invalid hints file: {}",
                crate::read::strip_position(&e.to_string())
            ),
        })?;
        file.source = source;
        file.check_limits()?;
        Ok(file)
    }

    /// Read and parse a hints file.
    pub fn load(path: impl AsRef<Path>) -> Result<HintsFile> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        HintsFile::parse(&path.display().to_string(), &text)
    }
}

impl HintsFile {
    /// Whether a human has reviewed the `defaults:` block.
    pub fn defaults_reviewed(&self) -> bool {
        self.defaults.as_ref().is_some_and(|d| d.reviewed)
    }

    pub(crate) fn entries(&self) -> impl Iterator<Item = (&String, &HintEntry)> {
        self.tools.iter().flatten()
    }

    /// An error at the first entry whose `maxResultBytes` is outside [`MAX_RESULT_BYTES`].
    pub fn check_limits(&self) -> Result<()> {
        for (key, e) in self.entries() {
            if let Some(n) = e.max_result_bytes.filter(|n| !MAX_RESULT_BYTES.contains(n)) {
                return Err(self.error_at(
                    key,
                    Some("maxResultBytes"),
                    format!(
                        "maxResultBytes {n} is outside {}..={} (bytes of a tool result)",
                        MAX_RESULT_BYTES.start(),
                        MAX_RESULT_BYTES.end()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The entry of key `key`.
    pub fn entry(&self, key: &str) -> Option<&HintEntry> {
        self.tools.as_ref().and_then(|m| m.get(key))
    }

    /// Match the entries to `tools`: an entry applies to the tool of its name; an entry whose
    /// name is no tool's applies to the one tool whose operation (`METHOD /path`) its
    /// `operation:` gives, else to the one tool whose operationId its key is (in any name
    /// style). Each tool takes one entry at most, its own name's first.
    pub fn resolve(&self, tools: &[Candidate<'_>]) -> Resolution {
        let mut out = Resolution {
            entries: vec![None; tools.len()],
            ..Resolution::default()
        };
        let by_name: HashMap<&str, usize> =
            tools.iter().enumerate().map(|(i, t)| (t.name, i)).collect();
        let mut rest = Vec::new();
        for (key, e) in self.entries() {
            match by_name.get(key.as_str()) {
                Some(&i) if out.entries[i].is_none() => out.entries[i] = Some(key.clone()),
                _ => rest.push((key, e)),
            }
        }
        if rest.is_empty() {
            return out;
        }
        let by_operation: HashMap<&str, usize> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.operation.as_str(), i))
            .collect();
        let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in tools.iter().enumerate() {
            for name in t.operation_id.map(operation_id_names).unwrap_or_default() {
                let list = by_id.entry(name).or_default();
                if !list.contains(&i) {
                    list.push(i);
                }
            }
        }
        for (key, e) in rest {
            let by_op = e
                .operation
                .as_deref()
                .and_then(normal_operation)
                .and_then(|op| by_operation.get(op.as_str()).map(|&i| (i, op)))
                .filter(|(i, _)| out.entries[*i].is_none())
                .map(|(i, op)| (i, format!("operation {op}")));
            let by_op_id = || match by_id.get(key.as_str()).map(Vec::as_slice) {
                Some(&[i]) if out.entries[i].is_none() => Some((
                    i,
                    format!("operationId {}", tools[i].operation_id.unwrap_or_default()),
                )),
                _ => None,
            };
            match by_op.or_else(by_op_id) {
                Some((i, by)) => {
                    out.entries[i] = Some(key.clone());
                    out.renamed.push(Renamed {
                        entry: key.clone(),
                        tool: tools[i].name.to_string(),
                        by,
                    });
                }
                None => out.unmatched.push(key.clone()),
            }
        }
        out
    }

    /// The error for entries that match no tool.
    pub fn stale(&self, keys: &[String]) -> Error {
        let first = keys.first().map(String::as_str).unwrap_or_default();
        Error::Input {
            file: self.source.name.clone(),
            location: self.at(first, None),
            message: format!(
                "the hints file names tools whose operation is not in the document: {} \
                 (`openapi-mcp hints SPEC --update FILE` moves them under `removed:`)",
                keys.join(", ")
            ),
        }
    }

    /// Whether tool `key` (with the entry's and the document's say, `document`) is dropped:
    /// the entry's `disabled`, else the document's, else `defaults:`'s.
    pub fn disabled(&self, key: Option<&str>, document: Option<bool>) -> bool {
        key.and_then(|k| self.entry(k)?.disabled)
            .or(document)
            .or(self.defaults.as_ref().and_then(|d| d.disabled))
            .unwrap_or(false)
    }

    /// Where entry `key` (its member `field`, when given) is in the file's text: the line and
    /// column the YAML reader gives for it (JSON is read as YAML), found by reading the text
    /// again and stopping there.
    pub fn at(&self, key: &str, field: Option<&str>) -> Location {
        locate(&self.source.text, key, field).unwrap_or(Location::None)
    }

    /// An error at entry `key`'s member `field`.
    pub fn error_at(&self, key: &str, field: Option<&str>, message: String) -> Error {
        Error::Input {
            file: self.source.name.clone(),
            location: self.at(key, field),
            message,
        }
    }

    /// Apply the file to `tools` read back from a tools file: entries matched as
    /// [`HintsFile::resolve`] does (one matching no tool is an error), curated names given
    /// (checked as [`check_name`] does, and for collisions), disabled tools dropped, values
    /// applied. Returns the notes on entries applied through a rename.
    pub fn apply(&self, tools: &mut Vec<Tool>) -> Result<Vec<String>> {
        let resolution = {
            let candidates: Vec<Candidate<'_>> = tools.iter().map(Candidate::of).collect();
            self.resolve(&candidates)
        };
        if !resolution.unmatched.is_empty() {
            return Err(self.stale(&resolution.unmatched));
        }
        let keys = resolution.entries.clone();
        let mut kept = Vec::with_capacity(tools.len());
        let mut names = Vec::with_capacity(tools.len());
        for (mut tool, key) in std::mem::take(tools).into_iter().zip(keys) {
            if self.disabled(key.as_deref(), None) {
                continue;
            }
            let entry = key.as_deref().and_then(|k| self.entry(k));
            if let (Some(k), Some(name)) = (key.as_deref(), entry.and_then(|e| e.name.as_ref())) {
                check_name(name, &NameRules::default())
                    .map_err(|why| self.error_at(k, Some("name"), why))?;
                tool.name = name.clone();
            }
            self.apply_entry(&mut tool, entry);
            names.push(key);
            kept.push(tool);
        }
        let final_names: Vec<&str> = kept.iter().map(|t| t.name.as_str()).collect();
        self.check_collisions(&final_names, &names)?;
        *tools = kept;
        Ok(resolution.notes(&self.source.name))
    }

    /// An error when two of `names` (each tool's final name, with its entry's key) are the same:
    /// at the entry that curated the name, naming both tools' entries.
    pub fn check_collisions(&self, names: &[&str], keys: &[Option<String>]) -> Result<()> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            let Some(&j) = seen.get(name) else {
                seen.insert(name, i);
                continue;
            };
            fn curated<'k>(file: &HintsFile, k: &'k Option<String>) -> Option<&'k str> {
                k.as_deref()
                    .filter(|k| file.entry(k).is_some_and(|e| e.name.is_some()))
            }
            let describe = |k: &Option<String>| match k {
                Some(k) => match self.at(k, None) {
                    Location::LineCol { line, column } => {
                        format!("entry `{k}` at {line}:{column}")
                    }
                    _ => format!("entry `{k}`"),
                },
                None => "a tool without an entry".to_string(),
            };
            let (at, other) = match (curated(self, &keys[i]), curated(self, &keys[j])) {
                (Some(k), _) => (k, &keys[j]),
                (None, Some(k)) => (k, &keys[i]),
                (None, None) => {
                    return Err(Error::Usage(format!(
                        "two tools are named `{name}` (the document's x-speakeasy-mcp names)"
                    )));
                }
            };
            return Err(self.error_at(
                at,
                Some("name"),
                format!(
                    "the curated name `{name}` of entry `{at}` is also the name of another tool \
                     ({}); tool names must be unique",
                    describe(other)
                ),
            ));
        }
        Ok(())
    }

    /// Apply `defaults:`, then `entry` (the tool's, if it has one).
    pub fn apply_entry(&self, tool: &mut Tool, entry: Option<&HintEntry>) {
        if let Some(d) = &self.defaults {
            d.apply_to(tool);
        }
        if let Some(entry) = entry {
            entry.apply_to(tool);
        }
    }
}

/// What a curated name must be for the target: `[A-Za-z0-9_-]`, at most `max_len` characters,
/// starting with a letter or `_` when `letter_first`.
#[derive(Debug, Clone, Copy)]
pub struct NameRules {
    pub max_len: usize,
    pub letter_first: bool,
}

impl Default for NameRules {
    /// What every target takes: 64 characters (MCP allows 128; Claude and OpenAI take 64).
    fn default() -> Self {
        NameRules {
            max_len: 128,
            letter_first: false,
        }
    }
}

/// Why `name` is not a tool name under `rules`, if it is not.
pub fn check_name(name: &str, rules: &NameRules) -> std::result::Result<(), String> {
    let bad = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'));
    if name.is_empty() {
        Err("a curated name may not be empty".into())
    } else if let Some(c) = bad {
        Err(format!(
            "the curated name {name:?} has {c:?}: tool names use only A-Z, a-z, 0-9, `_` and `-`"
        ))
    } else if name.len() > rules.max_len {
        Err(format!(
            "the curated name {name:?} has {} characters; the target takes at most {} \
             (--max-name-len, --target)",
            name.len(),
            rules.max_len
        ))
    } else if rules.letter_first && !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        Err(format!(
            "the curated name {name:?} must start with a letter or `_` for this target"
        ))
    } else {
        Ok(())
    }
}

/// The line and column of entry `key` under `tools:` (of its member `field`, when given) in a
/// hints file's text. The text is read again with a reader that fails on reaching the place,
/// and the YAML reader's error says where it was.
fn locate(text: &str, key: &str, field: Option<&str>) -> Option<Location> {
    use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, Visitor};
    use std::fmt;
    const HERE: &str = "openapi-mcp: here";

    /// Fails on any value: the reader's error then carries its position.
    struct Stop;
    impl<'de> DeserializeSeed<'de> for Stop {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Stop {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("anything")
        }
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
            Err(E::custom(HERE))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            Err(A::Error::custom(HERE))
        }
        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            Err(A::Error::custom(HERE))
        }
    }

    /// A map whose member `keys[0]` is walked into with the rest of `keys` (`Stop` at the end).
    struct Into<'k>(&'k [&'k str]);
    impl<'de> DeserializeSeed<'de> for Into<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Into<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            while let Some(k) = m.next_key::<String>()? {
                if k != self.0[0] {
                    m.next_value::<IgnoredAny>()?;
                } else if self.0.len() == 1 {
                    return m.next_value_seed(Stop);
                } else {
                    return m.next_value_seed(Into(&self.0[1..]));
                }
            }
            Ok(())
        }
    }

    let mut path = vec!["tools", key];
    path.extend(field);
    let e = Into(&path)
        .deserialize(yaml_serde::Deserializer::from_str(text))
        .err()?;
    if !e.to_string().contains(HERE) {
        return None;
    }
    e.location().map(|l| Location::LineCol {
        line: l.line(),
        column: l.column(),
    })
}

impl HintEntry {
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
        if let Some(d) = &self.description {
            tool.description = d.clone();
        }
        let curated = [
            ("name", self.name.is_some()),
            ("description", self.description.is_some()),
            ("title", self.title.is_some()),
        ];
        tool.review = Some(Review {
            reviewed: self.reviewed,
            note: self.note.clone(),
            curated: curated
                .iter()
                .filter(|(_, c)| *c)
                .map(|(k, _)| *k)
                .collect(),
            max_result_bytes: self.max_result_bytes.and_then(|n| usize::try_from(n).ok()),
        });
    }

    /// A new, unreviewed entry holding the tool's suggested hints; openWorldHint is left to
    /// `defaults:` unless the document set it for this operation.
    pub fn suggested(tool: &Tool) -> HintEntry {
        let own_open_world = matches!(tool.hints.open_world.source, HintSource::Extension(_));
        HintEntry {
            operation: Some(tool.operation()),
            read_only_hint: Some(tool.hints.read_only.value),
            destructive_hint: Some(tool.hints.destructive.value),
            idempotent_hint: Some(tool.hints.idempotent.value),
            open_world_hint: own_open_world.then_some(tool.hints.open_world.value),
            title: None,
            name: None,
            description: None,
            disabled: None,
            max_result_bytes: None,
            reviewed: false,
            note: None,
        }
    }
}
