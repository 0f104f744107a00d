//! Evidence-based hint suggestions end to end: the scenario specs' hints files and reviews, the
//! hints file's `defaults:` block and its precedence, `hints --update` on a file written by the
//! method table, `--suggest method`, and lint's `hint-uncertain`, `defaults-unreviewed` and
//! `confidence`.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

const EVIDENCE: &str = "specs/hint-evidence.yaml";
const RPC: &str = "specs/hint-rpc.yaml";
/// One scenario spec per rule that reads more than the name (`specs/NAME.yaml`).
const RULE_SPECS: [&str; 5] = [
    "hint-description",
    "hint-two-verbs",
    "hint-body",
    "hint-query-language",
    "hint-nouns",
];

fn cmd() -> Command {
    let mut c = Command::cargo_bin("openapi-mcp").unwrap();
    c.current_dir(common::root());
    c
}

fn stdout(c: &mut Command, code: i32) -> String {
    String::from_utf8(c.assert().code(code).get_output().stdout.clone()).unwrap()
}

fn tools(out: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(out).unwrap();
    v["tools"].as_array().unwrap().clone()
}

fn annotations(out: &str, name: &str) -> [bool; 4] {
    let t = tools(out).into_iter().find(|t| t["name"] == name).unwrap();
    let a = &t["annotations"];
    [
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
    .map(|k| a[k].as_bool().unwrap())
}

#[test]
fn hints_file_snapshots() {
    snapshot!(
        "hint-evidence.hints.yaml",
        stdout(cmd().args(["hints", EVIDENCE]), 0)
    );
    snapshot!("hint-rpc.hints.yaml", stdout(cmd().args(["hints", RPC]), 0));
    for spec in RULE_SPECS {
        snapshot!(
            &format!("{spec}.hints.yaml"),
            stdout(cmd().args(["hints", &format!("specs/{spec}.yaml")]), 0)
        );
    }
}

#[test]
fn review_snapshots() {
    snapshot!(
        "hint-evidence.review.md",
        stdout(cmd().args(["review", EVIDENCE]), 0)
    );
    snapshot!("hint-rpc.review.md", stdout(cmd().args(["review", RPC]), 0));
    for spec in RULE_SPECS {
        snapshot!(
            &format!("{spec}.review.md"),
            stdout(cmd().args(["review", &format!("specs/{spec}.yaml")]), 0)
        );
    }
}

/// `review` lists the tools that need a decision first (an unsure hint or a hint finding),
/// then the others, each in document order.
#[test]
fn review_puts_unsettled_tools_first() {
    let out = stdout(cmd().args(["review", EVIDENCE]), 0);
    let (first, rest) = out.split_once("## Settled or reviewed").unwrap();
    let rows = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("| `"))
            .map(str::to_string)
            .collect()
    };
    let (first, rest) = (rows(first), rows(rest));
    assert!(!first.is_empty() && !rest.is_empty(), "{out}");
    assert!(
        first
            .iter()
            .all(|r| r.contains("hint-uncertain") || r.contains("name-contradicts-hints")),
        "{out}"
    );
    assert!(first.iter().any(|r| r.contains("unsure")), "{out}");
    assert!(rest.iter().all(|r| !r.contains("unsure")), "{out}");
}

#[test]
fn suggest_method_is_the_method_table() {
    let method = stdout(cmd().args(["convert", EVIDENCE, "--suggest", "method"]), 0);
    let evidence = stdout(cmd().args(["convert", EVIDENCE]), 0);
    assert_eq!(
        annotations(&method, "search_orders"),
        [false, false, false, true]
    );
    assert_eq!(
        annotations(&evidence, "search_orders"),
        [true, false, true, true]
    );
    assert_eq!(
        annotations(&method, "issues_update"),
        [false, true, false, true]
    );
    assert_eq!(
        annotations(&evidence, "issues_update"),
        [false, false, false, true]
    );
    // Only annotations differ: names, schemas and _meta are the same.
    let strip = |out: &str| {
        tools(out)
            .into_iter()
            .map(|mut t| {
                t.as_object_mut().unwrap().remove("annotations");
                t
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&method), strip(&evidence));
    // The extension wins in both modes.
    assert_eq!(annotations(&method, "search_archive")[..2], [false, true]);
    assert_eq!(annotations(&evidence, "search_archive")[..2], [false, true]);
}

#[test]
fn lint_reports_uncertain_suggestions_with_confidence() {
    let out = stdout(cmd().args(["lint", EVIDENCE, "--format", "json"]), 1);
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    let of = |tool: &str, rule: &str| {
        findings
            .iter()
            .find(|f| f["tool"] == tool && f["rule"] == rule)
            .cloned()
    };
    let f = of("get_access_token", "hint-uncertain").expect("one weak word departs");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["confidence"], "unsure");
    assert!(f["message"].as_str().unwrap().contains("`get`"), "{f}");
    assert!(
        of("update_project", "hint-uncertain").is_some(),
        "a JSON Patch"
    );
    assert!(of("search_orders", "hint-uncertain").is_none(), "settled");
    assert!(of("issues_update", "hint-uncertain").is_none(), "settled");
    // The one error left: an extension that contradicts the name.
    let errors: Vec<&Value> = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["tool"], "search_archive");
    assert_eq!(errors[0]["confidence"], "sure");
    // With `--suggest method` there is nothing uncertain, and the contradictions are errors.
    let out = stdout(
        cmd().args(["lint", EVIDENCE, "--format", "json", "--suggest", "method"]),
        1,
    );
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(!findings.iter().any(|f| f["rule"] == "hint-uncertain"));
    assert!(
        findings
            .iter()
            .any(|f| f["tool"] == "search_orders" && f["severity"] == "error")
    );
}

/// A reviewed entry settles an uncertain suggestion.
#[test]
fn reviewed_entry_settles_uncertainty() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("h.yaml");
    std::fs::write(
        &hints,
        "defaults: {openWorldHint: true, reviewed: true}\ntools:\n  get_access_token: {readOnlyHint: false, reviewed: true}\n",
    )
    .unwrap();
    let out = stdout(
        cmd()
            .args(["lint", EVIDENCE, "--format", "json", "--hints"])
            .arg(&hints),
        1,
    );
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(
        !findings
            .iter()
            .any(|f| f["tool"] == "get_access_token" && f["rule"] == "hint-uncertain")
    );
    assert!(!findings.iter().any(|f| f["rule"] == "defaults-unreviewed"));
}

#[test]
fn defaults_block_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("h.yaml");
    // defaults say openWorld false and idempotent false for every tool; one entry says
    // openWorld true; the extension on search_archive sets destructive, which defaults do not
    // override.
    std::fs::write(
        &hints,
        "defaults:\n  openWorldHint: false\n  idempotentHint: false\n  destructiveHint: false\n  reviewed: true\n  note: our own instance\n\
         tools:\n  list_reports: {openWorldHint: true, reviewed: true}\n",
    )
    .unwrap();
    let out = stdout(cmd().args(["convert", EVIDENCE, "--hints"]).arg(&hints), 0);
    assert_eq!(
        annotations(&out, "search_orders"),
        [true, false, false, false]
    );
    assert_eq!(
        annotations(&out, "list_reports"),
        [true, false, false, true]
    );
    assert!(
        annotations(&out, "search_archive")[1],
        "extension over defaults"
    );
    // review shows the block once, at the top, and the source of each value.
    let review = stdout(cmd().args(["review", EVIDENCE, "--hints"]).arg(&hints), 0);
    assert_eq!(review.matches("Defaults for every tool").count(), 1);
    let top: String = review.lines().take(8).collect::<Vec<_>>().join("\n");
    assert!(
        top.contains("openWorldHint false") && top.contains("reviewed; our own instance"),
        "{top}"
    );
    assert!(review.contains("false (defaults)"), "{review}");
}

#[test]
fn defaults_unreviewed_is_one_warning_for_all_tools() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("h.yaml");
    let starter = stdout(cmd().args(["hints", RPC]), 0);
    assert!(starter.contains("defaults:\n"), "{starter}");
    assert!(
        starter.contains("  openWorldHint: true\n  reviewed: false\n"),
        "{starter}"
    );
    std::fs::write(&hints, &starter).unwrap();
    let lint = |hints: &std::path::Path| {
        let out = stdout(
            cmd()
                .args(["lint", RPC, "--format", "json", "--hints"])
                .arg(hints),
            0,
        );
        let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
        findings
            .into_iter()
            .filter(|f| f["rule"] == "defaults-unreviewed")
            .collect::<Vec<_>>()
    };
    let found = lint(&hints);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["tool"], "(all tools)");
    assert!(found[0].get("confidence").is_none());
    std::fs::write(
        &hints,
        starter.replace("  reviewed: false\ntools:", "  reviewed: true\ntools:"),
    )
    .unwrap();
    assert!(lint(&hints).is_empty());
    // Without a hints file there is nothing to review.
    let out = stdout(cmd().args(["lint", RPC, "--format", "json"]), 0);
    assert!(!out.contains("defaults-unreviewed"));
}

/// A file written by the method table (before evidence): `--update` gives unreviewed entries the
/// new suggestions, keeps values a human changed and reviewed entries, and leaves openWorldHint
/// to `defaults:`.
#[test]
fn update_refreshes_machine_written_values_only() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("h.yaml");
    std::fs::write(
        &hints,
        "tools:\n\
         \x20 search_orders: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true, reviewed: false}\n\
         \x20 cancel_order: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, reviewed: false}\n\
         \x20 pulls_merge: {readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true, reviewed: true}\n",
    )
    .unwrap();
    let assert = cmd()
        .args(["hints", EVIDENCE, "--update"])
        .arg(&hints)
        .assert()
        .success();
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        err.contains("3 values of unreviewed entries given the new suggestion"),
        "{err}"
    );
    let file =
        openapi_mcp::review::HintsFile::parse("h", &std::fs::read_to_string(&hints).unwrap())
            .unwrap();
    let t = file.tools.as_ref().unwrap();
    // Machine-written: all three take the evidence; openWorld left to defaults.
    let s = &t["search_orders"];
    assert_eq!(
        (
            s.read_only_hint,
            s.destructive_hint,
            s.idempotent_hint,
            s.open_world_hint
        ),
        (Some(true), Some(false), Some(true), None)
    );
    // Hand-set idempotent and openWorld kept; destructive (the table's) refreshed.
    let c = &t["cancel_order"];
    assert_eq!(
        (c.destructive_hint, c.idempotent_hint, c.open_world_hint),
        (Some(true), Some(true), Some(false))
    );
    // Reviewed: untouched.
    let m = &t["pulls_merge"];
    assert_eq!(
        (m.destructive_hint, m.open_world_hint),
        (Some(false), Some(true))
    );
    assert!(
        file.defaults
            .is_some_and(|d| !d.reviewed && d.open_world_hint == Some(true))
    );
}
