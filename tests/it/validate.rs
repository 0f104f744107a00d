//! Every tool emitted for the scenario specs is valid for MCP clients: checked in Rust (MCP's
//! `Tool` definition, 2020-12 metaschema, no dangling `$ref`) and with the shared Python validator
//! (`../shared/mcp/validate_tools.py`: official schema + the MCP Python SDK's `Tool` model).
//!
//! Both need `../shared`; without it they print why they skip. `.ci/run` sets
//! `OPENAPI_MCP_REQUIRE_SHARED=1`, which turns a skip into a failure.

use crate::common;

use openapi_mcp::Options;
use serde_json::Value;
use std::process::Command;

use crate::common::mcp_check;

fn skip(reason: &str) {
    if std::env::var_os("OPENAPI_MCP_REQUIRE_SHARED").is_some() {
        panic!("required check cannot run: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

fn option_sets() -> Vec<(&'static str, Options)> {
    vec![
        ("default", Options::default()),
        (
            "inline-refs",
            Options {
                inline_refs: true,
                ..Options::default()
            },
        ),
    ]
}

#[test]
fn schemas_are_valid_2020_12_and_self_contained() {
    for path in common::specs() {
        for (label, options) in option_sets() {
            let c = openapi_mcp::convert_file(&path, &options).unwrap();
            for t in &c.tools {
                let v = openapi_mcp::emit::tool_json(t);
                for key in ["inputSchema", "outputSchema"] {
                    if let Some(s) = v.get(key) {
                        let p = mcp_check::schema_problems(s);
                        assert!(
                            p.is_empty(),
                            "{} ({label}) {} {key}: {p:?}",
                            path.display(),
                            t.name
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn tools_match_the_official_mcp_schema() {
    let Some(shared) = common::shared() else {
        return skip("../shared is absent");
    };
    for revision in ["2025-06-18", "2025-11-25"] {
        let check =
            mcp_check::ToolCheck::load(&shared.join(format!("mcp/schema/{revision}/schema.json")))
                .unwrap();
        for path in common::specs() {
            let c = openapi_mcp::convert_file(&path, &Options::default()).unwrap();
            for t in &c.tools {
                let p = check.problems(&openapi_mcp::emit::tool_json(t));
                assert!(
                    p.is_empty(),
                    "{revision} {} {}: {p:?}",
                    path.display(),
                    t.name
                );
            }
        }
    }
}

#[test]
fn tools_pass_the_shared_python_validator() {
    let Some(shared) = common::shared() else {
        return skip("../shared is absent");
    };
    let probe = Command::new("python3")
        .args(["-c", "import jsonschema, mcp"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return skip(
            "python3 with the `jsonschema` and `mcp` packages is not available (python3 -m pip install jsonschema mcp)",
        );
    }
    // One run per option set over all specs together (the validator's start-up dominates);
    // names get the spec's index as a prefix so they stay unique across specs.
    let dir = tempfile::tempdir().unwrap();
    for (label, options) in option_sets() {
        let mut all = Vec::new();
        for (i, path) in common::specs().iter().enumerate() {
            let c = openapi_mcp::convert_file(path, &options).unwrap();
            for t in &c.tools {
                let mut v = openapi_mcp::emit::tool_json(t);
                v["name"] = Value::String(format!("s{i}_{}", t.name));
                all.push(v);
            }
        }
        let out = dir.path().join(format!("{label}.json"));
        std::fs::write(
            &out,
            serde_json::to_string(&serde_json::json!({ "tools": all })).unwrap(),
        )
        .unwrap();
        let result = Command::new("python3")
            .arg(shared.join("mcp/validate_tools.py"))
            .arg(&out)
            .arg("--json")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&result.stdout);
        assert!(
            result.status.success(),
            "{label}: {stdout}{}",
            String::from_utf8_lossy(&result.stderr)
        );
        let summary: Value = serde_json::from_str(stdout.lines().last().unwrap_or("{}")).unwrap();
        assert_eq!(summary["invalid"], 0, "{stdout}");
        assert_eq!(summary["tools"], all.len(), "{stdout}");
        assert_eq!(
            summary["sdk_checked"], true,
            "the MCP SDK model was checked: {stdout}"
        );
        eprintln!("validate_tools.py ({label}): {}", stdout.trim());
    }
}
