//! Streamable HTTP: serves the MCP server at `/mcp` (rmcp's stateless Streamable HTTP service
//! behind this module's checks) and `GET /healthz`, on hyper, until SIGTERM or Ctrl-C.
//!
//! Every `/mcp` request passes, in order: the `Host` check (DNS rebinding), the `Origin` check,
//! the bearer token (when `OPENAPI_MCP_HTTP_TOKEN` is set); then its body is read (up to
//! `max_body` bytes, within [`BODY_TIMEOUT`], all bodies held at most `max_requests` ×
//! `max_body` bytes), and only then it waits for one of the `max_requests` places, so a body
//! that stalls holds none. `tools/list` is answered
//! here from the rendered list; every other message goes to rmcp with the same handler as stdio.
//! No request header reaches the upstream API: the handler never reads them.

use super::server::{Listing, Server};
use super::transport::{
    INEXACT_ID, error_answer, inexact, params_problem, raw, sniff_id, written_id,
};
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::Semaphore;

/// Largest request body, by default.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// `/mcp` requests handled at once, by default; more wait their turn.
pub const DEFAULT_MAX_REQUESTS: usize = 64;
/// Open connections at most. When all are taken, the oldest connection that has not yet made an
/// accepted request (one that passed the Host, Origin and token checks) is closed to make room,
/// so idle or refused connections cannot lock out a client that holds the token.
pub(crate) const MAX_CONNECTIONS: usize = 1024;
/// Time a client has to send a request's headers.
pub(crate) const HEADER_TIMEOUT: Duration = Duration::from_secs(30);
/// Time a client has to send a request's body. Bodies are read before the request takes one of
/// the `max_requests` places, so a body that stalls holds no place.
pub(crate) const BODY_TIMEOUT: Duration = Duration::from_secs(10);

type Body = BoxBody<Bytes, Infallible>;

/// The listener's settings, checked.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    pub addr: SocketAddr,
    /// Exact origins (`scheme://host[:port]`, normalized) a request's `Origin` may be.
    pub origins: Vec<String>,
    /// Host names (or `name:port`) a request's `Host` may be, lower case.
    pub hosts: Vec<String>,
    /// The bearer token every `/mcp` request must carry.
    pub token: Option<String>,
    pub max_body: usize,
    pub max_requests: usize,
    /// Longest wait for calls in flight after SIGTERM.
    pub drain: Duration,
    /// Log refusals on standard error.
    pub verbose: bool,
}

/// The names a loopback listener answers to.
pub(crate) const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// `scheme://host[:port]` in normal form (lower case, default port dropped, no trailing slash),
/// or `None` when `origin` is not one. `null` stays `null`.
pub(crate) fn normalize_origin(origin: &str) -> Option<String> {
    let origin = origin.trim().trim_end_matches('/');
    if origin.eq_ignore_ascii_case("null") {
        return Some("null".into());
    }
    let (scheme, rest) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "http" | "https")
        || rest.is_empty()
        || rest.contains(['/', '?', '#', '@'])
    {
        return None;
    }
    let (host, port) = split_host(rest)?;
    let default = if scheme == "https" { 443 } else { 80 };
    Some(match port {
        Some(p) if p != default => format!("{scheme}://{}:{p}", bracket(&host)),
        _ => format!("{scheme}://{}", bracket(&host)),
    })
}

fn bracket(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

/// `host[:port]` (IPv6 in brackets) -> lower-case host without brackets or a final dot, and the
/// port; `None` when it is not of that form.
pub(crate) fn split_host(authority: &str) -> Option<(String, Option<u16>)> {
    let authority = authority.trim();
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (host, port)
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (h, Some(p)),
            // A bare IPv6 address (allowed-host entries only: a Host header brackets it).
            Some(_) => (authority, None),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok()?),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let ok = |c: char| c.is_ascii_alphanumeric() || "-._:~%".contains(c);
    if host.is_empty() || !host.chars().all(ok) {
        return None;
    }
    Some((host, port))
}

/// Whether a `Host` header value is allowed: its host is one of `allowed` (an entry with a port
/// needs that port too).
pub(crate) fn host_allowed(value: &str, allowed: &[String]) -> bool {
    let Some((host, port)) = split_host(value) else {
        return false;
    };
    allowed.iter().any(|a| match split_host(a) {
        Some((h, None)) => h == host,
        Some((h, Some(p))) => h == host && port == Some(p),
        None => false,
    })
}

/// Whether the `Authorization` header carries `Bearer <token>`.
fn token_ok(headers: &HeaderMap, token: &str) -> bool {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return false;
    };
    let value = value.as_bytes();
    let Some(space) = value.iter().position(|&b| b == b' ') else {
        return false;
    };
    let (scheme, given) = value.split_at(space);
    if !scheme.eq_ignore_ascii_case(b"bearer") {
        return false;
    }
    same_secret(given.trim_ascii(), token.as_bytes())
}

/// `given == secret`, in a time that depends only on the longer length: `subtle`'s slice
/// comparison returns at once when the lengths differ, which tells a prober the token's length.
fn same_secret(given: &[u8], secret: &[u8]) -> bool {
    let mut same = given.len().ct_eq(&secret.len());
    for i in 0..given.len().max(secret.len()) {
        let a = given.get(i).copied().unwrap_or(0);
        let b = secret.get(i).copied().unwrap_or(0);
        same &= a.ct_eq(&b);
    }
    bool::from(same)
}

fn text(status: StatusCode, message: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(format!("{message}\n"))).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn json_body(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn rpc_error(id: Option<&RawValue>, code: i64, message: &str) -> Response<Body> {
    json_body(StatusCode::BAD_REQUEST, error_answer(id, code, message))
}

/// Everything a request needs.
struct App {
    listen: Listen,
    listing: Arc<Listing>,
    mcp: StreamableHttpService<Server, NeverSessionManager>,
    permits: Arc<Semaphore>,
    /// Bytes of request bodies held now (being received, waiting for a place, or being
    /// answered), at most `max_requests` × `max_body`: counted as they arrive, so a body that
    /// stalls costs only what it sent.
    received: AtomicUsize,
}

/// A request body's bytes counted in [`App::received`] until it is dropped.
struct Charge<'a> {
    received: &'a AtomicUsize,
    bytes: usize,
}

impl Charge<'_> {
    /// Count `n` more bytes, unless that would pass `limit`.
    fn add(&mut self, n: usize, limit: usize) -> bool {
        let added = self
            .received
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(n).filter(|&total| total <= limit)
            })
            .is_ok();
        if added {
            self.bytes += n;
        }
        added
    }
}

impl Drop for Charge<'_> {
    fn drop(&mut self) {
        self.received.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

impl App {
    async fn handle(&self, request: Request<Incoming>, proven: &AtomicBool) -> Response<Body> {
        match request.uri().path() {
            "/healthz" => match *request.method() {
                Method::GET | Method::HEAD => text(StatusCode::OK, "ok"),
                _ => text(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"),
            },
            "/mcp" => {
                let origin = request.headers().get(header::ORIGIN).cloned();
                let mut response = self.mcp(request, proven).await;
                if let Some(origin) = origin
                    && response.status() != StatusCode::FORBIDDEN
                {
                    cors(response.headers_mut(), origin);
                }
                response
            }
            _ => text(StatusCode::NOT_FOUND, "Not Found: MCP is served at /mcp"),
        }
    }

    async fn mcp(&self, request: Request<Incoming>, proven: &AtomicBool) -> Response<Body> {
        let headers = request.headers();
        if headers.get_all(header::HOST).iter().nth(1).is_some() {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: more than one Host header",
            );
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| request.uri().authority().map(|a| a.as_str()));
        // A request target in absolute form names its own host, which counts as the Host
        // (RFC 9112, section 3.2.2): it must be allowed too.
        let target = request.uri().authority().map(|a| a.as_str());
        if !host.is_some_and(|h| host_allowed(h, &self.listen.hosts))
            || target.is_some_and(|t| !host_allowed(t, &self.listen.hosts))
        {
            return text(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host header is not allowed (see --allow-host)",
            );
        }
        if headers.get_all(header::ORIGIN).iter().nth(1).is_some() {
            return text(
                StatusCode::BAD_REQUEST,
                "Bad Request: more than one Origin header",
            );
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin
                .to_str()
                .ok()
                .and_then(normalize_origin)
                .is_some_and(|o| self.listen.origins.contains(&o));
            if !allowed {
                return text(
                    StatusCode::FORBIDDEN,
                    "Forbidden: the Origin header is not allowed (see --allow-origin)",
                );
            }
            if request.method() == Method::OPTIONS {
                return preflight();
            }
        }
        if let Some(token) = &self.listen.token
            && !token_ok(headers, token)
        {
            let challenge = if headers.contains_key(header::AUTHORIZATION) {
                r#"Bearer realm="openapi-mcp", error="invalid_token""#
            } else {
                r#"Bearer realm="openapi-mcp""#
            };
            let mut r = text(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send Authorization: Bearer <the server's token>",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
            return r;
        }
        proven.store(true, Ordering::Relaxed);
        // A POST's body is read first, holding no place; then the request waits for one.
        let mut charge = Charge {
            received: &self.received,
            bytes: 0,
        };
        let (parts, body) = request.into_parts();
        // `Ok`: a POST's body, read; `Err`: another method's body, left to rmcp.
        let read = if parts.method == Method::POST {
            match self.read_body(&parts.headers, body, &mut charge).await {
                Ok(bytes) => Ok(bytes),
                Err(refused) => return refused,
            }
        } else {
            Err(body)
        };
        let Ok(permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return text(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping");
        };
        let answer = match read {
            Ok(bytes) => self.answer(parts, bytes).await,
            Err(body) => self.mcp.handle(Request::from_parts(parts, body)).await,
        };
        drop(charge);
        // The place is held until hyper has written (or dropped) the answer's body, so slow
        // readers cannot pile up answers beyond `max_requests`.
        answer.map(|body| {
            Held {
                body,
                rest: Bytes::new(),
                _permit: permit,
            }
            .boxed()
        })
    }

    /// A POST's body, read within [`BODY_TIMEOUT`] and `max_body` bytes, its bytes counted in
    /// `charge` as they arrive; or the answer refusing it.
    async fn read_body(
        &self,
        headers: &HeaderMap,
        mut body: Incoming,
        charge: &mut Charge<'_>,
    ) -> Result<Bytes, Response<Body>> {
        let declared = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.listen.max_body as u64) {
            return Err(self.too_large());
        }
        let limit = self
            .listen
            .max_requests
            .saturating_mul(self.listen.max_body);
        let deadline = tokio::time::Instant::now() + BODY_TIMEOUT;
        let mut bytes = Vec::new();
        loop {
            let Ok(frame) = tokio::time::timeout_at(deadline, body.frame()).await else {
                if self.listen.verbose {
                    eprintln!(
                        "openapi-mcp: refused: a request body was not sent within {} s",
                        BODY_TIMEOUT.as_secs()
                    );
                }
                return Err(text(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "Request Timeout: the body must arrive within {} s",
                        BODY_TIMEOUT.as_secs()
                    ),
                ));
            };
            let Some(frame) = frame else {
                return Ok(Bytes::from(bytes));
            };
            let Ok(frame) = frame else {
                return Err(text(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: the body could not be read",
                ));
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if bytes.len() + data.len() > self.listen.max_body {
                return Err(self.too_large());
            }
            if !charge.add(data.len(), limit) {
                if self.listen.verbose {
                    eprintln!("openapi-mcp: refused: request bodies held would pass {limit} bytes");
                }
                let mut r = text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    &format!(
                        "Service Unavailable: the request bodies being handled would pass \
                         {limit} bytes (--max-requests × --max-body); try again shortly"
                    ),
                );
                r.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                return Err(r);
            }
            bytes.extend_from_slice(&data);
        }
    }

    /// A POST whose body has been read, holding one of the `max_requests` places.
    async fn answer(&self, parts: http::request::Parts, bytes: Bytes) -> Response<Body> {
        if let Some(answer) = self.answer_here(&parts.headers, &bytes) {
            return answer;
        }
        self.mcp
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await
    }

    fn too_large(&self) -> Response<Body> {
        text(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!(
                "Payload Too Large: the body may be at most {} bytes (see --max-body)",
                self.listen.max_body
            ),
        )
    }

    /// A JSON-RPC request answered without rmcp: a `tools/list` (from the rendered list), or
    /// params rmcp would misread (the same checks as over stdio).
    fn answer_here(&self, headers: &HeaderMap, body: &[u8]) -> Option<Response<Body>> {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            // With the request's id when it can be found, as for valid JSON that serde refuses
            // (`1e400`, a lone surrogate), so the client's call ends.
            Err(e) => {
                return Some(rpc_error(
                    sniff_id(body).as_deref(),
                    -32700,
                    &format!("Parse error: {e}"),
                ));
            }
        };
        let message = value.as_object()?;
        let id = message
            .get("id")
            .filter(|i| i.is_string() || i.is_number())?;
        let method = message.get("method").and_then(Value::as_str)?;
        if inexact(id) {
            return Some(rpc_error(written_id(body).as_deref(), -32600, INEXACT_ID));
        }
        let params = message.get("params");
        if let Some(problem) = params_problem(method, params) {
            return Some(rpc_error(
                raw(id).as_deref(),
                -32602,
                &format!("Invalid params: {problem}"),
            ));
        }
        if method != "tools/list"
            || !accepts_json(headers)
            || !known_version(headers)
            || !standard_headers_match(headers, method)
        {
            return None;
        }
        let cursor = params.and_then(|p| p.get("cursor")).and_then(Value::as_str);
        let Some(page) = self.listing.page(cursor) else {
            return Some(rpc_error(
                raw(id).as_deref(),
                -32602,
                "Invalid params: unknown cursor",
            ));
        };
        let mut out = br#"{"jsonrpc":"2.0","id":"#.to_vec();
        out.extend_from_slice(id.to_string().as_bytes());
        out.extend_from_slice(br#","result":"#);
        for piece in page.pieces() {
            out.extend_from_slice(piece);
        }
        out.push(b'}');
        Some(json_body(StatusCode::OK, out))
    }
}

/// Whether the client takes `application/json` answers (the Streamable HTTP client sends both it
/// and `text/event-stream`; rmcp answers the others).
fn accepts_json(headers: &HeaderMap) -> bool {
    let accept: Vec<String> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    accept.iter().any(|a| a == "application/json")
        && accept.iter().any(|a| a == "text/event-stream")
}

/// Whether `MCP-Protocol-Version` is absent or one rmcp knows (rmcp answers 400 otherwise).
fn known_version(headers: &HeaderMap) -> bool {
    match headers.get("mcp-protocol-version") {
        None => true,
        Some(v) => v.to_str().is_ok_and(|v| {
            rmcp::model::ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .any(|k| k.as_str() == v)
        }),
    }
}

/// Whether the request may be answered here as far as the standard headers go: under a protocol
/// version that has them (`MCP-Protocol-Version` at least 2026-07-28), exactly one `Mcp-Method`
/// equal to the body's method. Otherwise rmcp answers, with its error where they disagree.
fn standard_headers_match(headers: &HeaderMap, method: &str) -> bool {
    let needs = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= rmcp::model::ProtocolVersion::STANDARD_HEADERS.as_str());
    if !needs {
        return true;
    }
    let mut values = headers.get_all("mcp-method").iter();
    matches!((values.next(), values.next()), (Some(v), None) if v.as_bytes() == method.as_bytes())
}

/// The CORS headers for an allowed `Origin`.
fn cors(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("Mcp-Session-Id, WWW-Authenticate"),
    );
}

/// The answer to a CORS preflight from an allowed origin.
fn preflight() -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::new()).boxed());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(
            "Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
        ),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    r
}

/// Bind `listen.addr` (before the runtime serves: a bind error is a usage error).
pub(crate) fn bind(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind(addr)?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Largest piece of an answer handed to hyper at a time.
const PIECE: usize = 64 * 1024;

/// An answer's body that holds its `max_requests` place until its last piece has been taken.
/// Handed over in pieces of [`PIECE`] bytes, since hyper asks for the next piece only when it
/// has written most of the last: the place is released once the answer is nearly written.
struct Held {
    body: Body,
    rest: Bytes,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl hyper::body::Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        use std::task::Poll;
        let this = &mut *self;
        if this.rest.is_empty() {
            match std::pin::Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => this.rest = data,
                    Err(other) => return Poll::Ready(Some(Ok(other))),
                },
                other => return other,
            }
        }
        let piece = this.rest.split_to(this.rest.len().min(PIECE));
        Poll::Ready(Some(Ok(hyper::body::Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        let inner = self.body.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = hyper::body::SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

/// The open connections, oldest first: whether each has made an accepted request, and how to
/// close it.
#[derive(Default)]
struct Open {
    next: std::sync::atomic::AtomicU64,
    list: Mutex<VecDeque<Connection>>,
}

/// An open connection: its number, whether it has made an accepted request, how to close it.
type Connection = (u64, Arc<AtomicBool>, Arc<tokio::sync::Notify>);

impl Open {
    fn add(&self) -> Connection {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let entry = (id, Arc::default(), Arc::default());
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        list.push_back(entry.clone());
        entry
    }

    fn remove(&self, id: u64) {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|(i, _, _)| *i != id);
    }

    /// Close the oldest connection that has made no accepted request, if there is one.
    fn close_oldest_unproven(&self) {
        let mut list = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let at = list.iter().position(|(_, p, _)| !p.load(Ordering::Relaxed));
        if let Some((_, _, close)) = at.and_then(|at| list.remove(at)) {
            // `notify_one` keeps the wake-up if the task is not waiting yet.
            close.notify_one();
        }
    }
}

/// Serve until SIGTERM or Ctrl-C; then stop accepting, let the requests in flight finish (for up
/// to `listen.drain`) and return.
pub(crate) async fn serve(
    listener: std::net::TcpListener,
    listen: Listen,
    server: Server,
    listing: Arc<Listing>,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_sse_retry(None)
        // Host and Origin are checked before rmcp sees the request.
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(listen.max_body);
    let cancel = config.cancellation_token.clone();
    let factory = move || Ok(server.clone());
    let mcp = StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
    let app = Arc::new(App {
        permits: Arc::new(Semaphore::new(listen.max_requests)),
        received: AtomicUsize::new(0),
        listen,
        listing,
        mcp,
    });
    let drain = app.listen.drain;
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let open = Arc::new(Open::default());
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // Out of file descriptors and the like: wait a little and go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let permit = match Arc::clone(&connections).try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                open.close_oldest_unproven();
                tokio::select! {
                    p = Arc::clone(&connections).acquire_owned() => p.expect("never closed"),
                    _ = &mut stop => break,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let app = Arc::clone(&app);
        let (id, proven, close) = open.add();
        let seen = Arc::clone(&proven);
        let service = hyper::service::service_fn(move |request| {
            let app = Arc::clone(&app);
            let seen = Arc::clone(&seen);
            async move { Ok::<_, Infallible>(app.handle(request, &seen).await) }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                // Dropping the connection closes it.
                _ = close.notified() => {}
            }
            open.remove(id);
            drop(permit);
        });
    }
    drop(listener);
    eprintln!(
        "openapi-mcp: stopping: no new connections; waiting up to {} s for requests in flight",
        drain.as_secs()
    );
    let finished = tokio::time::timeout(drain, graceful.shutdown())
        .await
        .is_ok();
    if !finished {
        eprintln!(
            "openapi-mcp: stopped with requests still in flight after {} s",
            drain.as_secs()
        );
    }
    cancel.cancel();
    Ok(())
}

/// Resolves on SIGTERM or Ctrl-C (SIGINT).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whatever_their_length() {
        assert!(same_secret(b"s3cret-token", b"s3cret-token"));
        assert!(!same_secret(b"s3cret-token", b"s3cret-tokem"));
        assert!(!same_secret(b"s3cret", b"s3cret-token"));
        assert!(!same_secret(b"s3cret-token-and-more", b"s3cret-token"));
        assert!(!same_secret(b"", b"x"));
        assert!(same_secret(b"", b""));
    }

    #[test]
    fn standard_headers_are_checked_before_answering_here() {
        let mut h = HeaderMap::new();
        assert!(standard_headers_match(&h, "tools/list"));
        h.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2025-06-18"),
        );
        assert!(standard_headers_match(&h, "tools/list"));
        h.insert(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        assert!(
            !standard_headers_match(&h, "tools/list"),
            "Mcp-Method missing"
        );
        h.insert("mcp-method", HeaderValue::from_static("tools/call"));
        assert!(
            !standard_headers_match(&h, "tools/list"),
            "Mcp-Method differs"
        );
        h.insert("mcp-method", HeaderValue::from_static("tools/list"));
        assert!(standard_headers_match(&h, "tools/list"));
        h.append("mcp-method", HeaderValue::from_static("tools/list"));
        assert!(
            !standard_headers_match(&h, "tools/list"),
            "two Mcp-Method headers"
        );
    }

    #[test]
    fn origins_normalize() {
        assert_eq!(
            normalize_origin("HTTPS://App.Example.com:443/").as_deref(),
            Some("https://app.example.com")
        );
        assert_eq!(
            normalize_origin("http://localhost:6274").as_deref(),
            Some("http://localhost:6274")
        );
        assert_eq!(
            normalize_origin("http://[::1]:80").as_deref(),
            Some("http://[::1]")
        );
        assert_eq!(normalize_origin("null").as_deref(), Some("null"));
        assert!(normalize_origin("app.example.com").is_none());
        assert!(normalize_origin("https://a.example/path").is_none());
        assert!(normalize_origin("ftp://a.example").is_none());
    }

    #[test]
    fn hosts_match() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "mcp.example.com:8443"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(host_allowed("127.0.0.1:8080", &allowed));
        assert!(host_allowed("LOCALHOST", &allowed));
        assert!(host_allowed("[::1]:9", &allowed));
        assert!(host_allowed("mcp.example.com:8443", &allowed));
        assert!(!host_allowed("mcp.example.com", &allowed));
        assert!(!host_allowed("evil.example:8080", &allowed));
        assert!(!host_allowed("127.0.0.1.evil.example", &allowed));
        assert!(!host_allowed("localhost:x", &allowed));
        assert!(!host_allowed("", &allowed));
    }

    #[test]
    fn bearer_tokens() {
        let mut h = HeaderMap::new();
        assert!(!token_ok(&h, "t0ken-abc"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer t0ken-abc"),
        );
        assert!(token_ok(&h, "t0ken-abc"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer  t0ken-abc "),
        );
        assert!(token_ok(&h, "t0ken-abc"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer t0ken-abd"),
        );
        assert!(!token_ok(&h, "t0ken-abc"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic t0ken-abc"),
        );
        assert!(!token_ok(&h, "t0ken-abc"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer t0ken-ab"),
        );
        assert!(!token_ok(&h, "t0ken-abc"));
    }
}
