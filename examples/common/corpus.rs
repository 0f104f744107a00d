//! What the corpus examples share: their arguments (`CORPUS_DIR [--every K]`) and the JSON
//! documents under the folder, in path order.

use std::path::{Path, PathBuf};

/// The corpus folder and K of `--every K` (1 without it); exits with a usage line when the
/// folder is missing.
pub fn args(example: &str) -> (PathBuf, usize) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(root) = args.first() else {
        eprintln!("usage: {example} CORPUS_DIR [--every K]");
        std::process::exit(2);
    };
    let every = match args.iter().position(|a| a == "--every") {
        Some(i) => args.get(i + 1).and_then(|k| k.parse().ok()).unwrap_or(1),
        None => 1,
    };
    (PathBuf::from(root), every.max(1))
}

/// The `.json` files under `dir`, sorted.
pub fn documents(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// Print the first 20 of `failures`, and exit 1 if there are any.
pub fn exit_on(failures: &[String]) {
    for failure in failures.iter().take(20) {
        println!("  {failure}");
    }
    if !failures.is_empty() {
        std::process::exit(1);
    }
}
