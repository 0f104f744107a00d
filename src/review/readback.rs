//! Readback: an already converted tools file (`{"tools": [...]}`, ours or anyone's) read back into
//! the tool model, so `lint` can check it without the spec.

use crate::error::{Error, Result};
use crate::model::Method;
use crate::output::emit::META_KEY;
use crate::schema::Schema;
use crate::tool::naming::Named;
use crate::tool::suggest::{Hint, HintSource, Hints};
use crate::tool::{ArgIn, Argument, Call, Origin, Tool};
use serde_json::Value;

/// Whether a parsed document is a tools list rather than an OpenAPI document.
pub fn is_tools_list(root: &Value) -> bool {
    root.get("tools").is_some_and(Value::is_array)
        && root.get("openapi").is_none()
        && root.get("swagger").is_none()
}

/// Read the tools of a `ListToolsResult`.
pub fn tools(file: &str, root: &Value) -> Result<Vec<Tool>> {
    let list = root
        .get("tools")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::at(file, "/tools", "expected an array of tools"))?;
    list.iter()
        .enumerate()
        .map(|(i, t)| tool(file, i, t))
        .collect()
}

fn tool(file: &str, i: usize, t: &Value) -> Result<Tool> {
    let at = format!("/tools/{i}");
    let name = t
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::at(file, &at, "a tool needs a string `name`"))?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let annotations = t.get("annotations");
    let hint = |key: &str, default: bool| match annotations
        .and_then(|a| a.get(key))
        .and_then(Value::as_bool)
    {
        Some(value) => Hint {
            value,
            source: HintSource::Extension("tools file"),
            reason: "as written in the tools file".into(),
            confidence: crate::tool::suggest::Confidence::Sure,
        },
        None => Hint {
            value: default,
            source: HintSource::Method,
            reason: "absent: MCP's default applies".into(),
            confidence: crate::tool::suggest::Confidence::Sure,
        },
    };
    let meta = t.get("_meta").and_then(|m| m.get(META_KEY));
    let method = meta
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str)
        .and_then(Method::parse)
        .unwrap_or(Method::Post);
    let path = text(meta.and_then(|m| m.get("path"))).unwrap_or_default();
    let arguments = meta
        .and_then(|m| m.get("arguments"))
        .and_then(Value::as_object)
        .map(|args| {
            args.iter()
                .map(|(arg, a)| Argument {
                    name: arg.clone(),
                    location: match a.get("in").and_then(Value::as_str) {
                        Some("path") => ArgIn::Path,
                        Some("query") => ArgIn::Query,
                        Some("header") => ArgIn::Header,
                        Some("cookie") => ArgIn::Cookie,
                        _ if a.get("name").is_some() => ArgIn::Body,
                        _ => ArgIn::WholeBody,
                    },
                    original: text(a.get("name")),
                    style: None,
                    explode: a.get("explode").and_then(Value::as_bool),
                    allow_reserved: false,
                    content_type: text(a.get("contentType")),
                })
                .collect()
        })
        .unwrap_or_default();
    let description = text(t.get("description")).unwrap_or_default();
    Ok(Tool {
        name: name.to_string(),
        title: text(t.get("title"))
            .or_else(|| text(annotations.and_then(|a| a.get("title"))))
            .unwrap_or_else(|| crate::tool::naming::readable(name)),
        input_schema: Schema::plain(t.get("inputSchema").cloned().unwrap_or(Value::Null)),
        output_schema: t.get("outputSchema").cloned().map(Schema::plain),
        hints: Hints {
            read_only: hint("readOnlyHint", false),
            destructive: hint("destructiveHint", true),
            idempotent: hint("idempotentHint", false),
            open_world: hint("openWorldHint", true),
        },
        call: Call {
            method,
            path,
            servers: Vec::new(),
            arguments,
            body: None,
            output_wrapped: None,
            fields: meta
                .and_then(|m| m.pointer("/output/fields"))
                .and_then(Value::as_str)
                == Some(crate::tool::fields::ARG),
            security: Vec::new(),
        },
        origin: Origin {
            operation_id: None,
            summary: None,
            tags: Vec::new(),
            deprecated: false,
            pointer: at,
            naming: Named {
                name: name.to_string(),
                wanted: name.to_string(),
                truncated: false,
                collided: false,
            },
            has_success: true,
            described: !description.trim().is_empty(),
            verb: crate::tool::vocab::operation_verb(name, method),
            summary_verb: None,
        },
        description,
        review: None,
    })
}
