//! Report: the review table (Markdown) a reviewer reads in a terminal or pastes in a pull
//! request — each tool's hints with where they came from, its lint findings, reviewed or not.

use crate::review::lint::{Finding, Severity};
use crate::tool::Tool;
use std::collections::HashMap;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Render the review of `tools` with their `findings`, in tool order.
pub fn render(title: &str, tools: &[Tool], findings: &[Finding]) -> String {
    let mut out = format!(
        "# Hint review: {}\n\n",
        cell(if title.is_empty() { "API" } else { title })
    );
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
    for t in tools {
        let hints: Vec<String> = t
            .hints
            .entries()
            .iter()
            .map(|(_, h)| format!("{} ({})", h.value, h.source.label()))
            .collect();
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
    for t in tools {
        out.push_str(&format!("- `{}`:", t.name));
        for (key, h) in t.hints.entries() {
            out.push_str(&format!(" {key} {} ({});", h.value, cell(&h.reason)));
        }
        out.pop();
        out.push('\n');
    }
    out
}
