//! Lazy-paths parity sweep: a JSON document converted with its path items kept as text gives
//! the bytes (or the error) of the same document converted from its whole tree, on a corpus.
//!
//! ```sh
//! cargo run --release --example lazy_parity -- "$(../shared/corpus/fetch)" [--every K]
//! ```
//!
//! Every (K-th) JSON document of the folder is converted twice by the streaming conversion
//! (`stream::convert_to`, as `openapi-mcp convert -o FILE` runs): read whole (`load::load_file`)
//! and read lazily whatever its size (`load::load_lazy` with no minimum; "read lazily" counts
//! the documents that kept their path items as text throughout), once with the default
//! options and once keeping only `GET` operations. The two files, or the two error messages,
//! must be the same. Exits 1 on any difference or panic.

#[path = "common/corpus.rs"]
mod corpus;

use openapi_mcp::{Options, emit::Shape, load, stream};
use std::path::Path;

/// The file `convert_to` writes for `doc`, or its error.
fn convert(
    doc: Result<&load::Document, &openapi_mcp::Error>,
    options: &Options,
    out: &Path,
) -> String {
    let written = doc.map_err(|e| e.to_string()).and_then(|doc| {
        stream::convert_to(doc, options, None, Shape::Mcp, Some(out), None)
            .map_err(|e| e.to_string())?;
        Ok(std::fs::read_to_string(out).unwrap_or_default())
    });
    written.unwrap_or_else(|e| format!("error: {e}"))
}

fn main() {
    let (root, every) = corpus::args("lazy_parity");
    let paths = corpus::documents(&root);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (whole_out, lazy_out) = (dir.path().join("whole.json"), dir.path().join("lazy.json"));
    let mut get_only = Options::default();
    get_only.filter.methods = vec![openapi_mcp::model::Method::Get];
    let started = std::time::Instant::now();
    let (mut runs, mut lazy, mut errors, mut failures) = (0, 0, 0, Vec::new());
    for path in paths.iter().step_by(every) {
        for (kind, options) in [("default", &Options::default()), ("GET only", &get_only)] {
            runs += 1;
            let checked = std::panic::catch_unwind(|| {
                let whole = convert(load::load_file(path).as_ref(), options, &whole_out);
                let doc = load::load_lazy(path, 0);
                let lazy = convert(doc.as_ref(), options, &lazy_out);
                let was_lazy = doc.as_ref().is_ok_and(|d| d.is_lazy() && !d.parsed_whole());
                (whole == lazy, was_lazy, whole.starts_with("error: "))
            });
            match checked {
                Ok((true, was_lazy, error)) => {
                    lazy += usize::from(was_lazy);
                    errors += usize::from(error);
                }
                Ok((false, ..)) => failures.push(format!(
                    "{} ({kind}): the lazy conversion differs from the whole one",
                    path.display()
                )),
                Err(_) => failures.push(format!("{} ({kind}): panicked", path.display())),
            }
        }
    }
    println!(
        "lazy_parity: {runs} conversions of {} documents, {lazy} read lazily, {errors} errors (the same both ways), {} differences, {:.0} s",
        paths.len().div_ceil(every),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    corpus::exit_on(&failures);
}
