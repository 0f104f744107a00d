//! A JSON document read with its path items kept as text (`load::load_file_lazy`, used by the
//! streaming `convert`) must convert to the bytes, or the error, of the same document read whole:
//! on every spec of `specs/` (each YAML spec also written as JSON beside it), and on documents
//! built to take each way back to the whole tree.

use openapi_mcp::emit::Shape;
use openapi_mcp::{Options, load, stream};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The file `stream::convert_to` writes for `doc` (or its error), and whether `doc` was read
/// lazily (and never parsed whole).
fn convert(
    doc: openapi_mcp::Result<load::Document>,
    options: &Options,
    threads: Option<usize>,
) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    let mut lazy = false;
    let written = doc.and_then(|doc| {
        stream::convert_to(&doc, options, None, Shape::Mcp, Some(&out), threads)?;
        lazy = doc.is_lazy() && !doc.parsed_whole();
        Ok(std::fs::read_to_string(&out).unwrap())
    });
    (written.unwrap_or_else(|e| format!("error: {e}")), lazy)
}

/// The tools `convert_document` gives (as `emit::render` writes them), or its error.
fn listed(doc: openapi_mcp::Result<load::Document>, options: &Options) -> String {
    let rendered = doc.and_then(|doc| {
        let conversion = openapi_mcp::convert_document(&doc, options)?;
        openapi_mcp::emit::render(&conversion.tools, openapi_mcp::emit::Format::Json)
    });
    rendered.unwrap_or_else(|e| format!("error: {e}"))
}

/// Convert `path` whole and lazily (whatever its size); the outputs (or errors) must be equal.
/// Returns the output and whether the lazy conversion kept the path items as text throughout.
fn same_both_ways(path: &Path, options: &Options) -> (String, bool) {
    let (whole, _) = convert(load::load_file(path), options, None);
    let (lazy, was_lazy) = convert(load::load_lazy(path, 0), options, None);
    assert!(
        whole == lazy,
        "{}: lazy output differs:\nwhole: {whole:.300}\nlazy:  {lazy:.300}",
        path.display()
    );
    // The library's one-tool-at-a-time conversion agrees too.
    assert_eq!(
        listed(load::load_file(path), options),
        listed(load::load_lazy(path, 0), options),
        "{}: convert_document differs",
        path.display()
    );
    (whole, was_lazy)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_spec_converts_the_same_read_lazily() {
    let specs = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs");
    let copy = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    files(&specs, &mut all);
    let mut json_docs = Vec::new();
    for path in all {
        let to = copy.path().join(path.strip_prefix(&specs).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&path, &to).unwrap();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "json" {
            json_docs.push(to);
        } else if ext == "yaml" {
            // The same document as JSON beside it, so that its relative references still resolve.
            if let Ok(tree) = load::parse_tree("t", &std::fs::read(&path).unwrap()) {
                let json = to.with_extension("yaml.json");
                std::fs::write(&json, serde_json::to_string_pretty(&tree).unwrap()).unwrap();
                json_docs.push(json);
            }
        }
    }
    json_docs.sort();
    let mut get_only = Options::default();
    get_only.filter.methods = vec![openapi_mcp::model::Method::Get];
    let (mut lazy, mut tools) = (0, 0);
    for doc in &json_docs {
        for options in [&Options::default(), &get_only] {
            let (out, was_lazy) = same_both_ways(doc, options);
            lazy += usize::from(was_lazy);
            tools += out.lines().filter(|l| l.starts_with("{\"name\"")).count();
        }
    }
    // Not vacuous: most documents were read lazily and gave tools.
    assert!(json_docs.len() >= 20, "{json_docs:?}");
    assert!(lazy >= 20, "only {lazy} lazy reads");
    assert!(tools >= 100, "only {tools} tools");
    // The multi-file root references other files: it is read whole (the bundle joins them).
    let multi = copy.path().join("multi-file/openapi.yaml.json");
    assert!(!load::load_lazy(&multi, 0).unwrap().is_lazy());
}

/// A document with two path items and a schema, plus `extra` merged into its top level (an
/// object's members into the object).
fn doc_with(paths: Value, extra: Value) -> Value {
    let mut doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": paths,
        "components": {"schemas": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}}});
    for (k, v) in extra.as_object().unwrap() {
        match (doc.get_mut(k), v) {
            (Some(Value::Object(have)), Value::Object(more)) => have.extend(more.clone()),
            _ => doc[k] = v.clone(),
        }
    }
    doc
}

fn pets() -> Value {
    json!({
        "/pets": {"get": {"operationId": "listPets", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}}}},
        "/pets/{id}": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "delete": {"operationId": "deletePet", "responses": {"204": {"description": "gone"}}}}
    })
}

/// Write `text` as a spec file and check both reads agree; returns (output, was lazy).
fn check_text(text: &str) -> (String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.json");
    std::fs::write(&path, text).unwrap();
    same_both_ways(&path, &Options::default())
}

fn check(doc: &Value) -> (String, bool) {
    check_text(&doc.to_string())
}

#[test]
fn a_plain_document_is_lazy_and_converts() {
    let (out, lazy) = check(&doc_with(pets(), json!({})));
    assert!(lazy);
    assert!(
        out.contains("\"name\":\"list_pets\"") && out.contains("\"name\":\"delete_pet\""),
        "{out}"
    );
}

#[test]
fn references_into_paths_or_to_other_files_read_the_whole_tree() {
    let mut paths = pets();
    // A path item that reuses another's response, by a reference into `paths`.
    paths["/cats"] =
        json!({"get": {"responses": {"200": {"$ref": "#/paths/~1pets/get/responses/200"}}}});
    let (out, lazy) = check(&doc_with(paths, json!({})));
    assert!(!lazy, "the reference is seen when the document is opened");
    assert!(out.contains("\"name\":\"get_cats\""), "{out}");
    // The same reference from `components`, percent-encoded.
    let mut paths = pets();
    paths["/cats"] = json!({"get": {"responses": {"200": {"$ref": "#/components/responses/Ok"}}}});
    let extra = json!({"components": {"responses": {"Ok": {"$ref": "#/p%61ths/~1pets/get/responses/200"}}}});
    let (out, lazy) = check(&doc_with(paths, extra));
    assert!(!lazy);
    assert!(out.contains("\"name\":\"get_cats\""), "{out}");
    // A reference to the whole document.
    let mut paths = pets();
    paths["/cats"] = json!({"get": {"responses": {"200": {"description": "ok",
        "content": {"application/json": {"schema": {"$ref": "#"}}}}}}});
    check(&doc_with(paths, json!({})));
    // A reference to another file (missing here: both reads report it alike).
    let mut paths = pets();
    paths["/cats"] = json!({"$ref": "cats.json"});
    let (out, _) = check(&doc_with(paths, json!({})));
    assert!(out.starts_with("error: "), "{out}");
}

#[test]
fn errors_are_those_of_the_whole_tree() {
    // A broken path item, after a good one.
    let mut paths = pets();
    paths["/broken"] = json!({"get": {"parameters": "not a list", "responses": {}}});
    let (out, lazy) = check(&doc_with(paths, json!({})));
    assert!(
        !lazy && out.contains("/paths/~1broken/get/parameters"),
        "{out}"
    );
    // The document's servers are read before the paths.
    let (out, _) = check(&doc_with(pets(), json!({"servers": "nope"})));
    assert!(out.contains("#/servers"), "{out}");
    // An invalid filter and a broken path item: the same one is reported both ways.
    let mut paths = pets();
    paths["/broken"] = json!({"get": {"parameters": 3}});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.json");
    std::fs::write(&path, doc_with(paths, json!({})).to_string()).unwrap();
    let mut bad_glob = Options::default();
    bad_glob.filter.include_paths = vec!["[".into()];
    same_both_ways(&path, &bad_glob);
    // Syntax errors, a Swagger 2.0 document, a version we do not read.
    for text in [
        r#"{"openapi": "3.0.0", "paths": {"/a": {"get": }}}"#,
        r#"{"openapi": "3.0.0", "paths": {"/a": {"get": {"responses": {}}}}} trailing"#,
        r#"{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}}"#,
        r#"{"openapi": "4.0.0", "paths": {}}"#,
        r#"{"openapi": "3.0.0", "paths": []}"#,
        r#"{"openapi": "3.0.0"}"#,
    ] {
        check_text(text);
    }
}

#[test]
fn repeated_keys_read_the_whole_tree() {
    let twice = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "first", "responses": {}}},
                  "/a": {"get": {"operationId": "second", "responses": {}}}}}"#;
    let (out, lazy) = check_text(twice);
    assert!(
        !lazy && out.contains("\"name\":\"second\"") && !out.contains("\"first\""),
        "{out}"
    );
    let paths_twice = r#"{"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "first"}}},
        "info": {"title": "t", "version": "1"}, "paths": {"/b": {"get": {"operationId": "second"}}}}"#;
    let (out, lazy) = check_text(paths_twice);
    assert!(
        !lazy && out.contains("\"name\":\"second\"") && !out.contains("\"first\""),
        "{out}"
    );
}

#[test]
fn nesting_near_the_limit_reads_the_whole_tree() {
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    // 127 levels in all are accepted, 128 are not: the same both ways.
    for levels in [120, 122, 123, 124, 125] {
        let text = format!(
            r#"{{"openapi": "3.0.0", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"x-deep": {}, "responses": {{}}}}}}}}}}"#,
            deep(levels)
        );
        check_text(&text);
    }
    // Beside `paths`, at the top level.
    for levels in [124, 125, 126, 127, 128] {
        let text = format!(
            r#"{{"openapi": "3.0.0", "info": {{"title": "t", "version": "1"}}, "paths": {{"/a": {{"get": {{"responses": {{}}}}}}}}, "x-deep": {}}}"#,
            deep(levels)
        );
        let (out, lazy) = check_text(&text);
        assert_eq!(lazy, !out.starts_with("error: "), "{levels}: {out}");
    }
}

/// References in different path items that want the same `$defs` name: the plan must see them
/// (they are never all in one tree) and build the tools on one thread, as the whole read does.
/// Also when one of them is not in a path item but in a definition a path item refers to.
#[test]
fn clashing_definition_names_in_path_items_are_found() {
    for in_components in [false, true] {
        let mut schemas = serde_json::Map::new();
        schemas.insert("A B".into(), json!({"type": "string"}));
        schemas.insert("A_B".into(), json!({"type": "integer"}));
        schemas.insert(
            "C".into(),
            json!({"type": "object", "properties": {"y": {"$ref": "#/components/schemas/A%20B"}}}),
        );
        let mut paths = serde_json::Map::new();
        for i in 0..300 {
            // Converted in order, `A B` is named first (`A_B`), then `A_B` (`A_B_2`); a second
            // worker starting at a later chunk could meet `A_B` first.
            let target = match (i < 16, in_components) {
                (true, false) => "A%20B",
                (true, true) => "C",
                (false, _) => "A_B",
            };
            paths.insert(
                format!("/r{i}"),
                json!({"post": {"operationId": format!("op{i}"),
                "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                    "properties": {"x": {"$ref": format!("#/components/schemas/{target}")}}}}}},
                "responses": {"200": {"description": "ok"}}}}),
            );
        }
        let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}});
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spec.json");
        std::fs::write(&path, doc.to_string()).unwrap();
        let (one, _) = convert(load::load_file(&path), &Options::default(), Some(1));
        for threads in [None, Some(2), Some(4)] {
            let (out, lazy) = convert(load::load_lazy(&path, 0), &Options::default(), threads);
            assert!(lazy);
            assert!(
                out == one,
                "{threads:?} threads differ (in components: {in_components})"
            );
        }
        assert!(one.contains("A_B_2"), "the names clash: {:.200}", one);
    }
}

/// The command line reads a large JSON document lazily when it streams, and prints what the
/// whole read gives.
#[test]
fn the_command_line_streams_a_large_document_lazily() {
    let mut paths = serde_json::Map::new();
    for i in 0..300 {
        paths.insert(format!("/r{i}"), json!({"get": {"operationId": format!("op{i}"),
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}}}));
    }
    // Large by a long string, which parses fast even unoptimized.
    let mut doc = json!({"x-pad": "a".repeat(openapi_mcp::lazy::MIN_LAZY)});
    for (k, v) in doc_with(Value::Object(paths), json!({}))
        .as_object()
        .unwrap()
    {
        doc[k] = v.clone();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() as usize >= openapi_mcp::lazy::MIN_LAZY);
    assert!(load::load_file_lazy(&path).unwrap().is_lazy());
    let (whole, _) = convert(load::load_file(&path), &Options::default(), None);
    for args in [vec![], vec!["--threads", "1"]] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
            .arg("convert")
            .arg(&path)
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(String::from_utf8(out.stdout).unwrap() == whole, "{args:?}");
    }
    // From standard input too.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
        .args(["convert", "-"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8(out.stdout).unwrap() == whole);
}

/// `x-` members of `paths` are extensions: no tools, whatever they hold (their references still
/// count).
#[test]
fn extensions_in_paths_are_not_paths() {
    let mut paths = pets();
    paths["x-internal"] =
        json!({"get": {"operationId": "secret", "responses": {"200": {"description": "ok"}}}});
    paths["x-note"] = json!("text");
    paths["x-list"] = json!([1, {"$ref": "#/components/schemas/Pet"}]);
    let (out, lazy) = check(&doc_with(paths.clone(), json!({})));
    assert!(lazy, "{out}");
    assert!(
        !out.contains("secret") && out.contains("list_pets"),
        "{out}"
    );
    // A reference into `paths` from an extension is still seen.
    paths["x-list"] = json!([{"$ref": "#/paths/~1pets"}]);
    let (_, lazy) = check(&doc_with(paths, json!({})));
    assert!(!lazy);
}

/// A `$ref` that is not a JSON pointer (`#name`, any characters) is not found, read either way;
/// `#` (the whole document) is.
#[test]
fn references_that_are_not_pointers_are_not_found_either_way() {
    for r in ["#é", "#", "#x/y", "#%C3%A9"] {
        let extra = json!({"components": {"schemas": {"X": {"$ref": r}}}});
        check(&doc_with(pets(), extra));
        let mut paths = pets();
        paths["/e"] = json!({"get": {"responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"$ref": r}}}}}}});
        let (out, _) = check(&doc_with(paths, json!({})));
        // `#` is the whole document, which is found (and read whole).
        assert!(out.starts_with("error: ") || r == "#", "{r}: {out}");
        let mut paths = pets();
        paths["/e"] = json!({"get": {"responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"oneOf": [{"$ref": "#/components/schemas/Pet"}],
                "discriminator": {"propertyName": "k", "mapping": {"a": r}}}}}}}}});
        check(&doc_with(paths, json!({})));
    }
}

/// The command line on a document of over 16 MiB (read lazily when streamed), with a path item
/// that references a missing file: the error is the whole read's, reported before anything else
/// (an option out of range, an output folder that does not exist).
#[test]
fn load_errors_come_first_on_the_command_line() {
    let mut paths = pets();
    paths["/a"] = json!({"$ref": "missing.json"});
    let mut doc = json!({"x-pad": "a".repeat(openapi_mcp::lazy::MIN_LAZY)});
    for (k, v) in doc_with(paths, json!({})).as_object().unwrap() {
        doc[k] = v.clone();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
            .arg("convert")
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stderr).unwrap())
    };
    let missing = dir.path().join("no/such/folder/tools.json");
    for args in [
        vec![],
        vec!["--max-name-len", "1"],
        vec!["-o", missing.to_str().unwrap()],
    ] {
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("missing.json"), "{args:?}: {stderr}");
        // The same as the whole read (`--format yaml` reads the document whole).
        let (_, whole) = run(&[&args[..], &["--format", "yaml"]].concat());
        assert_eq!(stderr, whole, "{args:?}");
    }
}
