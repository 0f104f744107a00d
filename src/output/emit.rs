//! Emit: tools -> an MCP `ListToolsResult` (`{"tools": [...]}`), or the tool list of a model API
//! ([`Shape`]), as JSON (compact, one tool a line), indented JSON, or YAML, always with a trailing
//! newline. Output depends only on the tools, so equal input gives equal bytes. Everything is
//! streamed: no copy of the list is built.

use crate::error::{Error, Result};
use crate::tool::{ArgIn, Argument, Call, Tool};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// The `_meta` key under which a tool's HTTP call mapping is written.
pub const META_KEY: &str = "openapi-mcp/http";

/// The `_meta` key of a tool's result size limit in characters (Claude Code's), written from a
/// hints entry's `maxResultBytes`.
pub const MAX_RESULT_KEY: &str = "anthropic/maxResultSizeChars";

/// The largest [`MAX_RESULT_KEY`] Claude Code honours; a larger `maxResultBytes` is written as
/// this (it stays the tool's budget under `serve`).
pub const MAX_RESULT_CHARS: usize = 500_000;

/// The [`MAX_RESULT_KEY`] value of `tool`, if it has one.
pub(crate) fn max_result_chars(tool: &Tool) -> Option<usize> {
    let n = tool.review.as_ref()?.max_result_bytes?;
    Some(n.min(MAX_RESULT_CHARS))
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// Compact JSON, one tool a line: the bytes a client receives, and a line diff names the
    /// tools that changed.
    #[default]
    Json,
    /// JSON indented by two spaces, for reading (about 1.8 times the bytes of `json`).
    JsonPretty,
    /// YAML.
    Yaml,
}

/// What the document is: an MCP tools list, or the `tools` of a model API called directly (those
/// carry name, description and input schema only: no title, annotations, output schema or HTTP
/// mapping, which have no place there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Shape {
    /// MCP `ListToolsResult`: `{"tools": [Tool, ...]}`.
    #[default]
    Mcp,
    /// Anthropic Messages API `tools`: `[{"name", "description", "input_schema"}, ...]`.
    Anthropic,
    /// OpenAI Chat Completions `tools`:
    /// `[{"type": "function", "function": {"name", "description", "parameters"}}, ...]`.
    Openai,
    /// OpenAI Responses API `tools`: `[{"type": "function", "name", "description", "parameters"}, ...]`.
    OpenaiResponses,
    /// Gemini `Tool`: `{"functionDeclarations": [{"name", "description", "parametersJsonSchema"}, ...]}`.
    Gemini,
}

impl Shape {
    /// `options` as tools written in this shape need them: Gemini rejects a name that starts
    /// with a digit whatever the target, so its shape asks for `letter_first`.
    pub fn options(self, mut options: crate::Options) -> crate::Options {
        options.letter_first |= self == Shape::Gemini;
        options
    }

    /// The key the list sits under, or `None` for a bare array.
    fn key(self) -> Option<&'static str> {
        match self {
            Shape::Mcp => Some("tools"),
            Shape::Gemini => Some("functionDeclarations"),
            Shape::Anthropic | Shape::Openai | Shape::OpenaiResponses => None,
        }
    }
}

/// `url` with the password of its user information (`user:password@`) shown as `***`, as every writer puts a
/// server in `_meta` (the tool model keeps the real URL, which `serve` sends to) and as messages
/// show it; the URL itself when it has none.
pub(crate) fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let Some((info, _)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let user = info.split_once(':').map_or(info, |(user, _)| user);
    format!("{scheme}://{user}:***{}", &rest[info.len()..])
}

/// One tool as an MCP `Tool` object.
pub fn tool_json(t: &Tool) -> Value {
    // Serializing these types into a value cannot fail: every map key is a string.
    serde_json::to_value(ToolOut(t)).unwrap_or(Value::Null)
}

/// The call mapping: everything a runtime needs to send the request without the spec.
pub fn call_json(c: &Call) -> Value {
    serde_json::to_value(CallOut(c)).unwrap_or(Value::Null)
}

/// The call mapping serialized in place (see [`call_json`]).
struct CallOut<'a>(&'a Call);

impl Serialize for CallOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let c = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("method", c.method.as_str())?;
        m.serialize_entry("path", &c.path)?;
        let servers: Vec<String> = c.servers.iter().map(|s| hide_password(s)).collect();
        m.serialize_entry("servers", &servers)?;
        m.serialize_entry("arguments", &ArgumentsOut(&c.arguments))?;
        if let Some(b) = &c.body {
            m.serialize_entry("body", &BodyOut(b))?;
        }
        if c.output_wrapped.is_some() || c.fields {
            m.serialize_entry("output", &OutputOut(c))?;
        }
        m.end()
    }
}

/// What the server does with the answer: `{"wrapped"?: KEY, "fields"?: ARG}`.
struct OutputOut<'a>(&'a Call);

impl Serialize for OutputOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(w) = &self.0.output_wrapped {
            m.serialize_entry("wrapped", w)?;
        }
        if self.0.fields {
            m.serialize_entry("fields", crate::tool::fields::ARG)?;
        }
        m.end()
    }
}

/// How the body travels: `{"contentType", "required", "spread", "encoding"?}`.
struct BodyOut<'a>(&'a crate::tool::Body);

impl Serialize for BodyOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let b = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("contentType", &b.content_type)?;
        m.serialize_entry("required", &b.required)?;
        m.serialize_entry("spread", &b.spread)?;
        if let Some(enc) = &b.encoding {
            m.serialize_entry("encoding", enc)?;
        }
        m.end()
    }
}

/// How each argument travels: `{NAME: {"in", "name", "style", ...}, ...}`.
struct ArgumentsOut<'a>(&'a [Argument]);

impl Serialize for ArgumentsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        struct Arg<'a>(&'a Argument);
        impl Serialize for Arg<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                let a = self.0;
                let mut e = s.serialize_map(None)?;
                e.serialize_entry("in", a.location.as_str())?;
                if a.location != ArgIn::WholeBody
                    && let Some(o) = &a.original
                {
                    e.serialize_entry("name", o)?;
                }
                if let Some(style) = a.style {
                    e.serialize_entry("style", style)?;
                }
                if let Some(x) = a.explode {
                    e.serialize_entry("explode", &x)?;
                }
                if a.allow_reserved {
                    e.serialize_entry("allowReserved", &true)?;
                }
                if let Some(ct) = &a.content_type {
                    e.serialize_entry("contentType", ct)?;
                }
                e.end()
            }
        }
        s.collect_map(self.0.iter().map(|a| (&a.name, Arg(a))))
    }
}

/// A tool serialized in place (same keys and order as [`tool_json`]), without copying its schemas.
struct ToolOut<'a>(&'a Tool);

impl Serialize for ToolOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let t = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &t.name)?;
        m.serialize_entry("title", &t.title)?;
        m.serialize_entry("description", &t.description)?;
        m.serialize_entry("inputSchema", &t.input_schema)?;
        if let Some(o) = &t.output_schema {
            m.serialize_entry("outputSchema", o)?;
        }
        m.serialize_entry("annotations", &AnnotationsOut(t))?;
        m.serialize_entry("_meta", &MetaOut(t))?;
        m.end()
    }
}

/// `{"openapi-mcp/http": CALL, "anthropic/maxResultSizeChars"?: N}`.
struct MetaOut<'a>(&'a Tool);

impl Serialize for MetaOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let limit = max_result_chars(self.0);
        let mut m = s.serialize_map(Some(1 + usize::from(limit.is_some())))?;
        m.serialize_entry(META_KEY, &CallOut(&self.0.call))?;
        if let Some(n) = limit {
            m.serialize_entry(MAX_RESULT_KEY, &n)?;
        }
        m.end()
    }
}

/// `{"title", HINT: bool, ...}`.
struct AnnotationsOut<'a>(&'a Tool);

impl Serialize for AnnotationsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("title", &self.0.title)?;
        for (key, hint) in self.0.hints.entries() {
            m.serialize_entry(key, &hint.value)?;
        }
        m.end()
    }
}

/// A tool in its shape. The API shapes carry the description (the title when there is none) and
/// the input schema under that API's key.
pub(crate) struct ItemOut<'a>(pub(crate) &'a Tool, pub(crate) Shape);

impl Serialize for ItemOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let (t, shape) = (self.0, self.1);
        if shape == Shape::Mcp {
            return ToolOut(t).serialize(s);
        }
        if shape == Shape::Openai {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("type", "function")?;
            m.serialize_entry("function", &FunctionOut(t, "parameters"))?;
            return m.end();
        }
        let key = match shape {
            Shape::Anthropic => "input_schema",
            Shape::Gemini => "parametersJsonSchema",
            _ => "parameters",
        };
        let mut m = s.serialize_map(None)?;
        if shape == Shape::OpenaiResponses {
            m.serialize_entry("type", "function")?;
        }
        m.serialize_entry("name", &t.name)?;
        m.serialize_entry("description", api_description(t))?;
        m.serialize_entry(key, &*api_input(t))?;
        m.end()
    }
}

/// `{"name", "description", KEY: inputSchema}`.
struct FunctionOut<'a>(&'a Tool, &'static str);

impl Serialize for FunctionOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("name", &self.0.name)?;
        m.serialize_entry("description", api_description(self.0))?;
        m.serialize_entry(self.1, &*api_input(self.0))?;
        m.end()
    }
}

/// The input schema of a model API's tool: without `_fields`, which selects from an output
/// schema those tools do not carry (and which only `serve` applies).
pub(super) fn api_input(t: &Tool) -> std::borrow::Cow<'_, crate::schema::Schema> {
    use std::borrow::Cow;
    if !t.call.fields {
        return Cow::Borrowed(&t.input_schema);
    }
    let mut root = t.input_schema.root().clone();
    if let Some(Value::Object(props)) = root.get_mut("properties") {
        props.shift_remove(crate::tool::fields::ARG);
    }
    Cow::Owned(crate::schema::Schema::new(
        root,
        t.input_schema.defs.clone(),
    ))
}

pub(super) fn api_description(t: &Tool) -> &str {
    if t.description.is_empty() {
        &t.title
    } else {
        &t.description
    }
}

struct ItemsOut<'a>(&'a [Tool], Shape);

impl Serialize for ItemsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|t| ItemOut(t, self.1)))
    }
}

/// The whole document: the list under its key, or a bare array.
struct ListOut<'a>(&'a [Tool], Shape);

impl Serialize for ListOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let items = ItemsOut(self.0, self.1);
        match self.1.key() {
            Some(key) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(key, &items)?;
                m.end()
            }
            None => items.serialize(s),
        }
    }
}

/// Bytes of one tool as written by `--format json` (compact): the length of its line.
pub fn tool_size(t: &Tool) -> usize {
    let mut out = Vec::new();
    super::line::write(&mut out, t, Shape::Mcp);
    out.len()
}

/// Bytes `--format json` writes around `n` tools of the MCP list (`{"tools":[`, a line break
/// before each tool and after the last, `]}` and the final newline): with [`tool_size`] of each
/// tool, the size of the whole output.
pub fn frame_size(n: usize) -> usize {
    "{\"tools\":[".len() + 2 * n + "]}\n".len()
}

/// The whole list in `shape` as a value (for comparisons; output is streamed by [`write_as`]).
pub fn list_value(tools: &[Tool], shape: Shape) -> Value {
    serde_json::to_value(ListOut(tools, shape)).unwrap_or(Value::Null)
}

/// Write the MCP tools list in `format` to `out`, ending in a newline.
pub fn write(
    tools: &[Tool],
    format: Format,
    out: &mut (impl std::io::Write + ?Sized),
) -> Result<()> {
    write_as(tools, Shape::Mcp, format, out)
}

fn io_error(e: std::io::Error) -> Error {
    Error::Io {
        path: "<output>".into(),
        source: e,
    }
}

fn json_error(e: serde_json::Error) -> Error {
    if e.is_io() {
        io_error(e.into())
    } else {
        Error::Write {
            what: "JSON",
            message: e.to_string(),
        }
    }
}

/// One tool in `shape` as compact JSON, as a line of `--format json` holds it (without the line
/// break and comma around it).
pub fn write_line(out: &mut Vec<u8>, t: &Tool, shape: Shape) {
    super::line::write(out, t, shape);
}

/// What goes before tool `index` (from 0) of a `--format json` list: a line break, and a comma
/// after the tool before it.
pub fn line_separator(index: usize) -> &'static [u8] {
    if index == 0 { b"\n" } else { b",\n" }
}

/// `--format json` written one tool at a time, for a caller that converts and writes tool by
/// tool: the same bytes as [`write_as`] with [`Format::Json`].
pub struct JsonLines<W: std::io::Write> {
    out: W,
    shape: Shape,
    count: usize,
}

impl<W: std::io::Write> JsonLines<W> {
    /// Write the opening of the list.
    pub fn start(mut out: W, shape: Shape) -> Result<Self> {
        let open = match shape.key() {
            Some(key) => format!("{{\"{key}\":["),
            None => "[".to_string(),
        };
        out.write_all(open.as_bytes()).map_err(io_error)?;
        Ok(JsonLines {
            out,
            shape,
            count: 0,
        })
    }

    /// Write one tool on a line of its own.
    pub fn push(&mut self, t: &Tool) -> Result<()> {
        let mut line = Vec::with_capacity(4096);
        line.extend_from_slice(line_separator(self.count));
        write_line(&mut line, t, self.shape);
        self.push_separated(&line, 1)
    }

    /// Write `tools` tools already rendered by [`write_line`], each after its
    /// [`line_separator`] (counted from the first tool of the list).
    pub fn push_separated(&mut self, text: &[u8], tools: usize) -> Result<()> {
        self.count += tools;
        self.out.write_all(text).map_err(io_error)
    }

    /// Close the list (and the line), and hand back the writer.
    pub fn finish(mut self) -> Result<W> {
        if self.count > 0 {
            self.out.write_all(b"\n").map_err(io_error)?;
        }
        let close: &[u8] = if self.shape.key().is_some() {
            b"]}\n"
        } else {
            b"]\n"
        };
        self.out.write_all(close).map_err(io_error)?;
        Ok(self.out)
    }
}

/// Write the list in `shape` and `format` to `out`, ending in a newline. Streams: nothing is
/// copied.
pub fn write_as(
    tools: &[Tool],
    shape: Shape,
    format: Format,
    out: &mut (impl std::io::Write + ?Sized),
) -> Result<()> {
    match format {
        Format::Json => {
            let mut lines = JsonLines::start(out, shape)?;
            for t in tools {
                lines.push(t)?;
            }
            lines.finish().map(|_| ())
        }
        Format::JsonPretty => {
            serde_json::to_writer_pretty(&mut *out, &ListOut(tools, shape)).map_err(json_error)?;
            out.write_all(b"\n").map_err(io_error)
        }
        Format::Yaml => {
            yaml_serde::to_writer(&mut *out, &ListOut(tools, shape)).map_err(|e| {
                // An I/O failure (a closed pipe, a full disk) is reported as one.
                let io = std::error::Error::source(&e)
                    .and_then(|s| s.downcast_ref::<std::io::Error>())
                    .map(|io| std::io::Error::new(io.kind(), io.to_string()));
                match io {
                    Some(io) => io_error(io),
                    None => Error::Write {
                        what: "YAML",
                        message: e.to_string(),
                    },
                }
            })
        }
    }
}

/// Render the MCP tools list in `format`, ending in a newline.
pub fn render(tools: &[Tool], format: Format) -> Result<String> {
    render_as(tools, Shape::Mcp, format)
}

/// Render the list in `shape` and `format`, ending in a newline.
pub fn render_as(tools: &[Tool], shape: Shape, format: Format) -> Result<String> {
    let mut buf = Vec::new();
    write_as(tools, shape, format, &mut buf)?;
    String::from_utf8(buf).map_err(|e| Error::Internal(format!("output is not UTF-8: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_password_is_never_written() {
        assert_eq!(
            hide_password("https://ann:p%40ss@h/v1"),
            "https://ann:***@h/v1"
        );
        assert_eq!(
            hide_password("https://tok@h:8443/v1"),
            "https://tok:***@h:8443/v1"
        );
        assert_eq!(hide_password("https://h/v1@x"), "https://h/v1@x");
        // Both writers, while the tool keeps the real URL for `serve`.
        let spec = r#"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"},
            "servers": [{"url": "https://ann:s3cr3t@api.example/v1"}],
            "paths": {"/x": {"get": {"responses": {"204": {"description": "ok"}}}}}}"#;
        let out = crate::convert_str("t.json", spec, &crate::Options::default()).unwrap();
        assert_eq!(
            out.tools[0].call.servers[0],
            "https://ann:s3cr3t@api.example/v1"
        );
        for format in [Format::Json, Format::JsonPretty, Format::Yaml] {
            let text = render(&out.tools, format).unwrap();
            assert!(!text.contains("s3cr3t"), "{text}");
            assert!(text.contains("https://ann:***@api.example/v1"), "{text}");
        }
    }

    /// A library user gets Gemini's name rule from the shape, as the command line does.
    #[test]
    fn the_gemini_shape_brings_its_name_rule() {
        let spec = r#"{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {"/x":
            {"post": {"operationId": "2faEnable", "responses": {"204": {"description": "ok"}}}}}}"#;
        let options = Shape::Gemini.options(crate::Options::default());
        let out = crate::convert_str("t.json", spec, &options).unwrap();
        assert_eq!(out.tools[0].name, "_2fa_enable");
        let plain = Shape::Mcp.options(crate::Options::default());
        let out = crate::convert_str("t.json", spec, &plain).unwrap();
        assert_eq!(out.tools[0].name, "2fa_enable");
    }
}
