//! Plan: what a conversion builds — the options, the operations the filter keeps with their final
//! names, and the definitions their tools share — and building tool `i` of it on any thread.

use super::naming::{self, NameStyle, Named};
use super::reviewed::{self, Candidate, HintsFile, NameRules, Resolution};
use super::{Filter, Tool, target};
use crate::error::{Error, Result};
use crate::model::{self, Entry, Identity, Outline};
use crate::read::Document;
use crate::schema::{self, Converter, Registry};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Conversion options.
#[derive(Debug, Clone)]
pub struct Options {
    pub filter: Filter,
    pub name_style: NameStyle,
    /// Longest tool name; longer names are cut and get a stable hash suffix.
    pub max_name_len: usize,
    /// Tool names must start with a letter or `_` (Gemini); one starting with a digit gets a `_`.
    pub letter_first: bool,
    /// Inline every non-recursive `$ref` instead of emitting `$defs`.
    pub inline_refs: bool,
    /// Most bytes (compact JSON) of one tool's input or output schema; definitions past it become
    /// described stubs. `None`: no limit.
    pub schema_budget: Option<usize>,
    /// Most levels of `$ref` expansion in one schema. `None`: no limit.
    pub max_ref_depth: Option<usize>,
    /// Emit `outputSchema` (on by default).
    pub output_schema: bool,
    /// How hints are suggested (`evidence` by default; `method`: the method table only).
    pub suggest: super::suggest::Suggest,
}

/// The default per-schema budget: see README, "Output size".
pub const DEFAULT_SCHEMA_BUDGET: usize = 32 * 1024;

impl Options {
    /// The default options with the preset of `target` (name length, name start, `$ref`s).
    pub fn for_target(target: target::Target) -> Options {
        let rules = target.rules();
        Options {
            max_name_len: rules.max_name_len,
            letter_first: rules.letter_first,
            inline_refs: rules.inline_refs,
            ..Options::default()
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            filter: Filter::default(),
            name_style: NameStyle::Snake,
            max_name_len: 64,
            letter_first: false,
            inline_refs: false,
            schema_budget: Some(DEFAULT_SCHEMA_BUDGET),
            max_ref_depth: None,
            output_schema: true,
            suggest: super::suggest::Suggest::Evidence,
        }
    }
}

/// What a conversion reports besides its tools.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The API's `info.title`.
    pub title: String,
    pub version: String,
    /// Operations in the document before filtering.
    pub operations: usize,
    /// Tools built.
    pub tools: usize,
    /// Things worth telling the user that are not errors (e.g. a webhooks-only document).
    pub notices: Vec<String>,
    /// The document's security schemes (`components.securitySchemes`), which the tools'
    /// requirements ([`super::Call::security`]) name.
    pub security_schemes: serde_json::Map<String, serde_json::Value>,
    /// The names of the tools the hints file or the document's `x-speakeasy-mcp` disabled.
    pub disabled: Vec<String>,
}

/// The kept operations of a document, in document order, each with its final tool name. Tools
/// can be built in any order, on any number of threads (each with its own [`Builder`]); tool `i`
/// comes out the same whatever the order.
pub(crate) struct Plan<'d> {
    doc: &'d Document,
    options: &'d Options,
    hints: Option<&'d HintsFile>,
    /// Every operation, listed (each is read whole when its tool is built).
    outline: Outline<'d>,
    /// The kept operations (indexes into `outline.entries`), with their names and the keys of
    /// their hints-file entries.
    selected: Vec<(usize, Named, Option<String>)>,
    /// Which entry applies to which kept operation, disabled ones included.
    resolution: Resolution,
    /// The tools the curation dropped, by name.
    disabled: Vec<String>,
    /// Apply the hints file (else only match its entries, for `hints --update`).
    apply: bool,
    /// The filter's values that match no operation of the document.
    unmatched: Vec<String>,
    /// The definitions every builder of the plan shares.
    registry: Arc<Mutex<Registry>>,
    /// How hints are suggested, the API's style included.
    suggesting: super::Suggesting,
}

/// What builds tools on one thread: a schema converter sharing the plan's definitions, and the
/// path item last read (tools of one item are usually built one after another).
pub(crate) struct Builder<'d> {
    conv: Converter<'d>,
    item: Option<(usize, serde_json::Value)>,
}

impl<'d> Plan<'d> {
    /// List the operations, filter them and name them (names depend on every other name); with
    /// `hints`, match its entries to the tools (an entry whose operation is not in the document
    /// is an error; one for an operation the filters drop is ignored), give curated names and
    /// drop disabled tools (after naming, so that disabling a tool renames no other). An error
    /// found while listing (a malformed path item) is reported before one in the filter; the
    /// rest of an operation is read, and its errors reported, when its tool is built.
    pub fn new(
        doc: &'d Document,
        options: &'d Options,
        hints: Option<&'d HintsFile>,
    ) -> Result<Self> {
        Plan::planned(doc, options, hints, true)
    }

    /// A plan that matches the entries of `hints` to the tools (see [`Plan::resolution`]) but
    /// applies nothing of the file: every operation the filters keep is built with its
    /// suggestions, for `hints --update`.
    pub fn matching(doc: &'d Document, options: &'d Options, hints: &'d HintsFile) -> Result<Self> {
        Plan::planned(doc, options, Some(hints), false)
    }

    fn planned(
        doc: &'d Document,
        options: &'d Options,
        hints: Option<&'d HintsFile>,
        apply: bool,
    ) -> Result<Self> {
        if options.max_name_len < naming::MIN_NAME_LEN {
            return Err(Error::Usage(format!(
                "--max-name-len must be at least {}",
                naming::MIN_NAME_LEN
            )));
        }
        let filter = options.filter.compile();
        // Each kept operation's wanted name, worked out by the thread that reads it; the
        // definitions' names meanwhile.
        let (read, registry) = rayon::join(
            || {
                model::outline(doc, |entry| {
                    let identity = entry.identity();
                    let keeps = filter.as_ref().map_or(true, |f| f.keeps(&identity));
                    keeps.then(|| wanted(&identity, options))
                })
            },
            || Registry::of(doc),
        );
        let (outline, wanted) = read?;
        let unmatched = filter?.unmatched(outline.entries.iter().map(Entry::identity));
        let (kept, wanted): (Vec<usize>, Vec<(String, String)>) = wanted
            .into_iter()
            .enumerate()
            .filter_map(|(i, w)| Some((i, w?)))
            .unzip();
        let mut names = naming::assign(&wanted, options.max_name_len, options.name_style);
        let rules = NameRules {
            max_len: options.max_name_len,
            letter_first: options.letter_first,
        };
        let from_document = kept
            .iter()
            .map(|&i| DocumentCuration::of(doc, &outline.entries[i]))
            .collect::<Result<Vec<_>>>()?;
        for (named, c) in names.iter_mut().zip(&from_document) {
            if let Some((name, at)) = &c.name {
                reviewed::check_name(name, &rules).map_err(|why| Error::at(&doc.file, at, why))?;
                named.name = name.clone();
            }
        }
        let resolution = match hints {
            Some(h) => resolve(h, &outline, &kept, &names, options, apply)?,
            None => Resolution {
                entries: vec![None; kept.len()],
                ..Resolution::default()
            },
        };
        let mut selected = Vec::with_capacity(kept.len());
        // The names the tools are served under, checked for collisions also when nothing is
        // applied, so that `hints --update` refuses what `convert` would.
        let mut served: Vec<(usize, Named, Option<String>)> = Vec::with_capacity(kept.len());
        let mut disabled = Vec::new();
        for (((i, named), key), c) in kept
            .into_iter()
            .zip(names)
            .zip(resolution.entries.iter().cloned())
            .zip(&from_document)
        {
            let off = match hints {
                Some(h) => h.disabled(key.as_deref(), c.disabled),
                None => c.disabled.unwrap_or(false),
            };
            let curated = key
                .as_deref()
                .and_then(|k| Some((k, hints?.entry(k)?.name.as_ref()?)));
            let mut final_name = named.clone();
            if let (Some(h), Some((k, name))) = (hints, curated) {
                reviewed::check_name(name, &rules)
                    .map_err(|why| h.error_at(k, Some("name"), why))?;
                final_name.name = name.clone();
            }
            if !off {
                served.push((i, final_name.clone(), key.clone()));
            }
            match (apply, off) {
                (false, _) => selected.push((i, named, key)),
                (true, true) => disabled.push(final_name.name),
                (true, false) => selected.push((i, final_name, key)),
            }
        }
        unique_names(doc, hints, &served)?;
        let suggesting = super::Suggesting {
            mode: options.suggest,
            rpc: super::evidence::rpc_style(outline.entries.iter().map(|e| (e.method, e.path))),
            nouns: nouns(doc, &outline, options.suggest),
        };
        Ok(Plan {
            doc,
            options,
            hints,
            suggesting,
            outline,
            selected,
            resolution,
            disabled,
            apply,
            unmatched,
            registry: Arc::new(Mutex::new(registry)),
        })
    }

    /// Which entry of the hints file applies to which operation the filters keep (disabled
    /// ones included), in document order.
    pub fn resolution(&self) -> &Resolution {
        &self.resolution
    }

    /// How many tools the plan builds.
    pub fn len(&self) -> usize {
        self.selected.len()
    }

    /// A tool builder set up for the plan's options.
    pub fn builder(&self) -> Builder<'d> {
        let mut conv = Converter::sharing(&self.doc.file, self.doc, self.registry.clone());
        conv.inline_refs = self.options.inline_refs;
        conv.limits = schema::Limits {
            budget: self.options.schema_budget,
            max_ref_depth: self.options.max_ref_depth,
        };
        Builder { conv, item: None }
    }

    /// Build tool `i` (hints applied).
    pub fn build(&self, i: usize, builder: &mut Builder<'d>) -> Result<Tool> {
        let (entry, named, key) = &self.selected[i];
        let entry = &self.outline.entries[*entry];
        let Builder { conv, item } = builder;
        let tree = match item {
            Some((at, tree)) if *at == entry.item => tree,
            _ => {
                let text = self.doc.paths.get_index(entry.item).map(|(_, item)| item);
                let tree = text.and_then(|t| t.parse().ok()).ok_or_else(|| {
                    Error::Internal(format!("the path item {} does not read back", entry.path))
                })?;
                &item.insert((entry.item, tree)).1
            }
        };
        let op = model::operation(self.doc, entry, tree, &self.outline.servers)?;
        let mut tool = super::build(
            &op,
            named.clone(),
            conv,
            self.options.output_schema,
            &self.suggesting,
        )?;
        if let Some(d) = DocumentCuration::description(tree, entry) {
            tool.description = d.to_string();
        }
        if let (Some(hints), true) = (self.hints, self.apply) {
            hints.apply_entry(&mut tool, key.as_deref().and_then(|k| hints.entry(k)));
        }
        Ok(tool)
    }

    /// What the conversion reports once every tool is built.
    pub fn summary(&self) -> Summary {
        let (file, api) = (&self.doc.file, &self.outline);
        let count = api.entries.len();
        let mut notices: Vec<String> = self
            .unmatched
            .iter()
            .map(|u| format!("{file}: {u}"))
            .collect();
        if let (Some(h), true) = (self.hints, self.apply) {
            notices.extend(self.resolution.notes(&h.source.name));
        }
        if count == 0 && api.webhooks > 0 {
            notices.push(format!(
                "{file}: the document defines {} webhook(s) and no paths; webhooks are not callable, so there are no tools",
                api.webhooks
            ));
        } else if count == 0 {
            notices.push(format!("{file}: the document has no operations"));
        } else if self.selected.is_empty() && self.disabled.is_empty() {
            // Only a filter drops operations.
            notices.push(format!(
                "{file}: the filters keep none of the document's {count} operations (--include-tag and \
                 --exclude-tag match tags, --include-op and --exclude-op operationIds, \
                 --include-path path templates with their leading `/`)"
            ));
        }
        Summary {
            title: api.title.to_string(),
            version: api.version.to_string(),
            operations: count,
            tools: self.selected.len(),
            notices,
            security_schemes: self
                .doc
                .root
                .pointer("/components/securitySchemes")
                .and_then(serde_json::Value::as_object)
                .cloned()
                .unwrap_or_default(),
            disabled: self.disabled.clone(),
        }
    }
}

/// Match the entries of `hints` to the kept operations (named `names`); with `strict`, an entry
/// that matches none is an error unless it matches an operation the filters dropped.
fn resolve(
    hints: &HintsFile,
    outline: &Outline<'_>,
    kept: &[usize],
    names: &[Named],
    options: &Options,
    strict: bool,
) -> Result<Resolution> {
    let candidate = |e: &'_ Entry<'_>, name: &'_ str| -> (String, String) {
        (
            name.to_string(),
            format!("{} {}", e.method.as_str(), e.path),
        )
    };
    let owned: Vec<(String, String)> = kept
        .iter()
        .zip(names)
        .map(|(&i, n)| candidate(&outline.entries[i], &n.name))
        .collect();
    let candidates: Vec<Candidate<'_>> = kept
        .iter()
        .zip(&owned)
        .map(|(&i, (name, operation))| Candidate {
            name,
            operation: operation.clone(),
            operation_id: outline.entries[i].operation_id.as_deref(),
        })
        .collect();
    let mut resolution = hints.resolve(&candidates);
    if !resolution.unmatched.is_empty() && kept.len() < outline.entries.len() {
        // Entries of operations the filters dropped: named as they would be alone.
        let mut is_kept = vec![false; outline.entries.len()];
        kept.iter().for_each(|&i| is_kept[i] = true);
        let dropped: Vec<(String, String, Option<&str>)> = outline
            .entries
            .iter()
            .zip(is_kept)
            .filter(|(_, k)| !k)
            .map(|(e, _)| {
                let (name, key) = wanted(&e.identity(), options);
                let name = naming::shorten(&name, &key, options.max_name_len, options.name_style).0;
                let (name, operation) = candidate(e, &name);
                (name, operation, e.operation_id.as_deref())
            })
            .collect();
        let others: Vec<Candidate<'_>> = dropped
            .iter()
            .map(|(name, operation, id)| Candidate {
                name,
                operation: operation.clone(),
                operation_id: *id,
            })
            .collect();
        let elsewhere = hints.resolve(&others);
        let matched: std::collections::HashSet<&String> =
            elsewhere.entries.iter().flatten().collect();
        resolution.unmatched.retain(|k| !matched.contains(k));
    }
    if strict && !resolution.unmatched.is_empty() {
        return Err(hints.stale(&resolution.unmatched));
    }
    Ok(resolution)
}

/// An error when two kept tools have the same name (through a curated name).
/// The words the document uses as nouns (see [`super::vocab::Nouns`]): its collections, schema
/// names (`components.schemas`, or Swagger 2's `definitions`) and tags. Empty under `--suggest
/// method`, which reads no words.
fn nouns(
    doc: &Document,
    outline: &Outline<'_>,
    mode: super::suggest::Suggest,
) -> super::vocab::Nouns {
    if mode == super::suggest::Suggest::Method {
        return super::vocab::Nouns::default();
    }
    let schemas = [
        doc.root.pointer("/components/schemas"),
        doc.root.get("definitions"),
    ];
    let names = schemas
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys().map(String::as_str));
    super::vocab::Nouns::from_document(
        outline.entries.iter().map(|e| e.path),
        names,
        outline
            .entries
            .iter()
            .flat_map(|e| e.tags.iter().map(String::as_str)),
    )
}

fn unique_names(
    doc: &Document,
    hints: Option<&HintsFile>,
    selected: &[(usize, Named, Option<String>)],
) -> Result<()> {
    let names: Vec<&str> = selected.iter().map(|(_, n, _)| n.name.as_str()).collect();
    let keys: Vec<Option<String>> = selected.iter().map(|(_, _, k)| k.clone()).collect();
    match hints {
        Some(h) => h.check_collisions(&names, &keys),
        None => {
            let mut seen = std::collections::HashSet::new();
            match names.iter().find(|n| !seen.insert(**n)) {
                Some(name) => Err(Error::Input {
                    file: doc.file.clone(),
                    location: crate::error::Location::None,
                    message: format!(
                        "two tools are named `{name}` (an x-speakeasy-mcp name is another tool's name); tool names must be unique"
                    ),
                }),
                None => Ok(()),
            }
        }
    }
}

/// What the document's `x-speakeasy-mcp` says of an operation's tool besides its hints: its
/// name (with the pointer to it) and whether it is disabled.
#[derive(Debug, Default)]
struct DocumentCuration {
    name: Option<(String, String)>,
    disabled: Option<bool>,
}

impl DocumentCuration {
    const KEY: &'static str = "x-speakeasy-mcp";

    /// Read from the operation's path item, which is parsed only when its text names the
    /// extension. An item that is a `$ref` is not followed here.
    fn of(doc: &Document, entry: &Entry<'_>) -> Result<DocumentCuration> {
        let Some((_, item)) = doc.paths.get_index(entry.item) else {
            return Ok(DocumentCuration::default());
        };
        if !item.text().contains(Self::KEY) {
            return Ok(DocumentCuration::default());
        }
        let tree: Value = item.parse().map_err(|_| {
            Error::Internal(format!("the path item {} does not read back", entry.path))
        })?;
        let Some(ext) = tree
            .get(entry.method.key())
            .and_then(|op| op.get(Self::KEY))
        else {
            return Ok(DocumentCuration::default());
        };
        let at = format!(
            "/paths/{}/{}/{}",
            entry.path.replace('~', "~0").replace('/', "~1"),
            entry.method.key(),
            Self::KEY
        );
        let name = match ext.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some((s.clone(), format!("{at}/name"))),
            Some(_) => {
                return Err(Error::at(
                    &doc.file,
                    &format!("{at}/name"),
                    "expected a string",
                ));
            }
        };
        let disabled = match ext.get("disabled") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                return Err(Error::at(
                    &doc.file,
                    &format!("{at}/disabled"),
                    "expected true or false",
                ));
            }
        };
        Ok(DocumentCuration { name, disabled })
    }

    /// The operation's `x-speakeasy-mcp` description, from its path item's tree.
    fn description<'t>(item: &'t Value, entry: &Entry<'_>) -> Option<&'t str> {
        item.get(entry.method.key())?
            .get(Self::KEY)?
            .get("description")?
            .as_str()
            .map(str::trim)
            .filter(|d| !d.is_empty())
    }
}

/// The name operation `op` wants under `options`, and its `METHOD path` (for messages).
fn wanted(op: &Identity<'_>, options: &Options) -> (String, String) {
    let name = naming::wanted_name(op, options.name_style);
    let name = if options.letter_first {
        target::letter_first(name)
    } else {
        name
    };
    (name, format!("{} {}", op.method.as_str(), op.path))
}
