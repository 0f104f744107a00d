//! Server: the MCP `ServerHandler` (rmcp) that lists the converted tools and runs each call:
//! validate the arguments, build the request, send it, turn the response into a tool result.

use super::auth::{self, Credential};
use super::http::Client;
use super::request;
use super::response;
use super::validate::{self, Schema};
use crate::Tool;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// One tool as served: the model, its MCP definition, where and how to send it.
pub struct Entry {
    pub tool: Tool,
    /// The definition sent in `tools/list`: exactly what `convert` emits for this tool.
    pub listed: rmcp::model::Tool,
    /// Base URL (no trailing slash) the path is appended to.
    pub base: String,
    pub credentials: Vec<Credential>,
    /// The tool's input schema as one value (`$defs` included), for validation and encoding.
    input_value: Value,
    input: Schema,
    output: Schema,
}

impl Entry {
    pub fn new(
        tool: Tool,
        listed: rmcp::model::Tool,
        base: String,
        credentials: Vec<Credential>,
    ) -> Self {
        let input_value = tool.input_schema.to_value();
        let input = Schema::new(Some(input_value.clone()));
        let output = Schema::new(tool.output_schema.as_ref().map(|s| s.to_value()));
        Entry {
            tool,
            listed,
            input_value,
            base,
            credentials,
            input,
            output,
        }
    }
}

/// Everything the handler needs; shared with the blocking tasks that send requests.
pub struct State {
    pub name: String,
    pub version: String,
    pub entries: Vec<Entry>,
    pub client: Client,
    /// `--header` values, added to every request.
    pub headers: Vec<(String, String)>,
    /// Every credential value, redacted from messages.
    pub secrets: Vec<String>,
}

/// The MCP server.
#[derive(Clone)]
pub struct Server {
    state: Arc<State>,
    index: Arc<HashMap<String, usize>>,
}

impl Server {
    pub fn new(state: State) -> Self {
        let index = state
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.tool.name.clone(), i))
            .collect();
        Server {
            state: Arc::new(state),
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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self
            .state
            .entries
            .iter()
            .map(|e| e.listed.clone())
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(&i) = self.index.get(request.name.as_ref()) else {
            return Err(McpError::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let state = Arc::clone(&self.state);
        let args = request.arguments.unwrap_or_default();
        let result = tokio::task::spawn_blocking(move || call(&state, i, &args))
            .await
            .unwrap_or_else(|e| response::error(format!("the call failed: {e}")));
        Ok(result.into())
    }
}

/// Run one call to completion (blocking: validation, request, response).
pub fn call(state: &State, i: usize, args: &Map<String, Value>) -> CallToolResult {
    let Some(entry) = state.entries.get(i) else {
        return response::error("unknown tool");
    };
    let tool = &entry.tool;
    if let Err(message) = validate::arguments(&tool.name, &entry.input_value, &entry.input, args) {
        return response::error(message);
    }
    let mut prepared = match request::build(&tool.call, &entry.input_value, &entry.base, args) {
        Ok(p) => p,
        Err(e) => return response::error(e.to_string()),
    };
    for (name, value) in &state.headers {
        prepared.set_header(name, value);
    }
    auth::apply(&mut prepared, &entry.credentials, &state.headers);
    let shown = prepared.shown_url();
    match state.client.send(&prepared, &state.secrets) {
        Ok(reply) => {
            let check = |v: &Value| entry.output.problem(&tool.name, "outputSchema", v);
            response::to_result(
                &reply,
                &shown,
                tool.call.output_wrapped.as_deref(),
                &check,
                &state.secrets,
            )
        }
        Err(message) => response::error(format!("{} {shown} failed: {message}", prepared.method)),
    }
}
