//! Swagger 2.0 documents convert like their OpenAPI 3.0 equivalents: checked on the tools built
//! from `specs/swagger2-*` and from small inline documents.

use crate::common;

use crate::common::mcp_check;

use openapi_mcp::tool::suggest::HintSource;
use openapi_mcp::tool::{ArgIn, Tool};
use openapi_mcp::{Options, emit};
use serde_json::{Value, json};

fn tools(spec: &str) -> Vec<Tool> {
    let path = common::root().join("specs").join(spec);
    openapi_mcp::convert_file(&path, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .tools
}

fn tool<'t>(tools: &'t [Tool], name: &str) -> &'t Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// A minimal 2.0 document with the given top-level fields and one `GET /a`.
fn doc(extra: Value) -> String {
    let mut d = json!({"swagger": "2.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}});
    for (k, v) in extra.as_object().unwrap() {
        d[k] = v.clone();
    }
    d.to_string()
}

fn servers(extra: Value) -> Vec<String> {
    let c = openapi_mcp::convert_str("t.json", &doc(extra), &Options::default()).unwrap();
    c.tools[0].call.servers.clone()
}

/// The `_meta` entry of one argument.
fn arg(t: &Tool, name: &str) -> Value {
    emit::tool_json(t)["_meta"]["openapi-mcp/http"]["arguments"][name].clone()
}

#[test]
fn servers_come_from_host_base_path_and_schemes() {
    let pets = tools("swagger2-petstore.yaml");
    assert_eq!(
        pets[0].call.servers,
        [
            "https://petstore.example.com/v2",
            "http://petstore.example.com/v2"
        ]
    );
    assert_eq!(
        servers(json!({"host": "api.example.com"})),
        ["https://api.example.com"],
        "https when no scheme is given"
    );
    assert_eq!(
        servers(json!({"host": "api.example.com", "basePath": "/v1/", "schemes": ["http"]})),
        ["http://api.example.com/v1"]
    );
    assert_eq!(
        servers(json!({"basePath": "/v1", "schemes": ["https"]})),
        ["/v1"],
        "relative without a host"
    );
    assert!(servers(json!({})).is_empty());
    let features = tools("swagger2-features.json");
    assert!(features.iter().all(|t| t.call.servers == ["/api"]));
}

#[test]
fn body_parameter_is_spread_into_arguments() {
    let pets = tools("swagger2-petstore.yaml");
    let add = tool(&pets, "add_pet");
    let body = add.call.body.as_ref().expect("a request body");
    assert_eq!(body.content_type, "application/json");
    assert!(body.required && body.spread);
    assert_eq!(add.input_schema["required"], json!(["name"]));
    let props = add.input_schema["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        ["name", "tag", "status", "_fields"],
        "readOnly `id` is not an input; `_fields` chooses fields of the answer"
    );
    assert!(
        add.call
            .arguments
            .iter()
            .all(|a| a.location == ArgIn::Body && a.original.as_deref() == Some(&a.name))
    );
    // The same through a shared body parameter (`#/parameters/animalBody`).
    let features = tools("swagger2-features.json");
    let put = tool(&features, "replace_animal");
    assert!(put.call.body.as_ref().unwrap().spread);
    assert_eq!(put.input_schema["required"], json!(["kind", "name"]));
}

#[test]
fn form_data_becomes_a_form_or_multipart_body() {
    let features = tools("swagger2-features.json");
    let upload = tool(&features, "upload_photo");
    let body = upload.call.body.as_ref().unwrap();
    assert_eq!(body.content_type, "multipart/form-data");
    assert!(body.required && body.spread);
    assert_eq!(
        upload.input_schema["properties"]["file"],
        json!({"type": "string", "contentEncoding": "base64", "description": "The image"})
    );
    assert_eq!(upload.input_schema["required"], json!(["id", "file"]));
    assert_eq!(arg(upload, "file"), json!({"in": "body", "name": "file"}));

    let login = tool(&features, "login");
    let body = login.call.body.as_ref().unwrap();
    assert_eq!(body.content_type, "application/x-www-form-urlencoded");
    assert_eq!(
        body.encoding,
        Some(json!({"scope": {"style": "form", "explode": true}}))
    );
    assert_eq!(
        login.input_schema["required"],
        json!(["username", "password"])
    );
    assert_eq!(
        login.input_schema["properties"]["password"],
        json!({"type": "string", "format": "password"})
    );
}

#[test]
fn collection_formats_become_style_and_explode() {
    let pets = tools("swagger2-petstore.yaml");
    let find = tool(&pets, "find_pets_by_tags");
    let style = |t: &Tool, name: &str| {
        let a = arg(t, name);
        (a["style"].clone(), a["explode"].clone())
    };
    assert_eq!(style(find, "tags"), (json!("form"), json!(true)), "multi");
    assert_eq!(
        style(find, "status"),
        (json!("form"), json!(false)),
        "arrays default to csv"
    );
    assert_eq!(
        style(find, "limit"),
        (json!("form"), json!(true)),
        "not an array"
    );
    let features = tools("swagger2-features.json");
    let list = tool(&features, "list_animals");
    assert_eq!(
        style(list, "ids"),
        (json!("pipeDelimited"), json!(false)),
        "pipes, through a shared parameter"
    );
    assert_eq!(style(list, "sort"), (json!("form"), json!(false)));
    assert_eq!(
        style(list, "q"),
        (json!("form"), json!(false)),
        "tsv has no 3.0 style"
    );
    let get = tool(&pets, "get_pet_by_id");
    assert_eq!(style(get, "petId"), (json!("simple"), json!(false)));
    assert_eq!(
        get.input_schema["properties"]["petId"],
        json!({"type": "integer", "format": "int64", "description": "ID of the pet"})
    );
}

#[test]
fn x_nullable_becomes_a_null_type() {
    let pets = tools("swagger2-petstore.yaml");
    let add = tool(&pets, "add_pet");
    assert_eq!(
        add.input_schema["properties"]["tag"],
        json!({"type": ["string", "null"]})
    );
    let get = tool(&pets, "get_pet_by_id");
    let out = get.output_schema.as_ref().unwrap().to_value();
    assert_eq!(
        out["$defs"]["NewPet"]["properties"]["tag"]["type"],
        json!(["string", "null"])
    );
    let features = tools("swagger2-features.json");
    let put = tool(&features, "replace_animal");
    assert_eq!(
        put.input_schema["properties"]["nickname"]["type"],
        json!(["string", "null"])
    );
}

#[test]
fn refs_are_rewritten_and_none_dangles() {
    for spec in ["swagger2-petstore.yaml", "swagger2-features.json"] {
        let path = common::root().join("specs").join(spec);
        let bytes = std::fs::read(&path).unwrap();
        let doc = openapi_mcp::read::parse(spec, &bytes).unwrap();
        let tree = doc.tree();
        let mut refs = Vec::new();
        mcp_check::collect_refs(&tree, &mut refs);
        assert!(!refs.is_empty());
        for r in &refs {
            assert!(
                r.starts_with("#/components/"),
                "{spec}: {r} was not rewritten"
            );
            assert!(
                openapi_mcp::read::pointer::lookup(&doc, r).is_some(),
                "{spec}: {r} dangles"
            );
        }
        for t in tools(spec) {
            let v = emit::tool_json(&t);
            for key in ["inputSchema", "outputSchema"] {
                if let Some(s) = v.get(key) {
                    let problems = mcp_check::schema_problems(s);
                    assert!(problems.is_empty(), "{spec} {} {key}: {problems:?}", t.name);
                }
            }
        }
    }
    // The upgraded document has the 3.0 layout.
    let bytes = std::fs::read(common::root().join("specs/swagger2-features.json")).unwrap();
    let doc = openapi_mcp::read::parse("f", &bytes).unwrap();
    let root = &doc.tree();
    let put = &root["paths"]["/animals"]["put"];
    assert_eq!(
        put["requestBody"],
        json!({"$ref": "#/components/requestBodies/animalBody"})
    );
    assert_eq!(
        put["responses"]["404"],
        json!({"$ref": "#/components/responses/NotFound"})
    );
    assert_eq!(
        root["components"]["schemas"]["Animal"]["discriminator"],
        json!({"propertyName": "kind"})
    );
    assert_eq!(
        root["paths"]["/animals/{id}/photo"]["get"]["responses"]["200"]["content"],
        json!({"image/png": {"schema": {"type": "string", "format": "binary"}}})
    );
    assert_eq!(
        root["components"]["securitySchemes"]["basicAuth"],
        json!({"type": "http", "scheme": "basic"})
    );
    assert_eq!(
        root["components"]["securitySchemes"]["oauth"]["flows"]["authorizationCode"]["tokenUrl"],
        "https://auth.example.com/token"
    );
    let list = &root["paths"]["/animals"]["get"]["responses"]["200"];
    assert_eq!(
        list["content"]["application/json"]["example"],
        json!([{"kind": "cat", "name": "Tom"}])
    );
}

#[test]
fn x_mcp_annotations_survive_the_upgrade() {
    let features = tools("swagger2-features.json");
    let put = tool(&features, "replace_animal");
    assert_eq!(put.title, "Store an animal");
    assert!(
        !put.hints.destructive.value,
        "PUT is destructive by default"
    );
    assert_eq!(
        put.hints.destructive.source,
        HintSource::Extension("x-mcp-annotations")
    );
    assert!(put.hints.idempotent.value);
    assert_eq!(put.hints.idempotent.source, HintSource::Method);
}

#[test]
fn structural_defects_name_the_pointer() {
    let e = openapi_mcp::convert_str(
        "bad.yaml",
        "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: 5\n",
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("bad.yaml at #/paths: "), "{e}");
    let e = openapi_mcp::convert_str(
        "bad.json",
        &doc(json!({"paths": {"/a": {"get": {"parameters": ["x"]}}}})),
        &Options::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("at #/paths/~1a/get/parameters/0: a parameter must be an object"),
        "{e}"
    );
}
