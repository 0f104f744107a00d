//! Checks one emitted MCP tool the way a strict client would: MCP's `Tool` definition, the JSON
//! Schema 2020-12 metaschema for `inputSchema`/`outputSchema`, a validator that can be built, and
//! no `$ref` that leaves the schema.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::path::Path;

/// A validator for MCP's `Tool` definition from one revision's `schema.json`.
pub struct ToolCheck {
    tool: jsonschema::Validator,
}

impl ToolCheck {
    /// Load `$defs/Tool` from an official MCP `schema.json`.
    pub fn load(schema_json: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(schema_json)
            .map_err(|e| format!("{}: {e}", schema_json.display()))?;
        let schema: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        // Older revisions (draft-07) keep their definitions under `definitions`.
        let key = if schema.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let wrapper = json!({
            "$schema": schema["$schema"].clone(),
            "$ref": format!("#/{key}/Tool"),
            key: schema[key].clone(),
        });
        let tool = jsonschema::validator_for(&wrapper).map_err(|e| e.to_string())?;
        Ok(ToolCheck { tool })
    }

    /// Every problem with `tool` (empty when valid).
    pub fn problems(&self, tool: &Value) -> Vec<String> {
        let mut out: Vec<String> = self
            .tool
            .iter_errors(tool)
            .take(3)
            .map(|e| format!("MCP Tool: {} at {}", e, e.instance_path()))
            .collect();
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                out.extend(
                    schema_problems(schema)
                        .into_iter()
                        .map(|p| format!("{key}: {p}")),
                );
            }
        }
        out
    }
}

/// Problems of one JSON Schema: metaschema, buildability, dangling `$ref`s.
pub fn schema_problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        out.push(format!("2020-12 metaschema: {e} at {}", e.instance_path()));
    }
    if let Err(e) = jsonschema::draft202012::new(schema) {
        out.push(format!("cannot build a validator: {e}"));
    }
    let mut refs = Vec::new();
    collect_refs(schema, &mut refs);
    for r in refs {
        if !resolves(schema, &r) {
            out.push(format!("dangling $ref {r}"));
        }
    }
    out
}

/// Every `$ref` string in `v`.
pub fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r.clone());
            }
            m.values().for_each(|c| collect_refs(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| collect_refs(c, out)),
        _ => {}
    }
}

fn resolves(schema: &Value, reference: &str) -> bool {
    match reference.strip_prefix('#') {
        Some("") => true,
        Some(pointer) => schema.pointer(pointer).is_some(),
        None => false,
    }
}
