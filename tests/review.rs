//! The review workflow end to end: hints files, lint, the review report, `convert --check`.

mod common;

use assert_cmd::Command;
use common::cmd;
use predicates::prelude::*;
use serde_json::Value;

const TRAPS: &str = "specs/review-traps.yaml";
const TRAPS_HINTS: &str = "specs/hints/review-traps.hints.yaml";
/// The review-traps scenarios test the lint and the review workflow on the method table's
/// suggestions (`hint-evidence.yaml` tests the evidence).
const METHOD: [&str; 2] = ["--suggest", "method"];

fn stdout(c: &mut Command, code: i32) -> String {
    String::from_utf8(c.assert().code(code).get_output().stdout.clone()).unwrap()
}

#[test]
fn lint_text_snapshot_and_exit_1_on_errors() {
    snapshot!(
        "review-traps.lint.txt",
        stdout(cmd().args(["lint"]).args(METHOD).args([TRAPS]), 1),
    );
}

#[test]
fn review_report_snapshot() {
    snapshot!(
        "review-traps.review.md",
        stdout(
            cmd()
                .args(["review"])
                .args(METHOD)
                .args([TRAPS, "--hints", TRAPS_HINTS]),
            0
        ),
    );
}

#[test]
fn starter_hints_file_snapshot() {
    snapshot!(
        "review-traps.hints.yaml",
        stdout(cmd().args(["hints"]).args(METHOD).args([TRAPS]), 0),
    );
}

#[test]
fn lint_json_has_the_documented_fields() {
    let out = stdout(
        cmd()
            .args(["lint"])
            .args(METHOD)
            .args([TRAPS, "--format", "json"]),
        1,
    );
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(!findings.is_empty());
    for f in &findings {
        for key in ["tool", "rule", "severity", "message", "operation"] {
            assert!(
                f.get(key).is_some_and(Value::is_string),
                "{key} missing in {f}"
            );
        }
        assert!(["error", "warning", "info"].contains(&f["severity"].as_str().unwrap()));
    }
    let refund = findings
        .iter()
        .find(|f| f["tool"] == "refund_order")
        .unwrap();
    assert_eq!(refund["operation"], "POST /orders/{id}/refund");
    assert_eq!(refund["severity"], "error");
}

#[test]
fn reviewed_findings_are_settled_not_errors() {
    let out = stdout(
        cmd()
            .args(["lint"])
            .args(METHOD)
            .args([TRAPS, "--hints", TRAPS_HINTS, "--format", "json"]),
        1,
    );
    let findings: Vec<Value> = serde_json::from_str(&out).unwrap();
    let of = |tool: &str| {
        findings
            .iter()
            .filter(|f| f["tool"] == tool)
            .collect::<Vec<_>>()
    };
    // logout: reviewed as read-only on purpose -> info, not error.
    assert!(
        of("logout")
            .iter()
            .any(|f| f["rule"] == "name-contradicts-hints" && f["severity"] == "info")
    );
    // refund_order: the review fixed the hint -> no contradiction left.
    assert!(
        !of("refund_order")
            .iter()
            .any(|f| f["rule"] == "name-contradicts-hints")
    );
    // list_orders has an entry but is not reviewed; create_order has none.
    assert!(of("list_orders").iter().any(|f| f["rule"] == "unreviewed"));
    assert!(of("create_order").iter().any(|f| f["rule"] == "unreviewed"));
}

#[test]
fn lint_is_quiet_and_exit_0_on_a_consistent_spec() {
    cmd().args(["lint", "specs/petstore.yaml"]).assert().code(0);
}

#[test]
fn lint_reads_a_converted_tools_file() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "-o"])
        .arg(&tools)
        .assert()
        .success();
    let from_file = stdout(cmd().arg("lint").arg(&tools), 1);
    assert!(
        from_file.contains("error refund_order name-contradicts-hints"),
        "{from_file}"
    );
    assert!(
        from_file.contains("error logout name-contradicts-hints"),
        "{from_file}"
    );
}

#[test]
fn convert_applies_hints_file_values() {
    let out = stdout(
        cmd()
            .args(["convert"])
            .args(METHOD)
            .args([TRAPS, "--hints", TRAPS_HINTS]),
        0,
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let refund = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "refund_order")
        .unwrap();
    assert_eq!(refund["annotations"]["destructiveHint"], true);
}

#[test]
fn hints_entry_for_a_missing_tool_is_exit_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::write(&hints, "tools:\n  no_such_tool:\n    readOnlyHint: true\n").unwrap();
    for sub in ["convert", "lint", "review"] {
        cmd()
            .args([sub, TRAPS, "--hints"])
            .arg(&hints)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("no_such_tool"));
    }
}

#[test]
fn malformed_hints_file_reports_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::write(&hints, "tools:\n  logout:\n    readOnlyHint: perhaps\n").unwrap();
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--hints"])
        .arg(&hints)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("hints.yaml:3:")
                .and(predicate::str::contains("invalid hints file")),
        );
}

#[test]
fn hints_update_keeps_decisions_adds_new_tools_and_keeps_orphans() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    let mut old = std::fs::read_to_string(common::root().join(TRAPS_HINTS)).unwrap();
    old.push_str(
        "  renamed_away:\n    readOnlyHint: false\n    reviewed: true\n    note: \"keep me\"\n",
    );
    std::fs::write(&hints, &old).unwrap();
    cmd()
        .args(["hints"])
        .args(METHOD)
        .args([TRAPS, "--update"])
        .arg(&hints)
        .assert()
        .success()
        .stderr(
            predicate::str::contains("renamed_away")
                .and(predicate::str::contains("3 entries kept")),
        );
    let text = std::fs::read_to_string(&hints).unwrap();
    let parsed = openapi_mcp::review::HintsFile::parse("h", &text).unwrap();
    let tools = parsed.tools.as_ref().unwrap();
    assert_eq!(tools.len(), 18, "every tool has an entry");
    assert!(tools["refund_order"].reviewed && tools["refund_order"].destructive_hint == Some(true));
    assert_eq!(
        tools["refund_order"].note.as_deref(),
        Some("refunds move money back and cannot be undone")
    );
    assert!(!tools["cancel_order"].reviewed, "new tools are unreviewed");
    assert_eq!(
        parsed.removed.as_ref().unwrap()["renamed_away"]
            .note
            .as_deref(),
        Some("keep me")
    );
    // The updated file applies cleanly, and a second update changes nothing.
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--hints"])
        .arg(&hints)
        .assert()
        .success();
    cmd()
        .args(["hints"])
        .args(METHOD)
        .args([TRAPS, "--update"])
        .arg(&hints)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&hints).unwrap(), text);
}

#[test]
fn check_passes_fails_and_never_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    // Missing file: drift.
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--check", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    assert!(!out.exists(), "--check never writes");
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "-o"])
        .arg(&out)
        .assert()
        .success();
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--check", "-o"])
        .arg(&out)
        .assert()
        .code(0)
        .stderr("");
    // A reviewed hint changes one annotation; a filter removes tools.
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--check", "--hints", TRAPS_HINTS, "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "changed refund_order: annotations.destructiveHint: false -> true",
        ));
    let before = std::fs::read(&out).unwrap();
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--check", "--methods", "get", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("removed create_order"));
    assert_eq!(std::fs::read(&out).unwrap(), before, "--check never writes");
    // Unusable input is still 2.
    cmd()
        .args(["convert", "specs/nope.yaml", "--check", "-o"])
        .arg(&out)
        .assert()
        .code(2);
    // --check needs -o.
    cmd()
        .args(["convert"])
        .args(METHOD)
        .args([TRAPS, "--check"])
        .assert()
        .code(2);
}
