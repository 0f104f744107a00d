//! `convert` builds tools on several threads: the bytes must not depend on how many, a tool must
//! not depend on the tools converted before it, and a failure is the first in document order.

use serde_json::{Map, Value, json};
use std::path::Path;
use std::process::Output;

fn convert(spec: &Path, extra: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
        .arg("convert")
        .arg(spec)
        .args(extra)
        .output()
        .unwrap()
}

fn write(dir: &Path, doc: &Value) -> std::path::PathBuf {
    let path = dir.join("spec.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

/// `n` operations over 20 linked definitions of about 400 bytes each, so that a small schema
/// budget keeps some of the definitions a tool reaches and cuts the rest; operation `i` names
/// them in an order of its own.
fn linked(n: usize) -> Value {
    let def = |i: usize| json!({"$ref": format!("#/components/schemas/D{}", i % 20)});
    let mut schemas = Map::new();
    for i in 0..20 {
        schemas.insert(
            format!("D{i}"),
            json!({"type": "object", "description": format!("D{i} {}", "words ".repeat(60)),
                "properties": {"next": def(i + 1), "other": def(i * 7 + 3)}}),
        );
    }
    let mut paths = Map::new();
    for i in 0..n {
        paths.insert(
            format!("/r{i}"),
            json!({"post": {"operationId": format!("op{i}"),
                "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                    "properties": {"a": def(i * 3), "b": def(i * 11 + 5), "c": def(i)}}}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": def(i * 13)}}}}}}),
        );
    }
    json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths,
        "components": {"schemas": schemas}})
}

#[test]
fn any_number_of_threads_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), &linked(300));
    let budget = ["--schema-budget", "2000"];
    let one = convert(&spec, &[&budget[..], &["--threads", "1"]].concat());
    assert!(one.status.success(), "{one:?}");
    let text = String::from_utf8(one.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 300 + 2);
    assert!(
        text.contains("not expanded: schema size budget"),
        "the budget cuts"
    );
    for threads in [None, Some("2"), Some("3"), Some("4")] {
        let mut args = budget.to_vec();
        args.extend(threads.map(|t| ["--threads", t]).into_iter().flatten());
        let out = convert(&spec, &args);
        assert!(out.status.success(), "{out:?}");
        assert!(out.stdout == one.stdout, "--threads {threads:?} differs");
        let file = dir.path().join("out.json");
        args.extend(["-o", file.to_str().unwrap()]);
        assert!(convert(&spec, &args).status.success());
        assert!(
            std::fs::read(&file).unwrap() == one.stdout,
            "-o with {threads:?}"
        );
    }
    // The library's one-thread conversion agrees.
    let options = openapi_mcp::Options {
        schema_budget: Some(2000),
        ..Default::default()
    };
    let c = openapi_mcp::convert_file(&spec, &options).unwrap();
    let rendered = openapi_mcp::emit::render(&c.tools, openapi_mcp::emit::Format::Json).unwrap();
    assert!(rendered == text);
}

/// Which definitions a budget keeps depends on the operation alone: converting another
/// operation first (which registers the definitions in another order) changes nothing.
#[test]
fn a_tool_depends_on_its_operation_alone() {
    let big = |name: &str| json!({"type": "object", "description": format!("{name} {}", "x".repeat(1200))});
    let body = |props: Value| json!({"content": {"application/json": {"schema": {"type": "object", "properties": props}}}});
    let ok = json!({"200": {"description": "ok"}});
    let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {
            "/first": {"post": {"operationId": "first", "requestBody": body(json!({"b": {"$ref": "#/components/schemas/B"}})), "responses": ok}},
            "/second": {"post": {"operationId": "second", "requestBody": body(json!({"a": {"$ref": "#/components/schemas/A"}, "b": {"$ref": "#/components/schemas/B"}})), "responses": ok}}},
        "components": {"schemas": {"A": big("A"), "B": big("B")}}});
    let convert = |only: Vec<String>| {
        let options = openapi_mcp::Options {
            schema_budget: Some(2000),
            filter: openapi_mcp::Filter {
                include_ops: only,
                ..Default::default()
            },
            ..Default::default()
        };
        let c = openapi_mcp::convert_str("t.json", &doc.to_string(), &options).unwrap();
        let second = c.tools.iter().find(|t| t.name == "second").unwrap();
        second.input_schema.to_value()
    };
    let alone = convert(vec!["second".into()]);
    let after_first = convert(Vec::new());
    assert_eq!(alone, after_first);
    // Only one of the two fits; the one named first is kept.
    let a = alone["$defs"]["A"]["description"].as_str().unwrap();
    let b = alone["$defs"]["B"]["description"].as_str().unwrap();
    assert!(!a.contains("not expanded"), "{a}");
    assert!(b.contains("not expanded: schema size budget"), "{b}");
}

#[test]
fn the_first_failure_in_document_order_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = linked(400);
    for (i, missing) in [(250, "Gone"), (390, "AlsoGone")] {
        doc["paths"][format!("/r{i}")]["post"]["responses"]["200"]["content"]["application/json"]
            ["schema"] = json!({"$ref": format!("#/components/schemas/{missing}")});
    }
    let spec = write(dir.path(), &doc);
    let file = dir.path().join("tools.json");
    let mut first: Option<Output> = None;
    for threads in ["1", "2", "4"] {
        let out = convert(&spec, &["--threads", threads]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Gone") && !err.contains("AlsoGone"), "{err}");
        // Standard output holds what was flushed before the failure (the list is cut where a
        // buffer ended): tools in order, none from the failing one on.
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.starts_with("{\"tools\":[\n{\"name\":\"op0\""),
            "{threads}"
        );
        assert!(!text.contains("\"name\":\"op250\""));
        assert!(
            text.lines().count() > 100,
            "tools before the failure are written"
        );
        if let Some(first) = &first {
            assert_eq!(first.stdout, out.stdout, "--threads {threads}");
            assert_eq!(first.stderr, out.stderr, "--threads {threads}");
        }
        first = Some(out);
        // A file is left as it was.
        std::fs::write(&file, "old").unwrap();
        let args = ["--threads", threads, "-o", file.to_str().unwrap()];
        assert_eq!(convert(&spec, &args).status.code(), Some(2));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "old");
    }
}

/// Two references asking for the same `$defs` name: the definition at that name keeps it and the
/// other gets a suffix hashed from its own pointer, whatever the order tools are built in.
#[test]
fn clashing_definition_names_do_not_depend_on_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Map::new();
    for i in 0..300 {
        // The first 16 name `A B` first; the rest name `A_B` first (both want the name `A_B`).
        let (x, y) = if i < 16 {
            ("A%20B", "A_B")
        } else {
            ("A_B", "A%20B")
        };
        paths.insert(
            format!("/r{i}"),
            json!({"post": {"operationId": format!("op{i}"), "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "x": {"$ref": format!("#/components/schemas/{x}")},
                    "y": {"$ref": format!("#/components/schemas/{y}")}}}}}},
                "responses": {"200": {"description": "ok"}}}}),
        );
    }
    let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths,
        "components": {"schemas": {"A B": {"type": "string"}, "A_B": {"type": "integer"}}}});
    let spec = write(dir.path(), &doc);
    let one = convert(&spec, &["--threads", "1"]);
    assert!(one.status.success());
    let four = convert(&spec, &["--threads", "4"]);
    assert!(four.stdout == one.stdout);
    // `A_B` and the top 24 bits of the FNV-1a hash of the definition's pointer.
    let renamed = "A_B_219b13";
    let text = String::from_utf8(one.stdout).unwrap();
    for line in [1, 20, 300] {
        let tool: Value =
            serde_json::from_str(text.lines().nth(line).unwrap().trim_end_matches(',')).unwrap();
        let defs = &tool["inputSchema"]["$defs"];
        assert_eq!(defs["A_B"]["type"], "integer", "{line}");
        assert_eq!(defs[renamed]["type"], "string", "{line}");
    }
}
