//! Conversion speed against the parse floor, measured in one run on real documents.
//!
//! ```sh
//! cargo run --release --example bench -- "$(../shared/corpus/fetch)" [NAME ...]
//! ```
//!
//! For each document (default: a fixed set from the shared corpus, largest first) it measures,
//! best of several runs taken in turns (floor, ours, floor, ours, ...: this machine's speed drifts
//! by up to 1.5x within minutes): (a) the floor, reading the file and parsing it into a `serde_json::Value`
//! (for YAML: into a `yaml_serde::Value`, the YAML parser's own work); (b) our full conversion with
//! default options, including writing the output to a file. It prints the ratio b/a, throughput
//! (operations per second), peak memory of the floor and of a conversion (each run in a child
//! process of this binary, read from `/proc/self/status`), and the output size. The corpus has no
//! large YAML document, so a few JSON ones are also benchmarked as YAML (converted to YAML into a
//! temporary folder first; rows marked `(yaml)`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const DEFAULT: &[&str] = &[
    "microsoft.com/graph-beta.json",
    "microsoft.com/graph.json",
    "kubernetes.io.json",
    "github.com/api.github.com.json",
    "amazonaws.com/ec2.json",
    "autotask.net.json",
    "stripe.com.json",
    "slack.com.json",
];

/// Documents also measured as YAML.
const AS_YAML: &[&str] = &[
    "microsoft.com/graph.json",
    "kubernetes.io.json",
    "stripe.com.json",
];

fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml")
}

/// The floor: read and parse, nothing else.
fn floor(path: &Path) -> usize {
    let bytes = std::fs::read(path).expect("readable");
    if is_yaml(path) {
        let v: yaml_serde::Value = yaml_serde::from_slice(&bytes).expect("YAML");
        std::hint::black_box(&v);
        bytes.len()
    } else {
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        std::hint::black_box(&v);
        bytes.len()
    }
}

/// Run this binary as a child in `mode` and read the peak memory (KiB) it prints.
fn child_peak(mode: &str, args: &[&Path]) -> u64 {
    std::process::Command::new(std::env::current_exe().expect("self"))
        .arg(mode)
        .args(args)
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(0)
}

/// The best time of `runs` runs of `a` and of `b`, run in turns (a, b, a, b, ...) so that both
/// meet the same moments of a noisy machine; and `b`'s last result.
fn best_of_both<T>(
    runs: usize,
    mut a: impl FnMut() -> usize,
    mut b: impl FnMut() -> T,
) -> (Duration, Duration, T) {
    let (mut best_a, mut best_b, mut last) = (Duration::MAX, Duration::MAX, None);
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(a());
        best_a = best_a.min(t.elapsed());
        let t = Instant::now();
        let out = b();
        best_b = best_b.min(t.elapsed());
        last = Some(out);
    }
    (best_a, best_b, last.expect("at least one run"))
}

/// What `openapi-mcp convert PATH -o OUT` does (tools built on a thread per core, written in
/// order on this one). The document and the definitions the tools shared are returned so that
/// the caller frees them outside the timed part, as the command line skips freeing them at exit.
fn convert_to(path: &Path, out: &Path) -> (usize, usize, impl Sized) {
    let doc = openapi_mcp::load::load_file_lazy(path).expect("loads");
    let (summary, definitions) = openapi_mcp::stream::convert_keeping(
        &doc,
        &openapi_mcp::Options::default(),
        None,
        openapi_mcp::emit::Shape::Mcp,
        Some(out),
        None,
    )
    .expect("converts");
    let summary = summary.expect("a file is never closed early");
    let written = std::fs::metadata(out).map_or(0, |m| m.len() as usize);
    (summary.operations, written, (doc, definitions))
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Child modes: one conversion (or one floor parse), then report peak memory.
    if args.first().map(String::as_str) == Some("--one") {
        convert_to(Path::new(&args[1]), Path::new(&args[2]));
        println!("{}", peak_rss_kib());
        return;
    }
    if args.first().map(String::as_str) == Some("--floor") {
        floor(Path::new(&args[1]));
        println!("{}", peak_rss_kib());
        return;
    }
    let Some(root) = args.first().map(PathBuf::from) else {
        eprintln!("usage: bench CORPUS_DIR [NAME ...]");
        std::process::exit(2);
    };
    let names: Vec<String> = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        DEFAULT.iter().map(|s| s.to_string()).collect()
    };
    let tmp = tempfile::tempdir().expect("temporary folder");
    let out = tmp.path().join("out.json");
    let mut docs: Vec<(String, PathBuf)> =
        names.iter().map(|n| (n.clone(), root.join(n))).collect();
    if args.len() == 1 {
        for name in AS_YAML {
            let Ok(bytes) = std::fs::read(root.join(name)) else {
                continue;
            };
            let value: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
            let yaml = tmp
                .path()
                .join(name.replace('/', "_"))
                .with_extension("yaml");
            std::fs::write(&yaml, yaml_serde::to_string(&value).expect("YAML")).expect("writes");
            docs.push((format!("{name} (yaml)"), yaml));
        }
    }
    println!(
        "| spec | ops | size MB | floor s | ours s | ratio | ops/s | floor peak MiB | peak MiB | peak/size | output MB |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, path) in docs {
        let Ok(meta) = std::fs::metadata(&path) else {
            eprintln!("skipped {name}: not found");
            continue;
        };
        let size = meta.len() as f64 / 1e6;
        let runs = if size > 20.0 { 3 } else { 7 };
        let (floor_time, ours, (ops, out_bytes, _)) =
            best_of_both(runs, || floor(&path), || convert_to(&path, &out));
        let mib = |kib: u64| kib as f64 / 1024.0;
        let floor_peak = mib(child_peak("--floor", &[&path]));
        let peak = mib(child_peak("--one", &[&path, &out]));
        println!(
            "| {name} | {ops} | {size:.1} | {:.3} | {:.3} | {:.2} | {:.0} | {floor_peak:.0} | {peak:.0} | {:.1} | {:.1} |",
            floor_time.as_secs_f64(),
            ours.as_secs_f64(),
            ours.as_secs_f64() / floor_time.as_secs_f64(),
            ops as f64 / ours.as_secs_f64(),
            peak / (size / 1.048_576),
            out_bytes as f64 / 1e6,
        );
    }
}
