//! Plan: what a conversion builds — the options, the operations the filter keeps with their final
//! names, and the definitions their tools share — and building tool `i` of it on any thread.

use super::naming::{self, NameStyle, Named};
use super::reviewed::HintsFile;
use super::{Filter, Tool, target};
use crate::error::{Error, Result};
use crate::model::{self, Identity, Outline};
use crate::read::Document;
use crate::schema::{self, Converter, Registry};
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
}

/// The kept operations of a document, in document order, each with its final tool name. Tools
/// can be built in any order, on any number of threads (each with its own [`Builder`]); tool `i`
/// comes out the same whatever the order.
pub struct Plan<'d> {
    doc: &'d Document,
    options: &'d Options,
    hints: Option<&'d HintsFile>,
    /// Every operation, listed (each is read whole when its tool is built).
    outline: Outline<'d>,
    /// The kept operations (indexes into `outline.entries`), with their names.
    selected: Vec<(usize, Named)>,
    /// The definitions every builder of the plan shares.
    registry: Arc<Mutex<Registry>>,
    /// How hints are suggested, the API's style included.
    suggesting: super::Suggesting,
}

/// What builds tools on one thread: a schema converter sharing the plan's definitions, and the
/// path item last read (tools of one item are usually built one after another).
pub struct Builder<'d> {
    conv: Converter<'d>,
    item: Option<(usize, serde_json::Value)>,
}

impl<'d> Plan<'d> {
    /// List the operations, filter them and name them (names depend on every other name); with
    /// `hints`, check that each entry names a tool. An error found while listing (a malformed
    /// path item) is reported before one in the filter; the rest of an operation is read, and
    /// its errors reported, when its tool is built.
    pub fn new(
        doc: &'d Document,
        options: &'d Options,
        hints: Option<&'d HintsFile>,
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
        filter?;
        let (kept, wanted): (Vec<usize>, Vec<(String, String)>) = wanted
            .into_iter()
            .enumerate()
            .filter_map(|(i, w)| Some((i, w?)))
            .unzip();
        let names = naming::assign(&wanted, options.max_name_len, options.name_style);
        if let Some(hints) = hints {
            let known: std::collections::HashSet<&str> =
                names.iter().map(|n| n.name.as_str()).collect();
            hints.check_names(|name| known.contains(name))?;
        }
        let suggesting = super::Suggesting {
            mode: options.suggest,
            rpc: super::suggest::rpc_style(outline.entries.iter().map(|e| (e.method, e.path))),
        };
        Ok(Plan {
            doc,
            options,
            hints,
            suggesting,
            outline,
            selected: kept.into_iter().zip(names).collect(),
            registry: Arc::new(Mutex::new(registry)),
        })
    }

    /// How many tools the plan builds.
    pub fn len(&self) -> usize {
        self.selected.len()
    }

    /// Whether the plan builds no tool.
    pub fn is_empty(&self) -> bool {
        self.selected.is_empty()
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
        let (entry, named) = &self.selected[i];
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
            self.suggesting,
        )?;
        if let Some(hints) = self.hints {
            hints.apply_one(&mut tool);
        }
        Ok(tool)
    }

    /// What the conversion reports once every tool is built.
    pub fn summary(&self) -> Summary {
        let (file, api) = (&self.doc.file, &self.outline);
        let count = api.entries.len();
        let mut notices = Vec::new();
        if count == 0 && api.webhooks > 0 {
            notices.push(format!(
                "{file}: the document defines {} webhook(s) and no paths; webhooks are not callable, so there are no tools",
                api.webhooks
            ));
        } else if count == 0 {
            notices.push(format!("{file}: the document has no operations"));
        } else if self.selected.is_empty() {
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
        }
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
