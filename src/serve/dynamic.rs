//! Dynamic: `serve --dynamic` — a whole API through four tools (search, describe, call a read,
//! call anything) instead of one tool per operation, with hints the server enforces.
//!
//! `call_read_operation` promises `readOnlyHint: true`, so a client may run it without asking;
//! it therefore runs only operations whose final `readOnlyHint` is true and certain: a safe
//! method (GET, HEAD, OPTIONS), or a tool a human marked `reviewed: true` in the hints file.
//! Any other is refused before a request is built. Both call tools validate the arguments
//! exactly as the per-operation tools do ([`super::server::call`]).

use super::response;
use super::server::{self, State};
use crate::model::Method;
use crate::tool::Tool;
use crate::tool::search::{self, Index};
use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use serde_json::{Map, Value, json};
use std::sync::Arc;

pub(crate) const SEARCH: &str = "search_operations";
pub(crate) const DESCRIBE: &str = "describe_operation";
pub(crate) const CALL_READ: &str = "call_read_operation";
pub(crate) const CALL: &str = "call_operation";

/// Default and largest number of hits `search_operations` returns.
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 50;
/// Most characters of the API's title shown in the tools' descriptions.
const MAX_TITLE: usize = 80;

/// The four tools and the search index over the exposed operations.
pub(crate) struct Dynamic {
    /// What `tools/list` answers.
    pub tools: Vec<rmcp::model::Tool>,
    index: Index,
}

impl Dynamic {
    /// The four tools for the operations `tools` (already filtered, hints applied), of the API
    /// called `title`.
    pub(crate) fn new(title: &str, tools: &[Tool]) -> crate::Result<Dynamic> {
        let listed = definitions(title, tools)
            .into_iter()
            .map(serde_json::from_value)
            .collect::<Result<_, _>>()
            .map_err(|e| crate::Error::Usage(format!("--dynamic: not a valid MCP tool: {e}")))?;
        Ok(Dynamic {
            tools: listed,
            index: Index::new(tools),
        })
    }
}

/// Whether `tool` may run through `call_read_operation`: its final `readOnlyHint` is true and
/// that is certain (a safe method, or reviewed by a human), never an unreviewed guess.
pub(crate) fn certainly_read_only(tool: &Tool) -> bool {
    let safe = matches!(
        tool.call.method,
        Method::Get | Method::Head | Method::Options
    );
    let reviewed = tool.review.as_ref().is_some_and(|r| r.reviewed);
    tool.hints.read_only.value && (safe || reviewed)
}

fn annotations(read_only: bool, destructive: bool, idempotent: bool, open_world: bool) -> Value {
    json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    })
}

/// The four tool definitions. The call tools' hints follow the exposed operations' final hints:
/// `call_operation` is destructive when any of them is, and either call tool is open-world unless
/// every operation it can run is closed-world (as a hints file may say).
fn definitions(title: &str, tools: &[Tool]) -> Vec<Value> {
    // The title is cut so that the list stays small whatever the document says.
    let title: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let api = match title.char_indices().nth(MAX_TITLE) {
        _ if title.is_empty() => "the API".to_string(),
        Some((at, _)) => format!("the {}... API", &title[..at]),
        None => format!("the {title} API"),
    };
    let n = tools.len();
    let destructive = tools.iter().any(|t| t.hints.destructive.value);
    let open_world = tools.iter().any(|t| t.hints.open_world.value);
    let reads_open_world = tools
        .iter()
        .filter(|t| certainly_read_only(t))
        .any(|t| t.hints.open_world.value);
    let name = json!({"type": "string", "description": "The operation's name, as search_operations gives it."});
    let call_input = json!({
        "type": "object",
        "properties": {
            "name": name,
            "arguments": {"type": "object", "description": "The operation's arguments, as its inputSchema (describe_operation) says."},
        },
        "required": ["name"],
    });
    vec![
        json!({
            "name": SEARCH,
            "title": "Search operations",
            "description": format!(
                "Find operations of {api} ({n} in all) by what they do: describe the task in \
                 words. Returns the best matches first, each with name, title, method, path, a \
                 one-line summary and its hints (annotations). Then describe_operation for the \
                 arguments."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What the operation should do, in words."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": format!("Most operations to return (default {DEFAULT_LIMIT}).")},
                },
                "required": ["query"],
            },
            "annotations": annotations(true, false, true, false),
        }),
        json!({
            "name": DESCRIBE,
            "title": "Describe an operation",
            "description": format!(
                "The full tool definition of one operation of {api}: description, inputSchema \
                 (the arguments to pass), outputSchema and hints."
            ),
            "inputSchema": {
                "type": "object",
                "properties": {"name": name},
                "required": ["name"],
            },
            "annotations": annotations(true, false, true, false),
        }),
        json!({
            "name": CALL_READ,
            "title": "Call a read-only operation",
            "description": format!(
                "Run one operation of {api} that only reads (its readOnlyHint is true and \
                 certain: a GET, HEAD or OPTIONS, or reviewed by a person). Any other operation \
                 is refused: use {CALL} for it."
            ),
            "inputSchema": call_input.clone(),
            "annotations": annotations(true, false, true, reads_open_world),
        }),
        json!({
            "name": CALL,
            "title": "Call an operation",
            "description": format!(
                "Run any operation of {api}, including ones that change or delete data. \
                 Prefer {CALL_READ} for reads."
            ),
            "inputSchema": call_input,
            "annotations": annotations(false, destructive, false, open_world),
        }),
    ]
}

/// Answer a `tools/call` in dynamic mode: an unknown tool is a protocol error, as for the
/// per-operation tools; the rest runs on a blocking thread.
pub(crate) async fn call_tool(
    state: Arc<State>,
    request: CallToolRequestParams,
    id: &rmcp::model::RequestId,
) -> Result<CallToolResponse, McpError> {
    let tool = request.name.to_string();
    if ![SEARCH, DESCRIBE, CALL_READ, CALL].contains(&tool.as_str()) {
        return Err(McpError::invalid_params(
            format!("unknown tool: {}", response::shown_name(&tool)),
            None,
        ));
    }
    let args = request.arguments.unwrap_or_default();
    // Calls beyond the limit wait here, as per-operation calls do.
    let permit = state.place(&args).await?;
    let held = Arc::clone(&state);
    let (result, permit) = tokio::task::spawn_blocking(move || {
        let result = match &state.dynamic {
            Some(d) => call(&state, d, &tool, &args),
            None => response::error("the server is not dynamic"),
        };
        (result, permit)
    })
    .await
    .map_err(|e| McpError::internal_error(format!("the call failed: {e}"), None))?;
    held.release_when_answered(id, permit);
    Ok(result.into())
}

/// Run one of the four tools (blocking: a call sends a request).
pub(crate) fn call(
    state: &State,
    dynamic: &Dynamic,
    tool: &str,
    args: &Map<String, Value>,
) -> CallToolResult {
    match tool {
        SEARCH => search(state, dynamic, args),
        DESCRIBE => match operation(state, args) {
            Ok((_, entry)) => CallToolResult::structured(crate::output::emit::tool_json(entry)),
            Err(e) => response::error(e),
        },
        CALL_READ | CALL => {
            let (i, entry) = match operation(state, args) {
                Ok(found) => found,
                Err(e) => return response::error(e),
            };
            if tool == CALL_READ && !certainly_read_only(entry) {
                return response::error(format!(
                    "{} ({}) is not certainly read-only (readOnlyHint {} from {}); \
                     {CALL_READ} runs only GET, HEAD and OPTIONS operations and reviewed \
                     read-only ones: use {CALL} for it",
                    entry.name,
                    entry.operation(),
                    entry.hints.read_only.value,
                    entry.hints.read_only.source.label(),
                ));
            }
            let arguments = match args.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return response::error("`arguments` must be an object"),
            };
            server::call(state, i, &arguments)
        }
        _ => response::error(format!("unknown tool: {}", response::shown_name(tool))),
    }
}

/// The exposed operation `args.name` names.
fn operation<'s>(state: &'s State, args: &Map<String, Value>) -> Result<(usize, &'s Tool), String> {
    let Some(name) = args.get("name").and_then(Value::as_str) else {
        return Err("`name` (a string) is required".into());
    };
    state
        .entries
        .iter()
        .position(|e| e.tool.name == name)
        .map(|i| (i, &state.entries[i].tool))
        .ok_or_else(|| format!("no operation is named {name:?}; {SEARCH} finds the names"))
}

fn search(state: &State, dynamic: &Dynamic, args: &Map<String, Value>) -> CallToolResult {
    let Some(query) = args.get("query").and_then(Value::as_str) else {
        return response::error("`query` (a string) is required");
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => n as usize,
            _ => {
                return response::error(format!(
                    "`limit` must be an integer from 1 to {MAX_LIMIT}"
                ));
            }
        },
    };
    let hits: Vec<Value> = dynamic
        .index
        .search(query, limit)
        .into_iter()
        .map(|h| {
            let t = &state.entries[h.index].tool;
            let hints: Map<String, Value> = t
                .hints
                .entries()
                .into_iter()
                .map(|(k, h)| (k.to_string(), Value::Bool(h.value)))
                .collect();
            json!({
                "name": t.name,
                "title": t.title,
                "method": t.call.method.as_str(),
                "path": t.call.path,
                "summary": summary_line(t),
                "annotations": hints,
                "score": search::rounded(h.score),
            })
        })
        .collect();
    CallToolResult::structured(json!({ "operations": hits }))
}

/// The description's first line, cut to 200 characters.
fn summary_line(t: &Tool) -> String {
    let line = t.description.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four definitions stay small whatever the title and however many operations.
    #[test]
    fn the_list_is_small_whatever_the_api() {
        let spec = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    delete:\n      \
                    responses: {'204': {description: ok}}\n";
        let tools = crate::convert_str("t.yaml", spec, &crate::Options::default())
            .unwrap()
            .tools;
        let title = "An API whose title goes on and on ".repeat(100);
        let d = Dynamic::new(&title, &tools).unwrap();
        let size = serde_json::to_string(&serde_json::json!({"tools": d.tools}))
            .unwrap()
            .len();
        assert!(size < 3000, "{size} bytes");
        let description = d.tools[0].description.as_deref().unwrap_or("");
        assert!(description.contains("An API whose... API"), "{description}");
        // The only operation is a DELETE: call_operation says it may destroy.
        let call = serde_json::to_value(&d.tools[3]).unwrap();
        assert_eq!(call["annotations"]["destructiveHint"], true);
    }
}
