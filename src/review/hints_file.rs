//! The hints file written: a commented starter file, and a file updated without losing a human
//! decision (the type, reading and applying it are `tool::reviewed`'s).
//!
//! ```yaml
//! defaults:
//!   openWorldHint: false                      # our own instance: no outside world
//!   reviewed: true
//! tools:
//!   refund_order:
//!     operation: "POST /orders/{id}/refund"   # informational, to spot renames
//!     readOnlyHint: false                     # method: POST: changes state
//!     destructiveHint: true                   # name: POST, but the name says `refund` ...
//!     idempotentHint: false
//!     reviewed: true
//!     note: "refunds cannot be undone"
//! ```
//!
//! Precedence: a tool's entry, then a vendor extension, then `defaults:`, then the suggestion.
//! Entries whose tool no longer exists are moved by `--update` under `removed:` (kept, reported,
//! never silently deleted); `removed:` is ignored when hints are applied.

use crate::tool::Tool;
use crate::tool::reviewed::{Candidate, Resolution};
pub use crate::tool::reviewed::{Defaults, HintEntry, HintsFile};
use crate::tool::suggest::{self, Hint, HintSource};
use indexmap::IndexMap;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// What `--update` did, for the user.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateReport {
    pub added: Vec<String>,
    pub kept: usize,
    /// Entries whose tool no longer exists (moved under `removed:`).
    pub orphaned: Vec<String>,
    /// (tool, old operation, new operation) where the informational operation changed.
    pub moved: Vec<(String, String, String)>,
    /// (old key, new name) of entries moved to the renamed tool they apply to.
    pub renamed: Vec<(String, String)>,
    /// (tool, hint key) of unreviewed values that were the method table's and now take the new
    /// suggestion.
    pub refreshed: Vec<(String, &'static str)>,
}

/// What the method table (and the document's extensions) suggested for `hint` of `tool`: the
/// value a file written before evidence-based suggestions holds where no human changed it.
fn method_value(tool: &Tool, i: usize) -> bool {
    let (_, h): (_, &Hint) = tool.hints.entries()[i];
    if matches!(h.source, HintSource::Extension(_)) {
        return h.value;
    }
    suggest::from_method(tool.call.method).entries()[i].1.value
}

/// Give an unreviewed entry the current suggestions where it holds the method table's value
/// (a value a human changed differs from it and is kept). A machine-written openWorldHint is
/// dropped so that `defaults:` decides it.
fn refresh(e: &mut HintEntry, tool: &Tool, report: &mut UpdateReport) {
    if e.reviewed {
        return;
    }
    let entries = tool.hints.entries();
    let slots = [
        &mut e.read_only_hint,
        &mut e.destructive_hint,
        &mut e.idempotent_hint,
    ];
    for (i, slot) in slots.into_iter().enumerate() {
        let (key, now) = entries[i];
        if *slot == Some(method_value(tool, i)) && now.value != method_value(tool, i) {
            *slot = Some(now.value);
            report.refreshed.push((tool.name.clone(), key));
        }
    }
    let own = matches!(tool.hints.open_world.source, HintSource::Extension(_));
    if !own && e.open_world_hint == Some(method_value(tool, 3)) {
        e.open_world_hint = None;
    }
}

/// Merge `old` with the current `tools` (suggested hints, before any file is applied): reviewed
/// entries and values a human changed are kept as written, unreviewed values that are the
/// method table's take the current suggestion, new tools get unreviewed entries, vanished ones
/// go under `removed:`, and a missing `defaults:` block is added. Entries are matched to the
/// tools as [`HintsFile::resolve`] does.
pub fn update(old: &HintsFile, tools: &[Tool]) -> (HintsFile, UpdateReport) {
    let candidates: Vec<Candidate<'_>> = tools.iter().map(Candidate::of).collect();
    update_resolved(old, tools, &old.resolve(&candidates))
}

/// [`update`] with the entries already matched to `tools` (`resolution.entries[i]` is the key of
/// tool `i`'s entry): an entry matched to a tool of another name moves to that name; an entry
/// neither matched nor unmatched (its operation dropped by a filter) stays as it is.
pub fn update_resolved(
    old: &HintsFile,
    tools: &[Tool],
    resolution: &Resolution,
) -> (HintsFile, UpdateReport) {
    let mut report = UpdateReport::default();
    let mut entries = IndexMap::new();
    for (tool, key) in tools.iter().zip(&resolution.entries) {
        match key.as_deref().and_then(|k| Some((k, old.entry(k)?))) {
            Some((key, e)) => {
                let mut e = e.clone();
                let now = tool.operation();
                if let Some(before) = &e.operation
                    && *before != now
                {
                    report
                        .moved
                        .push((tool.name.clone(), before.clone(), now.clone()));
                }
                if key != tool.name {
                    report.renamed.push((key.to_string(), tool.name.clone()));
                }
                e.operation = Some(now);
                refresh(&mut e, tool, &mut report);
                report.kept += 1;
                entries.insert(tool.name.clone(), e);
            }
            None => {
                report.added.push(tool.name.clone());
                entries.insert(tool.name.clone(), HintEntry::suggested(tool));
            }
        }
    }
    let matched: HashSet<&str> = resolution
        .entries
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let unmatched: HashSet<&str> = resolution.unmatched.iter().map(String::as_str).collect();
    let mut removed = old.removed.clone().unwrap_or_default();
    for (name, e) in old.entries() {
        if matched.contains(name.as_str()) {
            continue;
        }
        if unmatched.contains(name.as_str()) {
            report.orphaned.push(name.clone());
            removed.insert(name.clone(), e.clone());
        } else if !entries.contains_key(name) {
            report.kept += 1;
            entries.insert(name.clone(), e.clone());
        }
    }
    let file = HintsFile {
        defaults: Some(old.defaults.clone().unwrap_or_else(Defaults::starter)),
        tools: Some(entries),
        removed: (!removed.is_empty()).then_some(removed),
        source: old.source.clone(),
    };
    (file, report)
}

/// Write a hints file as YAML, with each value's suggested reason as a comment. `tools` carry
/// the suggestions (no file applied), used for the comments.
pub fn render(file: &HintsFile, tools: &[Tool]) -> String {
    let mut out = String::from(
        "# Reviewed MCP tool hints for openapi-mcp. Edit values, then set `reviewed: true`.\n\
         # Precedence: a tool's entry, then x-mcp-annotations, then `defaults:`, then the suggestion.\n\
         # Comments show the suggestion: its source, `unsure` where the evidence does not settle\n\
         # it, and its reason; they are rewritten by `hints --update`.\n",
    );
    if let Some(d) = &file.defaults {
        write_defaults(&mut out, d);
    }
    out.push_str("tools:");
    let entries: Vec<_> = file.entries().collect();
    let by_name: HashMap<&str, &Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
    if entries.is_empty() {
        out.push_str(" {}");
    }
    out.push('\n');
    for (name, e) in entries {
        let tool = by_name.get(name.as_str()).copied();
        write_entry(&mut out, name, e, tool);
    }
    if let Some(removed) = file.removed.as_ref().filter(|r| !r.is_empty()) {
        out.push_str(
            "# Entries whose tool no longer exists. Move one back under `tools:` with the tool's\n\
             # new name if it was renamed, or delete it. Ignored when hints are applied.\n",
        );
        out.push_str("removed:\n");
        for (name, e) in removed {
            write_entry(&mut out, name, e, None);
        }
    }
    out
}

fn write_defaults(out: &mut String, d: &Defaults) {
    out.push_str("defaults:\n");
    if !d.reviewed {
        out.push_str(
            "  # One decision for the whole API: openWorldHint true if the tools reach a public\n\
             \x20 # service or other people's data (GitHub, Stripe), false for a self-hosted or\n\
             \x20 # own-data API (your Grafana, your own project). Decide, then set `reviewed: true`.\n",
        );
    }
    let values = [
        ("readOnlyHint", d.read_only_hint),
        ("destructiveHint", d.destructive_hint),
        ("idempotentHint", d.idempotent_hint),
        ("openWorldHint", d.open_world_hint),
    ];
    for (key, value) in values {
        if let Some(v) = value {
            let _ = writeln!(out, "  {key}: {v}");
        }
    }
    if let Some(v) = d.disabled {
        let _ = writeln!(out, "  disabled: {v}");
    }
    let _ = writeln!(out, "  reviewed: {}", d.reviewed);
    if let Some(n) = &d.note {
        let _ = writeln!(out, "  note: {}", quote(n));
    }
}

/// `source: reason`, with `unsure` when the evidence does not settle it.
fn explain(h: &Hint) -> String {
    match h.confidence {
        suggest::Confidence::Sure => format!("{}: {}", h.source.label(), h.reason),
        suggest::Confidence::Unsure => format!("{}, unsure: {}", h.source.label(), h.reason),
    }
}

fn write_entry(out: &mut String, name: &str, e: &HintEntry, tool: Option<&Tool>) {
    let _ = writeln!(out, "  {}:", yaml_key(name));
    if let Some(op) = &e.operation {
        let _ = writeln!(
            out,
            "    operation: {}   # informational, to spot renames",
            quote(op)
        );
    }
    let hints = tool.map(|t| t.hints.entries());
    let values = [
        e.read_only_hint,
        e.destructive_hint,
        e.idempotent_hint,
        e.open_world_hint,
    ];
    let keys = [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    for (i, (key, value)) in keys.iter().zip(values).enumerate() {
        let Some(value) = value else {
            continue;
        };
        let line = format!("    {key}: {value}");
        match hints.as_ref().map(|h| h[i].1) {
            Some(h) if h.value == value => {
                let _ = writeln!(out, "{line:<36}# {}", explain(h));
            }
            Some(h) => {
                let _ = writeln!(out, "{line:<36}# suggested {} ({})", h.value, explain(h));
            }
            None => {
                let _ = writeln!(out, "{line}");
            }
        }
    }
    if let Some(t) = &e.title {
        let _ = writeln!(out, "    title: {}", quote(t));
    }
    if let Some(n) = &e.name {
        let _ = writeln!(out, "    name: {}", quote(n));
    }
    if let Some(d) = &e.description {
        let _ = writeln!(out, "    description: {}", quote(d));
    }
    if let Some(d) = e.disabled {
        let _ = writeln!(out, "    disabled: {d}");
    }
    if let Some(n) = e.max_result_bytes {
        let _ = writeln!(out, "    maxResultBytes: {n}");
    }
    let _ = writeln!(out, "    reviewed: {}", e.reviewed);
    if let Some(n) = &e.note {
        let _ = writeln!(out, "    note: {}", quote(n));
    }
}

/// A JSON string is a valid YAML double-quoted scalar.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Tool names are `[A-Za-z0-9_-]`; quote the ones YAML would read as something other than a string.
fn yaml_key(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !matches!(
            name.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "y" | "n"
        );
    if plain { name.to_string() } else { quote(name) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::suggest::HintSource;

    const SPEC: &str = r#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/orders/{id}/refund": {"post": {"operationId": "refundOrder", "responses": {"200": {"description": "ok"}}}},
        "/orders": {"get": {"operationId": "listOrders", "responses": {"200": {"description": "ok"}}}}}}"#;

    fn tools() -> Vec<Tool> {
        crate::convert_str("t.json", SPEC, &crate::Options::default())
            .unwrap()
            .tools
    }

    #[test]
    fn starter_file_round_trips_with_reasons() {
        let tools = tools();
        let (file, report) = update(&HintsFile::default(), &tools);
        assert_eq!(report.added, ["refund_order", "list_orders"]);
        let text = render(&file, &tools);
        let line = text
            .lines()
            .find(|l| l.starts_with("    readOnlyHint: false"))
            .unwrap();
        assert!(line.ends_with("# method: POST: changes state"), "{text}");
        assert!(
            text.contains("operation: \"POST /orders/{id}/refund\""),
            "{text}"
        );
        assert_eq!(HintsFile::parse("h.yaml", &text).unwrap(), file);
    }

    #[test]
    fn reviewed_values_win_and_are_marked() {
        let mut tools = tools();
        let file = HintsFile::parse(
            "h.yaml",
            "tools:\n  refund_order:\n    destructiveHint: true\n    reviewed: true\n    note: cannot be undone\n",
        )
        .unwrap();
        file.apply(&mut tools).unwrap();
        assert!(tools[0].hints.destructive.value);
        assert_eq!(tools[0].hints.destructive.source, HintSource::Reviewed);
        assert_eq!(tools[0].hints.read_only.source, HintSource::Method);
        assert!(tools[0].review.as_ref().unwrap().reviewed);
        assert!(tools[1].review.is_none());
    }

    #[test]
    fn unknown_tool_is_an_error() {
        let mut tools = tools();
        let file = HintsFile::parse("h.yaml", "tools:\n  gone_tool: {reviewed: true}\n").unwrap();
        let e = file.apply(&mut tools).unwrap_err().to_string();
        assert!(e.contains("gone_tool"), "{e}");
    }

    /// A tool given two entries (in `tools` or in `removed`) is an error naming it, in YAML
    /// and JSON; the same name in both is not (a human re-homing an entry).
    #[test]
    fn a_tool_with_two_entries_is_an_error() {
        for text in [
            "tools:\n  a: {reviewed: true}\n  b: {}\n  a: {readOnlyHint: true}\n",
            "removed:\n  a: {}\n  a: {}\n",
            r#"{"tools": {"a": {"reviewed": true}, "a": {}}}"#,
        ] {
            let e = HintsFile::parse("h.yaml", text).unwrap_err().to_string();
            assert!(e.contains(r#"tool "a" has two entries"#), "{text}: {e}");
        }
        let file = HintsFile::parse("h.yaml", "tools:\n  a: {}\nremoved:\n  a: {}\ntools2: 1\n");
        assert!(file.is_err(), "unknown top-level keys are still refused");
        let file = HintsFile::parse("h.yaml", "tools:\n  a: {}\nremoved:\n  a: {}\n").unwrap();
        assert_eq!(file.tools.unwrap().len(), 1);
        assert_eq!(HintsFile::parse("h.yaml", "tools:\n").unwrap().tools, None);
    }

    #[test]
    fn malformed_file_has_line_and_column() {
        let e = HintsFile::parse("h.yaml", "tools:\n  a:\n    readOnlyHint: maybe\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("h.yaml:3:"), "{e}");
        let e = HintsFile::parse("h.yaml", "tools:\n  a:\n    readonlyhint: true\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn update_keeps_decisions_and_moves_orphans() {
        let tools = tools();
        let old = HintsFile::parse(
            "h.yaml",
            "tools:\n  refund_order: {destructiveHint: true, reviewed: true, operation: POST /refund}\n  old_tool: {readOnlyHint: true, reviewed: true}\n",
        )
        .unwrap();
        let (new, report) = update(&old, &tools);
        let kept = &new.tools.as_ref().unwrap()["refund_order"];
        assert_eq!(kept.destructive_hint, Some(true));
        assert!(kept.reviewed);
        assert_eq!(report.added, ["list_orders"]);
        assert_eq!(report.orphaned, ["old_tool"]);
        assert_eq!(report.moved.len(), 1);
        assert!(new.removed.as_ref().unwrap().contains_key("old_tool"));
        // The orphan survives a round trip and does not break `apply`.
        let text = render(&new, &tools);
        let again = HintsFile::parse("h.yaml", &text).unwrap();
        assert_eq!(again, new);
        again.apply(&mut tools.clone()).unwrap();
    }

    /// `maxResultBytes` is read, applied (and written to `_meta`), kept by `--update` and
    /// refused outside its range at its line and column.
    #[test]
    fn max_result_bytes_is_kept_and_checked() {
        let mut tools = tools();
        let text = "tools:\n  list_orders:\n    maxResultBytes: 200000\n    reviewed: true\n";
        let file = HintsFile::parse("h.yaml", text).unwrap();
        file.apply(&mut tools).unwrap();
        let listed = tools.iter().find(|t| t.name == "list_orders").unwrap();
        assert_eq!(
            listed.review.as_ref().unwrap().max_result_bytes,
            Some(200_000)
        );
        let meta = &crate::emit::tool_json(listed)["_meta"];
        assert_eq!(meta["anthropic/maxResultSizeChars"], 200_000);
        assert!(meta["openapi-mcp/http"].is_object());
        let other = tools.iter().find(|t| t.name == "refund_order").unwrap();
        assert!(
            crate::emit::tool_json(other)["_meta"]
                .get("anthropic/maxResultSizeChars")
                .is_none()
        );
        let (new, _) = update(&file, &self::tools());
        let written = render(&new, &self::tools());
        assert!(
            written.contains("    maxResultBytes: 200000\n"),
            "{written}"
        );
        assert_eq!(HintsFile::parse("h.yaml", &written).unwrap(), new);
        // Past Claude Code's ceiling, the budget stays and `_meta` says the ceiling, in every
        // writer.
        let mut tools = self::tools();
        let text = "tools:\n  list_orders:\n    maxResultBytes: 2000000\n";
        HintsFile::parse("h.yaml", text)
            .unwrap()
            .apply(&mut tools)
            .unwrap();
        let listed = tools.iter().find(|t| t.name == "list_orders").unwrap();
        assert_eq!(
            listed.review.as_ref().unwrap().max_result_bytes,
            Some(2_000_000)
        );
        let meta = &crate::emit::tool_json(listed)["_meta"];
        assert_eq!(meta["anthropic/maxResultSizeChars"], 500_000);
        let mut line = Vec::new();
        crate::output::line::write(&mut line, listed, crate::emit::Shape::Mcp);
        let line = String::from_utf8(line).unwrap();
        assert!(
            line.contains(r#""anthropic/maxResultSizeChars":500000}"#),
            "{line}"
        );
        let e = HintsFile::parse("h.yaml", "tools:\n  list_orders:\n    maxResultBytes: 10\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("h.yaml:3:"), "{e}");
        assert!(
            e.contains("maxResultBytes 10 is outside 1024..=10485760"),
            "{e}"
        );
        let e = HintsFile::parse(
            "h.yaml",
            "tools:\n  list_orders:\n    maxResultBytes: lots\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("h.yaml:3:"), "{e}");
    }

    #[test]
    fn odd_names_are_quoted() {
        assert_eq!(yaml_key("true"), "\"true\"");
        assert_eq!(yaml_key("123"), "\"123\"");
        assert_eq!(yaml_key("list_pets"), "list_pets");
    }
}
