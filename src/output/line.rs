//! One tool as a line of `--format json`: compact JSON written straight into bytes, each shared
//! definition copied from its text rendered once. The bytes are those of
//! `serde_json::to_writer` over the `ItemOut` every other format serializes (a test
//! compares the two on every spec and shape), at a fraction of the cost: a large tools list is
//! mostly long descriptions and shared definitions.

use super::emit::{MAX_RESULT_KEY, META_KEY, Shape, api_description, api_input, max_result_chars};
use crate::schema::{write_str, write_value};
use crate::tool::{ArgIn, Call, Tool};

/// Append `t` in `shape` as compact JSON.
pub(crate) fn write(out: &mut Vec<u8>, t: &Tool, shape: Shape) {
    let key = match shape {
        Shape::Mcp => return write_mcp(out, t),
        Shape::Openai => {
            out.extend_from_slice(b"{\"type\":\"function\",\"function\":");
            write_function(out, t, "parameters");
            out.push(b'}');
            return;
        }
        Shape::OpenaiResponses => {
            out.extend_from_slice(b"{\"type\":\"function\",");
            write_fields(out, t, "parameters");
            out.push(b'}');
            return;
        }
        Shape::Anthropic => "input_schema",
        Shape::Gemini => "parametersJsonSchema",
    };
    write_function(out, t, key);
}

/// `{"name", "description", KEY: inputSchema}`.
fn write_function(out: &mut Vec<u8>, t: &Tool, key: &str) {
    out.push(b'{');
    write_fields(out, t, key);
    out.push(b'}');
}

/// `"name":...,"description":...,"KEY":inputSchema` (no braces).
fn write_fields(out: &mut Vec<u8>, t: &Tool, key: &str) {
    out.extend_from_slice(b"\"name\":");
    write_str(out, &t.name);
    out.extend_from_slice(b",\"description\":");
    write_str(out, api_description(t));
    out.push(b',');
    write_str(out, key);
    out.push(b':');
    api_input(t).write_compact(out);
}

/// An MCP `Tool`, keys in the order of `ToolOut`.
fn write_mcp(out: &mut Vec<u8>, t: &Tool) {
    out.extend_from_slice(b"{\"name\":");
    write_str(out, &t.name);
    out.extend_from_slice(b",\"title\":");
    write_str(out, &t.title);
    out.extend_from_slice(b",\"description\":");
    write_str(out, &t.description);
    out.extend_from_slice(b",\"inputSchema\":");
    t.input_schema.write_compact(out);
    if let Some(o) = &t.output_schema {
        out.extend_from_slice(b",\"outputSchema\":");
        o.write_compact(out);
    }
    out.extend_from_slice(b",\"annotations\":");
    write_annotations(out, t);
    out.extend_from_slice(b",\"_meta\":{");
    write_str(out, META_KEY);
    out.push(b':');
    write_call(out, &t.call);
    if let Some(n) = max_result_chars(t) {
        out.push(b',');
        write_str(out, MAX_RESULT_KEY);
        out.push(b':');
        out.extend_from_slice(n.to_string().as_bytes());
    }
    out.extend_from_slice(b"}}");
}

/// `AnnotationsOut`: `{"title", HINT: bool, ...}`.
fn write_annotations(out: &mut Vec<u8>, t: &Tool) {
    out.extend_from_slice(b"{\"title\":");
    write_str(out, &t.title);
    for (key, hint) in t.hints.entries() {
        out.push(b',');
        write_str(out, key);
        out.push(b':');
        write_bool(out, hint.value);
    }
    out.push(b'}');
}

/// `CallOut`: the HTTP call mapping.
fn write_call(out: &mut Vec<u8>, c: &Call) {
    out.extend_from_slice(b"{\"method\":");
    write_str(out, c.method.as_str());
    out.extend_from_slice(b",\"path\":");
    write_str(out, &c.path);
    out.extend_from_slice(b",\"servers\":[");
    for (i, s) in c.servers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, &super::emit::hide_password(s));
    }
    out.extend_from_slice(b"],\"arguments\":{");
    for (i, a) in c.arguments.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, &a.name);
        out.extend_from_slice(b":{\"in\":");
        write_str(out, a.location.as_str());
        if a.location != ArgIn::WholeBody
            && let Some(o) = &a.original
        {
            out.extend_from_slice(b",\"name\":");
            write_str(out, o);
        }
        if let Some(style) = a.style {
            out.extend_from_slice(b",\"style\":");
            write_str(out, style);
        }
        if let Some(x) = a.explode {
            out.extend_from_slice(b",\"explode\":");
            write_bool(out, x);
        }
        if a.allow_reserved {
            out.extend_from_slice(b",\"allowReserved\":true");
        }
        if let Some(ct) = &a.content_type {
            out.extend_from_slice(b",\"contentType\":");
            write_str(out, ct);
        }
        out.push(b'}');
    }
    out.push(b'}');
    if let Some(b) = &c.body {
        out.extend_from_slice(b",\"body\":{\"contentType\":");
        write_str(out, &b.content_type);
        out.extend_from_slice(b",\"required\":");
        write_bool(out, b.required);
        out.extend_from_slice(b",\"spread\":");
        write_bool(out, b.spread);
        if let Some(enc) = &b.encoding {
            out.extend_from_slice(b",\"encoding\":");
            write_value(out, enc);
        }
        out.push(b'}');
    }
    if c.output_wrapped.is_some() || c.fields {
        out.extend_from_slice(b",\"output\":{");
        if let Some(w) = &c.output_wrapped {
            out.extend_from_slice(b"\"wrapped\":");
            write_str(out, w);
        }
        if c.fields {
            if c.output_wrapped.is_some() {
                out.push(b',');
            }
            out.extend_from_slice(b"\"fields\":");
            write_str(out, crate::tool::fields::ARG);
        }
        out.push(b'}');
    }
    out.push(b'}');
}

fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::emit::ItemOut;

    /// Every tool of every spec, in every shape, with and without output schemas and with
    /// definitions inlined: the same bytes as `serde_json` over the serde form.
    #[test]
    fn lines_are_the_serde_bytes() {
        let mut tools = 0;
        for (path, tree) in crate::test_support::spec_trees() {
            let Ok(doc) = crate::read::from_tree("spec", tree) else {
                continue; // a broken spec
            };
            let mut options = vec![crate::Options::default()];
            options.push(crate::Options {
                inline_refs: true,
                ..crate::Options::default()
            });
            options.push(crate::Options {
                output_schema: false,
                ..crate::Options::default()
            });
            for o in options {
                let Ok(conversion) = crate::convert_document(&doc, &o) else {
                    continue;
                };
                for t in &conversion.tools {
                    for shape in [
                        Shape::Mcp,
                        Shape::Anthropic,
                        Shape::Openai,
                        Shape::OpenaiResponses,
                        Shape::Gemini,
                    ] {
                        let mut ours = Vec::new();
                        write(&mut ours, t, shape);
                        let serde = serde_json::to_vec(&ItemOut(t, shape)).unwrap();
                        assert!(
                            ours == serde,
                            "{} {shape:?} {}:\n{}\n{}",
                            path.display(),
                            t.name,
                            String::from_utf8_lossy(&ours),
                            String::from_utf8_lossy(&serde)
                        );
                        tools += 1;
                    }
                }
            }
        }
        assert!(tools > 500, "{tools} lines compared");
    }

    /// Every part of the call mapping the specs may not have: reserved characters allowed, a
    /// parameter serialized by `content`, a cookie, `explode: false`, a multipart `encoding`,
    /// a wrapped result, several servers and text to escape.
    #[test]
    fn every_part_of_the_call_mapping_is_the_serde_bytes() {
        let doc = serde_json::json!({
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://a.example/v1"}, {"url": "https://b.example/\"q\""}],
            "paths": {"/items/{id}": {"post": {
                "operationId": "make \"item\"\n",
                "parameters": [
                    {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "allowReserved": true, "explode": false,
                     "style": "form", "schema": {"type": "array", "items": {"type": "string"}}},
                    {"name": "filter", "in": "query",
                     "content": {"application/json": {"schema": {"type": "object"}}}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}}
                ],
                "requestBody": {"required": true, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "properties": {"file": {"type": "string"}}},
                    "encoding": {"file": {"contentType": "image/png", "x-skip": 1}}
                }}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "array", "items": {"type": "object",
                        "properties": {"id": {"type": "string"}}}}
                }}}}
            }, "put": {
                "requestBody": {"content": {"application/json": {
                    "schema": {"type": "array", "items": {"type": "integer"}}
                }}},
                "responses": {"204": {"description": "none"}}
            }}}
        });
        let doc = crate::read::from_tree("t", doc).unwrap();
        let tools = crate::convert_document(&doc, &crate::Options::default())
            .unwrap()
            .tools;
        assert_eq!(tools.len(), 2);
        let post = tools
            .iter()
            .find(|t| t.call.body.as_ref().is_some_and(|b| b.spread));
        let meta =
            serde_json::to_value(crate::output::emit::ItemOut(post.unwrap(), Shape::Mcp)).unwrap();
        let call = &meta["_meta"][META_KEY];
        for part in [
            &call["arguments"]["q"]["allowReserved"],
            &call["arguments"]["q"]["explode"],
            &call["arguments"]["filter"]["contentType"],
            &call["body"]["encoding"],
            &call["output"]["wrapped"],
            &call["output"]["fields"],
            &call["servers"][1],
        ] {
            assert!(!part.is_null(), "{call}");
        }
        for t in &tools {
            let mut ours = Vec::new();
            write(&mut ours, t, Shape::Mcp);
            let serde = serde_json::to_vec(&crate::output::emit::ItemOut(t, Shape::Mcp)).unwrap();
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(serde).unwrap()
            );
        }
    }
}
