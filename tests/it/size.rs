//! Output size options: the per-schema budget, `--max-ref-depth` and `--no-output-schema`. Cut
//! schemas stay valid and self-contained, and stubs say what was left out.

use crate::common;

use openapi_mcp::Options;
use serde_json::Value;

use crate::common::mcp_check;

fn output_of(options: &Options, tool: &str) -> Value {
    let c = openapi_mcp::convert_file(common::root().join("specs/petstore.yaml"), options).unwrap();
    let t = c.tools.iter().find(|t| t.name == tool).unwrap();
    openapi_mcp::emit::tool_json(t)["outputSchema"].clone()
}

#[test]
fn default_budget_keeps_small_schemas_complete() {
    let full = Options {
        schema_budget: None,
        ..Options::default()
    };
    assert_eq!(
        output_of(&Options::default(), "list_pets"),
        output_of(&full, "list_pets")
    );
}

#[test]
fn max_ref_depth_stubs_deeper_definitions() {
    let options = Options {
        max_ref_depth: Some(1),
        ..Options::default()
    };
    let out = output_of(&options, "list_pets");
    let defs = out["$defs"].as_object().unwrap();
    assert_eq!(defs["Pets"]["type"], "array", "level 1 is expanded");
    assert_eq!(
        defs["Pet"],
        serde_json::json!({"description": "Pet (not expanded: reference depth limit)"}),
        "level 2 is a stub"
    );
    assert!(!defs.contains_key("NewPet"), "nothing past a stub");
    assert!(mcp_check::schema_problems(&out).is_empty());
}

#[test]
fn budget_stubs_what_does_not_fit_and_stays_valid() {
    let options = Options {
        schema_budget: Some(200),
        ..Options::default()
    };
    let out = output_of(&options, "list_pets");
    let text = out.to_string();
    assert!(text.contains("not expanded: schema size budget"), "{text}");
    assert!(mcp_check::schema_problems(&out).is_empty(), "{text}");
    // Every tool of every scenario stays valid under a tiny budget.
    let tiny = Options {
        schema_budget: Some(64),
        ..Options::default()
    };
    for path in common::specs() {
        let c = openapi_mcp::convert_file(&path, &tiny).unwrap();
        for t in &c.tools {
            let v = openapi_mcp::emit::tool_json(t);
            for key in ["inputSchema", "outputSchema"] {
                if let Some(s) = v.get(key) {
                    let p = mcp_check::schema_problems(s);
                    assert!(p.is_empty(), "{} {} {key}: {p:?}", path.display(), t.name);
                }
            }
        }
    }
}

#[test]
fn stubs_keep_the_type_so_they_only_relax() {
    let options = Options {
        max_ref_depth: Some(1),
        ..Options::default()
    };
    let c =
        openapi_mcp::convert_file(common::root().join("specs/recursive.yaml"), &options).unwrap();
    let out = c.tools[1].output_schema.as_ref().unwrap().to_value();
    // Person (level 1) is kept; Company (level 2) is an object stub.
    assert_eq!(out["$defs"]["Company"]["type"], "object");
    assert!(
        out["$defs"]["Company"]["description"]
            .as_str()
            .unwrap()
            .contains("not expanded")
    );
}

#[test]
fn no_output_schema_drops_it_everywhere() {
    let options = Options {
        output_schema: false,
        ..Options::default()
    };
    let c =
        openapi_mcp::convert_file(common::root().join("specs/petstore.yaml"), &options).unwrap();
    assert!(
        c.tools
            .iter()
            .all(|t| t.output_schema.is_none() && t.call.output_wrapped.is_none())
    );
}

#[test]
fn cli_flags_reach_the_options() {
    let out = common::cmd()
        .args([
            "convert",
            "specs/petstore.yaml",
            "--no-output-schema",
            "--max-ref-depth",
            "1",
            "--schema-budget",
            "0",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("outputSchema").is_none())
    );
}

/// The sizes lint measures are the bytes `convert` writes.
#[test]
fn measured_sizes_are_the_written_bytes() {
    for path in common::specs() {
        let c = openapi_mcp::convert_file(&path, &Options::default()).unwrap();
        let text = openapi_mcp::emit::render(&c.tools, openapi_mcp::emit::Format::Json).unwrap();
        let measured = openapi_mcp::emit::frame_size(c.tools.len())
            + c.tools
                .iter()
                .map(openapi_mcp::emit::tool_size)
                .sum::<usize>();
        assert_eq!(measured, text.len(), "{}", path.display());
    }
}

#[test]
fn lint_warns_about_tools_and_lists_over_budget() {
    use openapi_mcp::review::lint::{self, LintOptions, rules};
    let c = openapi_mcp::convert_file(
        common::root().join("specs/petstore.yaml"),
        &Options::default(),
    )
    .unwrap();
    let sizes: Vec<usize> = c.tools.iter().map(openapi_mcp::emit::tool_size).collect();
    let largest = *sizes.iter().max().unwrap();
    let total = openapi_mcp::emit::frame_size(sizes.len()) + sizes.iter().sum::<usize>();
    let found = |options: LintOptions, rule: &str| -> Vec<String> {
        lint::lint(&c.tools, options)
            .into_iter()
            .filter(|f| f.rule == rule)
            .map(|f| f.tool)
            .collect()
    };
    // Default budgets: the petstore is small.
    assert!(found(LintOptions::default(), rules::TOOL_TOO_LARGE).is_empty());
    assert!(found(LintOptions::default(), rules::LIST_TOO_LARGE).is_empty());
    // Exactly at the budget is fine; one byte less flags exactly the largest tool(s).
    let at = |tool, list| LintOptions {
        max_tool_bytes: Some(tool),
        max_list_bytes: Some(list),
        ..LintOptions::default()
    };
    assert!(found(at(largest, total), rules::TOOL_TOO_LARGE).is_empty());
    assert!(found(at(largest, total), rules::LIST_TOO_LARGE).is_empty());
    let over: Vec<String> = c
        .tools
        .iter()
        .zip(&sizes)
        .filter(|(_, s)| **s == largest)
        .map(|(t, _)| t.name.clone())
        .collect();
    assert_eq!(found(at(largest - 1, total), rules::TOOL_TOO_LARGE), over);
    assert_eq!(
        found(at(largest, total - 1), rules::LIST_TOO_LARGE),
        [lint::WHOLE_LIST]
    );
}

/// An inline schema over the budget by itself sheds its examples (annotations only), says so, and
/// keeps everything else, including instance data under `default`/`enum` and a property named
/// `examples`; without a budget nothing is dropped.
#[test]
fn oversized_inline_schemas_shed_their_examples() {
    let big: Vec<String> = (0..2000).map(|i| format!("block-{i:05}")).collect();
    let spec = serde_json::json!({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/blocks": {"get": {"operationId": "getBlocks", "responses": {"200": {
            "description": "ok", "content": {"application/json": {"schema": {
                "type": "object",
                "examples": [{"blocks": big}],
                "properties": {
                    "blocks": {"type": "array", "items": {"type": "string"}, "examples": [big]},
                    "examples": {"type": "string", "default": "x", "enum": ["x", "y"]},
                    "kind": {"type": "object", "default": {"examples": [1]}}
                }
            }}}}}}}}
    })
    .to_string();
    let output = |options: &Options| {
        let c = openapi_mcp::convert_str("big.json", &spec, options).unwrap();
        openapi_mcp::emit::tool_json(&c.tools[0])["outputSchema"].clone()
    };
    let cut = output(&Options::default());
    assert!(mcp_check::schema_problems(&cut).is_empty());
    assert_eq!(cut["$comment"], "examples left out: schema size budget");
    assert!(cut.get("examples").is_none());
    assert!(cut["properties"]["blocks"].get("examples").is_none());
    assert_eq!(cut["properties"]["blocks"]["items"]["type"], "string");
    assert_eq!(
        cut["properties"]["examples"]["enum"],
        serde_json::json!(["x", "y"])
    );
    assert_eq!(
        cut["properties"]["kind"]["default"],
        serde_json::json!({"examples": [1]})
    );
    assert!(serde_json::to_string(&cut).unwrap().len() < 1000);
    let full = output(&Options {
        schema_budget: None,
        ..Options::default()
    });
    assert_eq!(
        full["properties"]["blocks"]["examples"][0][1999],
        "block-01999"
    );
    assert!(full.get("$comment").is_none());
}

/// An inline schema still over the budget without examples is cut, as deep as fits, to stubs
/// that keep their type; the result stays valid and within the budget.
#[test]
fn oversized_inline_schemas_are_cut_by_depth() {
    // 300 properties, each an object of 4 long-described strings: about 90 KB inline.
    let mut props = serde_json::Map::new();
    for i in 0..300 {
        let mut inner = serde_json::Map::new();
        for j in 0..4 {
            inner.insert(
                format!("field{j}"),
                serde_json::json!({"type": "string", "description": format!("Setting {i}.{j}: {}", "x".repeat(50))}),
            );
        }
        props.insert(
            format!("setting{i}"),
            serde_json::json!({"type": "object", "description": format!("Group {i}"), "properties": inner}),
        );
    }
    let spec = serde_json::json!({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/settings": {"put": {"operationId": "putSettings",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "properties": {"settings": {"type": "object", "properties": props}}}}}},
            "responses": {"204": {"description": "ok"}}}}}
    })
    .to_string();
    let input = |options: &Options| {
        let c = openapi_mcp::convert_str("wide.json", &spec, options).unwrap();
        openapi_mcp::emit::tool_json(&c.tools[0])["inputSchema"].clone()
    };
    let full = input(&Options {
        schema_budget: None,
        ..Options::default()
    });
    assert!(serde_json::to_string(&full).unwrap().len() > 80_000);
    let cut = input(&Options::default());
    let size = serde_json::to_string(&cut).unwrap().len();
    assert!(size <= openapi_mcp::DEFAULT_SCHEMA_BUDGET, "{size}");
    assert!(mcp_check::schema_problems(&cut).is_empty());
    assert_eq!(
        cut["$comment"],
        "nested schemas cut at depth 2: schema size budget"
    );
    // Depth 1 (`settings`) is kept, depth 2 (each group) is a stub that keeps type and summary.
    assert_eq!(
        cut["properties"]["settings"]["properties"]["setting7"],
        serde_json::json!({"type": "object", "description": "Group 7 (truncated: schema size budget)"})
    );
}
