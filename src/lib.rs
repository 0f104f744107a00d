//! openapi-mcp: turn an OpenAPI document into MCP tool definitions.
//!
//! The pipeline runs one way, one folder a stage:
//! [`read`] (bytes -> JSON tree, bundled, Swagger 2.0 upgraded) -> [`model`] (operations,
//! parameters, bodies, responses) -> [`schema`] (OpenAPI schema -> JSON Schema 2020-12) ->
//! [`tool`] (names, schemas, suggested hints, call mapping) -> [`output`] (JSON/YAML, the
//! streaming writer, atomic files, `--check`). [`review`] (hints file, lint, review report) and
//! `serve` (feature `serve`) read the tool model.
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

#![forbid(unsafe_code)]

pub mod error;
pub mod model;
pub mod output;
pub mod read;
pub mod review;
pub mod schema;
#[cfg(feature = "serve")]
pub mod serve;
pub mod tool;

pub use error::{Error, Result};
pub use output::emit;
pub use tool::naming::NameStyle;
pub use tool::suggest::Suggest;
pub use tool::{DEFAULT_SCHEMA_BUDGET, Filter, Options, Summary, Tool, target};

use std::path::Path;

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
    /// The document's security schemes (`components.securitySchemes`), which the tools'
    /// requirements ([`tool::Call::security`]) name.
    pub security_schemes: serde_json::Map<String, serde_json::Value>,
    /// The names of the tools the hints file or the document's `x-speakeasy-mcp` disabled.
    pub disabled: Vec<String>,
}

/// Convert a document given as text (JSON or YAML). `name` is used in messages.
pub fn convert_str(name: &str, text: &str, options: &Options) -> Result<Conversion> {
    convert_bytes(name, text.as_bytes(), options)
}

/// Convert a document given as bytes (JSON or YAML). `name` is used in messages.
pub fn convert_bytes(name: &str, bytes: &[u8], options: &Options) -> Result<Conversion> {
    let doc = read::parse(name, bytes)?;
    convert_document(&doc, options)
}

/// Read and convert a file.
pub fn convert_file(path: impl AsRef<Path>, options: &Options) -> Result<Conversion> {
    let doc = read::load_file(path.as_ref())?;
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
    let doc = read::load_file(spec.as_ref())?;
    let hints = hints.map(review::HintsFile::load).transpose()?;
    convert_with(&doc, options, hints.as_ref())
}

/// Convert a parsed document.
pub fn convert_document(doc: &read::Document, options: &Options) -> Result<Conversion> {
    convert_with(doc, options, None)
}

/// Convert a parsed document, with a reviewed hints file applied: its entries matched to the
/// tools (an entry whose operation is not in the document is an error), curated names given,
/// disabled tools dropped. Tools are built on the thread pool, in document order.
pub fn convert_with(
    doc: &read::Document,
    options: &Options,
    hints: Option<&review::HintsFile>,
) -> Result<Conversion> {
    build_all(&tool::Plan::new(doc, options, hints)?)
}

/// Convert a parsed document with its suggestions alone, and match the entries of `hints` to
/// its tools (for `hints --update`): nothing of the file is applied, no tool is dropped.
pub fn convert_matching(
    doc: &read::Document,
    options: &Options,
    hints: &review::HintsFile,
) -> Result<(Conversion, tool::reviewed::Resolution)> {
    let plan = tool::Plan::matching(doc, options, hints)?;
    Ok((build_all(&plan)?, plan.resolution().clone()))
}

fn build_all(plan: &tool::Plan<'_>) -> Result<Conversion> {
    use rayon::prelude::*;
    // Collected whole, so that the error reported is the first in document order.
    let built: Vec<Result<Tool>> = (0..plan.len())
        .into_par_iter()
        .map_init(|| plan.builder(), |builder, i| plan.build(i, builder))
        .collect();
    let tools = built.into_iter().collect::<Result<Vec<Tool>>>()?;
    let summary = plan.summary();
    Ok(Conversion {
        title: summary.title,
        version: summary.version,
        tools,
        operations: summary.operations,
        notices: summary.notices,
        security_schemes: summary.security_schemes,
        disabled: summary.disabled,
    })
}

/// Convert a parsed document one tool at a time, in document order, handing each tool to `sink`
/// as soon as it is built (nothing is collected, so a caller that writes each tool out holds one
/// at a time). With `hints`, its entries are checked against the tool names before the first
/// tool is built (an entry naming no tool is an error) and applied to each tool. An error from
/// `sink` stops the conversion and is returned.
pub fn convert_each(
    doc: &read::Document,
    options: &Options,
    hints: Option<&review::HintsFile>,
    mut sink: impl FnMut(Tool) -> Result<()>,
) -> Result<Summary> {
    let plan = tool::Plan::new(doc, options, hints)?;
    let mut builder = plan.builder();
    for i in 0..plan.len() {
        sink(plan.build(i, &mut builder)?)?;
    }
    Ok(plan.summary())
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

    /// The documents in `specs/` (files only; the folders hold multi-file and served specs),
    /// each with its JSON tree when it parses.
    pub(crate) fn spec_trees() -> Vec<(std::path::PathBuf, serde_json::Value)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
        let mut out: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|entry| {
                let path = entry.unwrap().path();
                let bytes = std::fs::read(&path).ok()?;
                let tree = crate::read::parse_tree("spec", &bytes).ok()?;
                Some((path, tree))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        assert!(out.len() >= 10, "only {} specs read", out.len());
        out
    }
}
