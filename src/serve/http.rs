//! HTTP: sends a prepared request with `ureq` (blocking; the server calls it on Tokio's blocking
//! pool), with one overall timeout, no redirects followed, and an optional log line per request.

use super::redact::Secrets;
use super::request::Prepared;
use super::stream::{self, Stopped};
use std::time::{Duration, Instant};
use ureq::http;

/// Largest response body read (bigger ones are a tool error).
pub(crate) const MAX_BODY: u64 = 10 * 1024 * 1024;

/// The client shared by all calls.
pub(crate) struct Client {
    agent: ureq::Agent,
    timeout: Duration,
    verbose: bool,
    /// Most bytes of an event stream read ([`Client::stream_bytes`]).
    stream_bytes: usize,
}

/// A response, read completely (an event stream: as far as it was read).
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// For a `text/event-stream` answer: why reading stopped.
    pub stream: Option<Stopped>,
    /// The `Link` header (several joined with `, `), for the budget's next page.
    pub link: Option<String>,
}

impl Reply {
    /// `404 Not Found`.
    pub(crate) fn status_line(&self) -> String {
        let reason = http::StatusCode::from_u16(self.status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        format!("{} {reason}", self.status).trim_end().to_string()
    }
}

impl Client {
    pub(crate) fn new(timeout: Duration, verbose: bool) -> Self {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .max_redirects(0)
            .allow_non_standard_methods(true)
            .user_agent(concat!("openapi-mcp/", env!("CARGO_PKG_VERSION")))
            // JSON when the API can choose; anything else is still accepted.
            .accept("application/json, */*;q=0.5")
            .build();
        Client {
            agent: ureq::Agent::with_parts(
                config,
                stream::connector(),
                ureq::unversioned::resolver::DefaultResolver::default(),
            ),
            timeout,
            verbose,
            stream_bytes: MAX_BODY as usize,
        }
    }

    /// Stop reading an event stream after `bytes` bytes (at most [`MAX_BODY`]).
    pub(crate) fn stream_bytes(mut self, bytes: usize) -> Self {
        self.stream_bytes = bytes.min(MAX_BODY as usize);
        self
    }

    /// Send `request`; a network failure or timeout is an `Err` with a message free of secrets.
    pub(crate) fn send(&self, request: &Prepared, secrets: &Secrets) -> Result<Reply, String> {
        let started = Instant::now();
        let result = self.exchange(request);
        if self.verbose {
            let outcome = match &result {
                Ok(r) => r.status.to_string(),
                Err(e) => format!("failed: {e}"),
            };
            let line = format!(
                "openapi-mcp: {} {} -> {} ({} ms)",
                request.method,
                request.shown_url(),
                outcome,
                started.elapsed().as_millis()
            );
            eprintln!("{}", secrets.redact(&line));
        }
        result.map_err(|e| secrets.redact(&e).into_owned())
    }

    fn exchange(&self, request: &Prepared) -> Result<Reply, String> {
        let method = http::Method::from_bytes(request.method.as_bytes())
            .map_err(|_| format!("unsupported HTTP method {}", request.method))?;
        let mut builder = http::Request::builder()
            .method(method)
            .uri(request.full_url());
        // A `Cookie` from `--header` and the cookie parameters travel in one header.
        let mut cookie = request.cookie_header();
        for (name, value) in &request.headers {
            if name.eq_ignore_ascii_case("cookie") {
                cookie = Some(match cookie {
                    Some(c) => format!("{value}; {c}"),
                    None => value.clone(),
                });
            } else {
                builder = builder.header(name.as_str(), value.as_str());
            }
        }
        if let Some(cookie) = cookie {
            builder = builder.header("Cookie", cookie);
        }
        let shown = request.shown_url();
        let response = match &request.body {
            Some(body) => builder
                .body(body.clone())
                .map_err(|e| format!("cannot build the request to {shown}: {e}"))
                .and_then(|r| self.agent.run(r).map_err(|e| self.describe(e))),
            None => builder
                .body(())
                .map_err(|e| format!("cannot build the request to {shown}: {e}"))
                .and_then(|r| self.agent.run(r).map_err(|e| self.describe(e))),
        };
        let mut response = response?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let links: Vec<&str> = response
            .headers()
            .get_all(http::header::LINK)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let link = (!links.is_empty()).then(|| links.join(", "));
        if content_type.as_deref().is_some_and(is_event_stream) {
            let mut reader = response.body_mut().with_config().limit(MAX_BODY).reader();
            let describe = |e| self.describe(e);
            let (body, stopped) = stream::read(
                &mut reader,
                self.stream_bytes,
                stream::IDLE,
                stream::CAP,
                &describe,
            );
            return Ok(Reply {
                status,
                content_type,
                body,
                stream: Some(stopped),
                link,
            });
        }
        let body = response
            .body_mut()
            .with_config()
            .limit(MAX_BODY)
            .read_to_vec()
            .map_err(|e| self.describe(e))?;
        Ok(Reply {
            status,
            content_type,
            body,
            stream: None,
            link,
        })
    }

    /// A short message for a failed exchange. ureq's own messages may quote the URL, so only the
    /// kind of failure is kept.
    fn describe(&self, e: ureq::Error) -> String {
        match e {
            ureq::Error::Timeout(_) => {
                format!("timed out after {} s", self.timeout.as_secs_f64())
            }
            ureq::Error::HostNotFound => "host not found".into(),
            ureq::Error::ConnectionFailed => "connection failed".into(),
            ureq::Error::Io(io) => format!("network error: {}", io.kind()),
            ureq::Error::BodyExceedsLimit(_) => {
                format!(
                    "the response is larger than {} MB",
                    MAX_BODY / (1024 * 1024)
                )
            }
            ureq::Error::BadUri(_) => "the URL is not valid".into(),
            ureq::Error::Http(e) => format!("invalid request: {e}"),
            ureq::Error::Protocol(e) => format!("HTTP protocol error: {e}"),
            ureq::Error::Tls(e) => format!("TLS error: {e}"),
            ureq::Error::Rustls(e) => format!("TLS error: {e}"),
            other => format!("request failed: {other}"),
        }
    }
}

/// Whether `content_type` is `text/event-stream` (any parameters, any case).
pub(crate) fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|e| e.trim().eq_ignore_ascii_case("text/event-stream"))
}
