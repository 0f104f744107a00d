//! Lint: findings about tools — names that contradict their final hints (error), suggestions the
//! evidence does not settle and defects a reviewer should see (warnings), including tools and
//! lists too large for a model's context. Reads only the tool model.

use crate::model::Method;
use crate::tool::Tool;
use crate::tool::suggest::Confidence;
use crate::tool::vocab::{self, Effect};
use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Settled by a human review; shown for completeness.
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub tool: String,
    pub operation: String,
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    /// For a finding about one tool: whether the evidence settles its suggested hints (`unsure`
    /// if any hint is not settled, `sure` once reviewed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
}

/// Rule names.
pub mod rules {
    pub const NAME_CONTRADICTS_HINTS: &str = "name-contradicts-hints";
    pub const HINT_UNCERTAIN: &str = "hint-uncertain";
    pub const DEFAULTS_UNREVIEWED: &str = "defaults-unreviewed";
    pub const UNREVIEWED: &str = "unreviewed";
    pub const NAME_TRUNCATED: &str = "name-truncated";
    pub const NAME_COLLISION: &str = "name-collision";
    pub const NO_DESCRIPTION: &str = "no-description";
    pub const NO_OUTPUT_SCHEMA: &str = "no-output-schema";
    pub const PUT_CREATES_IDEMPOTENT: &str = "put-creates-idempotent";
    pub const TOOL_TOO_LARGE: &str = "tool-too-large";
    pub const LIST_TOO_LARGE: &str = "list-too-large";
}

/// The rules about a tool's hints that `lint --strict` counts until the tool is reviewed.
pub const HINT_RULES: [&str; 3] = [
    rules::NAME_CONTRADICTS_HINTS,
    rules::HINT_UNCERTAIN,
    rules::PUT_CREATES_IDEMPOTENT,
];

/// What `lint --strict` holds against the tools: those that need a person's decision.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gate {
    /// Tools not reviewed that have an unsure hint or a finding of a [`HINT_RULES`] rule, in
    /// tool order.
    pub tools: Vec<String>,
    /// The hints file's `defaults:` block is not reviewed.
    pub defaults: bool,
}

impl Gate {
    /// Whether nothing is left to decide.
    pub fn passes(&self) -> bool {
        self.tools.is_empty() && !self.defaults
    }

    /// One line saying what is left, for standard error; `None` when the gate passes.
    pub fn message(&self) -> Option<String> {
        if self.passes() {
            return None;
        }
        let mut parts = Vec::new();
        if !self.tools.is_empty() {
            parts.push(format!(
                "{} {} an unsure hint or a hint finding and {} not reviewed: {}",
                self.tools.len(),
                if self.tools.len() == 1 {
                    "tool has"
                } else {
                    "tools have"
                },
                if self.tools.len() == 1 { "is" } else { "are" },
                self.tools.join(", ")
            ));
        }
        if self.defaults {
            parts.push("the hints file's `defaults:` block is not reviewed".into());
        }
        Some(format!(
            "lint --strict: {}; review them in the hints file (`reviewed: true`)",
            parts.join("; and ")
        ))
    }
}

/// The gate of `lint --strict` over `tools` and their `findings`: with a hints file
/// (`options.expect_review`), its `defaults:` must be reviewed too.
pub fn gate(tools: &[Tool], findings: &[Finding], options: LintOptions) -> Gate {
    let flagged: std::collections::HashSet<&str> = findings
        .iter()
        .filter(|f| HINT_RULES.contains(&f.rule) && f.severity >= Severity::Warning)
        .map(|f| f.tool.as_str())
        .collect();
    let tools = tools
        .iter()
        .filter(|t| !t.review.as_ref().is_some_and(|r| r.reviewed))
        .filter(|t| t.hints.confidence() == Confidence::Unsure || flagged.contains(t.name.as_str()))
        .map(|t| t.name.clone())
        .collect();
    Gate {
        tools,
        defaults: options.expect_review && !options.defaults_reviewed,
    }
}

/// The `tool` of a finding about the whole list.
pub const WHOLE_LIST: &str = "(all tools)";

/// Default size budget of one tool: 32 KiB, about 8,000 tokens at 4 bytes a token.
pub const DEFAULT_MAX_TOOL_BYTES: usize = 32 * 1024;
/// Default size budget of the whole list: about 100,000 tokens at 4 bytes a token, half of a
/// 200k-token context, which clients fill with every listed tool before the conversation starts.
pub const DEFAULT_MAX_LIST_BYTES: usize = 400_000;

/// What to lint for.
#[derive(Debug, Clone, Copy)]
pub struct LintOptions {
    /// A hints file was given: unreviewed tools are reported.
    pub expect_review: bool,
    /// Warn about a tool larger than this many bytes (compact JSON, as a client receives it).
    pub max_tool_bytes: Option<usize>,
    /// Warn when the whole list is larger than this many bytes.
    pub max_list_bytes: Option<usize>,
    /// The hints file's `defaults:` block is reviewed (checked only with `expect_review`).
    pub defaults_reviewed: bool,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            expect_review: false,
            max_tool_bytes: Some(DEFAULT_MAX_TOOL_BYTES),
            max_list_bytes: Some(DEFAULT_MAX_LIST_BYTES),
            defaults_reviewed: false,
        }
    }
}

/// Lint every tool; findings in tool order, errors first within a tool, then the findings about
/// the whole list.
pub fn lint(tools: &[Tool], options: LintOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    if options.expect_review && !options.defaults_reviewed && !tools.is_empty() {
        out.push(whole_list(
            rules::DEFAULTS_UNREVIEWED,
            "the hints file's `defaults:` block is not reviewed: decide openWorldHint for the \
             whole API (true for a public service, false for a self-hosted or own-data API), \
             then set `reviewed: true` there"
                .into(),
        ));
    }
    let mut total = 0;
    for t in tools {
        let mut found = Vec::new();
        contradictions(t, &mut found);
        uncertain(t, &mut found);
        warnings(t, options, &mut found);
        let size = crate::output::emit::tool_size(t);
        total += size;
        if let Some(max) = options.max_tool_bytes.filter(|&max| size > max) {
            found.push(finding(
                t,
                rules::TOOL_TOO_LARGE,
                Severity::Warning,
                format!(
                    "{} bytes (about {} tokens), over the budget of {max}; every request carries it: \
                     consider a smaller --schema-budget or --no-output-schema",
                    size,
                    size / 4
                ),
            ));
        }
        found.sort_by_key(|f| std::cmp::Reverse(f.severity));
        out.extend(found);
    }
    let total = total + crate::output::emit::frame_size(tools.len());
    if let Some(max) = options.max_list_bytes.filter(|&max| total > max) {
        out.push(whole_list(
            rules::LIST_TOO_LARGE,
            format!(
                "the {} tools take {total} bytes (about {} tokens), over the budget of {max}; \
                 a client puts every listed tool in the model's context: select fewer \
                 (--include-tag, --include-path, --methods) or cut schemas (--schema-budget, \
                 --no-output-schema)",
                tools.len(),
                total / 4
            ),
        ));
    }
    out
}

fn whole_list(rule: &'static str, message: String) -> Finding {
    Finding {
        tool: WHOLE_LIST.into(),
        operation: String::new(),
        rule,
        severity: Severity::Warning,
        message,
        confidence: None,
    }
}

fn finding(t: &Tool, rule: &'static str, severity: Severity, message: String) -> Finding {
    Finding {
        tool: t.name.clone(),
        operation: t.operation(),
        rule,
        severity,
        message,
        confidence: Some(t.hints.confidence()),
    }
}

/// A suggestion the evidence does not settle: a warning naming each unsure hint and why, until a
/// human reviews the tool.
fn uncertain(t: &Tool, out: &mut Vec<Finding>) {
    let unsure = t.hints.unsure();
    if unsure.is_empty() || t.review.as_ref().is_some_and(|r| r.reviewed) {
        return;
    }
    // Hints that share a reason are named together: `readOnlyHint true, idempotentHint true
    // (name): POST, but ...`.
    let mut each: Vec<(Vec<String>, &str, &str)> = Vec::new();
    for (key, h) in &unsure {
        let named = format!("{key} {}", h.value);
        match each.iter_mut().find(|(_, r, _)| *r == h.reason) {
            Some((keys, _, _)) => keys.push(named),
            None => each.push((vec![named], &h.reason, h.source.label())),
        }
    }
    let each: Vec<String> = each
        .iter()
        .map(|(keys, reason, source)| format!("{} ({source}): {reason}", keys.join(", ")))
        .collect();
    out.push(finding(
        t,
        rules::HINT_UNCERTAIN,
        Severity::Warning,
        format!(
            "the evidence does not settle the suggestion: {}. Check, then review the tool in the hints file",
            each.join("; ")
        ),
    ));
}

/// The "name contradicts hints" family: one finding per tool at most.
fn contradictions(t: &Tool, out: &mut Vec<Finding>) {
    let from_name = t.origin.verb.clone();
    let (verb, effect, source, confidence) = match from_name {
        Some((v, e, c)) => (v, e, "name", c),
        None => match t.origin.summary_verb.clone() {
            Some((v, e)) => (v, e, "summary", Confidence::Sure),
            None => return,
        },
    };
    let h = &t.hints;
    let (ro, destructive) = (h.read_only.value, h.destructive.value);
    // A contradiction the suggestion already weighed and left unsure is `hint-uncertain`'s.
    let unsure = |h: &crate::tool::suggest::Hint| h.confidence == Confidence::Unsure;
    let problem = match effect {
        _ if unsure(&h.read_only) || unsure(&h.destructive) => None,
        Effect::Destroys if ro => Some(format!(
            "`{verb}` in the {source} says it changes data, but readOnlyHint is true"
        )),
        Effect::Destroys if !destructive => Some(format!(
            "`{verb}` in the {source} says it removes or irreversibly changes data, but destructiveHint is false"
        )),
        Effect::Writes | Effect::Creates if ro => Some(format!(
            "`{verb}` in the {source} says it changes state, but readOnlyHint is true"
        )),
        Effect::Reads if !ro => Some(format!(
            "`{verb}` in the {source} says it only reads, but readOnlyHint is false"
        )),
        Effect::Reads if destructive => Some(format!(
            "`{verb}` in the {source} says it only reads, but destructiveHint is true"
        )),
        _ => None,
    };
    let Some(message) = problem else {
        return;
    };
    let settled = t.review.as_ref().is_some_and(|r| r.reviewed);
    let (severity, message) = if settled {
        (Severity::Info, format!("{message} (settled: reviewed)"))
    } else if confidence == Confidence::Unsure {
        (
            Severity::Warning,
            format!(
                "{message} (the verb stands inside the name, so this may be a noun phrase); check the hints"
            ),
        )
    } else {
        (
            Severity::Error,
            format!("{message}; fix the hints or review them in the hints file"),
        )
    };
    out.push(finding(t, rules::NAME_CONTRADICTS_HINTS, severity, message));
}

fn warnings(t: &Tool, options: LintOptions, out: &mut Vec<Finding>) {
    use Severity::Warning;
    if options.expect_review && !t.review.as_ref().is_some_and(|r| r.reviewed) {
        let why = if t.review.is_some() {
            "not marked `reviewed: true`"
        } else {
            "no entry in the hints file"
        };
        out.push(finding(
            t,
            rules::UNREVIEWED,
            Warning,
            format!("hints not reviewed: {why}"),
        ));
    }
    let n = &t.origin.naming;
    if n.truncated {
        out.push(finding(
            t,
            rules::NAME_TRUNCATED,
            Warning,
            format!(
                "name cut to fit the length limit (wanted `{}`, {} characters)",
                n.wanted,
                n.wanted.len()
            ),
        ));
    }
    if n.collided {
        out.push(finding(
            t,
            rules::NAME_COLLISION,
            Warning,
            format!(
                "another operation also wanted the name `{}`; a hash suffix tells them apart",
                n.wanted
            ),
        ));
    }
    if !t.origin.described {
        out.push(finding(
            t,
            rules::NO_DESCRIPTION,
            Warning,
            "the operation has no summary or description; the model only sees the method and path"
                .into(),
        ));
    }
    if t.output_schema.is_none() {
        let safe = matches!(t.call.method, Method::Get | Method::Query);
        if !t.origin.has_success {
            out.push(finding(
                t,
                rules::NO_OUTPUT_SCHEMA,
                Warning,
                "the operation declares no 2xx response".into(),
            ));
        } else if safe {
            out.push(finding(
                t,
                rules::NO_OUTPUT_SCHEMA,
                Warning,
                "the success response has no JSON schema, so the tool has no outputSchema".into(),
            ));
        }
    }
    if t.call.method == Method::Put
        && t.hints.idempotent.value
        && matches!(vocab::name_verb(&t.name), Some((_, Effect::Creates)))
    {
        out.push(finding(
            t,
            rules::PUT_CREATES_IDEMPOTENT,
            Warning,
            "a PUT whose name says it creates is marked idempotent; repeating it may create twice if the server assigns ids".into(),
        ));
    }
}

/// `severity tool rule: message`, one finding a line.
pub fn render_text(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{} {} {}: {}\n",
            f.severity.as_str(),
            f.tool,
            f.rule,
            f.message
        ));
    }
    out
}

/// A JSON array of findings.
pub fn render_json(findings: &[Finding]) -> String {
    let mut s = serde_json::to_string_pretty(findings).unwrap_or_else(|_| "[]".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(ops: &[(&str, &str, &str)]) -> String {
        let mut paths = serde_json::Map::new();
        for (i, (method, id, _)) in ops.iter().enumerate() {
            paths.insert(
                format!("/p{i}"),
                serde_json::json!({ *method: {"operationId": id, "summary": "s", "responses": {"200": {"description": "ok",
                    "content": {"application/json": {"schema": {"type": "object"}}}}}}}),
            );
        }
        serde_json::json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths}).to_string()
    }

    /// Errors on the method table's hints: what the name lint alone catches.
    fn errors(ops: &[(&str, &str, &str)]) -> Vec<String> {
        let options = crate::Options {
            suggest: crate::Suggest::Method,
            ..crate::Options::default()
        };
        let tools = crate::convert_str("t.json", &spec(ops), &options)
            .unwrap()
            .tools;
        lint(&tools, LintOptions::default())
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.tool)
            .collect()
    }

    #[test]
    fn catches_contradicting_names() {
        let bad = [
            ("post", "refundOrder", ""),
            ("post", "cancelOrder", ""),
            ("post", "revokeToken", ""),
            ("post", "deleteUser", ""),
            ("post", "searchOrders", ""),
            ("get", "logout", ""),
            ("put", "getReport", ""),
        ];
        assert_eq!(
            errors(&bad),
            [
                "refund_order",
                "cancel_order",
                "revoke_token",
                "delete_user",
                "search_orders",
                "logout",
                "get_report"
            ]
        );
    }

    #[test]
    fn quiet_on_consistent_names() {
        let good = [
            ("get", "listOrders", ""),
            ("post", "createOrder", ""),
            ("delete", "deleteOrder", ""),
            ("delete", "purgeCache", ""),
            ("patch", "updateWidget", ""),
            ("put", "archiveAccount", ""),
            ("post", "sendEmail", ""),
        ];
        assert!(errors(&good).is_empty(), "{:?}", errors(&good));
    }
}
