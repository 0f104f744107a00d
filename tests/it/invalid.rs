//! Hostile and broken input (`specs/invalid/`): every case ends with exit code 2, one line on
//! standard error naming the file and what is wrong, no panic, and no output file left behind.

use crate::common;

use std::path::Path;

/// Run `convert FILE -o OUT` in a fresh folder and check the refusal.
fn refused_path(path: &Path, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    let assert = common::cmd()
        .arg("convert")
        .arg(path)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(stderr.contains(name.as_ref()), "names the file: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in: {stderr}");
    }
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing may be left behind: {left:?}");
}

fn refused(file: &str, needles: &[&str]) {
    refused_path(&common::root().join("specs/invalid").join(file), needles);
}

/// Every file in specs/invalid/ has a case below (a new file without one fails this test).
#[test]
fn every_invalid_spec_is_covered() {
    let mut files: Vec<String> = std::fs::read_dir(common::root().join("specs/invalid"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    let covered = [
        "alias-bomb.yaml",
        "empty.yaml",
        "garbage.bin",
        "missing-file.yaml",
        "missing-ref.yaml",
        "not-openapi.json",
        "paths-wrong-type.yaml",
        "schema-ref-cycle.yaml",
        "truncated.json",
        "url-ref.yaml",
        "version-4.yaml",
    ];
    let extra: Vec<&String> = files
        .iter()
        .filter(|f| !covered.contains(&f.as_str()) && !f.starts_with("fuzz-"))
        .collect();
    assert!(extra.is_empty(), "add a case for {extra:?}");
}

#[test]
fn empty_file() {
    refused("empty.yaml", &["empty document"]);
}

#[test]
fn truncated_json_names_line_and_column() {
    refused(
        "truncated.json",
        &["truncated.json:5:", "invalid JSON", "EOF"],
    );
}

#[test]
fn binary_garbage() {
    refused("garbage.bin", &["not UTF-8"]);
}

#[test]
fn json_that_is_not_openapi() {
    refused("not-openapi.json", &["not an OpenAPI document"]);
}

#[test]
fn unsupported_version() {
    refused(
        "version-4.yaml",
        &["unsupported OpenAPI version \"4.0.0\"", "#/openapi"],
    );
}

#[test]
fn yaml_alias_bomb() {
    refused("alias-bomb.yaml", &["invalid YAML", "repetition limit"]);
}

#[test]
fn ref_to_a_missing_component() {
    refused(
        "missing-ref.yaml",
        &["#/components/schemas/Pet", "does not exist"],
    );
}

#[test]
fn schemas_that_only_refer_to_each_other() {
    refused(
        "schema-ref-cycle.yaml",
        &["#/components/schemas/Pet", "`$ref` chain is circular"],
    );
}

#[test]
fn ref_to_a_missing_file() {
    refused("missing-file.yaml", &["missing file: paths/not-there.yaml"]);
}

#[test]
fn url_ref() {
    refused(
        "url-ref.yaml",
        &[
            "remote `$ref`s are not fetched",
            "https://example.com/schemas/pet.json",
        ],
    );
}

#[test]
fn paths_of_the_wrong_type() {
    refused(
        "paths-wrong-type.yaml",
        &["#/paths", "expected an object, found a string"],
    );
}

/// 100,000 levels of nested schemas: refused by the parser's depth limit, no stack overflow.
/// (Generated here rather than committed: the file would be 3 MB.)
#[test]
fn hundred_thousand_nested_schemas() {
    let depth = 100_000;
    let mut s = String::from(
        r#"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}, "components": {"schemas": {"Deep": "#,
    );
    for _ in 0..depth {
        s.push_str(r#"{"type": "object", "properties": {"a": "#);
    }
    s.push_str("true");
    for _ in 0..depth {
        s.push_str("}}");
    }
    s.push_str("}}}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    std::fs::write(&path, s).unwrap();
    refused_path(&path, &["recursion limit exceeded"]);
    // The same depth in YAML flow style.
    let yaml = format!(
        "openapi: 3.1.0\nx: {}1{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let path = dir.path().join("deep.yaml");
    std::fs::write(&path, yaml).unwrap();
    refused_path(&path, &["invalid YAML", "recursion limit exceeded"]);
}

/// As deep as the parsers take, in JSON and in block-style YAML (the paths' schemas are converted
/// too): converts without overflowing the stack of the pool thread the conversion runs on.
#[test]
fn the_deepest_documents_read_convert() {
    let levels = 60;
    let mut schema = String::from("true");
    for _ in 0..levels {
        schema = format!(r#"{{"type": "object", "properties": {{"a": {schema}}}}}"#);
    }
    let json = format!(
        r##"{{"openapi": "3.1.0", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"post": {{"operationId": "a", "requestBody": {{"content": {{"application/json": {{"schema": {{"$ref": "#/components/schemas/Deep"}}}}}}}}, "responses": {{"200": {{"description": "ok"}}}}}}}}}}, "components": {{"schemas": {{"Deep": {schema}}}}}}}"##
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep.json");
    std::fs::write(&path, &json).unwrap();
    common::cmd()
        .args(["convert", path.to_str().unwrap(), "--schema-budget", "0"])
        .assert()
        .success();
    let mut yaml = String::from(
        "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: a\n      requestBody:\n        content:\n          application/json:\n            schema:\n",
    );
    for i in 0..levels {
        let pad = "  ".repeat(8 + 2 * i);
        yaml.push_str(&format!("{pad}type: object\n{pad}properties:\n{pad}  a:\n"));
    }
    yaml.push_str(&format!("{}type: string\n", "  ".repeat(8 + 2 * levels)));
    yaml.push_str("      responses:\n        '200': {description: ok}\n");
    let path = dir.path().join("deep.yaml");
    std::fs::write(&path, yaml).unwrap();
    common::cmd()
        .args(["convert", path.to_str().unwrap(), "--schema-budget", "0"])
        .assert()
        .success();
}

/// Cyclic schemas are not bad input: they convert through `$defs`.
#[test]
fn cyclic_schemas_convert() {
    common::cmd()
        .args(["convert", "specs/recursive.yaml"])
        .assert()
        .success();
}
