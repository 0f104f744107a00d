//! Transport: newline-delimited JSON-RPC over stdio for rmcp, read and written here so that every
//! request gets an answer and `tools/list` is answered from the rendered bytes.
//!
//! A line that is not UTF-8 or not JSON is answered with -32700 (with the request's id when it
//! can be found, as for JSON that serde refuses: `1e400`, a lone surrogate); a request rmcp
//! cannot read, or a `tools/call` whose `name` is not a string or whose `arguments` are not an
//! object, with -32602; a line over [`MAX_LINE`] bytes with -32600 saying the limit (with the
//! request's id when it can be found near the start); a request whose numeric id is not a 64-bit
//! integer with -32600. An id that did not parse exactly is echoed as written. `tools/list` is
//! answered here, without building rmcp `Tool` values: every answer shares the one rendered list.

use super::server::{Listing, Page, Unwritten};
use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::Value;
use serde_json::value::RawValue;
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::OwnedSemaphorePermit;
use tokio::sync::mpsc;

/// Longest message read, in bytes.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// One message to write.
enum Out {
    /// A line, and the `--max-calls` place its call holds until it is written.
    Line(Vec<u8>, Option<OwnedSemaphorePermit>),
    /// A `tools/list` answer: the head up to `"result":`, then the page's bytes.
    Listed(Vec<u8>, Page),
}

/// The rmcp transport over a reader and a writer (standard input and output).
pub(crate) struct Transport<R> {
    read: R,
    line: Vec<u8>,
    /// The first bytes of a line being discarded for its size, to find its id.
    oversized: Option<Vec<u8>>,
    out: mpsc::UnboundedSender<Out>,
    listing: Arc<Listing>,
    unwritten: Option<Arc<Unwritten>>,
}

/// What one bounded line read found.
enum Read {
    Line,
    Oversized(Vec<u8>),
    Eof,
}

/// Bytes of an oversized line kept to look for its id.
const HEAD: usize = 4096;

impl<R: AsyncBufRead + Send + Unpin> Transport<R> {
    /// A transport reading `read` and writing to `write` (on a task of its own, which ends when
    /// the transport is dropped; await the handle to be sure everything was written).
    pub(crate) fn new<W: AsyncWrite + Send + Unpin + 'static>(
        read: R,
        write: W,
        listing: Arc<Listing>,
        unwritten: Option<Arc<Unwritten>>,
    ) -> (Self, tokio::task::JoinHandle<()>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_all(rx, write));
        (
            Transport {
                read,
                line: Vec::new(),
                oversized: None,
                out: tx,
                listing,
                unwritten,
            },
            writer,
        )
    }

    /// Read one line into `self.line`, never holding more than [`MAX_LINE`] bytes. Safe to
    /// cancel: a partial line stays in `self.line` (or `self.oversized`) for the next call.
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(match self.oversized.take() {
                    Some(head) => Read::Oversized(head),
                    None => Read::Eof,
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if let Some(head) = &mut self.oversized {
                let room = HEAD.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..room]);
            } else if self.line.len() + take > MAX_LINE {
                let mut head = std::mem::take(&mut self.line);
                head.truncate(HEAD);
                let room = HEAD.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..room]);
                self.oversized = Some(head);
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(match self.oversized.take() {
                    Some(head) => Read::Oversized(head),
                    None => Read::Line,
                });
            }
        }
    }

    fn error(&self, id: Option<&RawValue>, code: i64, message: impl AsRef<str>) {
        let mut line = error_answer(id, code, message.as_ref());
        line.push(b'\n');
        let _ = self.out.send(Out::Line(line, None));
    }

    /// Handle one complete line: answer it here, or return the message for rmcp.
    fn handle(&self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            self.error(
                sniff_id(line).as_deref(),
                PARSE_ERROR,
                "Parse error: the message is not UTF-8",
            );
            return None;
        };
        let value: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                self.error(
                    sniff_id(line).as_deref(),
                    PARSE_ERROR,
                    format!("Parse error: {e}"),
                );
                return None;
            }
        };
        let Some(message) = value.as_object() else {
            self.error(
                None,
                INVALID_REQUEST,
                "Invalid Request: not a JSON-RPC object",
            );
            return None;
        };
        let id = message.get("id").cloned();
        if message.contains_key("method") && id.as_ref().is_some_and(inexact) {
            self.error(written_id(line).as_deref(), INVALID_REQUEST, INEXACT_ID);
            return None;
        }
        if id
            .as_ref()
            .is_some_and(|i| !(i.is_string() || i.is_number()))
        {
            self.error(
                None,
                INVALID_REQUEST,
                "Invalid Request: id must be a string or number",
            );
            return None;
        }
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        if let (Some(id), Some(method)) = (&id, method.as_deref()) {
            let params = message.get("params");
            if let Some(problem) = params_problem(method, params) {
                self.error(
                    raw(id).as_deref(),
                    INVALID_PARAMS,
                    format!("Invalid params: {problem}"),
                );
                return None;
            }
            if method == "tools/list" {
                let cursor = params.and_then(|p| p.get("cursor")).and_then(Value::as_str);
                match self.listing.page(cursor) {
                    Some(page) => {
                        let mut head = br#"{"jsonrpc":"2.0","id":"#.to_vec();
                        head.extend_from_slice(id.to_string().as_bytes());
                        head.extend_from_slice(br#","result":"#);
                        let _ = self.out.send(Out::Listed(head, page));
                    }
                    None => self.error(
                        raw(id).as_deref(),
                        INVALID_PARAMS,
                        "Invalid params: unknown cursor",
                    ),
                }
                return None;
            }
        }
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(m) => Some(m),
            // A notification or a response rmcp cannot read: nothing to answer.
            Err(_) if id.is_none() || method.is_none() => None,
            Err(e) => {
                let (code, what) = match method.as_deref() {
                    Some(m) if known(m) => (INVALID_PARAMS, "Invalid params"),
                    _ => (METHOD_NOT_FOUND, "Method not found"),
                };
                self.error(
                    id.as_ref().and_then(raw).as_deref(),
                    code,
                    format!("{what}: {e}"),
                );
                None
            }
        }
    }
}

/// A JSON-RPC error answer, without its newline: the one shape of every error written here and
/// over HTTP. `id` is the request's id as written (`null` when it is not known), so that an id
/// that did not parse into a number exactly still matches the client's.
pub(super) fn error_answer(id: Option<&RawValue>, code: i64, message: &str) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        jsonrpc: &'static str,
        id: Option<&'a RawValue>,
        error: Error<'a>,
    }
    #[derive(serde::Serialize)]
    struct Error<'a> {
        code: i64,
        message: &'a str,
    }
    serde_json::to_vec(&Answer {
        jsonrpc: "2.0",
        id,
        error: Error { code, message },
    })
    .unwrap_or_default()
}

/// A parsed id as JSON text (exact for the strings and 64-bit integers that reach it).
pub(super) fn raw(id: &Value) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(id).ok()
}

/// Whether a request's `id` is a number rmcp cannot hold (MCP ids are strings or integers; rmcp
/// reads them as `i64`): a fraction, an exponent or an integer beyond 64 bits. Such a request is
/// answered with -32600 [`INEXACT_ID`] and its id as written ([`written_id`]), since the parsed
/// number (`1.1805916207174113e21` for 2^70) would not match the client's.
pub(super) fn inexact(id: &Value) -> bool {
    id.is_number() && !id.is_i64()
}

pub(super) const INEXACT_ID: &str =
    "Invalid Request: a numeric id must be an integer of at most 64 bits (signed)";

/// The top-level `id` of a message that parsed, as written.
pub(super) fn written_id(message: &[u8]) -> Option<Box<RawValue>> {
    #[derive(serde::Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
    }
    serde_json::from_slice::<Id>(message)
        .ok()
        .map(|m| m.id.to_owned())
}

/// What is wrong with the params of a request to `method`, checked before rmcp sees them
/// (rmcp reads a `tools/call` it cannot parse as an unknown method).
pub(super) fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    let params = match params {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => return Some("`params` must be an object".into()),
    };
    match method {
        "tools/call" => {
            let Some(p) = params else {
                return Some("tools/call needs `name`".into());
            };
            if !p.get("name").is_some_and(Value::is_string) {
                return Some("`name` must be a string".into());
            }
            if !matches!(
                p.get("arguments"),
                None | Some(Value::Null | Value::Object(_))
            ) {
                return Some("`arguments` must be an object".into());
            }
            None
        }
        "tools/list" => {
            let cursor = params.and_then(|p| p.get("cursor"));
            (!matches!(cursor, None | Some(Value::Null | Value::String(_))))
                .then(|| "`cursor` must be a string".into())
        }
        _ => None,
    }
}

/// The MCP requests rmcp serves (a request it cannot read is then a params problem).
fn known(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "tools/call"
            | "tools/list"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "completion/complete"
            | "logging/setLevel"
    )
}

/// The top-level `id` of the JSON object starting `head` (a number or a string), as written, if
/// it is there: `head` may be cut short, not UTF-8, or JSON that serde refuses elsewhere.
pub(super) fn sniff_id(head: &[u8]) -> Option<Box<RawValue>> {
    let text = String::from_utf8_lossy(head);
    let mut depth = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            '"' => {
                // Read the string to its end.
                let start = i;
                let mut escaped = false;
                let mut end = None;
                for (j, c) in chars.by_ref() {
                    match (escaped, c) {
                        (true, _) => escaped = false,
                        (false, '\\') => escaped = true,
                        (false, '"') => {
                            end = Some(j);
                            break;
                        }
                        _ => {}
                    }
                }
                let end = end?;
                let key = depth == 1 && &text[start..=end] == "\"id\"";
                if let Some(rest) = text[end + 1..].trim_start().strip_prefix(':')
                    && key
                {
                    let mut de = serde_json::Deserializer::from_str(rest).into_iter::<&RawValue>();
                    let id = de.next()?.ok()?;
                    return matches!(id.get().as_bytes()[0], b'"' | b'-' | b'0'..=b'9')
                        .then(|| id.to_owned());
                }
            }
            _ => {}
        }
    }
    None
}

async fn write_all<W: AsyncWrite + Unpin>(mut rx: mpsc::UnboundedReceiver<Out>, mut write: W) {
    while let Some(out) = rx.recv().await {
        let ok = match out {
            // The place (if any) is released once the line is written.
            Out::Line(line, _place) => write.write_all(&line).await,
            Out::Listed(head, page) => {
                async {
                    write.write_all(&head).await?;
                    for piece in page.pieces() {
                        write.write_all(piece).await?;
                    }
                    write.write_all(b"}\n").await
                }
                .await
            }
        };
        if ok.is_err() || write.flush().await.is_err() {
            break;
        }
    }
}

impl<R: AsyncBufRead + Send + Unpin> rmcp::transport::Transport<RoleServer> for Transport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let id = match &item {
            rmcp::model::JsonRpcMessage::Response(r) => Some(&r.id),
            _ => None,
        };
        let place = id
            .zip(self.unwritten.as_ref())
            .and_then(|(id, u)| u.take(id));
        let sent = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut line| {
                line.push(b'\n');
                self.out
                    .send(Out::Line(line, place))
                    .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            });
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {
                    let line = std::mem::take(&mut self.line);
                    let message = self.handle(&line);
                    self.line = line;
                    self.line.clear();
                    if let Some(m) = message {
                        return Some(m);
                    }
                }
                Ok(Read::Oversized(head)) => self.error(
                    sniff_id(&head).as_deref(),
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: the message is larger than the {} MiB limit",
                        MAX_LINE / (1024 * 1024)
                    ),
                ),
                Ok(Read::Eof) | Err(_) => return None,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Standard input as the transport reads it.
pub(crate) fn stdin() -> BufReader<tokio::io::Stdin> {
    BufReader::with_capacity(64 * 1024, tokio::io::stdin())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sniffed(head: &[u8]) -> Option<String> {
        sniff_id(head).map(|id| id.get().to_string())
    }

    #[test]
    fn ids_of_oversized_lines() {
        let id = |s: &str| Some(s.to_string());
        assert_eq!(
            sniffed(br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#),
            id("7")
        );
        assert_eq!(
            sniffed(br#"{"params":{"id":1},"id":"r-1","#),
            id(r#""r-1""#)
        );
        assert_eq!(
            sniffed(br#"{"method":"tools/call","params":{"id":1,"x":"aaa"#),
            None
        );
        assert_eq!(sniffed(br#"{"a":"\"id\":3","id":4"#), id("4"));
        assert_eq!(sniffed(br#"{"method":"id","id":5,"#), id("5"));
        assert_eq!(sniffed(br#"{"id":{"a":1},"method":"x"}"#), None);
        // Valid JSON that serde refuses still gives its id, as written.
        assert_eq!(sniffed(br#"{"id":8,"params":{"n":1e400}}"#), id("8"));
        assert_eq!(sniffed(br#"{"a":"\ud800","id":"s"}"#), id(r#""s""#));
        assert_eq!(
            sniffed(br#"{"id":1180591620717411303424,"params":{"n":1e400}}"#),
            id("1180591620717411303424")
        );
    }

    #[test]
    fn a_numeric_id_rmcp_cannot_hold_is_refused_and_echoed_as_written() {
        let answer = |line: &str| {
            let id: Value = serde_json::from_str::<Value>(line).unwrap()["id"].clone();
            inexact(&id).then(|| {
                let written = written_id(line.as_bytes());
                String::from_utf8(error_answer(
                    written.as_deref(),
                    INVALID_REQUEST,
                    INEXACT_ID,
                ))
                .unwrap()
            })
        };
        let big =
            answer(r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}"#).unwrap();
        assert!(
            big.starts_with(
                r#"{"jsonrpc":"2.0","id":1180591620717411303424,"error":{"code":-32600"#
            ),
            "{big}"
        );
        for id in ["1.5", "1e3", "9223372036854775808", "-9223372036854775809"] {
            let line = format!(r#"{{"id":{id},"method":"ping"}}"#);
            assert!(
                answer(&line).unwrap().contains(&format!(r#""id":{id},"#)),
                "{id}"
            );
        }
        for id in ["7", "-1", "9223372036854775807", "\"x\""] {
            assert_eq!(
                answer(&format!(r#"{{"id":{id},"method":"ping"}}"#)),
                None,
                "{id}"
            );
        }
    }

    #[test]
    fn every_error_has_one_shape() {
        let id = raw(&json!("a\"b")).unwrap();
        assert_eq!(
            String::from_utf8(error_answer(Some(&id), -32602, "Invalid params: \"x\"")).unwrap(),
            r#"{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32602,"message":"Invalid params: \"x\""}}"#
        );
        assert_eq!(
            String::from_utf8(error_answer(None, -32700, "Parse error")).unwrap(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
    }

    #[test]
    fn params_are_checked() {
        assert!(params_problem("tools/call", Some(&json!({"name": 1}))).is_some());
        assert!(
            params_problem("tools/call", Some(&json!({"name": "a", "arguments": [1]}))).is_some()
        );
        assert!(params_problem("tools/call", Some(&json!([]))).is_some());
        assert!(params_problem("tools/call", Some(&json!({"name": "a"}))).is_none());
        assert!(params_problem("tools/list", Some(&json!({"cursor": 2}))).is_some());
        assert!(params_problem("ping", None).is_none());
    }
}
