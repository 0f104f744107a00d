//! Commands: what each command line command does with its arguments (`cli`). `main` only calls
//! [`run`].

use crate::cli::*;
use openapi_mcp::Options;
use openapi_mcp::error::{Error, Result};
use openapi_mcp::output::emit::{self, Format, Shape};
use openapi_mcp::output::{self, print};
use openapi_mcp::read::{self, Document};
use openapi_mcp::review::{self, HintsFile, lint};
use std::path::{Path, PathBuf};

/// Run the command line; returns the process exit code. `convert` does not free the parsed
/// document and tools at the end (the process exits next).
pub fn run(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Convert(args) => convert(&args),
        Command::Hints(args) => hints(&args),
        Command::Lint(args) => lint(&args),
        Command::Review(args) => review(&args),
        Command::Search(args) => search(&args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => openapi_mcp::serve::run(&args.options()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("openapi-mcp: error: {e}");
            2
        }
    }
}

/// Read SPEC (`-` is standard input) as bytes, with the name used in messages.
fn read_spec(spec: &str) -> Result<(String, Vec<u8>)> {
    if spec == "-" {
        let bytes = read::file::read_capped(std::io::stdin(), 0).map_err(|source| Error::Io {
            path: PathBuf::from("<stdin>"),
            source,
        })?;
        Ok(("<stdin>".into(), bytes))
    } else {
        let bytes = read::file::read(Path::new(spec)).map_err(|source| Error::Io {
            path: PathBuf::from(spec),
            source,
        })?;
        Ok((spec.to_string(), bytes))
    }
}

/// Read SPEC (`-` is standard input) into a document.
fn read_document(spec: &str, read: &ReadArgs) -> Result<Document> {
    if spec == "-" {
        let (name, bytes) = read_spec(spec)?;
        read::parse(&name, &bytes)
    } else {
        read::load_file_in(Path::new(spec), read.ref_root.as_deref())
    }
}

/// An error if `output` is one of `inputs` (the same file, by whatever path): writing it would
/// replace the document or the hints the run reads with tools.
fn refuse_overwriting<'p>(output: &Path, inputs: impl Iterator<Item = &'p Path>) -> Result<()> {
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(());
    };
    for input in inputs {
        if let Ok(meta) = std::fs::metadata(input)
            && same_file(&out, &meta, output, input)
        {
            return Err(Error::Usage(format!(
                "-o {} is the file the run reads ({}); writing it would replace that file \
                 with tools",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata, _: &Path, _: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata, a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// `n` and the noun for it: "1 entry", "2 entries".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Convert a document, print its notes, and apply a hints file when given.
fn convert_loaded(
    doc: &Document,
    options: &Options,
    hints: Option<&HintsFile>,
) -> Result<openapi_mcp::Conversion> {
    let conversion = openapi_mcp::convert_with(doc, options, hints)?;
    for n in &conversion.notices {
        eprintln!("openapi-mcp: note: {n}");
    }
    Ok(conversion)
}

/// `convert`, run on rayon's pool: the thread that reads the document and writes the tools is one
/// of those that parse its parts and build tools, not another thread that sleeps while they work
/// and wakes them in turn (see README, "Speed").
fn convert(args: &ConvertArgs) -> Result<i32> {
    // The main thread's stack, not rayon's smaller default: reading a deeply nested document
    // recurses, and it used to run on the main thread.
    let _ = rayon::ThreadPoolBuilder::new()
        .stack_size(8 << 20)
        .build_global();
    // `scope` runs its closure on a pool thread (nothing is spawned into it).
    rayon::scope(|_| convert_on_pool(args))
}

fn convert_on_pool(args: &ConvertArgs) -> Result<i32> {
    if let Some(out) = &args.output
        && !args.check
    {
        let inputs = [
            (args.spec != "-").then(|| Path::new(&args.spec)),
            args.hints.as_deref(),
        ];
        refuse_overwriting(out, inputs.into_iter().flatten())?;
    }
    let (shape, format) = (args.shape, args.format);
    let options = shape.options(args.select.options());
    let hints = args.hints.as_deref().map(HintsFile::load).transpose()?;
    let whole = args.check || format != Format::Json;
    let doc = read_document(&args.spec, &args.read)?;
    let status = if whole {
        // The whole list is needed: to compare it, or to indent it.
        let conversion = convert_loaded(&doc, &options, hints.as_ref())?;
        let tools = &conversion.tools;
        let status = match &args.output {
            Some(path) if args.check => {
                check(path, &emit::render_as(tools, shape, format)?, tools, shape)?
            }
            Some(path) => {
                output::write_atomically_with(path, |w| emit::write_as(tools, shape, format, w))?;
                0
            }
            None => {
                output::to_stdout(|w| emit::write_as(tools, shape, format, w))?;
                0
            }
        };
        std::mem::forget(conversion);
        status
    } else {
        let (summary, remains) = output::stream::convert_keeping(
            &doc,
            &options,
            hints.as_ref(),
            shape,
            args.output.as_deref(),
            args.threads.map(usize::from),
        )?;
        for n in summary.iter().flat_map(|s| &s.notices) {
            eprintln!("openapi-mcp: note: {n}");
        }
        // Not freed either, as the document below.
        std::mem::forget(remains);
        0
    };
    // The process ends here: freeing the document (millions of small allocations for a large
    // spec) would only delay the exit.
    std::mem::forget(doc);
    Ok(status)
}

/// `--check`: compare without writing.
fn check(path: &Path, text: &str, tools: &[openapi_mcp::Tool], shape: Shape) -> Result<i32> {
    let shown = path.display().to_string();
    let old = std::fs::read(path);
    if old.as_deref().ok() == Some(text.as_bytes()) {
        return Ok(0);
    }
    let parsed = match old {
        Ok(bytes) => read::parse_tree(&shown, &bytes).map_err(|e| e.to_string()),
        Err(e) => Err(format!("cannot read: {e}")),
    };
    let drift = output::check::drift(parsed, &emit::list_value(tools, shape));
    eprint!(
        "openapi-mcp: {shown} is out of date:\n{}",
        drift.render(&shown)
    );
    Ok(1)
}

fn hints(args: &HintsArgs) -> Result<i32> {
    if let Some(out) = args.output.as_ref().or(args.update.as_ref())
        && args.spec != "-"
    {
        refuse_overwriting(out, std::iter::once(Path::new(&args.spec)))?;
    }
    let old = match &args.update {
        Some(path) => review::HintsFile::load(path)?,
        None => review::HintsFile::default(),
    };
    let doc = read_document(&args.spec, &args.read)?;
    let (conversion, resolution) =
        openapi_mcp::convert_matching(&doc, &args.select.options(), &old)?;
    for n in &conversion.notices {
        eprintln!("openapi-mcp: note: {n}");
    }
    let (file, report) = review::update_resolved(&old, &conversion.tools, &resolution);
    let text = review::render(&file, &conversion.tools);
    if args.update.is_some() {
        for (before, now) in &report.renamed {
            eprintln!(
                "openapi-mcp: {before}: the tool is now `{now}`; the entry moved to that name"
            );
        }
        for (name, before, now) in &report.moved {
            eprintln!("openapi-mcp: {name}: operation changed from {before} to {now}");
        }
        if !report.orphaned.is_empty() {
            eprintln!(
                "openapi-mcp: {} no longer {} a tool and {} moved under `removed:`: {}",
                count(report.orphaned.len(), "entry", "entries"),
                if report.orphaned.len() == 1 {
                    "matches"
                } else {
                    "match"
                },
                if report.orphaned.len() == 1 {
                    "was"
                } else {
                    "were"
                },
                report.orphaned.join(", ")
            );
        }
        eprintln!(
            "openapi-mcp: {} kept, {} added (unreviewed), {} moved to `removed:`, {} of unreviewed entries given the new suggestion",
            count(report.kept, "entry", "entries"),
            count(report.added.len(), "tool", "tools"),
            report.orphaned.len(),
            count(report.refreshed.len(), "value", "values"),
        );
    }
    match args.output.as_ref().or(args.update.as_ref()) {
        Some(path) => output::write_atomically(path, text.as_bytes())?,
        None => print(&text)?,
    }
    Ok(0)
}

/// What `lint` and `review` read: the API's title, its tools with the hints file applied, the
/// file, and the tools it disabled.
struct Reviewed {
    title: String,
    tools: Vec<openapi_mcp::Tool>,
    hints: Option<HintsFile>,
    disabled: Vec<String>,
}

/// The tools to lint or review: from a spec, or read back from a tools file.
fn tools_for_review(
    spec: &str,
    select: &SelectArgs,
    read: &ReadArgs,
    hints: Option<&Path>,
) -> Result<Reviewed> {
    let (name, bytes) = read_spec(spec)?;
    let tree = read::parse_tree(&name, &bytes)?;
    let hints = hints.map(review::HintsFile::load).transpose()?;
    let reviewed = if review::readback::is_tools_list(&tree) {
        let mut tools = review::readback::tools(&name, &tree)?;
        let notes = match &hints {
            Some(file) => file.apply(&mut tools)?,
            None => Vec::new(),
        };
        notes
            .iter()
            .for_each(|n| eprintln!("openapi-mcp: note: {n}"));
        Reviewed {
            title: String::new(),
            tools,
            hints,
            disabled: Vec::new(),
        }
    } else {
        let tree = if spec == "-" {
            tree
        } else {
            read::bundle::bundle(Path::new(spec), tree, read.ref_root.as_deref())?
        };
        let doc = read::from_tree(&name, tree)?;
        let conversion = convert_loaded(&doc, &select.options(), hints.as_ref())?;
        Reviewed {
            title: conversion.title,
            tools: conversion.tools,
            hints,
            disabled: conversion.disabled,
        }
    };
    Ok(reviewed)
}

fn lint(args: &LintArgs) -> Result<i32> {
    let Reviewed { tools, hints, .. } =
        tools_for_review(&args.spec, &args.select, &args.read, args.hints.as_deref())?;
    let options = args.budgets.lint_options(hints.as_ref());
    let mut findings = lint::lint(&tools, options);
    if let Some(client) = args.client {
        findings.extend(openapi_mcp::review::fit::check(
            &tools,
            client,
            &args.server_name,
        ));
    }
    print(&match args.format {
        LintFormat::Text => lint::render_text(&findings),
        LintFormat::Json => lint::render_json(&findings),
    })?;
    let errors = findings.iter().any(|f| f.severity == lint::Severity::Error);
    let gate = args
        .strict
        .then(|| lint::gate(&tools, &findings, options))
        .and_then(|g| g.message());
    if let Some(message) = &gate {
        eprintln!("openapi-mcp: {message}");
    }
    Ok(i32::from(errors || gate.is_some()))
}

fn review(args: &ReviewArgs) -> Result<i32> {
    let Reviewed {
        title,
        tools,
        hints,
        disabled,
    } = tools_for_review(&args.spec, &args.select, &args.read, args.hints.as_deref())?;
    let options = args.budgets.lint_options(hints.as_ref());
    let findings = lint::lint(&tools, options);
    let selection = match &args.base {
        Some(base) => {
            let before =
                tools_for_review(base, &args.select, &args.read, args.base_hints.as_deref())?;
            let base_options = args.budgets.lint_options(before.hints.as_ref());
            let base_findings = lint::lint(&before.tools, base_options);
            review::report::changed(&tools, &findings, &before.tools, &base_findings)
        }
        None if args.all => review::report::Selection::All,
        None => review::report::Selection::Fit,
    };
    let defaults = hints.as_ref().and_then(|h| h.defaults.as_ref());
    let report = review::report::Review {
        title: &title,
        tools: &tools,
        findings: &findings,
        defaults,
        disabled: &disabled,
    };
    print(&review::report::render(report, &selection, args.format))?;
    Ok(0)
}

fn search(args: &SearchArgs) -> Result<i32> {
    let mut options = args.select.options();
    // Output schemas play no part in the ranking.
    options.output_schema = false;
    let hints = args.hints.as_deref().map(HintsFile::load).transpose()?;
    let doc = read_document(&args.spec, &args.read)?;
    let conversion = convert_loaded(&doc, &options, hints.as_ref())?;
    let tools = &conversion.tools;
    let hits = openapi_mcp::tool::search::Index::new(tools).search(&args.query, args.limit);
    let text = match args.format {
        LintFormat::Text => hits
            .iter()
            .map(|h| {
                let t = &tools[h.index];
                format!(
                    "{:.3}\t{}\t{}\t{}\n",
                    h.score,
                    t.name,
                    t.operation(),
                    t.title
                )
            })
            .collect::<String>(),
        LintFormat::Json => {
            let list: Vec<serde_json::Value> = hits
                .iter()
                .map(|h| {
                    let t = &tools[h.index];
                    serde_json::json!({
                        "name": t.name,
                        "title": t.title,
                        "method": t.call.method.as_str(),
                        "path": t.call.path,
                        "score": openapi_mcp::tool::search::rounded(h.score),
                    })
                })
                .collect();
            let mut text =
                serde_json::to_string_pretty(&list).map_err(|e| Error::Usage(e.to_string()))?;
            text.push('\n');
            text
        }
    };
    print(&text)?;
    std::mem::forget(conversion);
    std::mem::forget(doc);
    Ok(0)
}
