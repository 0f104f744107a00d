//! Report: the review a person reads in a terminal or a pull-request comment (Markdown) or a
//! program reads (JSON) — the counts first, then the tools that need a decision (an unsure hint
//! or a finding of a hint rule, not reviewed), then the others, within a size budget unless
//! everything is asked for; or only the tools that changed against a base.

use crate::review::lint::{self, Finding, Severity};
use crate::tool::Tool;
use crate::tool::reviewed::Defaults;
use crate::tool::suggest::{Confidence, Hint};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashMap};

/// What a default review may take: a GitHub pull-request comment's limit, in characters.
pub const BUDGET: usize = 65_536;

/// What to review.
#[derive(Debug, Clone, Copy)]
pub struct Review<'a> {
    /// The API's `info.title` (empty for a tools file).
    pub title: &'a str,
    pub tools: &'a [Tool],
    pub findings: &'a [Finding],
    pub defaults: Option<&'a Defaults>,
    /// The tools the curation dropped.
    pub disabled: &'a [String],
}

/// Which tools the review lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Those that need a decision, then the others if they all fit, within [`BUDGET`].
    Fit,
    /// Every tool.
    All,
    /// The tools (indexes) that are new or changed against a base, and the names of the base's
    /// tools that are gone, within [`BUDGET`].
    Changed {
        tools: Vec<usize>,
        removed: Vec<String>,
    },
}

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ReviewFormat {
    #[default]
    Markdown,
    Json,
}

fn reviewed(t: &Tool) -> bool {
    t.review.as_ref().is_some_and(|r| r.reviewed)
}

/// The counts the review opens with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Counts {
    tools: usize,
    need_decision: usize,
    unsure: usize,
    reviewed: usize,
    disabled: usize,
    /// Findings by rule, each by severity.
    rules: BTreeMap<&'static str, BTreeMap<&'static str, usize>>,
}

/// The review's parts, worked out once for either format.
struct Prepared<'a> {
    review: Review<'a>,
    counts: Counts,
    /// Per tool: whether it needs a decision.
    needs: Vec<bool>,
    by_tool: HashMap<&'a str, Vec<&'a Finding>>,
    /// The tools listed, in order, and how many of the selection were left out for the budget.
    listed: Vec<usize>,
    omitted: usize,
    /// The settled tools left out because the default review lists only those that need a
    /// decision when the others do not fit (`--all` lists them).
    more: usize,
    removed: Vec<String>,
    changed_mode: bool,
    /// Every finding's message and every hint's reason (`--all`); else only the findings of
    /// hint rules and the reasons of unsure hints, which a decision needs.
    full: bool,
}

impl<'a> Prepared<'a> {
    fn new(
        review: Review<'a>,
        selection: &Selection,
        cost: impl Fn(&Prepared<'a>, usize) -> usize,
        fixed: usize,
    ) -> Prepared<'a> {
        let gate = lint::gate(review.tools, review.findings, lint::LintOptions::default());
        let flagged: std::collections::HashSet<&str> =
            gate.tools.iter().map(String::as_str).collect();
        let needs: Vec<bool> = review
            .tools
            .iter()
            .map(|t| flagged.contains(t.name.as_str()))
            .collect();
        let mut by_tool: HashMap<&str, Vec<&Finding>> = HashMap::new();
        let mut rules: BTreeMap<&'static str, BTreeMap<&'static str, usize>> = BTreeMap::new();
        for f in review.findings {
            by_tool.entry(f.tool.as_str()).or_default().push(f);
            *rules
                .entry(f.rule)
                .or_default()
                .entry(f.severity.as_str())
                .or_default() += 1;
        }
        let counts = Counts {
            tools: review.tools.len(),
            need_decision: needs.iter().filter(|n| **n).count(),
            unsure: review
                .tools
                .iter()
                .filter(|t| t.hints.confidence() == Confidence::Unsure)
                .count(),
            reviewed: review.tools.iter().filter(|t| reviewed(t)).count(),
            disabled: review.disabled.len(),
            rules,
        };
        let mut p = Prepared {
            review,
            counts,
            needs,
            by_tool,
            listed: Vec::new(),
            omitted: 0,
            more: 0,
            removed: Vec::new(),
            changed_mode: false,
            full: *selection == Selection::All,
        };
        let n = review.tools.len();
        let (first, rest): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| p.needs[i]);
        match selection {
            Selection::All => p.listed = first.into_iter().chain(rest).collect(),
            Selection::Fit => {
                let room = BUDGET.saturating_sub(fixed);
                let (listed, omitted, used) = fit(&first, room, |i| cost(&p, i));
                let rest_cost: usize = rest.iter().map(|&i| cost(&p, i)).sum();
                p.listed = listed;
                p.omitted = omitted;
                if omitted == 0 && used + rest_cost <= room {
                    p.listed.extend(rest);
                } else {
                    p.more = rest.len();
                }
            }
            Selection::Changed { tools, removed } => {
                let mut chosen = tools.clone();
                chosen.sort_by_key(|&i| (!p.needs[i], i));
                let removed_cost: usize = removed.iter().map(|r| r.len() + 4).sum();
                let room = BUDGET.saturating_sub(fixed + removed_cost);
                let (listed, omitted, _) = fit(&chosen, room, |i| cost(&p, i));
                p.listed = listed;
                p.omitted = omitted;
                p.removed = removed.clone();
                p.changed_mode = true;
            }
        }
        p
    }

    fn findings_of(&self, t: &Tool) -> &[&'a Finding] {
        self.by_tool.get(t.name.as_str()).map_or(&[], Vec::as_slice)
    }
}

/// The longest prefix of `tools` whose costs fit in `room`: (listed, left out, used).
fn fit(tools: &[usize], room: usize, cost: impl Fn(usize) -> usize) -> (Vec<usize>, usize, usize) {
    let mut used = 0;
    let mut listed = Vec::new();
    for &i in tools {
        let c = cost(i);
        if used + c > room {
            break;
        }
        used += c;
        listed.push(i);
    }
    let omitted = tools.len() - listed.len();
    (listed, omitted, used)
}

/// The review in `format`.
pub fn render(review: Review<'_>, selection: &Selection, format: ReviewFormat) -> String {
    match format {
        ReviewFormat::Markdown => markdown(review, selection),
        ReviewFormat::Json => json_text(review, selection),
    }
}

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

/// What the curation of the hints file changed of a tool, for the review.
fn curated(t: &Tool) -> Vec<&'static str> {
    t.review
        .as_ref()
        .map(|r| r.curated.clone())
        .unwrap_or_default()
}

fn row(p: &Prepared<'_>, t: &Tool) -> String {
    let hints: Vec<String> = t.hints.entries().iter().map(|(_, h)| shown(h)).collect();
    let mine = p.findings_of(t);
    let mut name = format!("`{}`", t.name);
    let cur = curated(t);
    if !cur.is_empty() {
        name.push_str(&format!(" (curated: {})", cur.join(", ")));
    }
    format!(
        "| {name} | `{}` | {} | {} | {} | {} | {} | {} |\n",
        cell(&t.operation()),
        hints[0],
        hints[1],
        hints[2],
        hints[3],
        if reviewed(t) { "yes" } else { "no" },
        if mine.is_empty() {
            "-".to_string()
        } else {
            mine.iter()
                .map(|f| format!("{} {}", f.severity.as_str(), f.rule))
                .collect::<Vec<_>>()
                .join(", ")
        },
    )
}

fn why(p: &Prepared<'_>, t: &Tool) -> String {
    let mut out = format!("- `{}`:", t.name);
    let hints = t.hints.entries();
    let shown: Vec<_> = hints
        .iter()
        .filter(|(_, h)| p.full || h.confidence == Confidence::Unsure)
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    for (key, h) in shown {
        let how = match h.confidence {
            Confidence::Sure => h.source.label().to_string(),
            Confidence::Unsure => format!("{}, unsure", h.source.label()),
        };
        out.push_str(&format!(" {key} {} ({how}: {});", h.value, cell(&h.reason)));
    }
    out.pop();
    out.push('\n');
    out
}

fn finding_lines(p: &Prepared<'_>, t: &Tool) -> String {
    p.findings_of(t)
        .iter()
        .filter(|f| p.full || lint::HINT_RULES.contains(&f.rule))
        .map(|f| {
            format!(
                "- {} `{}` {}: {}\n",
                f.severity.as_str(),
                f.tool,
                f.rule,
                cell(&f.message)
            )
        })
        .collect()
}

/// Characters (not bytes: the budget is a comment's) a tool takes in the Markdown review.
fn markdown_cost(p: &Prepared<'_>, i: usize) -> usize {
    let t = &p.review.tools[i];
    row(p, t).chars().count() + why(p, t).chars().count() + finding_lines(p, t).chars().count()
}

const TABLE_HEAD: &str = "| tool | operation | readOnly | destructive | idempotent | openWorld | reviewed | findings |\n|---|---|---|---|---|---|---|---|\n";

fn header(p: &Prepared<'_>) -> String {
    let r = &p.review;
    let c = &p.counts;
    let mut out = format!(
        "# Hint review: {}\n\n",
        cell(if r.title.is_empty() { "API" } else { r.title })
    );
    out.push_str(&format!(
        "**{} tools**: {} {} a decision (an unsure hint or a hint finding, not reviewed); \
         {} with an unsure hint; {} reviewed, {} not reviewed",
        c.tools,
        c.need_decision,
        if c.need_decision == 1 {
            "needs"
        } else {
            "need"
        },
        c.unsure,
        c.reviewed,
        c.tools - c.reviewed
    ));
    if c.disabled > 0 {
        out.push_str(&format!("; {} disabled", c.disabled));
    }
    out.push_str(".\n\n");
    if !c.rules.is_empty() {
        let rules: Vec<String> = c
            .rules
            .iter()
            .map(|(rule, by)| {
                let each: Vec<String> = by.iter().map(|(s, n)| format!("{n} {s}")).collect();
                format!("`{rule}` {}", each.join(", "))
            })
            .collect();
        out.push_str(&format!("Findings by rule: {}.\n\n", rules.join("; ")));
    }
    if let Some(d) = r.defaults {
        let values: Vec<String> = [
            ("readOnlyHint", d.read_only_hint),
            ("destructiveHint", d.destructive_hint),
            ("idempotentHint", d.idempotent_hint),
            ("openWorldHint", d.open_world_hint),
            ("disabled", d.disabled),
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
    if !r.disabled.is_empty() {
        let names: Vec<String> = r.disabled.iter().map(|n| format!("`{n}`")).collect();
        let all = names.join(", ");
        if all.chars().count() < 2_000 {
            out.push_str(&format!("Disabled by curation (not served): {all}.\n\n"));
        } else {
            out.push_str(&format!(
                "Disabled by curation (not served): {} tools (`--format json` lists them).\n\n",
                r.disabled.len()
            ));
        }
    }
    out
}

/// Room kept for the parts around the listed tools (headings, the closing lines).
const FRAME: usize = 1_000;

fn markdown(review: Review<'_>, selection: &Selection) -> String {
    let probe = Prepared::new(review, &Selection::All, |_, _| 0, 0);
    let fixed = header(&probe).chars().count() + FRAME;
    let p = Prepared::new(review, selection, markdown_cost, fixed);
    let tools = review.tools;
    let mut out = header(&p);
    let (first, rest): (Vec<usize>, Vec<usize>) = p.listed.iter().partition(|&&i| p.needs[i]);
    let section = |out: &mut String, title: String, list: &[usize]| {
        out.push_str(&format!("## {title}\n\n"));
        if list.is_empty() {
            out.push_str("None.\n\n");
            return;
        }
        out.push_str(TABLE_HEAD);
        for &i in list {
            out.push_str(&row(&p, &tools[i]));
        }
        let findings: String = list.iter().map(|&i| finding_lines(&p, &tools[i])).collect();
        if !findings.is_empty() {
            out.push_str("\nFindings:\n\n");
            out.push_str(&findings);
        }
        let reasons: String = list.iter().map(|&i| why(&p, &tools[i])).collect();
        if !reasons.is_empty() {
            out.push_str(if p.full {
                "\nWhy each suggestion:\n\n"
            } else {
                "\nWhy each unsure suggestion:\n\n"
            });
            out.push_str(&reasons);
        }
        out.push('\n');
    };
    if p.changed_mode {
        section(
            &mut out,
            format!("Changed against the base ({})", p.listed.len() + p.omitted),
            &p.listed,
        );
        if !p.removed.is_empty() {
            out.push_str(&format!("## Gone since the base ({})\n\n", p.removed.len()));
            for r in &p.removed {
                out.push_str(&format!("- `{r}`\n"));
            }
            out.push('\n');
        }
    } else {
        section(
            &mut out,
            format!("Needs a decision ({})", p.counts.need_decision),
            &first,
        );
        if !rest.is_empty() {
            section(
                &mut out,
                format!("Settled or reviewed ({})", rest.len()),
                &rest,
            );
        }
    }
    if p.omitted > 0 {
        out.push_str(&format!(
            "{} more {} of this section left out to fit {BUDGET} characters: `--all` lists every tool.\n",
            p.omitted,
            if p.omitted == 1 { "tool" } else { "tools" }
        ));
    }
    if p.more > 0 {
        out.push_str(&format!(
            "{} more {} (settled or reviewed): `--all` lists them.\n",
            p.more,
            if p.more == 1 { "tool" } else { "tools" }
        ));
    }
    let whole: String = review
        .findings
        .iter()
        .filter(|f| f.tool == lint::WHOLE_LIST)
        .map(|f| {
            format!(
                "- {} {}: {}\n",
                f.severity.as_str(),
                f.rule,
                cell(&f.message)
            )
        })
        .collect();
    if !whole.is_empty() {
        out.push_str("\n## About all tools\n\n");
        out.push_str(&whole);
    }
    if out.ends_with("\n\n") {
        out.pop();
    }
    out
}

fn tool_json(p: &Prepared<'_>, i: usize) -> Value {
    let t = &p.review.tools[i];
    let mut hints = Map::new();
    for (key, h) in t.hints.entries() {
        hints.insert(
            key.to_string(),
            json!({
                "value": h.value,
                "source": h.source.label(),
                "confidence": h.confidence,
                "reason": h.reason,
            }),
        );
    }
    let findings: Vec<Value> = p
        .findings_of(t)
        .iter()
        .map(|f| json!({"rule": f.rule, "severity": f.severity, "message": f.message}))
        .collect();
    json!({
        "name": t.name,
        "operation": t.operation(),
        "needsDecision": p.needs[i],
        "reviewed": reviewed(t),
        "note": t.review.as_ref().and_then(|r| r.note.clone()),
        "curated": curated(t),
        "hints": hints,
        "findings": findings,
    })
}

fn json_cost(p: &Prepared<'_>, i: usize) -> usize {
    // Written inside the `tools` array: each line four spaces further in.
    serde_json::to_string_pretty(&tool_json(p, i))
        .map_or(0, |s| s.chars().count() + 4 * s.lines().count() + 8)
}

fn json_value(p: &Prepared<'_>) -> Value {
    let c = &p.counts;
    let defaults = p.review.defaults.map(|d| {
        json!({
            "readOnlyHint": d.read_only_hint,
            "destructiveHint": d.destructive_hint,
            "idempotentHint": d.idempotent_hint,
            "openWorldHint": d.open_world_hint,
            "disabled": d.disabled,
            "reviewed": d.reviewed,
            "note": d.note,
        })
    });
    let tools: Vec<Value> = p.listed.iter().map(|&i| tool_json(p, i)).collect();
    let whole: Vec<Value> = p
        .review
        .findings
        .iter()
        .filter(|f| f.tool == lint::WHOLE_LIST)
        .map(|f| json!({"rule": f.rule, "severity": f.severity, "message": f.message}))
        .collect();
    let mut v = json!({
        "title": p.review.title,
        "counts": {
            "tools": c.tools,
            "needDecision": c.need_decision,
            "unsure": c.unsure,
            "reviewed": c.reviewed,
            "unreviewed": c.tools - c.reviewed,
            "disabled": c.disabled,
            "findings": c.rules,
        },
        "defaults": defaults,
        "disabled": p.review.disabled,
        "allTools": whole,
        "tools": tools,
        "omitted": p.omitted + p.more,
    });
    if p.changed_mode {
        v["removed"] = json!(p.removed);
    }
    v
}

fn json_text(review: Review<'_>, selection: &Selection) -> String {
    let probe = Prepared::new(
        review,
        &Selection::Changed {
            tools: vec![],
            removed: vec![],
        },
        |_, _| 0,
        0,
    );
    let fixed = serde_json::to_string_pretty(&json_value(&probe)).map_or(0, |s| s.chars().count())
        + FRAME
        + review.disabled.iter().map(|d| d.len() + 8).sum::<usize>();
    let p = Prepared::new(review, selection, json_cost, fixed);
    let mut s = serde_json::to_string_pretty(&json_value(&p)).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// The tools of `now` that are new or changed against `base` (matched by operation, `METHOD
/// /path`): their name, title, description, hints (value, source, confidence), review state,
/// note, curation or findings (rule and severity) differ; and the names of the base's tools
/// whose operation is gone.
pub fn changed(
    now: &[Tool],
    now_findings: &[Finding],
    base: &[Tool],
    base_findings: &[Finding],
) -> Selection {
    fn key(t: &Tool, findings: &HashMap<&str, Vec<(&'static str, Severity)>>) -> String {
        let hints: Vec<String> = t
            .hints
            .entries()
            .iter()
            .map(|(k, h)| format!("{k}={}/{}/{:?}", h.value, h.source.label(), h.confidence))
            .collect();
        let mut f = findings.get(t.name.as_str()).cloned().unwrap_or_default();
        f.sort();
        format!(
            "{}\u{0}{}\u{0}{}\u{0}{}\u{0}{:?}\u{0}{:?}\u{0}{:?}",
            t.name,
            t.title,
            t.description,
            hints.join(","),
            t.review.as_ref().map(|r| (r.reviewed, &r.note)),
            curated(t),
            f
        )
    }
    let index = |findings: &[Finding]| {
        let mut m: HashMap<String, Vec<(&'static str, Severity)>> = HashMap::new();
        for f in findings {
            m.entry(f.tool.clone())
                .or_default()
                .push((f.rule, f.severity));
        }
        m
    };
    let (nf, bf) = (index(now_findings), index(base_findings));
    let nf: HashMap<&str, Vec<(&'static str, Severity)>> =
        nf.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let bf: HashMap<&str, Vec<(&'static str, Severity)>> =
        bf.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let before: HashMap<String, &Tool> = base.iter().map(|t| (t.operation(), t)).collect();
    let tools = now
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            before
                .get(&t.operation())
                .is_none_or(|b| key(b, &bf) != key(t, &nf))
        })
        .map(|(i, _)| i)
        .collect();
    let ops: std::collections::HashSet<String> = now.iter().map(Tool::operation).collect();
    let removed = base
        .iter()
        .filter(|t| !ops.contains(&t.operation()))
        .map(|t| t.name.clone())
        .collect();
    Selection::Changed { tools, removed }
}
