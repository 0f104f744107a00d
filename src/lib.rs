//! openapi-mcp: turn an OpenAPI document into MCP tool definitions.
//!
//! The pipeline runs one way, one module a stage:
//! [`load`] (bytes -> JSON tree, version) -> [`model`] (operations, parameters, bodies,
//! responses) -> [`schema`] (OpenAPI schema -> JSON Schema 2020-12) -> [`tool`] (name, schemas,
//! hints with reasons, call mapping) -> [`emit`] (deterministic JSON/YAML).
//!
//! ```
//! let spec = r#"{"openapi": "3.1.0", "info": {"title": "Pets", "version": "1"},
//!   "paths": {"/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok"}}}}}}"#;
//! let out = openapi_mcp::convert_str("pets.json", spec, &openapi_mcp::Options::default()).unwrap();
//! assert_eq!(out.tools[0].name, "list_pets");
//! assert!(out.tools[0].hints.read_only.value);
//! let json = openapi_mcp::emit::render(&out.tools, openapi_mcp::emit::Format::Json).unwrap();
//! assert!(json.starts_with("{\"tools\":[\n{\"name\":\"list_pets\""));
//! ```

pub mod bundle;
pub mod check;
pub mod cli;
mod compact;
pub mod emit;
pub mod error;
mod file;
pub mod filter;
pub mod hints;
pub mod json;
pub mod lazy;
pub mod lint;
pub mod load;
mod lookup;
pub mod model;
pub mod naming;
pub mod output;
mod par;
pub mod readback;
pub mod refs;
pub mod report;
pub mod review;
pub mod schema;
pub mod serve;
pub mod stream;
pub mod swagger;
pub mod target;
pub mod tool;
pub mod vocab;
pub mod yaml;

pub use error::{Error, Result};
pub use filter::Filter;
pub use naming::NameStyle;
pub use tool::Tool;

use std::path::Path;

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
        }
    }
}

/// The result of a conversion.
#[derive(Debug, Clone)]
pub struct Conversion {
    /// The API's `info.title`.
    pub title: String,
    pub version: String,
    pub tools: Vec<Tool>,
    /// Operations in the document before filtering.
    pub operations: usize,
    /// Things worth telling the user that are not errors (e.g. a webhooks-only document).
    pub notices: Vec<String>,
}

/// What [`convert_each`] reports besides the tools it handed out.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The API's `info.title`.
    pub title: String,
    pub version: String,
    /// Operations in the document before filtering.
    pub operations: usize,
    /// Tools handed to the sink.
    pub tools: usize,
    /// Things worth telling the user that are not errors (e.g. a webhooks-only document).
    pub notices: Vec<String>,
}

/// Convert a document given as text (JSON or YAML). `name` is used in messages.
pub fn convert_str(name: &str, text: &str, options: &Options) -> Result<Conversion> {
    convert_bytes(name, text.as_bytes(), options)
}

/// Convert a document given as bytes (JSON or YAML). `name` is used in messages.
pub fn convert_bytes(name: &str, bytes: &[u8], options: &Options) -> Result<Conversion> {
    let doc = load::parse(name, bytes)?;
    convert_document(&doc, options)
}

/// Read and convert a file.
pub fn convert_file(path: impl AsRef<Path>, options: &Options) -> Result<Conversion> {
    let doc = load::load_file(path.as_ref())?;
    convert_document(&doc, options)
}

/// Convert a spec file and apply a reviewed hints file: the one call a build script needs.
///
/// The hints file's values win over vendor extensions and the method table; an entry naming a tool
/// that does not exist is an error.
pub fn convert_reviewed(
    spec: impl AsRef<Path>,
    hints: Option<&Path>,
    options: &Options,
) -> Result<Conversion> {
    let mut conversion = convert_file(spec, options)?;
    if let Some(hints) = hints {
        review::HintsFile::load(hints)?.apply(&mut conversion.tools)?;
    }
    Ok(conversion)
}

/// Convert a parsed document.
pub fn convert_document(doc: &load::Document, options: &Options) -> Result<Conversion> {
    let mut tools = Vec::new();
    let summary = convert_each(doc, options, None, |t| {
        tools.push(t);
        Ok(())
    })?;
    Ok(Conversion {
        title: summary.title,
        version: summary.version,
        tools,
        operations: summary.operations,
        notices: summary.notices,
    })
}

/// Convert a parsed document one tool at a time, in document order, handing each tool to `sink`
/// as soon as it is built (nothing is collected, so a caller that writes each tool out holds one
/// at a time). With `hints`, its entries are checked against the tool names before the first
/// tool is built (an entry naming no tool is an error) and applied to each tool. An error from
/// `sink` stops the conversion and is returned.
pub fn convert_each(
    doc: &load::Document,
    options: &Options,
    hints: Option<&review::HintsFile>,
    mut sink: impl FnMut(Tool) -> Result<()>,
) -> Result<Summary> {
    let plan = Plan::new(doc, options, hints)?;
    let mut builder = plan.builder();
    for i in 0..plan.len() {
        sink(plan.build(i, &mut builder)?)?;
    }
    Ok(plan.summary())
}

/// What a conversion builds: the operations the filter keeps, in document order, each with its
/// final tool name. Tools can then be built in any order, by any number of [`Builder`]s (which
/// share the plan's definitions): tool `i` comes out the same, unless two references want the
/// same `$defs` name (see [`schema::names_clash`]); then names follow the order of building.
pub(crate) struct Plan<'d> {
    doc: &'d load::Document,
    options: &'d Options,
    hints: Option<&'d review::HintsFile>,
    head: model::Head<'d>,
    /// Every operation, read from the whole tree (empty when path items are kept as text).
    operations: Vec<model::Operation<'d>>,
    /// How many operations the document has, kept or not.
    count: usize,
    /// The kept operations, with their names.
    selected: Vec<(Pick, naming::Named)>,
    /// The definitions every builder of the plan shares (see [`schema::Registry`]).
    registry: std::sync::Arc<std::sync::Mutex<schema::Registry>>,
}

/// Where a kept operation is.
enum Pick {
    /// An index into `operations`.
    Read(usize),
    /// A path item kept as text, and the method.
    Lazy(usize, model::Method),
}

/// What builds tools on one thread: a schema converter, and the last path item parsed.
pub(crate) struct Builder<'d> {
    conv: schema::Converter<'d>,
    item: Option<(usize, serde_json::Value)>,
}

impl<'d> Plan<'d> {
    /// Read the operations, filter them and name them (names depend on every other name); with
    /// `hints`, check that each entry names a tool.
    pub(crate) fn new(
        doc: &'d load::Document,
        options: &'d Options,
        hints: Option<&'d review::HintsFile>,
    ) -> Result<Self> {
        if options.max_name_len < naming::MIN_NAME_LEN {
            return Err(Error::Usage(format!(
                "--max-name-len must be at least {}",
                naming::MIN_NAME_LEN
            )));
        }
        let plan = |head, operations, count| Plan {
            doc,
            options,
            hints,
            head,
            operations,
            count,
            selected: Vec::new(),
            registry: Default::default(),
        };
        if let Some(paths) = &doc.lazy {
            // Opening the document read every path item without error, as `model::read` would.
            let head = model::read_head(doc)?;
            let filter = options.filter.compile()?;
            let kept: Vec<(usize, model::Identity)> = paths
                .operations()
                .filter(|(_, op)| filter.keeps(op))
                .collect();
            let wanted = wanted_names(&kept, |(_, op)| op, options);
            let picks = kept
                .iter()
                .map(|(item, op)| Pick::Lazy(*item, op.method))
                .collect();
            let count = paths.operation_count();
            return plan(head, Vec::new(), count).named(picks, wanted);
        }
        // Each kept operation's wanted name, worked out as it is read. An error in the document
        // is reported before one in the filter.
        let filter = options.filter.compile();
        let (api, wanted) = model::read_with(doc, |op| {
            let identity = op.identity();
            let keeps = filter.as_ref().map_or(true, |f| f.keeps(&identity));
            keeps.then(|| wanted(&identity, options))
        })?;
        filter?;
        let (kept, wanted): (Vec<usize>, Vec<(String, String)>) = wanted
            .into_iter()
            .enumerate()
            .filter_map(|(i, w)| Some((i, w?)))
            .unzip();
        let head = model::Head {
            title: api.title,
            version: api.version,
            servers: Vec::new(),
            webhooks: api.webhooks,
        };
        let count = api.operations.len();
        let picks = kept.into_iter().map(Pick::Read).collect();
        plan(head, api.operations, count).named(picks, wanted)
    }

    /// The plan with `picks` selected, which want the names `wanted` (with `hints`, checked
    /// against the names they get).
    fn named(mut self, picks: Vec<Pick>, wanted: Vec<(String, String)>) -> Result<Self> {
        let names = naming::assign(&wanted, self.options.max_name_len, self.options.name_style);
        if let Some(hints) = self.hints {
            let known: std::collections::HashSet<&str> =
                names.iter().map(|n| n.name.as_str()).collect();
            hints.check_names(|name| known.contains(name))?;
        }
        self.selected = picks.into_iter().zip(names).collect();
        Ok(self)
    }

    /// How many tools the plan builds.
    pub(crate) fn len(&self) -> usize {
        self.selected.len()
    }

    /// A tool builder set up for the plan's options.
    pub(crate) fn builder(&self) -> Builder<'d> {
        let mut conv =
            schema::Converter::sharing(&self.doc.file, &self.doc.root, self.registry.clone());
        conv.inline_refs = self.options.inline_refs;
        conv.limits = schema::Limits {
            budget: self.options.schema_budget,
            max_ref_depth: self.options.max_ref_depth,
        };
        Builder { conv, item: None }
    }

    /// Build tool `i` (hints applied).
    pub(crate) fn build(&self, i: usize, builder: &mut Builder<'d>) -> Result<Tool> {
        let (pick, named) = &self.selected[i];
        let with_output = self.options.output_schema;
        let mut tool = match *pick {
            Pick::Read(op) => tool::build(
                &self.operations[op],
                named.clone(),
                &mut builder.conv,
                with_output,
            )?,
            Pick::Lazy(item, method) => {
                let paths = self.doc.lazy.as_deref().ok_or_else(reread)?;
                if builder.item.as_ref().is_none_or(|(at, _)| *at != item) {
                    let value = paths.item(item).map_err(|_| reread())?;
                    builder.item = Some((item, value));
                }
                let value = &builder.item.as_ref().ok_or_else(reread)?.1;
                let path = paths.path(item);
                let servers = &self.head.servers;
                let ops = model::read_path_item(self.doc, path, value, servers, Some(method))?;
                let op = ops.first().ok_or_else(reread)?;
                tool::build(op, named.clone(), &mut builder.conv, with_output)?
            }
        };
        if let Some(hints) = self.hints {
            hints.apply_one(&mut tool);
        }
        Ok(tool)
    }

    /// What the conversion reports once every tool is built.
    pub(crate) fn summary(&self) -> Summary {
        let (doc, head) = (self.doc, &self.head);
        let mut notices = Vec::new();
        if self.count == 0 && head.webhooks > 0 {
            notices.push(format!(
                "{}: the document defines {} webhook(s) and no paths; webhooks are not callable, so there are no tools",
                doc.file, head.webhooks
            ));
        } else if self.count == 0 {
            notices.push(format!("{}: the document has no operations", doc.file));
        } else if self.selected.is_empty() {
            // Only a filter drops operations.
            notices.push(format!(
                "{}: the filters keep none of the document's {} operations (--include-tag and \
                 --exclude-tag match tags, --include-op and --exclude-op operationIds, \
                 --include-path path templates with their leading `/`)",
                doc.file, self.count
            ));
        }
        Summary {
            title: head.title.to_string(),
            version: head.version.to_string(),
            operations: self.count,
            tools: self.selected.len(),
            notices,
        }
    }
}

/// The name operation `op` wants under `options`, and its `METHOD path` (for messages).
fn wanted(op: &model::Identity<'_>, options: &Options) -> (String, String) {
    let name = naming::wanted_name(op, options.name_style);
    let name = if options.letter_first {
        target::letter_first(name)
    } else {
        name
    };
    (name, format!("{} {}", op.method.as_str(), op.path))
}

/// The names `items` want (see [`wanted`]), each operation's found by `identity`, in order;
/// on two threads for many operations.
fn wanted_names<T: Sync>(
    items: &[T],
    identity: impl Fn(&T) -> &model::Identity<'_> + Sync,
    options: &Options,
) -> Vec<(String, String)> {
    let part = |items: &[T]| -> Vec<(String, String)> {
        items.iter().map(|x| wanted(identity(x), options)).collect()
    };
    par::halves(items, par::MIN_ITEMS, part)
        .into_iter()
        .flatten()
        .collect()
}

/// A path item read once for the plan and again to build its tool read differently: the
/// document changed under us, which cannot happen to text we hold.
fn reread() -> Error {
    Error::Usage("a path item kept as text read differently the second time".into())
}

/// The README's Rust examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// What several modules' tests share.
#[cfg(test)]
pub(crate) mod test_support {
    /// Numbers below `n` from a xorshift generator started at `state` (not zero): the same
    /// sequence on every run, so that a randomized test's failure repeats.
    pub(crate) fn xorshift(mut state: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        }
    }

    /// Every reference [`crate::schema::each_reference`] finds in `tree`, each once.
    pub(crate) fn walked(tree: &serde_json::Value) -> rustc_hash::FxHashSet<String> {
        let mut all = rustc_hash::FxHashSet::default();
        crate::schema::each_reference(tree, |r| {
            all.insert(r.to_string());
        });
        all
    }

    /// The documents in `specs/` (files only; the folders hold multi-file and served specs),
    /// each with its JSON tree when it parses.
    pub(crate) fn spec_trees() -> Vec<(std::path::PathBuf, serde_json::Value)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|entry| {
                let path = entry.unwrap().path();
                let bytes = std::fs::read(&path).ok()?;
                let tree = crate::load::parse_tree("spec", &bytes).ok()?;
                Some((path, tree))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        assert!(out.len() >= 10, "only {} specs read", out.len());
        out
    }
}
