//! Report: the review table (Markdown) a reviewer reads in a terminal or pastes in a pull
//! request — the hints file's `defaults:`, then each tool's hints with where they came from and
//! how sure, its lint findings, reviewed or not; tools whose suggestion is unsettled first.

use crate::review::lint::{Finding, Severity};
use crate::tool::Tool;
use crate::tool::reviewed::Defaults;
use crate::tool::suggest::{Confidence, Hint};
use std::collections::HashMap;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// `value (source)`, `value (source, unsure)` when the evidence does not settle it.
fn shown(h: &Hint) -> String {
    match h.confidence {
        Confidence::Sure => format!("{} ({})", h.value, h.source.label()),
        Confidence::Unsure => format!("{} ({}, unsure)", h.value, h.source.label()),
    }
}

/// Whether the reviewer should look at `t` first: a hint the evidence does not settle, not yet
/// reviewed.
fn unsettled(t: &Tool) -> bool {
    t.hints.confidence() == Confidence::Unsure && !t.review.as_ref().is_some_and(|r| r.reviewed)
}

/// Render the review of `tools` with their `findings` and the hints file's `defaults`: the
/// tools whose suggestion is unsettled first, each group in tool order.
pub fn render(
    title: &str,
    tools: &[Tool],
    findings: &[Finding],
    defaults: Option<&Defaults>,
    disabled: &[String],
) -> String {
    let mut out = format!(
        "# Hint review: {}\n\n",
        cell(if title.is_empty() { "API" } else { title })
    );
    if let Some(d) = defaults {
        let values: Vec<String> = [
            ("readOnlyHint", d.read_only_hint),
            ("destructiveHint", d.destructive_hint),
            ("idempotentHint", d.idempotent_hint),
            ("openWorldHint", d.open_world_hint),
        ]
        .iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k} {v}")))
        .collect();
        out.push_str(&format!(
            "Defaults for every tool: {} ({}{}).\n\n",
            if values.is_empty() {
                "none".to_string()
            } else {
                values.join(", ")
            },
            if d.reviewed {
                "reviewed"
            } else {
                "not reviewed: decide openWorldHint for the whole API"
            },
            d.note
                .as_ref()
                .map(|n| format!("; {}", cell(n)))
                .unwrap_or_default(),
        ));
    }
    if !disabled.is_empty() {
        out.push_str(&format!(
            "Disabled by curation (not served): {}.\n\n",
            disabled
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let unsettled_count = tools.iter().filter(|t| unsettled(t)).count();
    if unsettled_count > 0 {
        out.push_str(&format!(
            "{unsettled_count} unsettled suggestion(s) first: the evidence does not settle them.\n\n"
        ));
    }
    let ordered: Vec<&Tool> = tools
        .iter()
        .filter(|t| unsettled(t))
        .chain(tools.iter().filter(|t| !unsettled(t)))
        .collect();
    let tools = ordered;
    out.push_str("| tool | operation | readOnly | destructive | idempotent | openWorld | reviewed | findings |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    let mut reviewed = 0;
    let mut by_tool: HashMap<&str, Vec<String>> = HashMap::new();
    for f in findings {
        by_tool.entry(f.tool.as_str()).or_default().push(format!(
            "{} {}",
            f.severity.as_str(),
            f.rule
        ));
    }
    for t in &tools {
        let hints: Vec<String> = t.hints.entries().iter().map(|(_, h)| shown(h)).collect();
        let is_reviewed = t.review.as_ref().is_some_and(|r| r.reviewed);
        reviewed += usize::from(is_reviewed);
        let mine = by_tool.get(t.name.as_str()).map_or(&[][..], Vec::as_slice);
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} |\n",
            t.name,
            cell(&t.operation()),
            hints[0],
            hints[1],
            hints[2],
            hints[3],
            if is_reviewed { "yes" } else { "no" },
            if mine.is_empty() {
                "-".to_string()
            } else {
                mine.join(", ")
            },
        ));
    }
    let count = |s| findings.iter().filter(|f| f.severity == s).count();
    out.push_str(&format!(
        "\n{} tools: {} reviewed, {} not reviewed; {} errors, {} warnings, {} settled.\n",
        tools.len(),
        reviewed,
        tools.len() - reviewed,
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    ));
    if !findings.is_empty() {
        out.push_str("\n## Findings\n\n");
        for f in findings {
            out.push_str(&format!(
                "- {} `{}` {}: {}\n",
                f.severity.as_str(),
                f.tool,
                f.rule,
                cell(&f.message)
            ));
        }
    }
    out.push_str("\n## Why each suggestion\n\n");
    for t in &tools {
        out.push_str(&format!("- `{}`:", t.name));
        for (key, h) in t.hints.entries() {
            let how = match h.confidence {
                Confidence::Sure => h.source.label().to_string(),
                Confidence::Unsure => format!("{}, unsure", h.source.label()),
            };
            out.push_str(&format!(" {key} {} ({how}: {});", h.value, cell(&h.reason)));
        }
        out.pop();
        out.push('\n');
    }
    out
}
