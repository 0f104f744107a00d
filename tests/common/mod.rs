//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every scenario document in `specs/` (not `specs/invalid/`), sorted.
pub fn specs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("specs"))
        .expect("specs/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            p.is_file()
                && matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("yaml" | "yml" | "json")
                )
        })
        .collect();
    out.sort();
    out
}

/// `../shared` beside the checkout, if present.
pub fn shared() -> Option<PathBuf> {
    let p = root().join("..").join("shared");
    p.join("mcp").is_dir().then_some(p)
}

/// Convert `path` with default options and render JSON.
pub fn convert_json(path: &Path, options: &openapi_mcp::Options) -> String {
    let c = openapi_mcp::convert_file(path, options).unwrap_or_else(|e| panic!("{e}"));
    openapi_mcp::emit::render(&c.tools, openapi_mcp::emit::Format::Json).unwrap()
}
