//! `lint --client`: each client's tool count and name length limits, at and one past each, and
//! the README's table against the code.

use crate::common;

use assert_cmd::Command;
use openapi_mcp::review::fit::{self, Client, rules};
use openapi_mcp::review::lint::Severity;
use serde_json::Value;

const CLIENTS: [Client; 7] = [
    Client::ClaudeDesktop,
    Client::ClaudeCode,
    Client::Cursor,
    Client::Windsurf,
    Client::VsCode,
    Client::Openai,
    Client::GeminiCli,
];

/// The tools of a spec with `n` operations named by `name(i)`.
fn tools(n: usize, name: impl Fn(usize) -> String) -> Vec<openapi_mcp::Tool> {
    let mut spec = String::from("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n");
    for i in 0..n {
        spec.push_str(&format!(
            "  /r{i}:\n    get:\n      operationId: {}\n      responses: {{'200': {{description: ok}}}}\n",
            name(i)
        ));
    }
    let options = openapi_mcp::Options {
        max_name_len: 128,
        ..Default::default()
    };
    openapi_mcp::convert_str("t.yaml", &spec, &options)
        .unwrap()
        .tools
}

fn count_findings(client: Client, n: usize) -> Vec<openapi_mcp::review::lint::Finding> {
    fit::check(&tools(n, |i| format!("op{i}")), client, "api")
        .into_iter()
        .filter(|f| f.rule == rules::TOO_MANY_TOOLS)
        .collect()
}

#[test]
fn tool_count_limits_per_client() {
    let expected = [
        (Client::Cursor, Some(40), Severity::Warning),
        (Client::Windsurf, Some(100), Severity::Warning),
        (Client::VsCode, Some(128), Severity::Warning),
        (Client::Openai, Some(128), Severity::Error),
        (Client::GeminiCli, Some(512), Severity::Error),
        (Client::ClaudeDesktop, None, Severity::Warning),
        (Client::ClaudeCode, None, Severity::Warning),
    ];
    for (client, max, severity) in expected {
        assert_eq!(client.limits().max_tools, max, "{client:?}");
        match max {
            Some(max) => {
                assert!(
                    count_findings(client, max).is_empty(),
                    "{client:?} at {max}"
                );
                let found = count_findings(client, max + 1);
                assert_eq!(found.len(), 1, "{client:?} at {}", max + 1);
                assert_eq!(found[0].severity, severity, "{client:?}");
                assert!(
                    found[0].message.contains("--dynamic"),
                    "{}",
                    found[0].message
                );
            }
            None => assert!(count_findings(client, 600).is_empty(), "{client:?}"),
        }
    }
}

#[test]
fn name_limits_with_each_clients_prefix() {
    // (client, the longest tool name that fits with server name "api", severity past it)
    let expected = [
        (Client::ClaudeDesktop, 64, Severity::Error),
        (Client::ClaudeCode, 64 - "mcp__api__".len(), Severity::Error),
        (Client::Cursor, 60 - "api_".len(), Severity::Error),
        (Client::Windsurf, 64, Severity::Warning),
        (Client::VsCode, 64, Severity::Warning),
        (Client::Openai, 64, Severity::Error),
        (Client::GeminiCli, 63 - "mcp_api_".len(), Severity::Warning),
    ];
    for (client, fits, severity) in expected {
        let name = |len: usize| "n".repeat(len);
        let at = fit::check(&tools(1, |_| name(fits)), client, "api");
        assert!(at.is_empty(), "{client:?}: {at:?}");
        let past = fit::check(&tools(1, |_| name(fits + 1)), client, "api");
        assert_eq!(past.len(), 1, "{client:?}");
        assert_eq!(past[0].rule, rules::NAME_TOO_LONG);
        assert_eq!(past[0].severity, severity, "{client:?}");
    }
    // A longer server name leaves less room.
    let t = tools(1, |_| "n".repeat(52));
    assert!(fit::check(&t, Client::ClaudeCode, "gh").is_empty());
    let found = fit::check(&t, Client::ClaudeCode, "github");
    assert_eq!(found.len(), 1);
    assert!(
        found[0].message.contains("mcp__github__nnn"),
        "{}",
        found[0].message
    );
    assert!(
        found[0].message.contains("--max-name-len 51"),
        "{}",
        found[0].message
    );
}

/// Every client has a row in the README's "Client fit" table, with the code's numbers and prefix.
#[test]
fn readme_table_matches_the_limits() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let section = readme
        .split("### Client fit")
        .nth(1)
        .expect("a Client fit section");
    for client in CLIENTS {
        let flag = clap::ValueEnum::to_possible_value(&client).unwrap();
        let key = format!("| `{}`", flag.get_name());
        let row = section
            .lines()
            .find(|l| l.starts_with(&key))
            .unwrap_or_else(|| panic!("no README row for {key}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let limits = client.limits();
        let tools = limits
            .max_tools
            .map_or("no documented limit".to_string(), |m| m.to_string());
        assert_eq!(cells[2], tools, "{row}");
        assert_eq!(cells[3], limits.max_name.to_string(), "{row}");
        let shown = format!("`{}<tool>`", limits.prefix.replace("{server}", "<server>"));
        let shown = if limits.prefix.is_empty() {
            "`tool`".to_string()
        } else {
            shown
        };
        assert_eq!(cells[4], shown, "{row}");
    }
}

#[test]
fn lint_client_on_the_command_line() {
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("openapi-mcp")
            .unwrap()
            .current_dir(common::root())
            .args(["lint", "specs/long-names.yaml", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let findings: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rules: Vec<String> = findings
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect();
        (out.status.code(), rules)
    };
    // Without --client, no fit findings.
    let (_, rules) = run(&[]);
    assert!(
        !rules.iter().any(|r| r.ends_with("-for-client")),
        "{rules:?}"
    );
    // The 64-character name is fine for Claude Desktop, not for Claude Code under "api".
    let (code, rules) = run(&["--client", "claude-desktop"]);
    assert!(
        !rules.iter().any(|r| r.ends_with("-for-client")),
        "{rules:?}"
    );
    assert_eq!(code, Some(0));
    let (code, rules) = run(&["--client", "claude-code", "--server-name", "api"]);
    assert!(
        rules.contains(&rules::NAME_TOO_LONG.to_string()),
        "{rules:?}"
    );
    assert_eq!(code, Some(1), "a name Claude Code rejects is an error");
    // --server-name needs --client.
    Command::cargo_bin("openapi-mcp")
        .unwrap()
        .current_dir(common::root())
        .args(["lint", "specs/long-names.yaml", "--server-name", "x"])
        .assert()
        .code(2);
}
