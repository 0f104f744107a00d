//! Client targets (`--target`) and output shapes (`--shape`): every scenario in `specs/` keeps
//! each target's rules, and each shape has exactly the keys its API expects.

use crate::common;

use openapi_mcp::emit::{self, Format, Shape};
use openapi_mcp::target::Target;
use openapi_mcp::{Options, Tool};
use serde_json::Value;
use std::collections::BTreeSet;

use crate::common::mcp_check;

const TARGETS: [Target; 5] = [
    Target::Mcp,
    Target::Claude,
    Target::Openai,
    Target::Cursor,
    Target::Gemini,
];

const SHAPES: [Shape; 5] = [
    Shape::Mcp,
    Shape::Anthropic,
    Shape::Openai,
    Shape::OpenaiResponses,
    Shape::Gemini,
];

fn convert(spec: &str, options: &Options) -> Vec<Tool> {
    openapi_mcp::convert_file(common::root().join(spec), options)
        .unwrap()
        .tools
}

/// The `$defs` entries of `schema` that cannot reach themselves through `$ref`s.
fn non_recursive_defs(schema: &Value) -> Vec<String> {
    let Some(defs) = schema.get("$defs").and_then(Value::as_object) else {
        return Vec::new();
    };
    let refs_of = |name: &str| {
        let mut refs = Vec::new();
        mcp_check::collect_refs(&defs[name], &mut refs);
        refs.into_iter()
            .filter_map(|r| r.strip_prefix("#/$defs/").map(str::to_string))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    for name in defs.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = refs_of(name);
        let mut recursive = false;
        while let Some(next) = todo.pop() {
            if next == *name {
                recursive = true;
                break;
            }
            if seen.insert(next.clone()) && defs.contains_key(&next) {
                todo.extend(refs_of(&next));
            }
        }
        if !recursive {
            out.push(name.clone());
        }
    }
    out
}

#[test]
fn every_target_keeps_its_rules_on_every_spec() {
    let union_keys = ["anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref"];
    for path in common::specs() {
        for target in TARGETS {
            let rules = target.rules();
            let c = openapi_mcp::convert_file(&path, &Options::for_target(target)).unwrap();
            let at = |t: &Tool| format!("{} {target:?} {}", path.display(), t.name);
            for t in &c.tools {
                assert!(t.name.len() <= rules.max_name_len, "{}", at(t));
                assert!(
                    t.name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                    "{}",
                    at(t)
                );
                if rules.letter_first {
                    assert!(
                        t.name
                            .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
                        "{}",
                        at(t)
                    );
                }
                let v = emit::tool_json(t);
                let input = &v["inputSchema"];
                assert_eq!(input["type"], "object", "{}", at(t));
                for key in union_keys {
                    assert!(input.get(key).is_none(), "{}: top-level {key}", at(t));
                }
                for key in ["inputSchema", "outputSchema"] {
                    let Some(schema) = v.get(key) else { continue };
                    let problems = mcp_check::schema_problems(schema);
                    assert!(problems.is_empty(), "{} {key}: {problems:?}", at(t));
                    if rules.inline_refs {
                        assert_eq!(
                            non_recursive_defs(schema),
                            Vec::<String>::new(),
                            "{} {key}: only recursive definitions stay in $defs",
                            at(t)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn presets_change_names_and_refs_as_documented() {
    let names = |target| -> Vec<String> {
        convert("specs/targets.yaml", &Options::for_target(target))
            .into_iter()
            .map(|t| t.name)
            .collect()
    };
    let mcp = names(Target::Mcp);
    assert_eq!(mcp[0], "2fa_enable");
    assert_eq!(names(Target::Gemini)[0], "_2fa_enable");
    assert_eq!(names(Target::Claude), mcp);
    assert_eq!(names(Target::Openai), mcp);
    // Names of exactly 64 and 63 characters: whole for 64-character clients, cut (with a hash)
    // below each target's own limit otherwise.
    let (n64, n63) = (&mcp[2], &mcp[3]);
    assert_eq!((n64.len(), n63.len()), (64, 63));
    assert!(n64.ends_with("organization_2") && n63.ends_with("organization"));
    let gemini = names(Target::Gemini);
    assert!(gemini[2].len() <= 63 && gemini[2] != *n64, "{}", gemini[2]);
    assert_eq!(gemini[3], *n63, "63 characters fit Gemini");
    let cursor = names(Target::Cursor);
    // A name MCP keeps whole or shortens to more than 60 characters is shortened again.
    for (cut, whole) in cursor[1..4].iter().zip(&mcp[1..4]) {
        assert!(cut.len() <= 60, "{cut}");
        assert!(whole.len() <= 60 || cut != whole, "{cut}");
    }
    // The shared `Device` schema is a `$defs` entry for MCP and inlined for Cursor.
    let output_defs = |target| {
        let tools = convert("specs/targets.yaml", &Options::for_target(target));
        let out = emit::tool_json(&tools[1])["outputSchema"].clone();
        out.get("$defs")
            .and_then(Value::as_object)
            .map(|d| d.keys().cloned().collect::<Vec<_>>())
    };
    assert_eq!(output_defs(Target::Mcp), Some(vec!["Device".to_string()]));
    assert_eq!(output_defs(Target::Cursor), None);
}

/// The list and the items of `shape`: where the list sits, and each item's keys in order.
fn shape_layout(doc: &Value, shape: Shape) -> Vec<Vec<String>> {
    let list = match shape {
        Shape::Mcp => &doc["tools"],
        Shape::Gemini => &doc["functionDeclarations"],
        _ => doc,
    };
    assert_eq!(
        doc.as_object().map(|m| m.len()),
        match shape {
            Shape::Mcp | Shape::Gemini => Some(1),
            _ => None,
        },
        "{shape:?}: the list's container"
    );
    list.as_array()
        .unwrap_or_else(|| panic!("{shape:?}: a list"))
        .iter()
        .map(|item| item.as_object().unwrap().keys().cloned().collect())
        .collect()
}

#[test]
fn each_shape_has_its_apis_keys_and_the_same_tools() {
    let tools = convert("specs/targets.yaml", &Options::default());
    let expected: &[(Shape, &[&str])] = &[
        (Shape::Anthropic, &["name", "description", "input_schema"]),
        (Shape::Openai, &["type", "function"]),
        (
            Shape::OpenaiResponses,
            &["type", "name", "description", "parameters"],
        ),
        (
            Shape::Gemini,
            &["name", "description", "parametersJsonSchema"],
        ),
    ];
    for &(shape, keys) in expected {
        let text = emit::render_as(&tools, shape, Format::Json).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        for item_keys in shape_layout(&doc, shape) {
            assert_eq!(item_keys, keys, "{shape:?}");
        }
        // Same names, descriptions (the summary when there is no description) and schemas.
        let items: Vec<&Value> = match shape {
            Shape::Gemini => doc["functionDeclarations"]
                .as_array()
                .unwrap()
                .iter()
                .collect(),
            Shape::Openai => doc
                .as_array()
                .unwrap()
                .iter()
                .map(|i| &i["function"])
                .collect(),
            _ => doc.as_array().unwrap().iter().collect(),
        };
        assert_eq!(items.len(), tools.len());
        for (item, tool) in items.iter().zip(&tools) {
            let mcp = emit::tool_json(tool);
            assert_eq!(item["name"], mcp["name"]);
            let schema_key = match shape {
                Shape::Anthropic => "input_schema",
                Shape::Gemini => "parametersJsonSchema",
                _ => "parameters",
            };
            // The MCP input schema but for `_fields`, which selects from an output schema the
            // API shapes do not carry.
            let mut input = mcp["inputSchema"].clone();
            if let Some(props) = input["properties"].as_object_mut() {
                props.shift_remove("_fields");
            }
            assert_eq!(item[schema_key], input, "{shape:?}");
            let description = item["description"].as_str().unwrap();
            assert!(!description.is_empty(), "{shape:?} {}", tool.name);
        }
        if shape == Shape::Openai {
            assert!(
                doc.as_array()
                    .unwrap()
                    .iter()
                    .all(|i| i["type"] == "function")
            );
        }
        // Compact JSON, one tool a line, like the MCP shape.
        assert_eq!(text.lines().count(), tools.len() + 2, "{shape:?}");
    }
    // The summary stands in for a missing description; a description wins over it.
    let api = emit::list_value(&tools, Shape::Anthropic);
    assert_eq!(api[0]["description"], "Turn on two-factor authentication");
    assert_eq!(api[1]["description"], "Invitations waiting for an answer.");
}

#[test]
fn every_shape_and_format_is_deterministic_and_parses() {
    let tools = convert("specs/targets.yaml", &Options::for_target(Target::Gemini));
    for shape in SHAPES {
        let value = emit::list_value(&tools, shape);
        for format in [Format::Json, Format::JsonPretty, Format::Yaml] {
            let a = emit::render_as(&tools, shape, format).unwrap();
            assert_eq!(a, emit::render_as(&tools, shape, format).unwrap());
            let parsed: Value = match format {
                Format::Yaml => yaml_serde::from_str(&a).unwrap(),
                _ => serde_json::from_str(&a).unwrap(),
            };
            assert_eq!(parsed, value, "{shape:?} {format:?}");
        }
    }
    let empty: Vec<Tool> = Vec::new();
    assert_eq!(
        emit::render_as(&empty, Shape::Anthropic, Format::Json).unwrap(),
        "[]\n"
    );
    assert_eq!(
        emit::render_as(&empty, Shape::Gemini, Format::Json).unwrap(),
        "{\"functionDeclarations\":[]}\n"
    );
}

#[test]
fn target_and_shape_snapshots() {
    let cases = [
        ("cursor", Target::Cursor, Shape::Mcp),
        ("gemini", Target::Gemini, Shape::Gemini),
        ("anthropic", Target::Claude, Shape::Anthropic),
        ("openai", Target::Openai, Shape::Openai),
        ("openai-responses", Target::Openai, Shape::OpenaiResponses),
    ];
    for (suffix, target, shape) in cases {
        let tools = convert("specs/targets.yaml", &Options::for_target(target));
        let text = emit::render_as(&tools, shape, Format::JsonPretty).unwrap();
        snapshot!(&format!("targets.yaml.{suffix}"), text);
    }
}
