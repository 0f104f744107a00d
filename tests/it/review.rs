//! The review workflow end to end: hints files, lint, the review report, `convert --check`.

use crate::common;

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

const CURATION: &str = "specs/curation.yaml";
const CURATION_HINTS: &str = "specs/hints/curation.hints.yaml";

fn tool_names(out: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(out).unwrap();
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool_of<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// `name`, `description` and `disabled` of the hints file and of `x-speakeasy-mcp` are what
/// convert, lint, review and search see.
#[test]
fn curation_is_honoured_by_every_command() {
    let out = stdout(
        cmd().args(["convert", CURATION, "--hints", CURATION_HINTS]),
        0,
    );
    assert_eq!(
        tool_names(&out),
        [
            "rc_noop",
            "stats",
            "list_org_members",
            "instance_status",
            "update_org_settings"
        ]
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        tool_of(&v, "stats")["description"],
        "Transfer statistics of the running rclone: bytes, speed, errors."
    );
    assert_eq!(
        tool_of(&v, "instance_status")["description"],
        "Tells whether the instance is up, and its version."
    );
    // Without the file, x-speakeasy-mcp alone: its name and disabled hold.
    let plain = stdout(cmd().args(["convert", CURATION]), 0);
    assert_eq!(
        tool_names(&plain),
        [
            "rc_noop",
            "core_stats",
            "operations_deletefile",
            "list_org_members",
            "instance_status",
            "update_org_settings"
        ]
    );
    let lint = stdout(
        cmd().args([
            "lint",
            CURATION,
            "--hints",
            CURATION_HINTS,
            "--format",
            "json",
        ]),
        0,
    );
    assert!(!lint.contains("operations_deletefile"), "{lint}");
    assert!(
        lint.contains("\"instance_status\"") && !lint.contains("core_stats"),
        "{lint}"
    );
    let review = stdout(
        cmd().args(["review", CURATION, "--hints", CURATION_HINTS]),
        0,
    );
    assert!(review.contains("`stats`") && !review.contains("| `operations_deletefile`"));
    let search = stdout(
        cmd().args([
            "search",
            CURATION,
            "remove a file",
            "--hints",
            CURATION_HINTS,
        ]),
        0,
    );
    assert!(!search.contains("operations_deletefile"), "{search}");
    let search = stdout(
        cmd().args([
            "search",
            CURATION,
            "bytes speed errors",
            "--hints",
            CURATION_HINTS,
        ]),
        0,
    );
    assert!(
        search.lines().next().unwrap().contains("\tstats\t"),
        "{search}"
    );
}

/// `defaults: {disabled: true}` keeps only the tools whose entry says `disabled: false`, and
/// disabling a tool renames no other.
#[test]
fn defaults_disabled_keeps_only_the_chosen_tools() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::write(
        &hints,
        "defaults:\n  disabled: true\ntools:\n  list_org_members:\n    disabled: false\n",
    )
    .unwrap();
    let out = stdout(cmd().args(["convert", CURATION, "--hints"]).arg(&hints), 0);
    assert_eq!(tool_names(&out), ["list_org_members"]);
    // A spec where two operations want one name: disabling one leaves the other's name.
    let spec = dir.path().join("twins.yaml");
    std::fs::write(
        &spec,
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get: {operationId: listPets, responses: {'200': {description: ok}}}\n  /b:\n    get: {operationId: list_pets, responses: {'200': {description: ok}}}\n",
    )
    .unwrap();
    let both = tool_names(&stdout(cmd().arg("convert").arg(&spec), 0));
    std::fs::write(
        &hints,
        format!("tools:\n  {}:\n    disabled: true\n", both[0]),
    )
    .unwrap();
    let one = tool_names(&stdout(
        cmd().arg("convert").arg(&spec).arg("--hints").arg(&hints),
        0,
    ));
    assert_eq!(one, [both[1].clone()]);
}

/// An operationId renamed on the same METHOD + path keeps the reviewed entry: the values apply
/// (a note says so), `--check` reports the rename as drift, `hints --update` moves the entry.
/// A name style or a curated name is a rename too; only a gone operation is stale.
#[test]
fn decisions_follow_their_operation() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    let hints = dir.path().join("hints.yaml");
    std::fs::copy(common::root().join(CURATION_HINTS), &hints).unwrap();
    cmd()
        .args(["convert", CURATION, "--hints"])
        .arg(&hints)
        .arg("-o")
        .arg(&tools)
        .assert()
        .success();
    let renamed = dir.path().join("renamed.yaml");
    let text = std::fs::read_to_string(common::root().join(CURATION)).unwrap();
    std::fs::write(
        &renamed,
        text.replace("operationId: rcNoop", "operationId: noop"),
    )
    .unwrap();
    // The reviewed readOnlyHint true holds under the new name (POST suggests false).
    let out = stdout(
        cmd()
            .arg("convert")
            .arg(&renamed)
            .arg("--hints")
            .arg(&hints),
        0,
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(tool_of(&v, "noop")["annotations"]["readOnlyHint"], true);
    cmd()
        .arg("convert")
        .arg(&renamed)
        .arg("--hints")
        .arg(&hints)
        .arg("--check")
        .arg("-o")
        .arg(&tools)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("renamed rc_noop -> noop").and(predicate::str::contains(
                "entry `rc_noop` applied to tool `noop`",
            )),
        );
    cmd()
        .arg("hints")
        .arg(&renamed)
        .arg("--update")
        .arg(&hints)
        .assert()
        .success()
        .stderr(predicate::str::contains("rc_noop: the tool is now `noop`"));
    let updated = openapi_mcp::review::HintsFile::load(&hints).unwrap();
    let entries = updated.tools.as_ref().unwrap();
    assert!(!entries.contains_key("rc_noop") && updated.removed.is_none());
    assert!(entries["noop"].reviewed && entries["noop"].read_only_hint == Some(true));
    assert_eq!(
        entries["noop"].note.as_deref(),
        Some("noop only echoes its input")
    );
    // Curation survives the update.
    assert_eq!(entries["core_stats"].name.as_deref(), Some("stats"));
    assert!(entries["core_stats"].description.is_some());
    assert_eq!(entries["operations_deletefile"].disabled, Some(true));
    // Another name style: the same file applies, through the operation.
    let camel = stdout(
        cmd().args([
            "convert",
            CURATION,
            "--name-style",
            "camel",
            "--hints",
            CURATION_HINTS,
        ]),
        0,
    );
    let v: Value = serde_json::from_str(&camel).unwrap();
    assert_eq!(tool_of(&v, "rcNoop")["annotations"]["readOnlyHint"], true);
    assert_eq!(tool_of(&v, "rcNoop")["annotations"]["idempotentHint"], true);
    // Without `operation:`, the operationId in another style finds it.
    std::fs::write(
        &hints,
        "tools:\n  rcNoop:\n    readOnlyHint: true\n    reviewed: true\n",
    )
    .unwrap();
    let out = stdout(cmd().args(["convert", CURATION, "--hints"]).arg(&hints), 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(tool_of(&v, "rc_noop")["annotations"]["readOnlyHint"], true);
    // A gone operation is stale: exit 2 naming it.
    let gone = dir.path().join("gone.yaml");
    std::fs::write(
        &gone,
        text.replace(
            "/rc/noop:\n    post:\n      operationId: rcNoop",
            "/rc/other:\n    post:\n      operationId: rcOther",
        ),
    )
    .unwrap();
    std::fs::copy(common::root().join(CURATION_HINTS), &hints).unwrap();
    cmd()
        .arg("convert")
        .arg(&gone)
        .arg("--hints")
        .arg(&hints)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("rc_noop"));
}

/// An entry of an operation the filters drop is not stale.
#[test]
fn filters_drop_entries_without_error() {
    let out = stdout(
        cmd().args([
            "convert",
            CURATION,
            "--methods",
            "get",
            "--hints",
            CURATION_HINTS,
        ]),
        0,
    );
    assert_eq!(tool_names(&out), ["list_org_members", "instance_status"]);
}

/// An unknown key, a bad curated name and a collision are one line with the file's line and
/// column, exit 2, and nothing is written.
#[test]
fn bad_curation_is_exit_2_at_its_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    let out = dir.path().join("tools.json");
    let cases = [
        (
            "tools:\n  rc_noop:\n    nmae: noop\n",
            "hints.yaml:3:5: ",
            "unknown field `nmae`",
        ),
        (
            "tools:\n  rc_noop:\n    name: \"no op\"\n",
            "hints.yaml:3:11: ",
            "\"no op\"",
        ),
        (
            "tools:\n  rc_noop:\n    name: a_name_much_longer_than_the_sixty_four_characters_a_client_takes_x\n",
            "hints.yaml:3:11: ",
            "at most 64",
        ),
        (
            "tools:\n  rc_noop:\n    reviewed: true\n  core_stats:\n    name: rc_noop\n",
            "hints.yaml:5:11: ",
            "entry `rc_noop` at 3:5",
        ),
    ];
    for (text, at, why) in cases {
        std::fs::write(&hints, text).unwrap();
        let convert = cmd()
            .args(["convert", CURATION, "-o"])
            .arg(&out)
            .arg("--hints")
            .arg(&hints)
            .assert();
        let update = cmd()
            .args(["hints", CURATION, "--update"])
            .arg(&hints)
            .assert();
        for assert in [convert, update] {
            let err = String::from_utf8(assert.code(2).get_output().stderr.clone()).unwrap();
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(at) && err.contains(why), "{text}: {err}");
            assert!(!out.exists(), "nothing written");
            assert_eq!(
                std::fs::read_to_string(&hints).unwrap(),
                text,
                "nothing written"
            );
        }
    }
}

/// `lint --strict` exits 1 naming each tool with an unsure hint or a hint finding that is not
/// reviewed (and an unreviewed `defaults:`), and 0 once a person reviewed each of them.
#[test]
fn strict_gate_holds_until_every_flagged_tool_is_reviewed() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::copy(common::root().join(TRAPS_HINTS), &hints).unwrap();
    let strict = |hints: Option<&std::path::Path>| {
        let mut c = cmd();
        c.args(["lint", "--strict"]).args(METHOD).arg(TRAPS);
        if let Some(h) = hints {
            c.arg("--hints").arg(h);
        }
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, err) = strict(Some(&hints));
    assert_eq!(code, Some(1));
    assert!(
        err.contains("7 tools have an unsure hint or a hint finding and are not reviewed: cancel_order, search_orders")
            && err.contains("`defaults:` block is not reviewed"),
        "{err}"
    );
    // Without a hints file, every such tool counts (and no `defaults:` is asked for).
    let (code, err) = strict(None);
    assert_eq!(code, Some(1));
    assert!(!err.contains("defaults") && err.contains("logout"), "{err}");
    // Review each named tool and the defaults.
    let names: Vec<&str> = err
        .split("not reviewed: ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .split(", ")
        .collect();
    let mut text = std::fs::read_to_string(&hints).unwrap();
    text = text.replace("reviewed: false", "reviewed: true");
    text.insert_str(0, "defaults:\n  reviewed: true\n");
    for name in names {
        if !text.contains(&format!("\n  {name}:\n")) {
            text.push_str(&format!("  {name}:\n    reviewed: true\n"));
        }
    }
    std::fs::write(&hints, text).unwrap();
    assert_eq!(strict(Some(&hints)), (Some(0), String::new()));
    cmd()
        .args(["lint", "--strict", "specs/petstore.yaml"])
        .assert()
        .code(0);
}

/// `review` in both formats on the curation scenario: the counts first, curation shown.
#[test]
fn review_snapshots_in_both_formats() {
    snapshot!(
        "curation.review.md",
        stdout(
            cmd().args(["review", CURATION, "--hints", CURATION_HINTS]),
            0
        )
    );
    snapshot!(
        "curation.review.json",
        stdout(
            cmd().args([
                "review",
                CURATION,
                "--hints",
                CURATION_HINTS,
                "--format",
                "json"
            ]),
            0
        )
    );
    snapshot!(
        "review-traps.review.json",
        stdout(
            cmd().args(["review"]).args(METHOD).args([
                TRAPS,
                "--hints",
                TRAPS_HINTS,
                "--format",
                "json"
            ]),
            0
        )
    );
}

/// A spec of `n` operations whose names contradict their method: every tool needs a decision.
fn flagged_spec(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let mut paths = serde_json::Map::new();
    for i in 0..n {
        paths.insert(
            format!("/things/{i}/remove"),
            serde_json::json!({"post": {"operationId": format!("deleteThingNumber{i}WithAFairlyLongName"),
                "summary": "Removes the thing for good, with a summary long enough to weigh something",
                "responses": {"200": {"description": "ok"}}}}),
        );
    }
    let spec = serde_json::json!({"openapi": "3.0.3", "info": {"title": "Many", "version": "1"}, "paths": paths});
    let path = dir.join("many.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    path
}

/// The default review fits a pull-request comment however many tools need a decision, says how
/// many were left out, and `--all` lists them all; the JSON has the documented fields.
#[test]
fn default_review_fits_a_comment() {
    let dir = tempfile::tempdir().unwrap();
    let spec = flagged_spec(dir.path(), 2_000);
    for format in ["markdown", "json"] {
        let out = stdout(
            cmd()
                .arg("review")
                .args(METHOD)
                .arg(&spec)
                .args(["--format", format]),
            0,
        );
        assert!(out.chars().count() <= 65_536, "{format}: {}", out.len());
        if format == "markdown" {
            assert!(out.starts_with("# Hint review: Many\n\n**2000 tools**: 2000 need a decision"));
            assert!(
                out.contains(
                    "more tools of this section left out to fit 65536 characters: `--all`"
                )
            );
        } else {
            let v: Value = serde_json::from_str(&out).unwrap();
            for key in [
                "title", "counts", "defaults", "disabled", "allTools", "tools", "omitted",
            ] {
                assert!(v.get(key).is_some(), "{key}");
            }
            let listed = v["tools"].as_array().unwrap().len();
            assert_eq!(listed + v["omitted"].as_u64().unwrap() as usize, 2_000);
            assert_eq!(v["counts"]["needDecision"], 2_000);
            let t = &v["tools"][0];
            for key in [
                "name",
                "operation",
                "needsDecision",
                "reviewed",
                "note",
                "curated",
                "hints",
                "findings",
            ] {
                assert!(t.get(key).is_some(), "{key}");
            }
            for key in ["value", "source", "confidence", "reason"] {
                assert!(t["hints"]["readOnlyHint"].get(key).is_some(), "{key}");
            }
        }
    }
    let all = stdout(cmd().arg("review").args(METHOD).arg(&spec).arg("--all"), 0);
    assert_eq!(all.lines().filter(|l| l.starts_with("| `")).count(), 2_000);
}

/// `--base` lists only what changed against the base: a flipped, reviewed hint, a new tool, a
/// gone one.
#[test]
fn review_against_a_base_lists_only_the_changes() {
    let dir = tempfile::tempdir().unwrap();
    let base_hints = dir.path().join("base.yaml");
    let hints = dir.path().join("hints.yaml");
    std::fs::copy(common::root().join(CURATION_HINTS), &base_hints).unwrap();
    let text = std::fs::read_to_string(&base_hints).unwrap();
    std::fs::write(
        &hints,
        format!("{text}  list_org_members:\n    idempotentHint: false\n    reviewed: true\n"),
    )
    .unwrap();
    let spec = dir.path().join("spec.yaml");
    let base_text = std::fs::read_to_string(common::root().join(CURATION)).unwrap();
    std::fs::write(
        &spec,
        base_text.replace("/core/stats:", "/core/version:\n    get:\n      operationId: coreVersion\n      responses: {\"200\": {description: ok}}\n  /core/stats:")
            .replace("  /rc/noop:\n    post:\n      operationId: rcNoop\n      summary: Echo the input back\n      responses: {\"200\": {description: ok}}\n", ""),
    )
    .unwrap();
    // The gone operation's entry goes with it.
    let pr = std::fs::read_to_string(&hints).unwrap();
    let (from, to) = (
        pr.find("  rc_noop:").unwrap(),
        pr.find("  core_stats:").unwrap(),
    );
    std::fs::write(&hints, format!("{}{}", &pr[..from], &pr[to..])).unwrap();
    let out = stdout(
        cmd()
            .arg("review")
            .arg(&spec)
            .arg("--hints")
            .arg(&hints)
            .args(["--base", CURATION, "--base-hints"])
            .arg(&base_hints),
        0,
    );
    assert!(out.contains("## Changed against the base (2)"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(
        rows.iter().any(|r| r.starts_with("| `core_version`")),
        "{out}"
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("| `list_org_members`") && r.contains("false (reviewed)")),
        "{out}"
    );
    assert!(
        out.contains("## Gone since the base (1)\n\n- `rc_noop`"),
        "{out}"
    );
}

/// A filter value that matches no operation of the document is named on standard error, each
/// judged on its own; the exit code is unchanged.
#[test]
fn filter_values_matching_nothing_are_named() {
    let out = cmd()
        .args([
            "convert",
            CURATION,
            "--include-op",
            "rcNoop,rcNosuch",
            "--exclude-tag",
            "nosuchtag",
            "--include-path",
            "/rc/*",
            "--include-path",
            "/nope/**",
            "--methods",
            "post,put",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 4, "{err}");
    for needle in [
        "--include-op rcNosuch matches no operation's operationId",
        "--exclude-tag nosuchtag matches no operation's tag",
        "--include-path /nope/** matches no operation's path",
        "--methods put matches no operation's method",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    let v: Value = serde_json::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap();
    assert_eq!(v["tools"].as_array().unwrap().len(), 1);
    // Values that match something say nothing.
    cmd()
        .args([
            "convert",
            CURATION,
            "--include-op",
            "rcNoop",
            "--methods",
            "post",
        ])
        .assert()
        .code(0)
        .stderr("");
}

/// An entry under the name an earlier shortening gave (cut from the end) applies to the tool of
/// its `operation:` under today's name: the decision holds, `--check` names the rename as drift
/// and `hints --update` moves the entry.
#[test]
fn an_entry_under_an_old_shortened_name_still_applies() {
    let dir = tempfile::tempdir().unwrap();
    let spec = common::root().join("specs/long-names.yaml");
    let hints = dir.path().join("hints.yaml");
    std::fs::write(
        &hints,
        "tools:\n  get_organizations_by_organization_id_projects_by_project_a9a2fb:\n    \
         operation: \"GET /organizations/{organizationId}/projects/{projectId}/environments/{environmentId}/deployments\"\n    \
         readOnlyHint: false\n    reviewed: true\n",
    )
    .unwrap();
    let new = "get_by_organization_id_project_environment_deployments_a9a2fb";
    let out = stdout(
        cmd().arg("convert").arg(&spec).arg("--hints").arg(&hints),
        0,
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(tool_of(&v, new)["annotations"]["readOnlyHint"], false);
    let tools = dir.path().join("tools.json");
    cmd()
        .arg("convert")
        .arg(&spec)
        .arg("-o")
        .arg(&tools)
        .assert()
        .success();
    cmd()
        .arg("convert")
        .arg(&spec)
        .arg("--hints")
        .arg(&hints)
        .args(["--check", "-o"])
        .arg(&tools)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "entry `get_organizations_by_organization_id_projects_by_project_a9a2fb` applied to tool `{new}`"
        )));
    cmd()
        .arg("hints")
        .arg(&spec)
        .arg("--update")
        .arg(&hints)
        .assert()
        .success();
    let updated = openapi_mcp::review::HintsFile::load(&hints).unwrap();
    let entries = updated.tools.as_ref().unwrap();
    assert!(entries[new].reviewed && entries[new].read_only_hint == Some(false));
    assert_eq!(entries.len(), 2);
}

/// The committed form the README recommends: with its `.gitattributes` and `git config` lines,
/// one hint flipped in the hints file shows in `git diff` of the hints file and the pretty
/// tools file in at most 8 changed lines, each hunk naming the tool or showing its name.
#[test]
fn one_flipped_hint_is_a_short_diff_that_names_its_tool() {
    let git_works = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !git_works {
        eprintln!("skipped: git is not installed");
        return;
    }
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let attributes = readme
        .split("```gitattributes\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README's .gitattributes block");
    let configs: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("git config diff.mcp-"))
        .map(|l| l.split(" # ").next().unwrap().trim())
        .collect();
    assert_eq!(configs.len(), 2, "{configs:?}");
    let dir = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    git(&["init", "-q", "."]);
    for line in &configs {
        let ok = std::process::Command::new("sh")
            .args(["-c", line])
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(ok.success(), "{line}");
    }
    std::fs::write(dir.path().join(".gitattributes"), attributes).unwrap();
    std::fs::copy(
        common::root().join("specs/petstore.yaml"),
        dir.path().join("api.yaml"),
    )
    .unwrap();
    let convert = || {
        cmd()
            .current_dir(dir.path())
            .args(["convert", "api.yaml", "--hints", "api.hints.yaml"])
            .args(["--format", "json-pretty", "-o", "tools.json"])
            .assert()
            .success();
    };
    cmd()
        .current_dir(dir.path())
        .args(["hints", "api.yaml", "-o", "api.hints.yaml"])
        .assert()
        .success();
    convert();
    git(&["add", "-A"]);
    git(&["commit", "-qm", "base"]);
    // A reviewer decides that creating a pet is idempotent.
    let path = dir.path().join("api.hints.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (head, tail) = text.split_once("  create_pet:\n").unwrap();
    let end = tail
        .lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let (entry, rest) = tail.split_at(end);
    let flipped = entry
        .replace("idempotentHint: false", "idempotentHint: true")
        .replace("reviewed: false", "reviewed: true");
    assert_ne!(flipped, entry);
    std::fs::write(&path, format!("{head}  create_pet:\n{flipped}{rest}")).unwrap();
    convert();
    let diff = git(&["diff"]);
    let changed = diff
        .lines()
        .filter(|l| (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++"))
        .filter(|l| !l.starts_with("---"))
        .count();
    assert!(changed <= 8, "{changed} changed lines:\n{diff}");
    let hunks: Vec<&str> = diff.split("\n@@ ").skip(1).collect();
    assert_eq!(hunks.len(), 2, "{diff}");
    for hunk in hunks {
        let header = hunk.lines().next().unwrap();
        assert!(
            header.ends_with("@@ create_pet") || hunk.contains("create_pet"),
            "{hunk}"
        );
    }
    assert!(diff.contains("@@ create_pet"), "{diff}");
}
