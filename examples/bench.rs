//! Conversion speed against the parse floor, each side a whole process, as a build script runs
//! the command.
//!
//! ```sh
//! cargo build --release && cargo run --release --example bench -- "$(../shared/corpus/fetch)" [NAME ...]
//! ```
//!
//! For each document (default: a fixed set from the shared corpus, largest first) it runs, in
//! turns (this machine's speed drifts within minutes, so both sides meet the same moments):
//! the floor, a process that reads the file and parses it into a `serde_json::Value` (this
//! binary with `--floor`; for YAML, into a `yaml_serde::Value`), and `openapi-mcp convert FILE
//! -o OUT` (`target/release/openapi-mcp`, or the binary named by `OPENAPI_MCP_BIN`, so that an
//! older build can be measured against the same floor). Each side's time is its best of several
//! runs, from starting the process to its end. Peak memory comes from `/usr/bin/time -f %M`
//! where that exists. Neither side frees its tree before exiting.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The command line's allocator (see `src/main.rs`), for the floor as for the conversion.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DEFAULT: &[&str] = &[
    "microsoft.com/graph-beta.json",
    "microsoft.com/graph.json",
    "kubernetes.io.json",
    "github.com/api.github.com.json",
    "amazonaws.com/ec2.json",
    "stripe.com.json",
    "slack.com.json",
];

/// The floor: read and parse, nothing else; the tree is never freed.
fn floor(path: &Path) {
    let bytes = std::fs::read(path).expect("readable");
    if path.extension().is_some_and(|e| e == "yaml") {
        let v: yaml_serde::Value = yaml_serde::from_slice(&bytes).expect("YAML");
        std::mem::forget(v);
    } else {
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        std::mem::forget(v);
    }
}

/// Run `command` to its end: its wall time, and its peak memory in KiB and CPU time (user and
/// system) in seconds when measured by `/usr/bin/time` (the command is then run under it).
fn run(program: &Path, args: &[&Path]) -> (Duration, Option<(u64, f64)>) {
    let timed = Path::new("/usr/bin/time").exists();
    let mut command = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M %U %S"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    command.args(args);
    let start = Instant::now();
    let output = command.output().expect("runs");
    let elapsed = start.elapsed();
    assert!(
        output.status.success(),
        "{} failed: {}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let measured = timed
        .then(|| {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let mut fields = stderr.lines().last()?.split_whitespace();
            let peak = fields.next()?.parse().ok()?;
            let user: f64 = fields.next()?.parse().ok()?;
            let system: f64 = fields.next()?.parse().ok()?;
            Some((peak, user + system))
        })
        .flatten();
    (elapsed, measured)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--floor") {
        floor(Path::new(&args[1]));
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
    let binary = std::env::var_os("OPENAPI_MCP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/release/openapi-mcp"));
    assert!(
        binary.exists(),
        "{} is missing: cargo build --release",
        binary.display()
    );
    let me = std::env::current_exe().expect("self");
    let tmp = tempfile::tempdir().expect("temporary folder");
    let out = tmp.path().join("out.json");
    println!("binary: {}", binary.display());
    println!(
        "| spec | size MB | floor s | ours s | ratio | floor CPU s | ours CPU s | floor peak MiB | peak MiB | peak/size | output MB |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for name in names {
        let path = root.join(&name);
        let Ok(meta) = std::fs::metadata(&path) else {
            eprintln!("skipped {name}: not found");
            continue;
        };
        let size = meta.len() as f64 / 1e6;
        let runs = if size > 20.0 { 5 } else { 11 };
        let (mut floor_best, mut ours_best) = (Duration::MAX, Duration::MAX);
        let (mut floor_peak, mut peak) = (0, 0);
        // The least CPU time of any run, each side.
        let (mut floor_cpu, mut ours_cpu) = (f64::MAX, f64::MAX);
        for _ in 0..runs {
            let (t, m) = run(&me, &[Path::new("--floor"), &path]);
            floor_best = floor_best.min(t);
            if let Some((p, cpu)) = m {
                floor_peak = floor_peak.max(p);
                floor_cpu = floor_cpu.min(cpu);
            }
            let _ = std::fs::remove_file(&out);
            let (t, m) = run(
                &binary,
                &[Path::new("convert"), &path, Path::new("-o"), &out],
            );
            ours_best = ours_best.min(t);
            if let Some((p, cpu)) = m {
                peak = peak.max(p);
                ours_cpu = ours_cpu.min(cpu);
            }
        }
        let written = std::fs::metadata(&out).map_or(0, |m| m.len()) as f64 / 1e6;
        let mib = |kib: u64| kib as f64 / 1024.0;
        let (f, o) = (floor_best.as_secs_f64(), ours_best.as_secs_f64());
        println!(
            "| {name} | {size:.1} | {f:.3} | {o:.3} | {:.2} | {floor_cpu:.2} | {ours_cpu:.2} | {:.0} | {:.0} | {:.1} | {written:.1} |",
            o / f,
            mib(floor_peak),
            mib(peak),
            mib(peak) / (size / 1.048_576),
        );
    }
}
