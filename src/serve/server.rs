//! Server: the MCP `ServerHandler` (rmcp) that lists the converted tools and runs each call:
//! validate the arguments, build the request, send it, turn the response into a tool result.
//!
//! The listed tools are kept as the compact JSON `convert` writes, rendered once ([`Listing`]):
//! the transport answers `tools/list` with those bytes. Each tool's validators are built on its
//! first call.

use super::auth::{self, Credential};
use super::budget;
use super::fields;
use super::http::{Client, Reply};
use super::oauth::{Need, Tokens};
use super::redact::SharedSecrets;
use super::request;
use super::response;
use super::validate::{self, Schema};
use crate::Tool;
use crate::output::emit::{Shape, write_line};
use rmcp::model::RequestId;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use tokio::sync::OwnedSemaphorePermit;

/// One tool as served: the model, where and how to send it.
pub(crate) struct Served {
    pub tool: Tool,
    /// Base URL (no trailing slash) the path is appended to.
    pub base: String,
    pub credentials: Vec<Credential>,
    /// OAuth2 tokens to fetch and send.
    pub oauth: Vec<Need>,
    /// The schemas as values and their validators, made on the first call.
    checks: OnceLock<Checks>,
}

struct Checks {
    /// The tool's input schema as one value (`$defs` included), for validation and encoding.
    input_value: Value,
    input: Schema,
    output: Schema,
}

impl Served {
    pub(crate) fn new(tool: Tool, base: String, credentials: auth::Resolved) -> Self {
        Served {
            tool,
            base,
            credentials: credentials.fixed,
            oauth: credentials.oauth,
            checks: OnceLock::new(),
        }
    }

    fn checks(&self) -> &Checks {
        self.checks.get_or_init(|| {
            let input_value = self.tool.input_schema.to_value();
            Checks {
                input: Schema::input(Some(input_value.clone())),
                input_value,
                output: Schema::output(self.tool.output_schema.as_ref().map(|s| s.to_value())),
            }
        })
    }
}

/// The `tools/list` result rendered once as compact JSON, in chunks of consecutive tools (each
/// chunk `t1,t2,...` without brackets; rendered in parallel), with where each tool's bytes are,
/// so that every answer shares the same bytes and a page is a copy of a few tools.
pub(crate) struct Listing {
    pub chunks: Arc<Vec<Vec<u8>>>,
    /// Chunk and byte range of each tool.
    spans: Vec<(usize, usize, usize)>,
    /// Tools per page; `None`: everything in one answer.
    page_size: Option<usize>,
}

/// One chunk's bytes and each of its tools' byte range in them.
type Rendered = (Vec<u8>, Vec<(usize, usize)>);

/// Tools per chunk of the rendered list.
const CHUNK: usize = 256;

impl Listing {
    /// Render `tools` as `convert` writes them.
    pub(crate) fn new(tools: &[Tool], page_size: Option<usize>) -> Self {
        use rayon::prelude::*;
        let rendered: Vec<Rendered> = tools
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut bytes = Vec::new();
                let mut spans = Vec::with_capacity(chunk.len());
                for (i, t) in chunk.iter().enumerate() {
                    if i > 0 {
                        bytes.push(b',');
                    }
                    let start = bytes.len();
                    write_line(&mut bytes, t, Shape::Mcp);
                    spans.push((start, bytes.len()));
                }
                bytes.shrink_to_fit();
                (bytes, spans)
            })
            .collect();
        let mut chunks = Vec::with_capacity(rendered.len());
        let mut spans = Vec::with_capacity(tools.len());
        for (c, (bytes, within)) in rendered.into_iter().enumerate() {
            spans.extend(within.into_iter().map(|(a, b)| (c, a, b)));
            chunks.push(bytes);
        }
        Listing {
            chunks: Arc::new(chunks),
            spans,
            page_size: page_size.filter(|&n| n > 0),
        }
    }

    /// The list of `tools` already in their MCP form (the four tools of `--dynamic`), one page.
    pub(crate) fn of_values(tools: &[impl serde::Serialize]) -> Self {
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(tools.len());
        for (i, t) in tools.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            let start = bytes.len();
            // Serializing a tool into a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut bytes, t);
            spans.push((0, start, bytes.len()));
        }
        Listing {
            chunks: Arc::new(vec![bytes]),
            spans,
            page_size: None,
        }
    }

    /// The result for a `tools/list` with this cursor: the shared chunks when not paginated,
    /// else one page (with `nextCursor` unless it is the last). `None`: the cursor is not valid.
    pub(crate) fn page(&self, cursor: Option<&str>) -> Option<Page> {
        let Some(size) = self.page_size else {
            return match cursor {
                None => Some(Page::All(Arc::clone(&self.chunks))),
                Some(_) => None,
            };
        };
        let from: usize = match cursor {
            None => 0,
            Some(c) => c.parse().ok().filter(|&n| n > 0 && n < self.spans.len())?,
        };
        let to = (from + size).min(self.spans.len());
        let mut out = b"{\"tools\":[".to_vec();
        for (i, &(c, a, b)) in self.spans[from..to].iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&self.chunks[c][a..b]);
        }
        out.push(b']');
        if to < self.spans.len() {
            out.extend_from_slice(format!(",\"nextCursor\":\"{to}\"").as_bytes());
        }
        out.push(b'}');
        Some(Page::Part(out))
    }
}

/// One `tools/list` result as JSON.
pub(crate) enum Page {
    /// Every tool: `{"tools":[` + the chunks joined by `,` + `]}`.
    All(Arc<Vec<Vec<u8>>>),
    /// One page, whole.
    Part(Vec<u8>),
}

impl Page {
    /// The pieces to write one after the other.
    pub(crate) fn pieces(&self) -> Vec<&[u8]> {
        match self {
            Page::Part(b) => vec![b],
            Page::All(chunks) => {
                let mut out: Vec<&[u8]> = vec![b"{\"tools\":["];
                for (i, c) in chunks.iter().filter(|c| !c.is_empty()).enumerate() {
                    if i > 0 {
                        out.push(b",");
                    }
                    out.push(c);
                }
                out.push(b"]}");
                out
            }
        }
    }

    /// The result as one buffer.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        self.pieces().concat()
    }
}

/// Everything the handler needs; shared with the blocking tasks that send requests.
pub(crate) struct State {
    pub name: String,
    pub version: String,
    pub entries: Vec<Served>,
    pub listing: Arc<Listing>,
    pub client: Client,
    /// `--header` values, added to every request.
    pub headers: Vec<(String, String)>,
    /// Every credential value (fetched tokens too), masked in results and logs.
    pub secrets: SharedSecrets,
    /// OAuth2 client-credentials tokens.
    pub tokens: Tokens,
    /// Calls in flight at most; the others wait for a permit.
    pub permits: Arc<tokio::sync::Semaphore>,
    /// `--dynamic`: the four tools listed (in `listing`) and called instead of the entries.
    pub dynamic: Option<super::dynamic::Dynamic>,
    /// Over stdio: the `--max-calls` places of calls whose answers are not written yet.
    pub unwritten: Option<Arc<Unwritten>>,
    /// Bytes of arguments (about) held by calls waiting for a place.
    pub waiting: AtomicUsize,
    /// Largest tool result in bytes of serialized JSON (`--max-result-bytes`; a tool's
    /// `maxResultBytes` hint wins for it).
    pub max_result_bytes: usize,
    /// Which copies of a JSON answer a result carries (`--result-copies`).
    pub result_copies: budget::Copies,
    /// `--verbose`: refused calls are logged too.
    pub verbose: bool,
    /// Bytes of answers being turned into results now ([`SHAPING_BYTES`] at most).
    pub shaping: Shaping,
}

/// Bytes of upstream answers that calls turn into results at the same time, at most: a JSON
/// answer's tree and copies take up to about 20 times its size while it is shaped, so this
/// bounds that work to a few 10 MB answers at once whatever `--max-calls` (an answer larger
/// than this, up to the 10 MB read cap, waits until it is shaped alone).
pub(crate) const SHAPING_BYTES: usize = 24 * 1024 * 1024;

/// What shaping `body` weighs in [`Shaping`]: its size, or 12 bytes for every `,`, `:` and
/// `[` in it (about its JSON values, each a parsed value of 80 bytes and more) when that is more.
/// A 1.8 MB array of 900,000 small integers takes about 150 MB to shape, as much as a 10 MB
/// array of objects of 100 bytes.
pub(crate) fn shaping_weight(body: &[u8]) -> usize {
    let marks = body
        .iter()
        .filter(|&&b| matches!(b, b',' | b':' | b'['))
        .count();
    body.len().max(marks.saturating_mul(12))
}

/// A counting semaphore of answer bytes, for blocking threads.
#[derive(Default)]
pub(crate) struct Shaping {
    held: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

/// `bytes` of [`Shaping`] held until dropped.
pub(crate) struct Shaped<'a> {
    shaping: &'a Shaping,
    bytes: usize,
}

impl Shaping {
    /// Wait until `bytes` (at most [`SHAPING_BYTES`]) fit beside the answers being shaped.
    pub(crate) fn hold(&self, bytes: usize) -> Shaped<'_> {
        let bytes = bytes.min(SHAPING_BYTES);
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        while *held + bytes > SHAPING_BYTES {
            held = self.freed.wait(held).unwrap_or_else(|e| e.into_inner());
        }
        *held += bytes;
        Shaped {
            shaping: self,
            bytes,
        }
    }
}

impl Drop for Shaped<'_> {
    fn drop(&mut self) {
        let mut held = self.shaping.held.lock().unwrap_or_else(|e| e.into_inner());
        *held -= self.bytes;
        self.shaping.freed.notify_all();
    }
}

/// Bytes of arguments that calls waiting for a `--max-calls` place may hold together, about.
pub(crate) const WAITING_BYTES: usize = 64 * 1024 * 1024;

/// About how many bytes `value` takes as JSON text.
fn approximate_size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        Value::Array(items) => items.iter().map(approximate_size).sum::<usize>() + items.len() + 2,
        Value::Object(map) => {
            map.iter()
                .map(|(k, v)| k.len() + 4 + approximate_size(v))
                .sum::<usize>()
                + 2
        }
        _ => 8,
    }
}

impl State {
    /// Wait for one of the `--max-calls` places: calls beyond the limit queue here instead of
    /// holding a thread and a response body each. The arguments of waiting calls are bounded
    /// ([`WAITING_BYTES`]); a call past that is refused at once.
    pub(crate) async fn place(
        &self,
        args: &Map<String, Value>,
    ) -> Result<OwnedSemaphorePermit, McpError> {
        let stopping = |_| McpError::internal_error("the server is stopping", None);
        if let Ok(p) = Arc::clone(&self.permits).try_acquire_owned() {
            return Ok(p);
        }
        let size = args
            .iter()
            .map(|(k, v)| k.len() + 4 + approximate_size(v))
            .sum::<usize>();
        let waiting = self.waiting.fetch_add(size, Ordering::SeqCst) + size;
        if waiting > WAITING_BYTES {
            self.waiting.fetch_sub(size, Ordering::SeqCst);
            return Err(McpError::invalid_request(
                format!(
                    "too many calls are waiting: their arguments would pass {} MiB; \
                     try again when fewer calls are in flight",
                    WAITING_BYTES / (1024 * 1024)
                ),
                None,
            ));
        }
        let permit = Arc::clone(&self.permits).acquire_owned().await;
        self.waiting.fetch_sub(size, Ordering::SeqCst);
        permit.map_err(stopping)
    }

    /// Release a call's `--max-calls` place: now, or over stdio once its answer is written.
    pub(crate) fn release_when_answered(&self, id: &RequestId, permit: OwnedSemaphorePermit) {
        if let Some(unwritten) = &self.unwritten {
            unwritten.keep(id, permit);
        }
    }
}

/// The `--max-calls` places of answered calls whose answers are not written yet, by request id:
/// the stdio transport releases each once it has written that answer, so finished answers cannot
/// queue without bound for a client that reads slowly.
#[derive(Debug, Default)]
pub(crate) struct Unwritten(std::sync::Mutex<HashMap<String, OwnedSemaphorePermit>>);

impl Unwritten {
    fn key(id: &RequestId) -> String {
        serde_json::to_string(id).unwrap_or_default()
    }

    pub(crate) fn keep(&self, id: &RequestId, permit: OwnedSemaphorePermit) {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        held.insert(Self::key(id), permit);
    }

    pub(crate) fn take(&self, id: &RequestId) -> Option<OwnedSemaphorePermit> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        held.remove(&Self::key(id))
    }
}

/// The MCP server.
#[derive(Clone)]
pub(crate) struct Server {
    state: Arc<State>,
    index: Arc<HashMap<String, usize>>,
}

impl Server {
    pub(crate) fn new(state: Arc<State>) -> Self {
        let index = state
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.tool.name.clone(), i))
            .collect();
        Server {
            state,
            index: Arc::new(index),
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new(self.state.name.clone(), self.state.version.clone()),
        )
    }

    /// Only reached when the transport does not answer `tools/list` itself.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        let page = self
            .state
            .listing
            .page(cursor.as_deref())
            .ok_or_else(|| McpError::invalid_params("invalid cursor", None))?;
        serde_json::from_slice(&page.to_bytes())
            .map_err(|e| McpError::internal_error(format!("tools/list: {e}"), None))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if self.state.dynamic.is_some() {
            return super::dynamic::call_tool(Arc::clone(&self.state), request, &context.id).await;
        }
        let Some(&i) = self.index.get(request.name.as_ref()) else {
            return Err(McpError::invalid_params(
                format!("unknown tool: {}", response::shown_name(&request.name)),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let permit = self.state.place(&args).await?;
        let state = Arc::clone(&self.state);
        let (result, permit) =
            tokio::task::spawn_blocking(move || (listed_call(&state, i, &args), permit))
                .await
                .map_err(|e| McpError::internal_error(format!("the call failed: {e}"), None))?;
        self.state.release_when_answered(&context.id, permit);
        Ok(result.into())
    }
}

/// [`call`] of a listed tool: a success without structured content from a tool with an
/// `outputSchema` is sent as an error ([`response::unstructured`]). (`--dynamic`'s call tools
/// have no `outputSchema`.)
fn listed_call(state: &State, i: usize, args: &Map<String, Value>) -> CallToolResult {
    let result = call(state, i, args);
    match state.entries.get(i) {
        Some(entry) if entry.tool.output_schema.is_some() => {
            response::unstructured(result, entry_budget(state, entry))
        }
        _ => result,
    }
}

/// Run one call to completion (blocking: validation, request, response); every credential in
/// the result is masked, then an error's text is bounded and a success kept within the tool's
/// result budget.
pub(crate) fn call(state: &State, i: usize, args: &Map<String, Value>) -> CallToolResult {
    let mut link = None;
    // Held from the answer's arrival until its result is within the budget.
    let mut shaped = None;
    let result = run_call(state, i, args, &mut link, &mut shaped);
    let secrets = state.secrets.get();
    let result = response::bound_error(response::redact_result(result, &secrets));
    let Some(entry) = state.entries.get(i) else {
        return result;
    };
    let budget = entry_budget(state, entry);
    let result = budget::copies(result, state.result_copies);
    if budget::bytes(&result) <= budget || result.is_error == Some(true) {
        return result;
    }
    let checks = entry.checks();
    let output = entry.tool.output_schema.as_ref().map(|s| s.to_value());
    let link = link.map(|l| secrets.redact(&l).into_owned());
    let valid = |v: &Value| {
        checks
            .output
            .problem(&entry.tool.name, "outputSchema", v)
            .is_none()
    };
    budget::fit(
        result,
        &budget::Call {
            budget,
            wrapped: entry.tool.call.output_wrapped.as_deref(),
            input: &checks.input_value,
            output: output.as_ref(),
            arguments: &entry.tool.call.arguments,
            args,
            link: link.as_deref(),
            copies: state.result_copies,
            valid: &valid,
        },
    )
}

/// The result budget of `entry`'s calls: its `maxResultBytes` hint, else `--max-result-bytes`.
fn entry_budget(state: &State, entry: &Served) -> usize {
    entry
        .tool
        .review
        .as_ref()
        .and_then(|r| r.max_result_bytes)
        .unwrap_or(state.max_result_bytes)
}

/// The call's result; `link` gets the answer's `Link` header.
fn run_call<'a>(
    state: &'a State,
    i: usize,
    args: &Map<String, Value>,
    link: &mut Option<String>,
    shaped: &mut Option<Shaped<'a>>,
) -> CallToolResult {
    let Some(entry) = state.entries.get(i) else {
        return response::error("unknown tool");
    };
    let tool = &entry.tool;
    let checks = entry.checks();
    if let Err(rejected) = validate::arguments(&tool.name, &checks.input_value, &checks.input, args)
    {
        if rejected.refused && state.verbose {
            let line = format!(
                "openapi-mcp: refused: a call to `{}`: {}",
                tool.name, rejected.message
            );
            eprintln!("{}", state.secrets.get().redact(&line));
        }
        return response::error(rejected.message);
    }
    // `_fields` is checked against the outputSchema before anything is sent.
    let fields = match (
        tool.call.fields,
        args.get(crate::tool::fields::ARG),
        &tool.output_schema,
    ) {
        (true, Some(value), Some(output)) => {
            match fields::check(output, tool.call.output_wrapped.as_deref(), value) {
                // An empty list asks for no projection.
                Ok(paths) => (!paths.is_empty()).then_some(paths),
                Err(message) => return response::error(message),
            }
        }
        _ => None,
    };
    let mut prepared = match request::build(&tool.call, &checks.input_value, &entry.base, args) {
        Ok(p) => p,
        Err(e) => return response::error(e.to_string()),
    };
    for (name, value) in &state.headers {
        prepared.set_header(name, value);
    }
    let tokens = match fetch_tokens(state, entry) {
        Ok(t) => t,
        Err(message) => return response::error(message),
    };
    if let Err(message) = apply_credentials(&mut prepared, entry, &tokens, &state.headers) {
        return response::error(message);
    }
    let shown = prepared.shown_url();
    let mut sent = state.client.send(&prepared, &state.secrets.get());
    // A fetched token the API refuses: fetch new ones once and send again.
    if matches!(&sent, Ok(Reply { status: 401, .. })) && !tokens.is_empty() {
        for (need, used) in entry.oauth.iter().zip(&tokens) {
            state.tokens.refused(need, used);
        }
        let tokens = match fetch_tokens(state, entry) {
            Ok(t) => t,
            Err(message) => return response::error(message),
        };
        if let Err(message) = apply_credentials(&mut prepared, entry, &tokens, &state.headers) {
            return response::error(message);
        }
        sent = state.client.send(&prepared, &state.secrets.get());
    }
    let secrets = state.secrets.get();
    match sent {
        Ok(reply) => {
            let check = |v: &Value| checks.output.problem(&tool.name, "outputSchema", v);
            link.clone_from(&reply.link);
            *shaped = Some(state.shaping.hold(shaping_weight(&reply.body)));
            let result = response::to_result(
                &reply,
                &shown,
                tool.call.output_wrapped.as_deref(),
                &check,
                &secrets,
                entry_budget(state, entry),
            );
            match &fields {
                Some(paths) => projected(result, tool.call.output_wrapped.as_deref(), paths),
                None => result,
            }
        }
        Err(message) => response::error(format!("{} {shown} failed: {message}", prepared.method)),
    }
}

/// A successful `result` with only the fields of `paths` (see [`fields::project`]), in its
/// structured content (the body under `wrapped` when wrapped) and in its text copy, which becomes
/// the projected body as compact JSON. A result without structured content is left as it is.
fn projected(
    mut result: CallToolResult,
    wrapped: Option<&str>,
    paths: &[Vec<String>],
) -> CallToolResult {
    if result.is_error == Some(true) {
        return result;
    }
    let Some(structured) = result.structured_content.take() else {
        return result;
    };
    let (structured, body) = match (wrapped, structured) {
        (Some(key), Value::Object(mut m)) => {
            let body = fields::project(m.get(key).unwrap_or(&Value::Null), paths);
            m.insert(key.to_string(), body.clone());
            (Value::Object(m), body)
        }
        (_, whole) => {
            let body = fields::project(&whole, paths);
            (body.clone(), body)
        }
    };
    result.structured_content = Some(structured);
    result.content = vec![rmcp::model::ContentBlock::text(body.to_string())];
    result
}

/// The OAuth2 tokens `entry` needs, in the order of `entry.oauth`.
fn fetch_tokens(state: &State, entry: &Served) -> Result<Vec<String>, String> {
    entry
        .oauth
        .iter()
        .map(|need| state.tokens.get(need, &state.client, &state.secrets))
        .collect()
}

fn apply_credentials(
    prepared: &mut request::Prepared,
    entry: &Served,
    tokens: &[String],
    headers: &[(String, String)],
) -> Result<(), String> {
    if tokens.is_empty() {
        return auth::apply(prepared, &entry.credentials, headers);
    }
    let mut creds = entry.credentials.clone();
    creds.extend(tokens.iter().map(|t| auth::bearer(t)));
    auth::apply(prepared, &creds, headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers are shaped together up to [`SHAPING_BYTES`]; one larger is shaped alone, and a
    /// waiting one goes on when room is freed.
    #[test]
    fn small_values_weigh_more_than_their_bytes() {
        assert_eq!(shaping_weight(b"hello"), 5);
        assert_eq!(
            shaping_weight(br#"{"id":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#),
            40
        );
        assert_eq!(shaping_weight(b"[1,1,1,1]"), 48);
        let ints = format!("[{}]", vec!["1"; 900_000].join(","));
        assert!(shaping_weight(ints.as_bytes()) > 10_000_000);
    }

    #[test]
    fn shaping_holds_a_bounded_number_of_bytes() {
        let shaping = Shaping::default();
        let a = shaping.hold(SHAPING_BYTES / 2);
        let b = shaping.hold(SHAPING_BYTES / 2);
        let done = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let _c = shaping.hold(usize::MAX);
                done.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(
                !done.load(Ordering::SeqCst),
                "waits while the bytes are held"
            );
            drop(a);
            std::thread::sleep(std::time::Duration::from_millis(100));
            assert!(
                !done.load(Ordering::SeqCst),
                "waits for all of its (capped) bytes"
            );
            drop(b);
        });
        assert!(done.load(Ordering::SeqCst));
        assert_eq!(*shaping.held.lock().unwrap(), 0);
    }

    #[test]
    fn listing_pages_are_slices_of_the_rendered_list() {
        let conv = crate::convert_str(
            "t.yaml",
            "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a: {get: {operationId: a, responses: {'200': {description: ok}}}}\n  /b: {get: {operationId: b, responses: {'200': {description: ok}}}}\n  /c: {get: {operationId: c, responses: {'200': {description: ok}}}}\n",
            &crate::Options::default(),
        )
        .unwrap();
        let all = Listing::new(&conv.tools, None);
        let full: Value = serde_json::from_slice(&all.page(None).unwrap().to_bytes()).unwrap();
        assert_eq!(full["tools"].as_array().unwrap().len(), 3);
        assert!(full.get("nextCursor").is_none());
        assert!(all.page(Some("1")).is_none());
        let paged = Listing::new(&conv.tools, Some(2));
        let first: Value = serde_json::from_slice(&paged.page(None).unwrap().to_bytes()).unwrap();
        assert_eq!(first["nextCursor"], "2");
        assert_eq!(first["tools"][1], full["tools"][1]);
        let second: Value =
            serde_json::from_slice(&paged.page(Some("2")).unwrap().to_bytes()).unwrap();
        assert_eq!(second["tools"].as_array().unwrap().len(), 1);
        assert_eq!(second["tools"][0], full["tools"][2]);
        assert!(second.get("nextCursor").is_none());
        assert!(paged.page(Some("x")).is_none());
        // Several chunks: the full list and the pages are the same tools.
        let many: Vec<Tool> = (0..CHUNK * 2 + 3).map(|_| conv.tools[0].clone()).collect();
        let big = Listing::new(&many, None);
        let v: Value = serde_json::from_slice(&big.page(None).unwrap().to_bytes()).unwrap();
        assert_eq!(v["tools"].as_array().unwrap().len(), many.len());
        let pages = Listing::new(&many, Some(CHUNK + 1));
        let v: Value =
            serde_json::from_slice(&pages.page(Some("256")).unwrap().to_bytes()).unwrap();
        assert_eq!(v["tools"].as_array().unwrap().len(), CHUNK + 1);
        assert_eq!(v["nextCursor"], (CHUNK * 2 + 1).to_string());
        assert!(paged.page(Some("9")).is_none());
    }
}
