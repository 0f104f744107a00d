//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod http;
pub mod mcp_check;
pub mod media;
pub mod pages;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every scenario in `specs/`, sorted: each top-level `.yaml`/`.json` file, and each folder with an
/// `openapi.yaml` entry document (multi-file specs). `specs/invalid/` and `specs/hints/` are not
/// scenarios.
pub fn specs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("specs"))
        .expect("specs/ exists")
        .map(|e| e.expect("readable entry").path())
        .filter_map(|p| {
            if p.is_dir() {
                let entry = p.join("openapi.yaml");
                return entry.is_file().then_some(entry);
            }
            let ext = p.extension().and_then(|e| e.to_str());
            matches!(ext, Some("yaml" | "yml" | "json")).then_some(p)
        })
        .collect();
    out.sort();
    out
}

/// A scenario's snapshot name: the file name, or the folder name for a multi-file spec.
pub fn scenario_name(path: &Path) -> String {
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    if file == "openapi.yaml" {
        let dir = path.parent().unwrap().file_name().unwrap();
        dir.to_string_lossy().to_string()
    } else {
        file
    }
}

/// The `openapi-mcp` binary, run from the repository root.
pub fn cmd() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("openapi-mcp").unwrap();
    c.current_dir(root());
    c
}

/// `../shared` beside the checkout, if present.
pub fn shared() -> Option<PathBuf> {
    let p = root().join("..").join("shared");
    p.join("mcp").is_dir().then_some(p)
}

/// Convert `path` with default options and render JSON.
pub fn convert_json(path: &Path, options: &openapi_mcp::Options) -> String {
    let c = openapi_mcp::convert_file(path, options).unwrap_or_else(|e| panic!("{e}"));
    openapi_mcp::emit::render(&c.tools, openapi_mcp::emit::Format::JsonPretty).unwrap()
}

/// Compare `$text` with the reviewed snapshot `snapshots/$name.snap`. A macro, not a function, so
/// that each snapshot's `source:` names the test file that asserts it (`main.rs` takes it into
/// every module with `#[macro_use]`).
macro_rules! snapshot {
    ($name:expr, $text:expr $(,)?) => {{
        let name: String = ::std::convert::AsRef::<str>::as_ref(&$name).to_string();
        let text: String = $text;
        insta::with_settings!({
            snapshot_path => $crate::common::root().join("snapshots"),
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!(name.as_str(), text);
        })
    }};
}
