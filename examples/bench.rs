//! Conversion speed against the parse floor, measured in one run on real documents.
//!
//! ```sh
//! cargo run --release --example bench -- "$(../shared/corpus/fetch)" [NAME ...]
//! ```
//!
//! For each document (default: a fixed set from the shared corpus, largest first) it measures,
//! best of several runs taken in turns (floor, ours, floor, ours, ...: this machine's speed drifts
//! by up to 1.5x within minutes): (a) the floor, reading the file and parsing it into a
//! `serde_json::Value` (for YAML: into a `yaml_serde::Value`, the YAML parser's own work); (b) our
//! full conversion with default options, including writing the output to a new file. Neither
//! includes freeing its tree. It prints the ratio b/a, throughput (operations per second), the
//! time and ratio of two more ways of writing (regenerating over a file that already holds the
//! output, and replacing a file that differs), and the output size. Then it runs each side in a
//! process of its own (this binary as a child, in turns), as a build script runs the command:
//! the whole process is timed, starting it, the kernel's first touch of every page it uses, and
//! ending without freeing, and its peak memory is read from `/proc/self/status`. The two
//! measures differ most in the floor: in one long process, its trees reuse memory the previous
//! run freed; a fresh process takes every page from the kernel (for Kubernetes, about 30 ms
//! against 14).
//! The corpus has no large YAML document, so a few JSON ones are also benchmarked as YAML
//! (converted to YAML into a temporary folder first; rows marked `(yaml)`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The allocator the command line uses (see `src/main.rs`), for the floor as for ours: both
/// sides of every ratio run in this process, or in a child of this binary.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// The floor: read and parse, nothing else. The tree is handed back, to be freed outside the
/// timing as ours is (freeing a `serde_json` tree takes about as long as building it).
fn floor(path: &Path) -> Box<dyn std::any::Any> {
    let bytes = std::fs::read(path).expect("readable");
    if is_yaml(path) {
        let v: yaml_serde::Value = yaml_serde::from_slice(&bytes).expect("YAML");
        Box::new(v)
    } else {
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        Box::new(v)
    }
}

/// Run this binary as a child in `mode` (see `main`): the wall time from starting it to its
/// end, and the peak memory (KiB) it prints. The time is a whole process's, as a build script
/// sees a conversion: starting, reading, parsing (and converting and writing), and ending
/// without freeing; the kernel's work of first touching and of unmapping memory included.
fn child(mode: &str, args: &[&Path]) -> (Duration, u64) {
    let mut command = std::process::Command::new(std::env::current_exe().expect("self"));
    command.arg(mode).args(args);
    let (t, output) = time(|| command.output());
    let peak = output
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .expect("the child prints its peak memory");
    (t, peak)
}

/// The best time of `runs` runs of each of `timed`, run in turns (a, b, c, a, b, c, ...) so that
/// all meet the same moments of a noisy machine. Each returns the time of its timed part.
fn best_in_turns<const N: usize>(
    runs: usize,
    mut timed: [&mut dyn FnMut() -> Duration; N],
) -> [Duration; N] {
    let mut best = [Duration::MAX; N];
    for _ in 0..runs {
        for (b, f) in best.iter_mut().zip(timed.iter_mut()) {
            *b = (*b).min(f());
        }
    }
    best
}

/// The time of `f`.
fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed(), out)
}

/// What `openapi-mcp convert PATH -o OUT` does (tools built on a thread per core, written in
/// order on this one), timed: its time, operations and bytes written. The document and what
/// the conversion leaves to free are freed after the timing (as the command line skips freeing
/// them at exit), or, with `forget`, never.
fn convert_to(path: &Path, out: &Path, forget: bool) -> (Duration, usize, usize) {
    let t = Instant::now();
    let options = openapi_mcp::Options::default();
    let doc = openapi_mcp::load::load_file_lazy(path).expect("loads");
    let (summary, remains) = openapi_mcp::stream::convert_keeping(
        &doc,
        &options,
        None,
        openapi_mcp::emit::Shape::Mcp,
        Some(out),
        None,
    )
    .expect("converts");
    let elapsed = t.elapsed();
    let summary = summary.expect("a file is never closed early");
    let written = std::fs::metadata(out).map_or(0, |m| m.len() as usize);
    if forget {
        std::mem::forget(remains);
        std::mem::forget(doc);
    } else {
        drop(remains);
    }
    (elapsed, summary.operations, written)
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
    // Child modes: one conversion (or one floor parse), then report peak memory and end
    // without freeing, as the command line does.
    if args.first().map(String::as_str) == Some("--one") {
        convert_to(Path::new(&args[1]), Path::new(&args[2]), true);
        println!("{}", peak_rss_kib());
        return;
    }
    if args.first().map(String::as_str) == Some("--floor") {
        let tree = floor(Path::new(&args[1]));
        println!("{}", peak_rss_kib());
        std::mem::forget(tree);
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
        "| spec | ops | size MB | floor s | ours s | ratio | ops/s | unchanged s | ratio | replacing s | ratio | floor process s | our process s | ratio | floor peak MiB | peak MiB | peak/size | output MB |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, path) in docs {
        let Ok(meta) = std::fs::metadata(&path) else {
            eprintln!("skipped {name}: not found");
            continue;
        };
        let size = meta.len() as f64 / 1e6;
        let runs = if size > 20.0 { 3 } else { 7 };
        let mut last = (0, 0);
        let mut floor_run = || {
            let (t, tree) = time(|| floor(&path));
            drop(tree);
            t
        };
        // Ours, three ways: writing a new file (the output removed before, outside the timing);
        // regenerating over the same output (compared, left untouched); and replacing a file
        // that differs (the output with its first byte changed, written before).
        let mut new_file = || {
            let _ = std::fs::remove_file(&out);
            let (t, ops, written) = convert_to(&path, &out, false);
            last = (ops, written);
            t
        };
        let (floor_time, ours) = {
            let [a, b] = best_in_turns(runs, [&mut floor_run, &mut new_file]);
            (a, b)
        };
        let mut unchanged = || convert_to(&path, &out, false).0;
        let mut replacing = || {
            let mut old = std::fs::read(&out).expect("the output");
            old[0] ^= 1;
            std::fs::write(&out, old).expect("writes");
            convert_to(&path, &out, false).0
        };
        // The second round has the floor and ours again too, so that each is the best of as
        // many runs as the other (before, the floor alone was the best of twice as many).
        let [floor_again, ours_again, unchanged, replacing] = best_in_turns(
            runs,
            [
                &mut floor_run,
                &mut new_file,
                &mut unchanged,
                &mut replacing,
            ],
        );
        let floor_time = floor_time.min(floor_again);
        let ours = ours.min(ours_again);
        let (ops, out_bytes) = last;
        // Each in a process of its own, in turns: the floor, and a conversion to a new file.
        let (mut floor_peak, mut peak) = (0, 0);
        let mut floor_process = || {
            let (t, kib) = child("--floor", &[&path]);
            floor_peak = kib;
            t
        };
        let mut ours_process = || {
            let _ = std::fs::remove_file(&out);
            let (t, kib) = child("--one", &[&path, &out]);
            peak = kib;
            t
        };
        let [floor_process, ours_process] =
            best_in_turns(runs, [&mut floor_process, &mut ours_process]);
        let mib = |kib: u64| kib as f64 / 1024.0;
        let (floor_peak, peak) = (mib(floor_peak), mib(peak));
        let f = floor_time.as_secs_f64();
        let fp = floor_process.as_secs_f64();
        println!(
            "| {name} | {ops} | {size:.1} | {f:.3} | {:.3} | {:.2} | {:.0} | {:.3} | {:.2} | {:.3} | {:.2} | {fp:.3} | {:.3} | {:.2} | {floor_peak:.0} | {peak:.0} | {:.1} | {:.1} |",
            ours.as_secs_f64(),
            ours.as_secs_f64() / f,
            ops as f64 / ours.as_secs_f64(),
            unchanged.as_secs_f64(),
            unchanged.as_secs_f64() / f,
            replacing.as_secs_f64(),
            replacing.as_secs_f64() / f,
            ours_process.as_secs_f64(),
            ours_process.as_secs_f64() / fp,
            peak / (size / 1.048_576),
            out_bytes as f64 / 1e6,
        );
    }
}
