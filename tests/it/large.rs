//! A generated document of several MB converts through the command line: exit 0, one tool an
//! operation, each named by its operationId. The document is the same bytes on every run.

use serde_json::{Map, Value, json};

/// 2,000 paths, each with a GET of three parameters and a POST of a body, over 1,000 item
/// schemas that each name one of 50 owner schemas (so a tool reaches two schemas, not all of
/// them): about 5 MB of indented JSON.
fn large_document(paths: usize, items: usize, owners: usize) -> Value {
    let mut schemas = Map::new();
    for o in 0..owners {
        schemas.insert(
            format!("Owner{o}"),
            json!({
                "type": "object",
                "description": format!("Owner {o} of a group of items."),
                "required": ["id"],
                "properties": {
                    "id": {"type": "integer", "format": "int64"},
                    "email": {"type": "string", "format": "email", "maxLength": 254},
                    "region": {"type": "string", "enum": ["eu", "us", "ap"]},
                },
            }),
        );
    }
    for i in 0..items {
        schemas.insert(
            format!("Item{i}"),
            json!({
                "type": "object",
                "description": format!(
                    "Item kind {i}: a record with a name, tags, a size and its owner {}.",
                    i % owners
                ),
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "string", "pattern": format!("^item{i}-[0-9a-f]{{8}}$")},
                    "name": {"type": "string", "minLength": 1, "maxLength": 200},
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
                    "size": {"type": "integer", "minimum": 0, "maximum": i * 100 + 1},
                    "created": {"type": "string", "format": "date-time"},
                    "owner": {"$ref": format!("#/components/schemas/Owner{}", i % owners)},
                },
            }),
        );
    }
    let mut path_items = Map::new();
    for p in 0..paths {
        let item = json!({"$ref": format!("#/components/schemas/Item{}", p % items)});
        let ok = |description: String| {
            json!({
                "description": description,
                "content": {"application/json": {"schema": item.clone()}},
            })
        };
        path_items.insert(
            format!("/groups/{p}/items/{{itemId}}"),
            json!({
                "get": {
                    "operationId": format!("getItem{p}"),
                    "summary": format!("Get an item of group {p}"),
                    "tags": [format!("group{}", p % 40)],
                    "parameters": [
                        {"name": "itemId", "in": "path", "required": true,
                         "schema": {"type": "string"}},
                        {"name": "fields", "in": "query",
                         "description": "Comma-separated fields to return.",
                         "schema": {"type": "string"}},
                        {"name": "X-Request-Id", "in": "header",
                         "schema": {"type": "string", "format": "uuid"}},
                    ],
                    "responses": {"200": ok(format!("The item of group {p}."))},
                },
                "post": {
                    "operationId": format!("replaceItem{p}"),
                    "summary": format!("Replace an item of group {p}"),
                    "tags": [format!("group{}", p % 40)],
                    "parameters": [
                        {"name": "itemId", "in": "path", "required": true,
                         "schema": {"type": "string"}},
                    ],
                    "requestBody": {
                        "required": true,
                        "content": {"application/json": {"schema": item.clone()}},
                    },
                    "responses": {"200": ok(format!("The replaced item of group {p}."))},
                },
            }),
        );
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Generated large API", "version": "1.0.0"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": path_items,
        "components": {"schemas": schemas},
    })
}

#[test]
fn a_document_of_several_mb_converts_through_the_command_line() {
    let paths = 2_000;
    let text = serde_json::to_string_pretty(&large_document(paths, 1_000, 50)).unwrap();
    assert!(
        (3_000_000..6_000_000).contains(&text.len()),
        "the document is {} bytes",
        text.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("large.json");
    std::fs::write(&spec, &text).unwrap();
    let out = dir.path().join("tools.json");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
        .arg("convert")
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let tools: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2 * paths);
    let mut expected: Vec<String> = (0..paths)
        .flat_map(|p| [format!("get_item{p}"), format!("replace_item{p}")])
        .collect();
    let mut names: Vec<String> = names.into_iter().map(str::to_string).collect();
    expected.sort();
    names.sort();
    assert_eq!(names, expected);
}
