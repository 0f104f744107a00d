//! One tool as a line of `--format json`: compact JSON written straight into bytes with
//! [`crate::compact`], each definition copied from its rendered text. The bytes are those of
//! `serde_json::to_writer` over the [`super::ItemOut`] every other format serializes (a test
//! compares the two on every spec and shape), at a fraction of the cost: a large tools list is
//! mostly long descriptions and shared definitions.

use super::{AnnotationsOut, CallOut, META_KEY, One, Shape, api_description};
use crate::compact::write_str;
use crate::tool::Tool;

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
    t.input_schema.write_compact(out);
}

/// An MCP `Tool`, keys in the order of [`super::ToolOut`].
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
    // The small parts through `serde_json` (into a `Vec`, which cannot fail; every key is a
    // string).
    out.extend_from_slice(b",\"annotations\":");
    let _ = serde_json::to_writer(&mut *out, &AnnotationsOut(t));
    out.extend_from_slice(b",\"_meta\":");
    let _ = serde_json::to_writer(&mut *out, &One(META_KEY, &CallOut(&t.call)));
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::super::ItemOut;
    use super::*;

    /// Every tool of every spec, in every shape, with and without output schemas and with
    /// definitions inlined: the same bytes as `serde_json` over the serde form.
    #[test]
    fn lines_are_the_serde_bytes() {
        let mut tools = 0;
        for (path, tree) in crate::test_support::spec_trees() {
            let Ok(doc) = crate::load::from_tree("spec", tree) else {
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
}
