//! Tool: one MCP tool per operation — name, title, description, input and output schemas,
//! suggested hints with reasons, and the call mapping that says how each argument travels in the
//! HTTP request. `output`, `review` and `serve` read this model; none re-parses OpenAPI.
//!
//! [`plan`] decides which operations become tools and their names (`naming`, `filter`,
//! `target`), this module builds each tool (with [`fields`]' `_fields` argument), [`suggest`] suggests its hints (with the words of
//! [`vocab`], which `lint` shares) and [`reviewed`] applies a reviewed hints file over them.

pub(crate) mod evidence;
pub(crate) mod fields;
pub mod filter;
pub(crate) mod naming;
pub(crate) mod plan;
pub mod reviewed;
pub mod search;
pub mod suggest;
pub mod target;
pub(crate) mod vocab;

pub use filter::Filter;
pub(crate) use plan::{Builder, Plan};
pub use plan::{DEFAULT_SCHEMA_BUDGET, Options, Summary};

use crate::error::Result;
use crate::model::{BodyKind, Method, Operation, ParamIn, RequestBody};
use crate::read::pointer as refs;
use crate::schema::{Converter, Direction, Schema, shown_text};
use naming::Named;
use serde_json::{Map, Value, json};
use suggest::Hints;

/// One MCP tool and everything known about how it was made.
#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub description: String,
    pub input_schema: Schema,
    pub output_schema: Option<Schema>,
    pub hints: Hints,
    pub call: Call,
    pub origin: Origin,
    /// The human review applied from a hints file, if any.
    pub review: Option<Review>,
}

/// A reviewer's verdict from the hints file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// A human confirmed these hints (`reviewed: true`).
    pub reviewed: bool,
    pub note: Option<String>,
    /// What the entry curates: `name`, `description`, `title`.
    pub curated: Vec<&'static str>,
    /// The tool's result budget in bytes (`maxResultBytes`), written as
    /// `_meta["anthropic/maxResultSizeChars"]`.
    pub max_result_bytes: Option<usize>,
}

/// Where a tool came from in the document, for review and lint.
#[derive(Debug, Clone)]
pub struct Origin {
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    /// JSON pointer of the operation.
    pub pointer: String,
    pub naming: Named,
    /// A 2xx response is declared.
    pub has_success: bool,
    /// The operation has a summary or a description (else the description is `METHOD /path`).
    pub described: bool,
    /// The verb of the operationId (else of the name), the document's nouns not read as verbs
    /// (`watch_daemon_set_list`: `list`), and whether it stood at an end: what lint checks the
    /// hints against.
    pub(crate) verb: Option<(String, vocab::Effect, suggest::Confidence)>,
    /// The verb the summary starts with, unless a safe method's summary starts with one of the
    /// document's nouns (a title: "Block contents").
    pub(crate) summary_verb: Option<(String, vocab::Effect)>,
}

/// How to execute the tool as an HTTP request: written to `_meta` for runtimes.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub method: Method,
    pub path: String,
    pub servers: Vec<String>,
    pub arguments: Vec<Argument>,
    pub body: Option<Body>,
    /// Set when the response schema was not an object and was wrapped in `{ "<key>": ... }`.
    pub output_wrapped: Option<String>,
    /// The tool takes [`fields::ARG`], which selects fields of the answer and is not sent.
    pub fields: bool,
    /// The security requirement in effect (not written out: `serve` reads it to choose
    /// credentials).
    pub security: Vec<crate::model::Requirement>,
}

/// Where one argument goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgIn {
    Path,
    Query,
    Header,
    Cookie,
    /// One property of an object body.
    Body,
    /// The whole request body.
    WholeBody,
}

impl ArgIn {
    pub fn as_str(self) -> &'static str {
        match self {
            ArgIn::Path => "path",
            ArgIn::Query => "query",
            ArgIn::Header => "header",
            ArgIn::Cookie => "cookie",
            ArgIn::Body => "body",
            ArgIn::WholeBody => "body",
        }
    }
}

/// One argument of the tool and its place in the request.
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// Property name in `inputSchema`.
    pub name: String,
    pub location: ArgIn,
    /// Name in the request (parameter or body property name); `None` for the whole body.
    pub original: Option<String>,
    /// Parameter serialization (`style`, `explode`, `allowReserved`), for parameters.
    pub style: Option<&'static str>,
    pub explode: Option<bool>,
    pub allow_reserved: bool,
    /// For parameters declared with `content`: the media type the value is serialized as.
    pub content_type: Option<String>,
}

/// The request body's encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub content_type: String,
    pub required: bool,
    /// Object properties were spread into top-level arguments (else one `body` argument).
    pub spread: bool,
    /// The multipart/form `encoding` map, `x-` keys removed.
    pub encoding: Option<Value>,
}

impl Tool {
    /// `METHOD /path`, as shown to reviewers.
    pub fn operation(&self) -> String {
        format!("{} {}", self.call.method.as_str(), self.call.path)
    }
}

/// How a tool's hints are suggested: the mode, whether the API is RPC-style, and the words the
/// document uses as nouns.
#[derive(Debug, Clone, Default)]
pub(crate) struct Suggesting {
    pub mode: suggest::Suggest,
    pub rpc: Option<evidence::RpcStyle>,
    pub nouns: vocab::Nouns,
}

/// Build the tool for `op`, with its final `naming` already decided.
pub(crate) fn build(
    op: &Operation<'_>,
    naming: Named,
    conv: &mut Converter<'_>,
    with_output: bool,
    suggesting: &Suggesting,
) -> Result<Tool> {
    let summary = op.summary.map(str::trim).filter(|s| !s.is_empty());
    let suggested = match suggesting.mode {
        suggest::Suggest::Method => suggest::from_method(op.method),
        suggest::Suggest::Evidence => evidence::from_evidence(&evidence::Evidence {
            method: op.method,
            operation_id: op.operation_id,
            summary,
            path: &op.path,
            rpc: suggesting.rpc,
            nouns: &suggesting.nouns,
            description: op.description,
            body: evidence::body_shape(op.body.as_ref(), conv.root()),
            accepted: op.only_accepted,
            // Weighed for writes only.
            arguments: if suggest::is_safe(op.method) {
                evidence::Arguments::default()
            } else {
                evidence::arguments(op.body.as_ref(), &op.parameters, summary, conv.root())
            },
            idempotency_key: op.parameters.iter().any(|p| {
                p.required
                    && p.location == crate::model::ParamIn::Header
                    && p.name.eq_ignore_ascii_case("idempotency-key")
            }),
        }),
    };
    let hints = suggest::with_extensions(suggested, &op.hints);
    let verb = vocab::operation_verb_in(
        op.operation_id.unwrap_or(&naming.name),
        op.method,
        &suggesting.nouns,
    );
    let override_title = op.hints.iter().rev().find_map(|h| h.title.clone());
    let title = override_title
        .or_else(|| summary.map(first_line))
        .unwrap_or_else(|| naming::readable(&naming.wanted));
    let title = shown_text(&title);
    let description = shown_text(&describe(op, summary));
    let (mut input_schema, arguments, body) = input(op, conv)?;
    let (output_schema, output_wrapped) = if with_output {
        output(op, conv)?
    } else {
        (None, None)
    };
    let fields = output_schema
        .as_ref()
        .is_some_and(|o| fields::applies(o, output_wrapped.as_deref(), &input_schema));
    if fields && let Some(Value::Object(props)) = input_schema.root_mut().get_mut("properties") {
        props.insert(fields::ARG.into(), fields::property());
    }
    Ok(Tool {
        name: naming.name.clone(),
        title,
        description,
        input_schema,
        output_schema,
        hints,
        call: Call {
            method: op.method,
            path: op.path.clone(),
            servers: op.servers.clone(),
            arguments,
            body,
            output_wrapped,
            fields,
            security: op.security.clone(),
        },
        origin: Origin {
            operation_id: op.operation_id.map(str::to_string),
            summary: summary.map(str::to_string),
            tags: op.tags.iter().map(|t| t.to_string()).collect(),
            deprecated: op.deprecated,
            pointer: op.pointer.clone(),
            naming,
            has_success: op.has_success,
            described: summary.is_some() || op.description.is_some_and(|d| !d.trim().is_empty()),
            verb,
            summary_verb: summary.and_then(|s| {
                vocab::summary_verb_in(s, suggest::is_safe(op.method), &suggesting.nouns)
            }),
        },
        review: None,
    })
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    line.strip_suffix('.').unwrap_or(line).to_string()
}

fn describe(op: &Operation<'_>, summary: Option<&str>) -> String {
    let desc = op.description.map(str::trim).filter(|s| !s.is_empty());
    let text = match (summary, desc) {
        (Some(s), Some(d)) if d.starts_with(s.trim_end_matches('.')) => d.to_string(),
        (Some(s), Some(d)) => format!("{s}\n\n{d}"),
        (Some(s), None) => s.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => format!("{} {}", op.method.as_str(), op.path),
    };
    if op.deprecated {
        format!("[DEPRECATED] {text}")
    } else {
        text
    }
}

/// Argument names clients accept everywhere (Claude and OpenAI: `^[a-zA-Z0-9_.-]{1,64}$`).
fn arg_name(raw: &str) -> String {
    // Most names are fine as they are: nothing to replace, trim or cut.
    let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if !raw.is_empty() && raw.len() <= 60 && raw.chars().all(fine) {
        return raw.to_string();
    }
    arg_name_replacing(raw)
}

/// [`arg_name`] the long way.
fn arg_name_replacing(raw: &str) -> String {
    let mut s = naming::key_safe(raw);
    // `filter[name]` -> `filter_name`, `$top` -> `top`: drop replacement underscores at the ends.
    if !raw.ends_with('_') {
        s.truncate(s.trim_end_matches('_').len());
    }
    if !raw.starts_with('_') {
        s = s.trim_start_matches('_').to_string();
    }
    if s.is_empty() {
        s.push_str("arg");
    }
    s.truncate(60);
    s
}

/// Pick a free argument name: `base`, else `base_<suffix>`, else numbered.
fn unique(base: String, suffix: &str, taken: &[String]) -> String {
    if !taken.contains(&base) {
        return base;
    }
    let with = format!("{base}_{suffix}");
    if !taken.contains(&with) {
        return with;
    }
    (2..)
        .map(|n| format!("{with}{n}"))
        .find(|c| !taken.contains(c))
        .unwrap_or(with)
}

type Input = (Schema, Vec<Argument>, Option<Body>);

fn input(op: &Operation<'_>, conv: &mut Converter<'_>) -> Result<Input> {
    let mut refs: Vec<usize> = Vec::new();
    let mut body_props: Vec<(String, String, Value)> = Vec::new(); // (arg, original, schema)
    let mut body_required: Vec<String> = Vec::new();
    let mut body = None;
    if let Some(b) = &op.body {
        let at = joined(&op.pointer, &["/requestBody"]);
        let spread = spread_properties(b, conv, &at)?;
        let spread_ok = spread.is_some();
        match spread {
            Some((props, required)) => {
                let mut taken: Vec<String> = Vec::new();
                for (orig, schema, r) in props {
                    refs.extend(r);
                    let name = unique(arg_name(&orig), "body", &taken);
                    taken.push(name.clone());
                    if b.required && required.contains(&orig) {
                        body_required.push(name.clone());
                    }
                    body_props.push((name, orig, schema));
                }
            }
            None => {
                let mut schema = match b.schema {
                    Some(s) => {
                        let c = conv.convert(s, Direction::Input, &joined(&at, &["/content"]))?;
                        refs.extend(c.refs);
                        c.value
                    }
                    None => match b.kind {
                        BodyKind::Json => json!({}),
                        BodyKind::Text => json!({"type": "string"}),
                        _ => json!({"type": "string", "contentEncoding": "base64"}),
                    },
                };
                if let Some(d) = b.description {
                    schema = with_description(schema, d);
                }
                if b.required {
                    body_required.push("body".into());
                }
                body_props.push(("body".into(), String::new(), schema));
            }
        }
        body = Some(Body {
            content_type: b.content_type.clone(),
            required: b.required,
            spread: spread_ok,
            encoding: b
                .encoding
                .map(|e| strip_extensions(&Value::Object(e.clone()))),
        });
    }

    let mut taken: Vec<String> = body_props.iter().map(|(n, _, _)| n.clone()).collect();
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut arguments = Vec::new();
    for (i, p) in op.parameters.iter().enumerate() {
        let name = unique(arg_name(&p.name), p.location.as_str(), &taken);
        taken.push(name.clone());
        let at = joined(&op.pointer, &["/parameters/", itoa(i, &mut [0; 20])]);
        let mut schema = match p.schema {
            Some(s) => {
                let c = conv.convert(s, Direction::Input, &at)?;
                refs.extend(c.refs);
                c.value
            }
            None => json!({}),
        };
        if let Some(d) = p.description.map(str::trim).filter(|d| !d.is_empty()) {
            schema = with_description(schema, d);
        }
        if p.deprecated {
            schema = with_key(schema, "deprecated", Value::Bool(true));
        }
        if let Some(ex) = p.example
            && schema.get("examples").is_none()
        {
            schema = with_key(schema, "examples", json!([ex]));
        }
        if p.required {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name.clone(), schema);
        let location = match p.location {
            ParamIn::Path => ArgIn::Path,
            ParamIn::Query => ArgIn::Query,
            ParamIn::Header => ArgIn::Header,
            ParamIn::Cookie => ArgIn::Cookie,
        };
        let by_content = p.content_type.is_some();
        arguments.push(Argument {
            name,
            location,
            original: Some(p.name.clone()),
            style: (!by_content).then_some(p.style),
            explode: (!by_content).then_some(p.explode),
            allow_reserved: p.allow_reserved,
            content_type: p.content_type.clone(),
        });
    }
    let whole = body.as_ref().is_some_and(|b| !b.spread);
    for (name, orig, schema) in body_props {
        properties.insert(name.clone(), schema);
        arguments.push(Argument {
            name,
            location: if whole { ArgIn::WholeBody } else { ArgIn::Body },
            original: (!whole).then_some(orig),
            style: None,
            explode: None,
            allow_reserved: false,
            content_type: None,
        });
    }
    required.extend(body_required.into_iter().map(Value::String));

    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    // In the order the schema names them (not by definition id, which depends on the tools
    // converted before): a size budget keeps the nearest definitions, and which ones those are
    // must depend on this operation alone.
    let mut seen = std::collections::HashSet::new();
    refs.retain(|id| seen.insert(*id));
    let mut schema = conv.finish(Value::Object(root), &refs, Direction::Input)?;
    object_properties(&mut schema);
    Ok((schema, arguments, body))
}

type Spread = (Vec<(String, Value, Vec<usize>)>, Vec<String>);

/// When the body is a plain object schema, its converted properties (and `required`), to become
/// top-level arguments. Composite or non-object bodies return `None` and travel as one `body`.
fn spread_properties(
    b: &RequestBody<'_>,
    conv: &mut Converter<'_>,
    at: &str,
) -> Result<Option<Spread>> {
    if !matches!(
        b.kind,
        BodyKind::Json | BodyKind::Form | BodyKind::Multipart
    ) {
        return Ok(None);
    }
    let Some(raw) = b.schema else {
        return Ok(None);
    };
    let root = conv.root();
    let (target, target_at) = refs::follow(conv.file(), root, raw, &joined(at, &["/content"]))?;
    let Some(obj) = target.as_object() else {
        return Ok(None);
    };
    let plain = matches!(obj.get("type"), None | Some(Value::String(_)))
        && obj.get("type").is_none_or(|t| t == "object")
        && obj.get("properties").is_some_and(Value::is_object)
        && ![
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "$ref",
            "patternProperties",
        ]
        .iter()
        .any(|k| obj.contains_key(*k))
        && obj.get("nullable") != Some(&Value::Bool(true))
        && obj
            .get("additionalProperties")
            .is_none_or(|a| a.is_boolean());
    if !plain {
        return Ok(None);
    }
    let props = obj["properties"].as_object().into_iter().flatten();
    let mut out = Vec::new();
    for (name, schema) in props {
        if conv.hidden(schema, Direction::Input) {
            continue;
        }
        let c = conv.convert(schema, Direction::Input, &target_at)?;
        out.push((name.clone(), c.value, c.refs));
    }
    let required = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Ok(Some((out, required)))
}

fn output(
    op: &Operation<'_>,
    conv: &mut Converter<'_>,
) -> Result<(Option<Schema>, Option<String>)> {
    let Some(r) = &op.response else {
        return Ok((None, None));
    };
    let at = joined(&op.pointer, &["/responses/", &r.status]);
    let c = conv.convert(r.schema, Direction::Output, &at)?;
    let (root, wrapped) = if conv.is_object(&c.value, Direction::Output)? {
        let root = match c.value {
            Value::Object(m) if m.get("type").is_none() => {
                let mut out = Map::with_capacity(m.len() + 1);
                out.insert("type".into(), "object".into());
                out.extend(m);
                Value::Object(out)
            }
            other => other,
        };
        (root, None)
    } else {
        let root =
            json!({"type": "object", "properties": {"result": c.value}, "required": ["result"]});
        (root, Some("result".to_string()))
    };
    let mut schema = conv.finish(root, &c.refs, Direction::Output)?;
    object_properties(&mut schema);
    Ok((Some(schema), wrapped))
}

/// MCP's `Tool` schema wants every root property to be an object schema: boolean schemas
/// become their object equivalents (`true` -> `{}`, `false` -> `{"not": {}}`).
fn object_properties(schema: &mut Schema) {
    let boolean = |props: &Value| {
        props
            .as_object()
            .is_some_and(|m| m.values().any(Value::is_boolean))
    };
    if !schema.root().get("properties").is_some_and(boolean) {
        return;
    }
    if let Some(Value::Object(props)) = schema.root_mut().get_mut("properties") {
        for v in props.values_mut() {
            if let Value::Bool(b) = v {
                *v = if *b { json!({}) } else { json!({"not": {}}) };
            }
        }
    }
}

/// `base` followed by `parts`, in one allocation (a JSON pointer for messages, made for every
/// parameter of every tool).
fn joined(base: &str, parts: &[&str]) -> String {
    let mut out = String::with_capacity(base.len() + parts.iter().map(|p| p.len()).sum::<usize>());
    out.push_str(base);
    parts.iter().for_each(|p| out.push_str(p));
    out
}

/// `n` in decimal, written into the end of `buf`.
fn itoa(mut n: usize, buf: &mut [u8; 20]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    std::str::from_utf8(&buf[at..]).unwrap_or_default()
}

fn with_key(schema: Value, key: &str, value: Value) -> Value {
    match schema {
        Value::Object(mut m) => {
            m.insert(key.into(), value);
            Value::Object(m)
        }
        // A boolean schema: `true` accepts anything, so the annotation can stand alone; `false`
        // must keep rejecting.
        Value::Bool(true) => json!({ key: value }),
        other => json!({"allOf": [other], key: value}),
    }
}

fn with_description(schema: Value, description: &str) -> Value {
    with_key(
        schema,
        "description",
        Value::String(shown_text(description.trim())),
    )
}

fn strip_extensions(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with("x-"))
                .map(|(k, v)| (k.clone(), strip_extensions(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_never_reach_titles_and_descriptions() {
        let spec = "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\
            \"summary\":\"List \\u001b[31mitems\\u202e gnp.exe\",\
            \"description\":\"Line one\\r\\nline\\ttwo\\u2066x\\u2069 \\u0085end\",\
            \"responses\":{\"200\":{\"description\":\"ok\"}}}}}}";
        let conv = crate::convert_str("t.json", spec, &crate::Options::default()).unwrap();
        let tool = &conv.tools[0];
        assert_eq!(tool.title, "List [31mitems gnp.exe");
        assert_eq!(
            tool.description,
            "List [31mitems gnp.exe\n\nLine one\nline\ttwox end"
        );
        assert_eq!(shown_text("plain\ttext\n"), "plain\ttext\n");
        // Parameter descriptions, and titles and descriptions inside schemas, the same way.
        let spec = "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"t\",\"version\":\"1\"},\"paths\":{\"/a\":{\"get\":{\
            \"parameters\":[{\"name\":\"id\",\"in\":\"query\",\"description\":\"a\\u202eb\\u0007c\\u0085d\\u2066e\",\
            \"schema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\",\"title\":\"T\\u001b\",\
            \"description\":\"in\\u202dside\"}}}}],\
            \"responses\":{\"200\":{\"description\":\"ok\"}}}}}}";
        let conv = crate::convert_str("t.json", spec, &crate::Options::default()).unwrap();
        let id = &conv.tools[0].input_schema.to_value()["properties"]["id"];
        assert_eq!(id["description"], "abcde", "{id}");
        assert_eq!(id["properties"]["x"]["title"], "T", "{id}");
        assert_eq!(id["properties"]["x"]["description"], "inside", "{id}");
    }

    /// The shortcut for names with nothing to replace gives what the long way gives, on names
    /// with and without characters to replace, underscores at either end, and over 60 bytes.
    #[test]
    fn arg_name_shortcut_is_the_long_way() {
        let alphabet: Vec<char> = "abcdefghZ09_.-$[] é/".chars().collect();
        let mut next = crate::test_support::xorshift(0x2545_f491_4f6c_dd1d);
        let mut shortcut = 0;
        for _ in 0..50_000 {
            let len = next(70);
            let raw: String = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            let name = arg_name(&raw);
            assert_eq!(name, arg_name_replacing(&raw), "{raw:?}");
            shortcut += usize::from(name == raw);
        }
        for raw in [
            "",
            "_",
            "a_",
            "_a",
            "$top",
            "filter[name]",
            &"x".repeat(60),
            &"x".repeat(61),
            &format!("{}$", "x".repeat(60)),
        ] {
            assert_eq!(arg_name(raw), arg_name_replacing(raw), "{raw:?}");
        }
        assert!(shortcut > 1000, "{shortcut} names taken as they are");
    }
}
