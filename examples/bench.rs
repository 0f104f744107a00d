//! Conversion speed against the parse floor, measured in one run on real documents.
//!
//! ```sh
//! cargo run --release --example bench -- "$(../shared/corpus/fetch)" [NAME ...]
//! ```
//!
//! For each document (default: a fixed set from the shared corpus, largest first) it measures,
//! best of several runs: (a) the floor, reading the file and parsing it into a `serde_json::Value`;
//! (b) our full conversion including writing the pretty-printed output to a file. It prints the
//! ratio b/a, throughput (operations per second), peak memory of a conversion (run in a child
//! process of this binary, read from `/proc/self/status`), and the output size.

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
    "twilio.com/twilio_api_v2010.json",
    "slack.com.json",
];

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

fn convert_to(path: &Path, out: &Path) -> (usize, usize) {
    let c = openapi_mcp::convert_file(path, &openapi_mcp::Options::default()).expect("converts");
    let file = std::fs::File::create(out).expect("output file");
    let mut w = std::io::BufWriter::new(file);
    openapi_mcp::emit::write(&c.tools, openapi_mcp::emit::Format::Json, &mut w).expect("writes");
    drop(w);
    (
        c.operations,
        std::fs::metadata(out)
            .map(|m| m.len() as usize)
            .unwrap_or(0),
    )
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
    // Child mode: one conversion, then report peak memory.
    if args.first().map(String::as_str) == Some("--one") {
        convert_to(Path::new(&args[1]), Path::new(&args[2]));
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
    let out = std::env::temp_dir().join("openapi-mcp-bench.json");
    println!(
        "| spec | ops | size MB | floor s | ours s | ratio | ops/s | peak MiB | peak/size | output MB |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for name in names {
        let path = root.join(&name);
        let Ok(meta) = std::fs::metadata(&path) else {
            eprintln!("skipped {name}: not found");
            continue;
        };
        let size = meta.len() as f64 / 1e6;
        let runs = if size > 20.0 { 2 } else { 5 };
        let (floor, _) = best(runs, || {
            let bytes = std::fs::read(&path).expect("readable");
            serde_json::from_slice::<serde_json::Value>(&bytes).expect("JSON")
        });
        let (ours, (ops, out_bytes)) = best(runs, || convert_to(&path, &out));
        let peak: u64 = std::process::Command::new(std::env::current_exe().expect("self"))
            .arg("--one")
            .arg(&path)
            .arg(&out)
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(0);
        let peak_mib = peak as f64 / 1024.0;
        println!(
            "| {name} | {ops} | {size:.1} | {:.3} | {:.3} | {:.2} | {:.0} | {peak_mib:.0} | {:.1} | {:.1} |",
            floor.as_secs_f64(),
            ours.as_secs_f64(),
            ours.as_secs_f64() / floor.as_secs_f64(),
            ops as f64 / ours.as_secs_f64(),
            peak_mib / (size / 1.048_576),
            out_bytes as f64 / 1e6,
        );
    }
    let _ = std::fs::remove_file(out);
}
