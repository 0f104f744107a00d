//! Corpus sweep: convert every OpenAPI document (*.json, recursively) in a folder and check every
//! tool that comes out.
//!
//! ```text
//! cargo run --release --example sweep -- [CORPUS_DIR] [options]
//! ```
//!
//! CORPUS_DIR defaults to the output of `../shared/corpus/fetch`. Options:
//!
//! * `--sample-dir DIR`   write the `{"tools": [...]}` JSON of every `--sample-every`-th converted
//!   document (default 50) into DIR, for cross-checking with `validate_tools.py`;
//! * `--sample-every N`   see above;
//! * `--every K`          only sweep every K-th document (sorted by path);
//! * `--limit N`          stop after N documents (after `--every`);
//! * `--only SUBSTR`      only documents whose path contains SUBSTR;
//! * `--jobs N`           worker threads (default: available parallelism);
//! * `--mcp-schema FILE`  the MCP schema.json (default `../shared/mcp/schema/2025-11-25/schema.json`);
//! * `--no-build`         skip building a validator per inputSchema/outputSchema (the slow part);
//! * `--details FILE`     write every failure as one JSON object per line;
//! * `--patterns FILE`  write every distinct regex of the emitted schemas as JSON
//!   (`{"<regex>": ["<document>", ...]}`), to test them with other regex engines;
//! * `--top N`            how many reasons/examples to print per category (default 15);
//! * `--max-input-mb N`  skip (and list) documents larger than N MiB (default 0: no limit); the
//!   largest, microsoft.com/graph-beta.json (45 MiB), takes about 40 s and 2 GiB;
//! * `--verbose`          print each document as it starts (to find the culprit of an abort).
//!
//! Checks per document: it converts without panicking, and with default options there is one tool
//! per operation. Per tool: (a) it validates against `$defs/Tool` of the MCP schema; (b) its
//! inputSchema / outputSchema validate against the JSON Schema 2020-12 metaschema and a validator
//! can be built from them (bad regexes, unresolvable references...); (c) every `$ref` inside them
//! is a local fragment that resolves inside that same schema; (d) names are unique within the
//! document and match `^[A-Za-z0-9_-]{1,64}$`.
//!
//! Exits 1 if any document panicked, any tool is invalid or tools != operations somewhere.

use openapi_mcp::emit;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const DEFAULT_MCP_SCHEMA: &str = "../shared/mcp/schema/2025-11-25/schema.json";
/// Same stack as the CLI's main thread on Linux, so a stack overflow here is one there too.
const WORKER_STACK: usize = 8 << 20;

struct Args {
    corpus: Option<PathBuf>,
    sample_dir: Option<PathBuf>,
    sample_every: usize,
    every: usize,
    limit: Option<usize>,
    only: Option<String>,
    jobs: usize,
    mcp_schema: PathBuf,
    build: bool,
    details: Option<PathBuf>,
    top: usize,
    verbose: bool,
    max_input_mb: u64,
    patterns: Option<PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "usage: sweep [CORPUS_DIR] [--sample-dir DIR] [--sample-every N] [--every K] [--limit N] \
         [--only SUBSTR] [--jobs N] [--mcp-schema FILE] [--no-build] [--details FILE] [--patterns FILE] [--top N] [--max-input-mb N] [--verbose]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        corpus: None,
        sample_dir: None,
        sample_every: 50,
        every: 1,
        limit: None,
        only: None,
        jobs: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        mcp_schema: PathBuf::from(DEFAULT_MCP_SCHEMA),
        build: true,
        details: None,
        top: 15,
        verbose: false,
        max_input_mb: 0,
        patterns: None,
    };
    fn value(it: &mut impl Iterator<Item = String>, name: &str) -> String {
        it.next().unwrap_or_else(|| {
            eprintln!("sweep: {name} needs a value");
            usage()
        })
    }
    fn number(it: &mut impl Iterator<Item = String>, name: &str) -> usize {
        let v = value(it, name);
        v.parse().unwrap_or_else(|_| {
            eprintln!("sweep: {name} needs a number, got {v:?}");
            usage()
        })
    }
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--sample-dir" => a.sample_dir = Some(PathBuf::from(value(&mut it, "--sample-dir"))),
            "--sample-every" => a.sample_every = number(&mut it, "--sample-every").max(1),
            "--every" => a.every = number(&mut it, "--every").max(1),
            "--limit" => a.limit = Some(number(&mut it, "--limit")),
            "--only" => a.only = Some(value(&mut it, "--only")),
            "--jobs" => a.jobs = number(&mut it, "--jobs").max(1),
            "--mcp-schema" => a.mcp_schema = PathBuf::from(value(&mut it, "--mcp-schema")),
            "--details" => a.details = Some(PathBuf::from(value(&mut it, "--details"))),
            "--patterns" => a.patterns = Some(PathBuf::from(value(&mut it, "--patterns"))),
            "--top" => a.top = number(&mut it, "--top"),
            "--no-build" => a.build = false,
            "--max-input-mb" => a.max_input_mb = number(&mut it, "--max-input-mb") as u64,
            "--verbose" => a.verbose = true,
            "-h" | "--help" => usage(),
            s if s.starts_with('-') => {
                eprintln!("sweep: unknown option {s}");
                usage()
            }
            s if a.corpus.is_none() => a.corpus = Some(PathBuf::from(s)),
            s => {
                eprintln!("sweep: unexpected argument {s}");
                usage()
            }
        }
    }
    a
}

fn default_corpus() -> PathBuf {
    let out = Command::new("../shared/corpus/fetch").output().unwrap_or_else(|e| {
        eprintln!("sweep: cannot run ../shared/corpus/fetch ({e}); pass the corpus folder as first argument");
        std::process::exit(2)
    });
    if !out.status.success() {
        eprintln!(
            "sweep: ../shared/corpus/fetch failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::process::exit(2)
    }
    let text = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(text.lines().last().unwrap_or("").trim())
}

/// Every *.json under `dir`, sorted.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Panics: a hook that records the message in a thread-local instead of printing it.

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string panic payload)".to_string()
        };
        let loc = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg}{loc}")));
    }));
}

fn take_panic() -> String {
    LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_else(|| "(no message)".into())
}

// ---------------------------------------------------------------------------------------------
// Per-document results.

#[derive(Debug, Clone)]
struct Invalid {
    tool: String,
    check: &'static str,
    error: String,
}

enum Outcome {
    Unreadable(String),
    /// Larger than `--max-input-mb` (size in bytes).
    Skipped(u64),
    Refused {
        message: String,
        reason: String,
    },
    Panicked(String),
    Converted(Converted),
}

struct Converted {
    operations: usize,
    tools: usize,
    notices: Vec<String>,
    bytes: usize,
    /// The largest tool: (bytes, name).
    largest_tool: (usize, String),
    invalid: Vec<Invalid>,
    /// Tool names, only kept when tools != operations (for the report).
    names: Vec<String>,
    /// Distinct regexes (`pattern` values, `patternProperties` keys) in the emitted schemas,
    /// only collected with `--patterns`.
    patterns: BTreeSet<String>,
}

struct DocResult {
    index: usize,
    rel: String,
    outcome: Outcome,
    convert_time: Duration,
    check_time: Duration,
}

struct Checker {
    tool_validator: jsonschema::Validator,
    build: bool,
    patterns: jsonschema::PatternCache,
    collect_patterns: bool,
}

fn short(s: &str, n: usize) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() <= n {
        s
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}

fn verr(e: &jsonschema::ValidationError<'_>) -> String {
    let at = e.instance_path().as_str();
    let at = if at.is_empty() { "/" } else { at };
    short(
        &format!("{at}: {} [schema {}]", e.masked(), e.schema_path().as_str()),
        400,
    )
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Every `"$ref": "<string>"` in `v`, with the JSON pointer of the object holding it.
fn collect_refs<'a>(v: &'a Value, at: &mut String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push((at.clone(), r));
            }
            for (k, child) in m {
                let len = at.len();
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                collect_refs(child, at, out);
                at.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                collect_refs(child, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// Every regex a schema carries: `pattern` values and `patternProperties` keys. Keywords whose
/// values are data (`examples`, `default`, `const`, `enum`) are not searched, and the keys of
/// name -> schema maps are property names, not keywords.
fn collect_patterns(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                match (k.as_str(), child) {
                    ("pattern", Value::String(p)) => {
                        out.insert(p.clone());
                    }
                    ("patternProperties", Value::Object(pp)) => {
                        for (p, s) in pp {
                            out.insert(p.clone());
                            collect_patterns(s, out);
                        }
                    }
                    ("properties" | "$defs" | "dependentSchemas", Value::Object(map)) => {
                        map.values().for_each(|s| collect_patterns(s, out))
                    }
                    ("examples" | "default" | "const" | "enum", _) => {}
                    _ => collect_patterns(child, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|s| collect_patterns(s, out)),
        _ => {}
    }
}

fn resolves(schema: &Value, reference: &str) -> bool {
    let Some(fragment) = reference.strip_prefix('#') else {
        return false;
    };
    let Some(pointer) = percent_decode(fragment) else {
        return false;
    };
    // `Value::pointer` undoes ~1 and ~0 itself; "" is the whole document.
    (pointer.is_empty() || pointer.starts_with('/')) && schema.pointer(&pointer).is_some()
}

fn name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
}

impl Checker {
    fn check_tool(
        &self,
        t: &openapi_mcp::Tool,
        value: &Value,
        seen: &mut HashSet<String>,
        out: &mut Vec<Invalid>,
    ) {
        let mut bad = |check: &'static str, error: String| {
            out.push(Invalid {
                tool: t.name.clone(),
                check,
                error,
            })
        };
        if let Some(e) = self.tool_validator.iter_errors(value).next() {
            bad("mcp-tool-schema", verr(&e));
        }
        if !name_ok(&t.name) {
            bad(
                "name-pattern",
                format!("{:?} (len {})", t.name, t.name.len()),
            );
        }
        if !seen.insert(t.name.clone()) {
            bad("name-duplicate", format!("{:?} appears twice", t.name));
        }
        let input = t.input_schema.to_value();
        let output = t.output_schema.as_ref().map(|s| s.to_value());
        for (key, schema) in [("input", Some(&input)), ("output", output.as_ref())] {
            let Some(schema) = schema else { continue };
            let (meta, build, dangling) = match key {
                "input" => (
                    "input-metaschema",
                    "input-build-validator",
                    "input-dangling-ref",
                ),
                _ => (
                    "output-metaschema",
                    "output-build-validator",
                    "output-dangling-ref",
                ),
            };
            if let Some(s) = schema.get("$schema").and_then(Value::as_str)
                && !s.contains("2020-12")
            {
                bad(meta, format!("declares $schema {s:?}, not 2020-12"));
            }
            let meta_ok = match jsonschema::draft202012::meta::validator()
                .iter_errors(schema)
                .next()
            {
                Some(e) => {
                    bad(meta, verr(&e));
                    false
                }
                None => true,
            };
            let mut refs = Vec::new();
            collect_refs(schema, &mut String::new(), &mut refs);
            let broken: Vec<String> = refs
                .iter()
                .filter(|(_, r)| !resolves(schema, r))
                .map(|(at, r)| format!("{r} (at {})", if at.is_empty() { "/" } else { at }))
                .collect();
            if !broken.is_empty() {
                bad(
                    dangling,
                    short(
                        &format!(
                            "{} dangling: {}",
                            broken.len(),
                            broken[..broken.len().min(3)].join(", ")
                        ),
                        400,
                    ),
                );
            }
            // Building re-runs the metaschema check, so only build what passed it.
            if self.build && meta_ok {
                let built = jsonschema::draft202012::options()
                    .with_pattern_cache(self.patterns.clone())
                    .build(schema);
                if let Err(e) = built {
                    bad(build, verr(&e));
                }
            }
        }
    }
}

fn refusal_reason(e: &openapi_mcp::Error) -> String {
    match e {
        openapi_mcp::Error::Input { message, .. } => normalize(message),
        openapi_mcp::Error::Io { .. } => "I/O error".into(),
        openapi_mcp::Error::Usage(m) => format!("usage: {}", normalize(m)),
        other => normalize(&other.to_string()),
    }
}

/// Group messages: quoted values -> "…", JSON pointers / URLs -> <ref>, digit runs -> N.
fn normalize(m: &str) -> String {
    let mut out = String::new();
    let mut words = Vec::new();
    // Quoted (Debug-formatted) strings first.
    let mut chars = m.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' {
            let mut esc = false;
            for d in chars.by_ref() {
                if esc {
                    esc = false;
                } else if d == '\\' {
                    esc = true;
                } else if d == '"' {
                    break;
                }
            }
            out.push_str("\"…\"");
        } else {
            out.push(c);
        }
    }
    for w in out.split(' ') {
        let trimmed = w.trim_end_matches([',', ';', ')', '.']);
        if trimmed.starts_with('#')
            || trimmed.contains("://")
            || trimmed.contains(".json")
            || trimmed.contains(".yaml")
        {
            words.push("<ref>".to_string());
        } else {
            let mut s = String::new();
            let mut last_digit = false;
            for c in w.chars() {
                if c.is_ascii_digit() {
                    if !last_digit {
                        s.push('N');
                    }
                    last_digit = true;
                } else {
                    s.push(c);
                    last_digit = false;
                }
            }
            words.push(s);
        }
    }
    words.join(" ")
}

/// `emit::render(tools, Json)` is `rendered_len_frame(n)` plus `rendered_len_tool` of each tool,
/// computed without building the whole text: the frame around `n` tools (one a line)...
fn rendered_len_frame(n: usize) -> usize {
    if n == 0 {
        return "{\"tools\":[]}\n".len();
    }
    "{\"tools\":[\n".len() + "\n]}\n".len() + (n - 1) * ",\n".len()
}

/// ...and one tool in compact JSON.
fn rendered_len_tool(tool: &Value) -> usize {
    serde_json::to_string(tool).map_or(0, |t| t.len())
}

fn sample_name(rel: &str) -> String {
    rel.replace(['/', '\\'], "__")
}

fn process(
    index: usize,
    path: &Path,
    rel: &str,
    checker: &Checker,
    sample_dir: Option<&Path>,
    sample: bool,
    max_input: u64,
) -> DocResult {
    let started = Instant::now();
    if let Ok(meta) = std::fs::metadata(path)
        && max_input > 0
        && meta.len() > max_input
    {
        return DocResult {
            index,
            rel: rel.into(),
            outcome: Outcome::Skipped(meta.len()),
            convert_time: Duration::ZERO,
            check_time: Duration::ZERO,
        };
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return DocResult {
                index,
                rel: rel.into(),
                outcome: Outcome::Unreadable(e.to_string()),
                convert_time: started.elapsed(),
                check_time: Duration::ZERO,
            };
        }
    };
    let options = openapi_mcp::Options::default();
    let converted = panic::catch_unwind(AssertUnwindSafe(|| {
        openapi_mcp::convert_bytes(rel, &bytes, &options)
    }));
    let convert_time = started.elapsed();
    let conv = match converted {
        Err(_) => {
            return DocResult {
                index,
                rel: rel.into(),
                outcome: Outcome::Panicked(take_panic()),
                convert_time,
                check_time: Duration::ZERO,
            };
        }
        Ok(Err(e)) => {
            return DocResult {
                index,
                rel: rel.into(),
                outcome: Outcome::Refused {
                    reason: refusal_reason(&e),
                    message: e.to_string(),
                },
                convert_time,
                check_time: Duration::ZERO,
            };
        }
        Ok(Ok(c)) => c,
    };
    let check_started = Instant::now();
    let mut invalid = Vec::new();
    let mut seen = HashSet::new();
    // The output size is summed tool by tool (see `rendered_len`) so a huge document is never
    // held twice in memory; sampled documents are rendered for real and the two must agree.
    let mut bytes_out = rendered_len_frame(conv.tools.len());
    let mut largest_tool = (0, String::new());
    for t in &conv.tools {
        let value = emit::tool_json(t);
        let size = rendered_len_tool(&value);
        bytes_out += size;
        if size > largest_tool.0 {
            largest_tool = (size, t.name.clone());
        }
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut local = Vec::new();
            checker.check_tool(t, &value, &mut seen, &mut local);
            local
        }));
        match r {
            Ok(local) => invalid.extend(local),
            Err(_) => invalid.push(Invalid {
                tool: t.name.clone(),
                check: "checker-panic",
                error: take_panic(),
            }),
        }
    }
    if sample
        && !conv.tools.is_empty()
        && let Some(dir) = sample_dir
    {
        match panic::catch_unwind(AssertUnwindSafe(|| {
            emit::render(&conv.tools, emit::Format::Json)
        })) {
            Ok(Ok(text)) => {
                if text.len() != bytes_out {
                    eprintln!(
                        "sweep: {rel}: computed output size {bytes_out} != rendered {}",
                        text.len()
                    );
                    bytes_out = text.len();
                }
                let _ = std::fs::write(dir.join(sample_name(rel)), &text);
            }
            Ok(Err(e)) => invalid.push(Invalid {
                tool: "(document)".into(),
                check: "render-error",
                error: e.to_string(),
            }),
            Err(_) => invalid.push(Invalid {
                tool: "(document)".into(),
                check: "render-panic",
                error: take_panic(),
            }),
        }
    }
    let mut patterns = BTreeSet::new();
    if checker.collect_patterns {
        for t in &conv.tools {
            collect_patterns(&t.input_schema.to_value(), &mut patterns);
            if let Some(o) = &t.output_schema {
                collect_patterns(&o.to_value(), &mut patterns);
            }
        }
    }
    let names = if conv.tools.len() != conv.operations {
        conv.tools.iter().map(|t| t.name.clone()).collect()
    } else {
        Vec::new()
    };
    DocResult {
        index,
        rel: rel.into(),
        outcome: Outcome::Converted(Converted {
            operations: conv.operations,
            tools: conv.tools.len(),
            notices: conv.notices,
            bytes: bytes_out,
            largest_tool,
            invalid,
            names,
            patterns,
        }),
        convert_time,
        check_time: check_started.elapsed(),
    }
}

#[derive(Default)]
struct Tally {
    count: usize,
    docs: std::collections::BTreeSet<String>,
    examples: Vec<(String, String, String)>,
}

fn main() -> ExitCode {
    let wall = Instant::now();
    let args = parse_args();
    let corpus = args.corpus.clone().unwrap_or_else(default_corpus);
    let mut files = Vec::new();
    if let Err(e) = walk(&corpus, &mut files) {
        eprintln!("sweep: cannot read {}: {e}", corpus.display());
        return ExitCode::from(2);
    }
    files.sort();
    let found = files.len();
    let mut files: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| {
            args.only
                .as_ref()
                .is_none_or(|s| p.to_string_lossy().contains(s.as_str()))
        })
        .step_by(args.every)
        .collect();
    if let Some(n) = args.limit {
        files.truncate(n);
    }
    if let Some(dir) = &args.sample_dir
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        eprintln!("sweep: cannot create {}: {e}", dir.display());
        return ExitCode::from(2);
    }

    let mcp: Value = match std::fs::read(&args.mcp_schema)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            eprintln!(
                "sweep: cannot read MCP schema {}: {e}",
                args.mcp_schema.display()
            );
            return ExitCode::from(2);
        }
    };
    let defs = if mcp.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    let mut root = mcp.clone();
    root["$ref"] = json!(format!("#/{defs}/Tool"));
    let tool_validator = match jsonschema::validator_for(&root) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("sweep: cannot build the MCP Tool validator: {e}");
            return ExitCode::from(2);
        }
    };
    let checker = Arc::new(Checker {
        tool_validator,
        build: args.build,
        patterns: jsonschema::PatternCache::new(),
        collect_patterns: args.patterns.is_some(),
    });
    install_panic_hook();

    eprintln!(
        "sweep: {} documents found under {}, sweeping {} with {} thread(s){}",
        found,
        corpus.display(),
        files.len(),
        args.jobs,
        if args.build {
            ""
        } else {
            " (--no-build: validators not built)"
        }
    );
    // Largest documents first, so no thread is left with a big one at the end; results are put
    // back in path order for the report.
    let mut order: Vec<(u64, usize)> = files
        .iter()
        .enumerate()
        .map(|(i, p)| (std::fs::metadata(p).map_or(0, |m| m.len()), i))
        .collect();
    order.sort_by_key(|&(size, i)| (std::cmp::Reverse(size), i));
    let order: Arc<Vec<usize>> = Arc::new(order.into_iter().map(|(_, i)| i).collect());
    let files = Arc::new(files);
    let next = Arc::new(AtomicUsize::new(0));
    let results = Arc::new(Mutex::new(Vec::with_capacity(files.len())));
    let done = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::new();
    for _ in 0..args.jobs {
        let (files, order, next, results, done, checker) = (
            files.clone(),
            order.clone(),
            next.clone(),
            results.clone(),
            done.clone(),
            checker.clone(),
        );
        let corpus = corpus.clone();
        let sample_dir = args.sample_dir.clone();
        let (verbose, sample_every) = (args.verbose, args.sample_every);
        let max_input = args.max_input_mb << 20;
        let h = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn(move || {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let path = &files[i];
                    let rel = path
                        .strip_prefix(&corpus)
                        .unwrap_or(path)
                        .to_string_lossy()
                        .into_owned();
                    if verbose {
                        eprintln!("[{i}] {rel}");
                    }
                    let r = process(
                        i,
                        path,
                        &rel,
                        &checker,
                        sample_dir.as_deref(),
                        i % sample_every == 0,
                        max_input,
                    );
                    results.lock().unwrap().push(r);
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if n % 250 == 0 {
                        eprintln!("sweep: {n}/{} ({:.0?})", files.len(), wall.elapsed());
                    }
                }
            })
            .expect("spawn worker");
        handles.push(h);
    }
    for h in handles {
        h.join().expect("worker thread died");
    }
    let mut results = std::mem::take(&mut *results.lock().unwrap());
    results.sort_by_key(|r| r.index);
    report(&args, found, &results, wall.elapsed())
}

fn report(args: &Args, found: usize, results: &[DocResult], wall: Duration) -> ExitCode {
    let top = args.top;
    let mut details: Option<std::io::BufWriter<std::fs::File>> = args
        .details
        .as_ref()
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("create --details file")));
    let mut detail = |v: Value| {
        if let Some(w) = details.as_mut() {
            let _ = writeln!(w, "{v}");
        }
    };

    let (mut converted, mut refused, mut panicked, mut unreadable) = (0, 0, 0, 0);
    let mut skipped = Vec::new();
    let (mut ops_total, mut tools_total, mut bytes_total) = (0usize, 0usize, 0usize);
    let mut largest: Vec<(usize, &str, usize)> = Vec::new();
    let mut largest_tools: Vec<(usize, &str, &str)> = Vec::new();
    let mut refusals: BTreeMap<String, Tally> = BTreeMap::new();
    let mut checks: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut mismatches = Vec::new();
    let mut panics = Vec::new();
    let mut invalid_tools = 0usize;
    let mut invalid_docs = 0usize;
    let mut notices: BTreeMap<String, usize> = BTreeMap::new();
    let (mut convert_time, mut check_time) = (Duration::ZERO, Duration::ZERO);
    let mut slowest: Vec<(Duration, Duration, &str)> = Vec::new();
    let mut zero_tool_docs = 0;
    let mut all_patterns: BTreeMap<&str, Vec<&str>> = BTreeMap::new();

    for r in results {
        convert_time += r.convert_time;
        check_time += r.check_time;
        slowest.push((r.convert_time + r.check_time, r.convert_time, &r.rel));
        match &r.outcome {
            Outcome::Unreadable(e) => {
                unreadable += 1;
                eprintln!("unreadable: {}: {e}", r.rel);
                detail(json!({"kind": "unreadable", "file": r.rel, "error": e}));
            }
            Outcome::Skipped(size) => {
                skipped.push((r.rel.as_str(), *size));
                detail(json!({"kind": "skipped", "file": r.rel, "bytes": size}));
            }
            Outcome::Refused { message, reason } => {
                refused += 1;
                let t = refusals.entry(reason.clone()).or_default();
                t.count += 1;
                t.docs.insert(r.rel.clone());
                if t.examples.len() < 3 {
                    t.examples
                        .push((r.rel.clone(), String::new(), message.clone()));
                }
                detail(
                    json!({"kind": "refused", "file": r.rel, "reason": reason, "error": message}),
                );
            }
            Outcome::Panicked(m) => {
                panicked += 1;
                panics.push((r.rel.as_str(), m.as_str()));
                detail(json!({"kind": "panic", "file": r.rel, "error": m}));
            }
            Outcome::Converted(c) => {
                converted += 1;
                for p in &c.patterns {
                    all_patterns.entry(p).or_default().push(&r.rel);
                }
                ops_total += c.operations;
                tools_total += c.tools;
                bytes_total += c.bytes;
                if c.tools == 0 {
                    zero_tool_docs += 1;
                }
                largest.push((c.bytes, &r.rel, c.tools));
                largest_tools.push((c.largest_tool.0, &r.rel, &c.largest_tool.1));
                for n in &c.notices {
                    let key = normalize(n.split_once(": ").map_or(n.as_str(), |(_, m)| m));
                    *notices.entry(key).or_default() += 1;
                }
                if c.operations != c.tools {
                    mismatches.push((r.rel.as_str(), c.operations, c.tools));
                    detail(
                        json!({"kind": "tools-ne-operations", "file": r.rel, "operations": c.operations,
                        "tools": c.tools, "names": c.names}),
                    );
                }
                let mut bad_names = HashSet::new();
                for i in &c.invalid {
                    bad_names.insert(i.tool.as_str());
                    let t = checks.entry(i.check).or_default();
                    t.count += 1;
                    if !t.docs.contains(&r.rel) && t.examples.len() < 3 {
                        t.examples
                            .push((r.rel.clone(), i.tool.clone(), i.error.clone()));
                    }
                    t.docs.insert(r.rel.clone());
                    detail(
                        json!({"kind": "invalid-tool", "file": r.rel, "tool": i.tool, "check": i.check,
                        "error": i.error}),
                    );
                }
                invalid_tools += bad_names.len();
                invalid_docs += usize::from(!bad_names.is_empty());
            }
        }
    }

    println!("== sweep summary ==");
    println!("documents found:      {found}");
    println!("documents swept:      {}", results.len());
    println!("  converted:          {converted} ({zero_tool_docs} of them with no tools)");
    println!("  refused (Err):      {refused}");
    println!("  panicked:           {panicked}");
    if unreadable > 0 {
        println!("  unreadable:         {unreadable}");
    }
    if !skipped.is_empty() {
        println!(
            "  skipped (> {} MiB):  {} (not converted; --max-input-mb 0 to include)",
            args.max_input_mb,
            skipped.len()
        );
        for (f, size) in &skipped {
            println!("      {f} ({:.1} MiB)", *size as f64 / 1048576.0);
        }
    }
    println!("operations present:   {ops_total}");
    println!("tools emitted:        {tools_total}");
    println!("documents with tools != operations: {}", mismatches.len());
    println!("invalid tools:        {invalid_tools} (in {invalid_docs} documents)");
    println!(
        "total output bytes:   {bytes_total} ({:.1} MiB)",
        bytes_total as f64 / 1048576.0
    );
    largest.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (i, (b, f, n)) in largest.iter().take(5).enumerate() {
        println!(
            "{}{b} bytes ({:.1} MiB, {n} tools, {:.0} KiB/tool): {f}",
            if i == 0 {
                "largest outputs:      "
            } else {
                "                      "
            },
            *b as f64 / 1048576.0,
            *b as f64 / 1024.0 / (*n).max(1) as f64
        );
    }
    println!(
        "mean tool size:       {} bytes",
        bytes_total / tools_total.max(1)
    );
    largest_tools.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (i, (b, f, name)) in largest_tools.iter().take(5).enumerate() {
        println!(
            "{}{b} bytes ({:.0} KiB): {name} in {f}",
            if i == 0 {
                "largest tools:        "
            } else {
                "                      "
            },
            *b as f64 / 1024.0
        );
    }
    println!(
        "wall time:            {:.1?} (cpu: convert {:.1?}, check {:.1?}; {} thread(s){})",
        wall,
        convert_time,
        check_time,
        args.jobs,
        if args.build { "" } else { ", --no-build" }
    );

    if !refusals.is_empty() {
        println!("\n== refusal reasons ({} distinct) ==", refusals.len());
        let mut v: Vec<_> = refusals.iter().collect();
        v.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        for (reason, t) in v.iter().take(top) {
            println!("{:5}  {}", t.count, short(reason, 200));
            for (f, _, m) in t.examples.iter().take(1) {
                println!("       e.g. {f}\n            {}", short(m, 300));
            }
        }
        if v.len() > top {
            println!(
                "  ... and {} more reasons ({} documents)",
                v.len() - top,
                v[top..].iter().map(|x| x.1.count).sum::<usize>()
            );
        }
    }
    if !panics.is_empty() {
        println!("\n== panics ({}) ==", panics.len());
        for (f, m) in &panics {
            println!("  {f}\n      {}", short(m, 300));
        }
    }
    if !mismatches.is_empty() {
        println!(
            "\n== tools != operations ({} documents) ==",
            mismatches.len()
        );
        for (f, o, t) in &mismatches {
            println!("  {f}: {o} operations, {t} tools");
        }
    }
    if !checks.is_empty() {
        println!("\n== invalid tools by check (a tool can fail several) ==");
        let mut v: Vec<_> = checks.iter().collect();
        v.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        for (check, t) in v {
            println!(
                "{:6} tools in {:4} documents  {check}",
                t.count,
                t.docs.len()
            );
            for (f, tool, e) in t.examples.iter().take(top.min(3)) {
                println!("       {f} :: {tool}\n           {}", short(e, 300));
            }
        }
    }
    if !notices.is_empty() {
        println!("\n== notices (not failures) ==");
        for (n, c) in &notices {
            println!("{c:5}  {}", short(n, 200));
        }
    }
    slowest.sort_by_key(|s| std::cmp::Reverse(s.0));
    println!("\n== slowest documents (convert + check) ==");
    for (total, conv, f) in slowest.iter().take(5) {
        println!("  {total:>9.2?} (convert {conv:.2?})  {f}");
    }
    if let Some(w) = details.as_mut() {
        let _ = w.flush();
    }

    if let Some(path) = &args.patterns {
        let text = serde_json::to_string_pretty(&all_patterns).unwrap_or_default();
        match std::fs::write(path, text) {
            Ok(()) => eprintln!(
                "sweep: {} distinct regexes written to {}",
                all_patterns.len(),
                path.display()
            ),
            Err(e) => eprintln!("sweep: cannot write {}: {e}", path.display()),
        }
    }
    let failed = panicked > 0 || invalid_tools > 0 || !mismatches.is_empty();
    println!("\nresult: {}", if failed { "FAIL" } else { "ok" });
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
