//! `openapi-mcp serve --http` with raw HTTP requests (std `TcpStream`): the Host, Origin and token
//! checks, client headers never forwarded, body and in-flight bounds, SIGTERM, and OAuth2 client
//! credentials against a local token endpoint. The API and the token endpoint are one local
//! server on 127.0.0.1 that records every request. Every read has a time limit and every child is
//! killed at the end.

use crate::common;

use base64::Engine as _;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const API: &str = "specs/serve/api.yaml";
const OAUTH: &str = "specs/serve/oauth.yaml";
const WAIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------------------------
// The upstream: the API and its token endpoint.

#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        common::http::header(&self.headers, name)
    }
}

/// How the token endpoint answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenMode {
    /// A new token `tok-N-<padding>` each time, with this `expires_in` (seconds; 0: none).
    Issue(u64),
    /// 400 `{"error": "invalid_client"}`.
    Refuse,
}

#[derive(Default)]
struct Shared {
    requests: Mutex<Vec<Recorded>>,
    /// Tokens the API accepts.
    valid: Mutex<Vec<String>>,
    issued: AtomicUsize,
    mode: Mutex<Option<TokenMode>>,
    /// `/v1/slow` requests being answered now, and the most at once.
    now: AtomicUsize,
    most: AtomicUsize,
}

struct Upstream {
    origin: String,
    shared: Arc<Shared>,
}

impl Upstream {
    fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared::default());
        *shared.mode.lock().unwrap() = Some(TokenMode::Issue(3600));
        let s = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = Arc::clone(&s);
                std::thread::spawn(move || answer(stream, &s));
            }
        });
        Upstream {
            origin: format!("http://127.0.0.1:{port}"),
            shared,
        }
    }

    fn base(&self) -> String {
        format!("{}/v1", self.origin)
    }

    fn token_url(&self) -> String {
        format!("{}/token", self.origin)
    }

    fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    fn token_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.target.starts_with("/token"))
            .collect()
    }

    fn api_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.target.starts_with("/v1/"))
            .collect()
    }

    fn set_mode(&self, mode: TokenMode) {
        *self.shared.mode.lock().unwrap() = Some(mode);
    }

    /// Make the API refuse every token issued so far.
    fn revoke_all(&self) {
        self.shared.valid.lock().unwrap().clear();
    }
}

fn answer(stream: TcpStream, shared: &Shared) {
    let Some(common::http::Request {
        method,
        target,
        headers,
        body,
    }) = common::http::read_request(&stream, WAIT)
    else {
        return;
    };
    let recorded = Recorded {
        method: method.clone(),
        target: target.clone(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    shared.requests.lock().unwrap().push(recorded.clone());
    let echo = json!({"method": method, "target": target, "headers": recorded.headers}).to_string();
    let path = target.split('?').next().unwrap_or("");
    let bearer_ok = || {
        recorded
            .header("authorization")
            .and_then(|a| a.strip_prefix("Bearer "))
            .is_some_and(|t| shared.valid.lock().unwrap().iter().any(|v| v == t))
    };
    let (status, body): (&str, String) = match path {
        "/token" => match shared.mode.lock().unwrap().unwrap() {
            TokenMode::Issue(expires) => {
                let n = shared.issued.fetch_add(1, Ordering::SeqCst) + 1;
                let token = format!("tok-{n}-abcdefghijkl");
                shared.valid.lock().unwrap().push(token.clone());
                let mut answer = json!({"access_token": token, "token_type": "Bearer"});
                if expires > 0 {
                    answer["expires_in"] = json!(expires);
                }
                ("200 OK", answer.to_string())
            }
            TokenMode::Refuse => (
                "400 Bad Request",
                r#"{"error":"invalid_client","error_description":"unknown client"}"#.into(),
            ),
        },
        "/v1/slow" => {
            let now = shared.now.fetch_add(1, Ordering::SeqCst) + 1;
            shared.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(1500));
            shared.now.fetch_sub(1, Ordering::SeqCst);
            ("200 OK", r#"{"late":true}"#.into())
        }
        "/v1/always401" => ("401 Unauthorized", r#"{"error":"no"}"#.into()),
        "/v1/files/big" => (
            "200 OK",
            format!(
                r#"{{"id":"big","size":1,"pad":"{}"}}"#,
                "x".repeat(8_000_000)
            ),
        ),
        "/v1/echo" | "/v1/things" if !bearer_ok() => {
            ("401 Unauthorized", r#"{"error":"bad token"}"#.into())
        }
        _ => ("200 OK", echo),
    };
    let mut out = stream;
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
}

// ---------------------------------------------------------------------------------------------
// The server under test.

struct Served {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
    stderr: Option<JoinHandle<String>>,
    /// The startup lines.
    startup: String,
}

fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_openapi-mcp"));
    c.current_dir(common::root());
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENAPI_MCP_") && k != "OPENAPI_MCP_REQUIRE_SHARED" {
            c.env_remove(k);
        }
    }
    c
}

impl Served {
    fn start(spec: &str, args: &[&str], env: &[(&str, &str)]) -> Served {
        let mut cmd = binary();
        cmd.args(["serve", spec, "--http", "127.0.0.1:0"])
            .args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn openapi-mcp serve --http");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut startup = String::new();
        let mut addr = None;
        // The startup lines end with the protections; read until the last one.
        for _ in 0..40 {
            let mut line = String::new();
            if stderr.read_line(&mut line).unwrap_or(0) == 0 {
                break;
            }
            startup.push_str(&line);
            if let Some(rest) = line.split("over Streamable HTTP at http://").nth(1) {
                addr = rest.split("/mcp").next().map(str::to_string);
            }
            if line.contains("requests handled at once") {
                break;
            }
        }
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve --http did not start:\n{startup}");
        };
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Served {
            child,
            addr,
            stderr: Some(stderr),
            startup,
        }
    }

    fn port(&self) -> &str {
        self.addr.rsplit(':').next().unwrap()
    }

    /// POST a JSON-RPC message to /mcp with the usual headers plus `extra`.
    fn rpc(&self, message: &Value, extra: &[(&str, &str)]) -> Reply {
        rpc_at(&self.addr, message, extra)
    }

    fn call(&self, tool: &str, args: Value, extra: &[(&str, &str)]) -> Reply {
        rpc_at(&self.addr, &call_message(1, tool, args), extra)
    }

    fn terminate(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
    }

    /// Wait for the exit (bounded) and return its code and everything on standard error.
    fn wait(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("serve did not exit within {WAIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let err = self.stderr.take().unwrap().join().unwrap_or_default();
        (status.code(), format!("{}{err}", self.startup))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        common::http::header(&self.headers, name)
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// The tool result of a `tools/call` answer.
    fn result(&self) -> Value {
        assert_eq!(self.status, 200, "{}", self.body);
        self.json()["result"].clone()
    }

    fn text(&self) -> String {
        self.result()["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }
}

/// One HTTP/1.1 request on its own connection; the whole answer.
/// POST a JSON-RPC message to /mcp at `addr` with the usual headers plus `extra` (from any
/// thread: it needs only the address).
fn rpc_at(addr: &str, message: &Value, extra: &[(&str, &str)]) -> Reply {
    let body = message.to_string();
    let mut headers = vec![
        ("Host", addr.to_string()),
        ("Content-Type", "application/json".into()),
        ("Accept", "application/json, text/event-stream".into()),
        ("MCP-Protocol-Version", "2025-06-18".into()),
    ];
    for (k, v) in extra {
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
        headers.push((k, v.to_string()));
    }
    raw(addr, "POST", "/mcp", &headers, body.as_bytes())
}

/// A `tools/call` request with `id`.
fn call_message(id: usize, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args}})
}

fn raw(addr: &str, method: &str, path: &str, headers: &[(&str, String)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect to serve --http");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) before reading everything.
    let _ = stream.write_all(body);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

fn get(served: &Served, path: &str, headers: &[(&str, String)]) -> Reply {
    let mut all = vec![("Host", served.addr.clone())];
    all.extend(headers.iter().cloned());
    raw(&served.addr, "GET", path, &all, b"")
}

// ---------------------------------------------------------------------------------------------
// Transport and protections.

#[test]
fn lists_and_calls_statelessly_and_answers_healthz() {
    let api = Upstream::start();
    let served = Served::start(
        API,
        &["--base-url", &api.base(), "--page-size", "3"],
        &[("OPENAPI_MCP_HEADERKEY", "key-123456789")],
    );
    let health = get(&served, "/healthz", &[]);
    assert_eq!((health.status, health.body.as_str()), (200, "ok\n"));
    // No initialize needed: every request stands alone (stateless).
    let list = served.rpc(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        &[],
    );
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(list.header("content-type"), Some("application/json"));
    let v = list.json();
    assert_eq!(v["id"], 7);
    assert_eq!(v["result"]["tools"].as_array().unwrap().len(), 3);
    assert_eq!(v["result"]["nextCursor"], "3");
    let page = served.rpc(
        &json!({"jsonrpc": "2.0", "id": "p", "method": "tools/list", "params": {"cursor": "3"}}),
        &[],
    );
    assert_eq!(page.json()["result"]["tools"][0]["name"], "login");
    let r = served.call("get_file", json!({"id": "a/b"}), &[]);
    let result = r.result();
    assert_ne!(result["isError"], true, "{result}");
    let echoed = result["structuredContent"]["target"].clone();
    assert_eq!(echoed, "/v1/files/a%2Fb");
    // Validation as over stdio: nothing sent for a bad call.
    let before = api.api_requests().len();
    let r = served.call("get_file", json!({}), &[]);
    assert_eq!(r.result()["isError"], true);
    assert!(r.text().contains("`id`"), "{}", r.text());
    assert_eq!(api.api_requests().len(), before);
    // A tools/call whose arguments are not an object: a JSON-RPC error naming it.
    let bad = served.rpc(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_file", "arguments": [1]}}),
        &[],
    );
    assert_eq!(bad.json()["error"]["code"], -32602, "{}", bad.body);
    assert_eq!(get(&served, "/other", &[]).status, 404);
}

#[test]
fn host_and_origin_are_checked() {
    let api = Upstream::start();
    let served = Served::start(
        API,
        &[
            "--base-url",
            &api.base(),
            "--allow-origin",
            "https://app.example.com",
            "--allow-host",
            "mcp.example.com",
        ],
        &[],
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let port = served.port().to_string();
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
    ] {
        let r = served.rpc(&list, &[("Host", &host)]);
        assert_eq!(r.status, 403, "Host {host}: {}", r.body);
        assert!(r.body.contains("Host"), "{}", r.body);
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "mcp.example.com".to_string(),
        "MCP.example.com:443".to_string(),
    ] {
        let r = served.rpc(&list, &[("Host", &host)]);
        assert_eq!(r.status, 200, "Host {host}: {}", r.body);
    }
    // Origin: absent is fine, present must be allowed.
    for origin in [
        "http://evil.example",
        "https://app.example.com:8443",
        "null",
    ] {
        let r = served.rpc(&list, &[("Origin", origin)]);
        assert_eq!(r.status, 403, "Origin {origin}: {}", r.body);
        assert!(r.body.contains("Origin"), "{}", r.body);
    }
    let r = served.rpc(&list, &[("Origin", "https://app.example.com")]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    // Two Host headers, even with an allowed first one, are refused.
    let two = [
        ("Host", format!("127.0.0.1:{port}")),
        ("Host", "evil.example".to_string()),
        ("Content-Type", "application/json".into()),
        ("Accept", "application/json, text/event-stream".into()),
    ];
    let r = raw(
        &served.addr,
        "POST",
        "/mcp",
        &two,
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 400, "two Host headers: {}", r.body);
    // Two Origin headers are refused, as two Host headers are.
    let mut two_origins = two.to_vec();
    two_origins[1] = ("Origin", "https://app.example.com".into());
    two_origins.push(("Origin", "http://evil.example".into()));
    let r = raw(
        &served.addr,
        "POST",
        "/mcp",
        &two_origins,
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 400, "two Origin headers: {}", r.body);
    // A request target in absolute form names its host: it must be allowed too.
    let mut one_host = two.to_vec();
    one_host.remove(1);
    let r = raw(
        &served.addr,
        "POST",
        "http://evil.example/mcp",
        &one_host,
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 403, "absolute-form target: {}", r.body);
    let r = raw(
        &served.addr,
        "POST",
        &format!("http://127.0.0.1:{port}/mcp"),
        &one_host,
        list.to_string().as_bytes(),
    );
    assert_eq!(r.status, 200, "allowed absolute-form target: {}", r.body);
    // The health check answers whatever the Host (load balancers probe by address).
    let h = get(&served, "/healthz", &[("Host", "10.1.2.3:80".into())]);
    assert_eq!(h.status, 200);
    // Refused requests never reached the API.
    assert!(api.api_requests().is_empty());
}

#[test]
fn refused_json_keeps_its_id_and_standard_headers_are_checked() {
    let api = Upstream::start();
    let served = Served::start(API, &["--base-url", &api.base()], &[]);
    let headers = |version: &str| {
        vec![
            ("Host", served.addr.clone()),
            ("Content-Type", "application/json".to_string()),
            ("Accept", "application/json, text/event-stream".to_string()),
            ("MCP-Protocol-Version", version.to_string()),
        ]
    };
    let post = |body: &str| {
        raw(
            &served.addr,
            "POST",
            "/mcp",
            &headers("2025-06-18"),
            body.as_bytes(),
        )
    };
    for (id, body) in [
        (
            json!(7),
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"n":1e400}}"#,
        ),
        (
            json!("s"),
            r#"{"jsonrpc":"2.0","method":"ping","params":{"a":"\ud800"},"id":"s"}"#,
        ),
    ] {
        let r = post(body);
        let v = r.json();
        assert_eq!(v["id"], id, "{body}: {}", r.body);
        assert_eq!(v["error"]["code"], -32700, "{body}: {}", r.body);
    }
    // A numeric id rmcp cannot hold is refused with that id as written, so the client can match it.
    let body = r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping"}"#;
    let r = post(body);
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body
            .contains(r#""id":1180591620717411303424,"error":{"code":-32600"#),
        "{}",
        r.body
    );
    // Also when the message does not parse (`1e400`): the id found in it is echoed as written.
    let r = post(
        r#"{"jsonrpc":"2.0","id":1180591620717411303424,"method":"ping","params":{"n":1e400}}"#,
    );
    assert!(
        r.body
            .contains(r#""id":1180591620717411303424,"error":{"code":-32700"#),
        "{}",
        r.body
    );
    // From 2026-07-28 on, Mcp-Method must name the body's method, also for the tools/list
    // answered from the rendered list.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let mut h = headers("2026-07-28");
    for method in [None, Some("tools/call")] {
        let mut h = h.clone();
        h.extend(method.map(|m| ("Mcp-Method", m.to_string())));
        let r = raw(&served.addr, "POST", "/mcp", &h, list.as_bytes());
        assert_eq!(r.status, 400, "Mcp-Method {method:?}: {}", r.body);
    }
    h.push(("Mcp-Method", "tools/list".to_string()));
    let r = raw(&served.addr, "POST", "/mcp", &h, list.as_bytes());
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.json()["result"]["tools"].is_array(), "{}", r.body);
}

#[test]
fn allow_origin_null_is_refused() {
    let out = binary()
        .args([
            "serve",
            API,
            "--http",
            "127.0.0.1:0",
            "--allow-origin",
            "null",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--allow-origin null"), "{err}");
}

#[test]
fn a_stalled_body_times_out_and_idle_connections_cannot_lock_out_a_token_holder() {
    let api = Upstream::start();
    let token = "http-token-0123456789abcdef";
    let served = Served::start(
        API,
        &[
            "--base-url",
            &api.base(),
            "--max-requests",
            "1",
            "--verbose",
        ],
        &[("OPENAPI_MCP_HTTP_TOKEN", token)],
    );
    let bearer = format!("Bearer {token}");
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    // 1,100 connections that send nothing (more than the server keeps open).
    let idle: Vec<TcpStream> = (0..1100)
        .map(|_| TcpStream::connect(&served.addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let r = served.rpc(&list, &[("Authorization", &bearer)]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let h = get(&served, "/healthz", &[]);
    assert_eq!(h.status, 200);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    drop(idle);

    // Bodies that never come hold no place (bodies are read before a request takes one), so
    // the only place is free for the token holder; each stalled one gets 408 at the timeout.
    let stalled: Vec<TcpStream> = (0..70)
        .map(|_| {
            let mut s = TcpStream::connect(&served.addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            write!(
                s,
                "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: {bearer}\r\n\
                 Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
                 Content-Length: 200\r\n\r\n{{",
                served.addr
            )
            .unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let r = served.rpc(&list, &[("Authorization", &bearer)]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    for mut s in stalled {
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    }
}

/// Bodies held (received, waiting or answered) count against `--max-requests` × `--max-body`
/// as they arrive: past it a request gets 503 at once, and the bytes come back when a body goes.
#[test]
fn request_bodies_held_are_bounded_as_they_arrive() {
    let api = Upstream::start();
    let served = Served::start(
        API,
        &[
            "--base-url",
            &api.base(),
            "--max-requests",
            "1",
            "--max-body",
            "1024",
        ],
        &[],
    );
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let mut stalled = TcpStream::connect(&served.addr).unwrap();
    write!(
        stalled,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1024\r\n\r\n{}",
        served.addr,
        " ".repeat(1000)
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let r = served.rpc(&list, &[]);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.body.contains("--max-requests × --max-body"), "{}", r.body);
    assert!(started.elapsed() < Duration::from_secs(2));
    drop(stalled);
    std::thread::sleep(Duration::from_millis(300));
    let r = served.rpc(&list, &[]);
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn a_place_is_held_until_the_answer_is_written() {
    let api = Upstream::start();
    // The result budget raised so the 16 MB answer is sent whole.
    let served = Served::start(
        API,
        &[
            "--base-url",
            &api.base(),
            "--max-requests",
            "1",
            "--max-result-bytes",
            "100000000",
        ],
        &[],
    );
    // A client that asks for a 16 MB answer and does not read it yet.
    let mut slow = TcpStream::connect(&served.addr).unwrap();
    let call = call_message(1, "get_file", json!({"id": "big"})).to_string();
    write!(
        slow,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n\r\n{call}",
        served.addr,
        call.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    // Another request waits for the place while that answer is still being written.
    let addr = served.addr.clone();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let _ = done.send(rpc_at(&addr, &list, &[]).status);
    });
    assert!(
        finished.recv_timeout(Duration::from_millis(1000)).is_err(),
        "answered while the earlier answer was unwritten"
    );
    let mut answer = Vec::new();
    slow.read_to_end(&mut answer).unwrap();
    assert!(answer.len() > 16_000_000, "{}", answer.len());
    assert!(answer.starts_with(b"HTTP/1.1 200"));
    assert_eq!(finished.recv_timeout(WAIT).unwrap(), 200);
}

#[test]
fn token_is_required_when_set() {
    let api = Upstream::start();
    let token = "http-token-0123456789abcdef";
    let served = Served::start(
        API,
        &["--base-url", &api.base()],
        &[("OPENAPI_MCP_HTTP_TOKEN", token)],
    );
    assert!(
        served.startup.contains("bearer token required"),
        "{}",
        served.startup
    );
    assert!(!served.startup.contains(token));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let r = served.rpc(&list, &[]);
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(
        r.header("www-authenticate"),
        Some(r#"Bearer realm="openapi-mcp""#)
    );
    for wrong in [
        "Bearer http-token-0123456789abcdeX",
        "Bearer http-token",
        "Basic aHR0cC10b2tlbg==",
        token,
    ] {
        let r = served.rpc(&list, &[("Authorization", wrong)]);
        assert_eq!(r.status, 401, "{wrong}: {}", r.body);
        assert!(r.header("www-authenticate").unwrap().starts_with("Bearer"));
    }
    let r = served.rpc(&list, &[("Authorization", &format!("Bearer {token}"))]);
    assert_eq!(r.status, 200, "{}", r.body);
    // The health check needs no token and says only that it is up.
    let h = get(&served, "/healthz", &[]);
    assert_eq!((h.status, h.body.as_str()), (200, "ok\n"));
}

#[test]
fn client_headers_are_never_forwarded() {
    let api = Upstream::start();
    let token = "http-token-0123456789abcdef";
    let served = Served::start(
        API,
        &["--base-url", &api.base()],
        &[
            ("OPENAPI_MCP_HTTP_TOKEN", token),
            ("OPENAPI_MCP_HEADERKEY", "operator-key-123"),
        ],
    );
    let bearer = format!("Bearer {token}");
    let r = served.call(
        "get_file",
        json!({"id": "x"}),
        &[
            ("Authorization", &bearer),
            ("X-API-Key", "client-key-999"),
            ("Cookie", "sid=client-cookie"),
            ("X-Forwarded-For", "203.0.113.9"),
            ("X-Trace", "client-trace"),
            ("Mcp-Session-Id", "client-session"),
        ],
    );
    let result = r.result();
    assert_ne!(result["isError"], true, "{result}");
    let sent = api.api_requests().pop().expect("the API got the call");
    assert_eq!(sent.header("x-api-key"), Some("operator-key-123"));
    assert_eq!(sent.header("authorization"), None, "{sent:?}");
    for (name, value) in &sent.headers {
        for client in [
            token,
            "client-key-999",
            "client-cookie",
            "203.0.113.9",
            "client-trace",
            "client-session",
        ] {
            assert!(
                !value.contains(client),
                "{name}: {value} came from the client"
            );
        }
    }
    // The token is masked if anything echoes it back.
    assert!(!r.body.contains(token));
}

#[test]
fn non_loopback_without_token_refuses_to_start() {
    for addr in ["0.0.0.0:0", "[::]:0"] {
        let out = binary()
            .args([
                "serve",
                API,
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--http",
                addr,
            ])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{addr}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("OPENAPI_MCP_HTTP_TOKEN"), "{err}");
        assert!(err.contains("--allow-unauthenticated"), "{err}");
        assert!(
            !err.contains("listening") && !err.contains("serving"),
            "{err}"
        );
    }
    let out = binary()
        .args([
            "serve",
            API,
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--http",
            "127.0.0.1:0",
            "--allow-origin",
            "app.example.com",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-origin"));
}

#[test]
fn body_size_and_requests_in_flight_are_bounded() {
    let api = Upstream::start();
    let served = Served::start(
        API,
        &[
            "--base-url",
            &api.base(),
            "--max-body",
            "2048",
            "--max-requests",
            "2",
        ],
        &[],
    );
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "get_file", "arguments": {"id": "x".repeat(3000)}}});
    let r = served.rpc(&big, &[]);
    assert_eq!(r.status, 413, "{}", r.body);
    assert!(r.body.contains("2048"), "{}", r.body);
    // Six slow calls at once with two handled at a time: all answered, never more than two at
    // the API.
    let started = Instant::now();
    let addr = served.addr.clone();
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || rpc_at(&addr, &call_message(1, "slow", json!({})), &[]))
        })
        .collect();
    for c in calls {
        let r = c.join().unwrap();
        assert_eq!(r.result()["structuredContent"]["late"], true, "{}", r.body);
    }
    assert_eq!(api.shared.most.load(Ordering::SeqCst), 2);
    assert!(started.elapsed() >= Duration::from_millis(4400));
}

#[test]
fn many_concurrent_clients_are_all_answered() {
    let api = Upstream::start();
    let served = Served::start(API, &["--base-url", &api.base()], &[]);
    let addr = served.addr.clone();
    let clients: Vec<_> = (0..200)
        .map(|i| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let message = call_message(i, "get_file", json!({"id": format!("f{i}")}));
                rpc_at(&addr, &message, &[])
            })
        })
        .collect();
    for (i, c) in clients.into_iter().enumerate() {
        let r = c.join().unwrap();
        let result = r.result();
        assert_eq!(
            result["structuredContent"]["target"],
            format!("/v1/files/f{i}"),
            "{result}"
        );
    }
}

#[test]
fn sigterm_finishes_calls_in_flight_then_exits_0() {
    let api = Upstream::start();
    let mut served = Served::start(API, &["--base-url", &api.base()], &[]);
    let addr = served.addr.clone();
    let call = std::thread::spawn(move || rpc_at(&addr, &call_message(1, "slow", json!({})), &[]));
    // Wait until the call reached the API, then ask the server to stop.
    let deadline = Instant::now() + WAIT;
    while api.shared.now.load(Ordering::SeqCst) == 0 {
        assert!(Instant::now() < deadline, "the call never reached the API");
        std::thread::sleep(Duration::from_millis(10));
    }
    served.terminate();
    std::thread::sleep(Duration::from_millis(300));
    // No new connections once stopping.
    assert!(
        TcpStream::connect(&served.addr).is_err(),
        "still accepting after SIGTERM"
    );
    let r = call.join().unwrap();
    assert_eq!(r.result()["structuredContent"]["late"], true, "{}", r.body);
    let (code, err) = served.wait();
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("stopping"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// OAuth2 client credentials.

fn oauth_env<'a>(api: &'a Upstream, url: &'a str) -> Vec<(&'a str, &'a str)> {
    let _ = api;
    vec![
        ("OPENAPI_MCP_CC_CLIENT_ID", "my-client"),
        ("OPENAPI_MCP_CC_CLIENT_SECRET", "client-secret-42"),
        ("OPENAPI_MCP_CC_TOKEN_URL", url),
    ]
}

#[test]
fn oauth_token_is_fetched_once_and_reused() {
    let api = Upstream::start();
    let url = api.token_url();
    let served = Served::start(OAUTH, &["--base-url", &api.base()], &oauth_env(&api, &url));
    assert!(
        served
            .startup
            .contains("OAuth2 client credentials from OPENAPI_MCP_CC_CLIENT_ID"),
        "{}",
        served.startup
    );
    assert!(!served.startup.contains("client-secret-42"));
    assert!(
        api.token_requests().is_empty(),
        "no token before the first call"
    );
    let first = served.call("echo", json!({}), &[]);
    let result = first.result();
    assert_ne!(result["isError"], true, "{result}");
    let tokens = api.token_requests();
    assert_eq!(tokens.len(), 1);
    let t = &tokens[0];
    assert_eq!(t.method, "POST");
    assert_eq!(
        t.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(t.body, "grant_type=client_credentials&scope=read");
    let basic = base64::engine::general_purpose::STANDARD.encode("my-client:client-secret-42");
    assert_eq!(
        t.header("authorization"),
        Some(format!("Basic {basic}").as_str())
    );
    // The API got the fetched token; the result shows it masked.
    let sent = api.api_requests().pop().unwrap();
    assert_eq!(
        sent.header("authorization"),
        Some("Bearer tok-1-abcdefghijkl")
    );
    assert!(!first.body.contains("tok-1-abcdefghijkl"), "{}", first.body);
    assert!(first.body.contains("Bearer ***"), "{}", first.body);
    // The second call reuses it.
    let second = served.call("echo", json!({}), &[]);
    assert_ne!(second.result()["isError"], true);
    assert_eq!(api.token_requests().len(), 1);
    // Another scope set is another token, with both scopes.
    let r = served.call("write_thing", json!({}), &[]);
    assert_ne!(r.result()["isError"], true, "{}", r.body);
    let tokens = api.token_requests();
    assert_eq!(tokens.len(), 2);
    assert_eq!(
        tokens[1].body,
        "grant_type=client_credentials&scope=read%20write"
    );
    let (_, err) = served.wait_after_kill();
    for secret in ["client-secret-42", "tok-1-abcdefghijkl", basic.as_str()] {
        assert!(!err.contains(secret), "{secret} on stderr:\n{err}");
    }
}

impl Served {
    fn wait_after_kill(mut self) -> (Option<i32>, String) {
        self.terminate();
        self.wait()
    }
}

#[test]
fn oauth_token_is_refreshed_before_expiry() {
    let api = Upstream::start();
    api.set_mode(TokenMode::Issue(2));
    let url = api.token_url();
    let served = Served::start(OAUTH, &["--base-url", &api.base()], &oauth_env(&api, &url));
    assert_ne!(
        served.call("echo", json!({}), &[]).result()["isError"],
        true
    );
    assert_ne!(
        served.call("echo", json!({}), &[]).result()["isError"],
        true
    );
    assert_eq!(api.token_requests().len(), 1);
    // Refreshed shortly before the two seconds are up.
    std::thread::sleep(Duration::from_millis(1800));
    assert_ne!(
        served.call("echo", json!({}), &[]).result()["isError"],
        true
    );
    assert_eq!(api.token_requests().len(), 2);
    let sent = api.api_requests().pop().unwrap();
    assert_eq!(
        sent.header("authorization"),
        Some("Bearer tok-2-abcdefghijkl")
    );
}

#[test]
fn oauth_refused_token_is_fetched_again_once() {
    let api = Upstream::start();
    let url = api.token_url();
    let served = Served::start(OAUTH, &["--base-url", &api.base()], &oauth_env(&api, &url));
    assert_ne!(
        served.call("echo", json!({}), &[]).result()["isError"],
        true
    );
    // The API stops taking the cached token: one 401, a new token, the call sent again.
    api.revoke_all();
    let r = served.call("echo", json!({}), &[]);
    assert_ne!(r.result()["isError"], true, "{}", r.body);
    assert_eq!(api.token_requests().len(), 2);
    let calls = api.api_requests();
    assert_eq!(calls.len(), 3);
    assert_eq!(
        calls[2].header("authorization"),
        Some("Bearer tok-2-abcdefghijkl")
    );
    // An API that refuses every token: fetched again once, then the 401 is the result.
    let r = served.call("always401", json!({}), &[]);
    let result = r.result();
    assert_eq!(result["isError"], true);
    assert!(r.text().contains("401"), "{}", r.text());
    assert_eq!(api.token_requests().len(), 3);
    assert_eq!(api.api_requests().len(), 5);
}

#[test]
fn oauth_token_endpoint_failures_are_clean_tool_errors() {
    let api = Upstream::start();
    api.set_mode(TokenMode::Refuse);
    let url = api.token_url();
    let served = Served::start(
        OAUTH,
        &["--base-url", &api.base()],
        &[
            ("OPENAPI_MCP_CC_CLIENT_ID", "my-client"),
            ("OPENAPI_MCP_CC_CLIENT_SECRET", "client-secret-42"),
            ("OPENAPI_MCP_CC_TOKEN_URL", &url),
            ("OPENAPI_MCP_CC_CLIENT_AUTH", "post"),
        ],
    );
    let r = served.call("echo", json!({}), &[]);
    assert_eq!(r.result()["isError"], true);
    let text = r.text();
    assert!(
        text.contains("cannot get an OAuth2 token for security scheme \"cc\""),
        "{text}"
    );
    assert!(
        text.contains("HTTP 400") && text.contains("invalid_client"),
        "{text}"
    );
    assert!(!r.body.contains("client-secret-42"), "{}", r.body);
    assert!(
        api.api_requests().is_empty(),
        "nothing sent without a token"
    );
    // Client authentication by form fields.
    let t = api.token_requests().pop().unwrap();
    assert_eq!(t.header("authorization"), None);
    assert_eq!(
        t.body,
        "grant_type=client_credentials&scope=read&client_id=my-client&client_secret=client-secret-42"
    );
    // An endpoint nobody listens on: the discard port, as other tests' dead base URLs (a port
    // freed here could be taken by a server another test starts meanwhile).
    let dead = "http://127.0.0.1:9/token".to_string();
    let served = Served::start(
        OAUTH,
        &["--base-url", &api.base(), "--timeout", "5"],
        &[
            ("OPENAPI_MCP_CC_CLIENT_ID", "my-client"),
            ("OPENAPI_MCP_CC_CLIENT_SECRET", "client-secret-42"),
            ("OPENAPI_MCP_CC_TOKEN_URL", &dead),
        ],
    );
    let r = served.call("echo", json!({}), &[]);
    assert_eq!(r.result()["isError"], true);
    let text = r.text();
    assert!(
        text.contains("cannot get an OAuth2 token") && text.contains(&dead),
        "{text}"
    );
    assert!(text.contains("connection"), "{text}");
}

#[test]
fn oauth_static_token_wins() {
    let api = Upstream::start();
    let url = api.token_url();
    let mut env = oauth_env(&api, &url);
    env.push(("OPENAPI_MCP_CC", "static-token-123"));
    let served = Served::start(OAUTH, &["--base-url", &api.base()], &env);
    let _ = served.call("echo", json!({}), &[]);
    assert!(api.token_requests().is_empty());
    let sent = api.api_requests().pop().unwrap();
    assert_eq!(
        sent.header("authorization"),
        Some("Bearer static-token-123")
    );
}

/// Over HTTP as over stdio (one path): an image is image content, an open event stream is
/// answered with its events within a few seconds.
#[test]
fn non_json_answers_are_the_same_over_http() {
    let media = common::media::Media::start();
    let served = Served::start(common::media::SPEC, &["--base-url", &media.base], &[]);
    let r = served
        .call("get_media", json!({"name": "png"}), &[])
        .result();
    assert_eq!(r["content"][0]["type"], "image", "{r}");
    let data = r["content"][0]["data"].as_str().unwrap();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(bytes, common::media::png());
    let started = Instant::now();
    let r = served.call("get_media", json!({"name": "events"}), &[]);
    assert!(started.elapsed() < Duration::from_secs(6));
    assert!(r.text().contains("event stream, 2 events"), "{}", r.body);
}
