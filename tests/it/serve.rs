//! `openapi-mcp serve` with real parts: a local HTTP API on 127.0.0.1 (port 0) that records the
//! raw requests it receives, and the binary driven over stdio as an MCP client would
//! (initialize, initialized, tools/list, tools/call). Every read has a time limit and every child
//! is killed at the end.

use crate::common;

use base64::Engine as _;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const SPEC: &str = "specs/serve/api.yaml";
const WAIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------------------------
// The API: a small HTTP/1.1 server that records every request and answers by path.

#[derive(Debug, Clone)]
struct Recorded {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Recorded {
    fn header(&self, name: &str) -> Option<&str> {
        common::http::header(&self.headers, name)
    }
}

struct Api {
    base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    /// Requests being answered now, and the most at once.
    flight: Arc<Flight>,
}

#[derive(Default)]
struct Flight {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl Api {
    fn start() -> Api {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let flight = Arc::new(Flight::default());
        let shared = Arc::clone(&requests);
        let counts = Arc::clone(&flight);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&shared);
                let counts = Arc::clone(&counts);
                std::thread::spawn(move || serve_one(stream, &shared, &counts));
            }
        });
        Api {
            base: format!("http://127.0.0.1:{port}/v1"),
            requests,
            flight,
        }
    }

    /// The base URL without the `/v1` prefix.
    fn origin(&self) -> &str {
        self.base.strip_suffix("/v1").unwrap()
    }

    fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    fn last(&self) -> Recorded {
        self.requests
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("a request was received")
    }
}

fn serve_one(stream: TcpStream, requests: &Mutex<Vec<Recorded>>, flight: &Flight) {
    let Some(common::http::Request {
        method,
        target,
        headers,
        body,
    }) = common::http::read_request(&stream, Duration::from_secs(10))
    else {
        return;
    };
    let path = target.split('?').next().unwrap_or("").to_string();
    let query = target.split_once('?').map_or("", |(_, q)| q).to_string();
    let echo = json!({"target": target, "headers": headers}).to_string();
    requests.lock().unwrap().push(Recorded {
        method: method.clone(),
        target,
        headers,
        body,
    });
    let (status, content_type, body): (&str, &str, String) = match (method.as_str(), path.as_str())
    {
        ("GET", "/v1/files/big") => (
            "200 OK",
            "application/json",
            format!(
                r#"{{"id":"big","size":1,"pad":"{}"}}"#,
                "x".repeat(4_000_000)
            ),
        ),
        ("GET", p) if p.starts_with("/v1/files/") => (
            "200 OK",
            "application/json",
            r#"{"id":"f-1","size":3}"#.into(),
        ),
        ("GET", "/v1/search") => ("200 OK", "application/json", r#"["rex","tom"]"#.into()),
        ("POST", "/v1/pets") => (
            "201 Created",
            "application/json",
            r#"{"id":7,"name":"Rex","tags":["a"]}"#.into(),
        ),
        ("DELETE", _) | ("POST", "/v1/login") => ("204 No Content", "", String::new()),
        ("POST", "/v1/upload") => ("200 OK", "text/plain", "stored".into()),
        ("GET", "/v1/echo") => ("200 OK", "application/json", echo),
        // specs/serve/fields.yaml.
        ("GET", "/v1/issues") => (
            "200 OK",
            "application/json",
            json!([
                {"number": 1, "title": "Crash", "user": {"login": "ann", "id": 10}, "body": "b",
                 "state": "open", "labels": [{"name": "bug", "color": "red"}]},
                {"number": 2, "title": "Typo", "user": null, "body": "c", "state": "closed",
                 "labels": [{"name": "doc", "color": "blue"}, {"name": "easy", "color": "blue"}]}
            ])
            .to_string(),
        ),
        ("GET", "/v1/odata") => (
            "200 OK",
            "application/json",
            json!({"@odata.nextLink": "http://next", "@odata.count": 2,
                   "value": [{"name": "a", "age": 1}, {"name": "b", "age": 2}]})
            .to_string(),
        ),
        ("GET", "/v1/broken") if query == "empty=true" => ("204 No Content", "", String::new()),
        ("GET", "/v1/broken") => (
            "200 OK",
            "application/json",
            "<html>maintenance</html>".into(),
        ),
        ("GET", "/v1/own") => (
            "200 OK",
            "application/json",
            r#"{"id":1,"note":"n"}"#.into(),
        ),
        // The OAuth2 token endpoint of specs/serve/oauth.yaml.
        ("POST", "/token") => (
            "200 OK",
            "application/json",
            r#"{"access_token":"stdio-tok-123456789","token_type":"bearer","expires_in":3600}"#
                .into(),
        ),
        // The request after padding that puts the excerpt's end (2,000 characters) inside
        // the query's credential.
        ("GET", "/v1/echo-error") => (
            "401 Unauthorized",
            "text/plain",
            format!("{}{echo}", "-".repeat(1960)),
        ),
        ("GET", "/v1/slow1") => {
            let now = flight.now.fetch_add(1, Ordering::SeqCst) + 1;
            flight.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(1));
            flight.now.fetch_sub(1, Ordering::SeqCst);
            ("200 OK", "text/plain", "late".into())
        }
        ("GET", "/v1/slow") => {
            std::thread::sleep(Duration::from_secs(3));
            ("200 OK", "text/plain", "late".into())
        }
        _ => (
            "404 Not Found",
            "application/json",
            r#"{"error":"no such thing"}"#.into(),
        ),
    };
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if !content_type.is_empty() {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    head.push_str("\r\n");
    let _ = out.write_all(head.as_bytes());
    let _ = out.write_all(body.as_bytes());
    let _ = out.flush();
}

// ---------------------------------------------------------------------------------------------
// The MCP client: newline-delimited JSON-RPC over the child's stdin/stdout.

struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: u64,
    /// Answers read while waiting for another one.
    pending: Vec<Value>,
}

/// Credentials for the spec's three schemes, one per naming rule.
const ENV: &[(&str, &str)] = &[
    ("OPENAPI_MCP_HEADERKEY", "key-123"),
    ("OPENAPI_MCP_QUERYKEY", "qk-789"),
    ("OPENAPI_MCP_BEARER_TOKEN", "tok-456"),
];

fn binary() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_openapi-mcp"));
    c.current_dir(common::root());
    for var in [
        "OPENAPI_MCP_HEADERKEY",
        "OPENAPI_MCP_QUERYKEY",
        "OPENAPI_MCP_BEARER",
        "OPENAPI_MCP_API_KEY",
        "OPENAPI_MCP_BEARER_TOKEN",
        "OPENAPI_MCP_BASIC_USER",
        "OPENAPI_MCP_BASIC_PASSWORD",
        "OPENAPI_MCP_SID",
        "OPENAPI_MCP_QKEY",
        "OPENAPI_MCP_BASE_URL",
        "OPENAPI_MCP_HEADERS",
    ] {
        c.env_remove(var);
    }
    c
}

impl Session {
    fn start(args: &[&str], env: &[(&str, &str)]) -> Session {
        Session::start_spec(SPEC, args, env)
    }

    fn start_spec(spec: &str, args: &[&str], env: &[(&str, &str)]) -> Session {
        let mut cmd = binary();
        cmd.arg("serve").arg(spec).args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn openapi-mcp serve");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            next_id: 1,
            pending: Vec::new(),
        }
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// Send a request and return the whole response message (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.answer(&json!(id))
    }

    /// Send a request without waiting; returns its id.
    fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message with this id (`null` for errors about unreadable lines).
    fn answer(&mut self, id: &Value) -> Value {
        if let Some(i) = self.pending.iter().position(|m| m.get("id") == Some(id)) {
            return self.pending.remove(i);
        }
        let method = format!("the request {id}");
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within {WAIT:?}"));
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout is not JSON-RPC ({e}): {line}"));
            if msg.get("id") == Some(id) {
                return msg;
            }
            // An answer to another request (calls may finish in any order).
            if msg.get("id").is_some() {
                self.pending.push(msg);
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "serve-test", "version": "0"}
            }),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r["result"].clone()
    }

    fn call(&mut self, name: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        assert!(r.get("error").is_none(), "{name}: JSON-RPC error {r}");
        r["result"].clone()
    }

    /// Close stdin, wait for the child to exit (killing it after a while), return its stderr.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    assert!(status.success(), "serve exited with {status}");
                    break;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    let _ = self.child.kill();
                    panic!("serve did not exit after standard input closed");
                }
            }
        }
        self.stderr.take().unwrap().join().unwrap_or_default()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

// ---------------------------------------------------------------------------------------------

fn convert(options: &[&str]) -> Value {
    let out = binary()
        .args(["convert", SPEC])
        .args(options)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn tools_list_is_what_convert_emits() {
    for options in [&[][..], &["--methods", "get", "--name-style", "camel"][..]] {
        let mut args = vec!["--base-url", "http://127.0.0.1:9/v1"];
        args.extend_from_slice(options);
        let mut s = Session::start(&args, &[]);
        let init = s.initialize();
        assert_eq!(init["serverInfo"]["name"], "Serve Test API");
        assert_eq!(init["serverInfo"]["version"], "2.1");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        let listed = s.request("tools/list", json!({}));
        let expected = convert(options);
        assert_eq!(
            listed["result"]["tools"], expected["tools"],
            "options {options:?}"
        );
        assert!(!expected["tools"].as_array().unwrap().is_empty());
        s.finish();
    }
}

#[test]
fn calls_send_exactly_the_mapped_requests() {
    let api = Api::start();
    let mut s = Session::start(
        &[
            "--base-url",
            &api.base,
            "--header",
            "X-Client: serve-tests",
            "--verbose",
        ],
        ENV,
    );
    s.initialize();

    // Path encoding, header and cookie parameters, --header, the document's default security.
    let r = s.call(
        "get_file",
        json!({"id": "a/b c?", "X-Trace": "t-1", "theme": "dark mode"}),
    );
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"], json!({"id": "f-1", "size": 3}));
    assert_eq!(text(&r), r#"{"id":"f-1","size":3}"#);
    let q = api.last();
    assert_eq!(q.method, "GET");
    assert_eq!(q.target, "/v1/files/a%2Fb%20c%3F");
    assert_eq!(q.header("X-Trace"), Some("t-1"));
    assert_eq!(q.header("Cookie"), Some("theme=dark%20mode"));
    assert_eq!(q.header("X-Client"), Some("serve-tests"));
    assert_eq!(q.header("X-API-Key"), Some("key-123"));
    assert_eq!(q.header("Authorization"), None);

    // Query styles: exploded array as repeated keys, non-exploded comma-joined, deepObject; the
    // operation's own security (API key in the query) replaces the document's.
    let r = s.call(
        "search",
        json!({"tag": ["a", "b c"], "ids": [1, 2], "limit": 5, "filter": {"color": "red"}}),
    );
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"], json!({"result": ["rex", "tom"]}));
    let q = api.last();
    assert_eq!(
        q.target,
        "/v1/search?tag=a&tag=b%20c&ids=1,2&limit=5&filter[color]=red&api_key=qk-789"
    );
    assert_eq!(q.header("X-API-Key"), None);

    // JSON body from spread arguments, bearer token.
    let r = s.call("create_pet", json!({"name": "Rex", "tags": ["a"]}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(
        r["structuredContent"],
        json!({"id": 7, "name": "Rex", "tags": ["a"]})
    );
    let q = api.last();
    assert_eq!((q.method.as_str(), q.target.as_str()), ("POST", "/v1/pets"));
    assert_eq!(q.header("Content-Type"), Some("application/json"));
    assert_eq!(q.body, br#"{"name":"Rex","tags":["a"]}"#);
    assert_eq!(q.header("Authorization"), Some("Bearer tok-456"));
    assert_eq!(q.header("X-API-Key"), None);

    // Form body; `security: []` sends no credentials.
    let r = s.call(
        "login",
        json!({"username": "ann", "password": "p&ss w=1", "scopes": ["r", "w"]}),
    );
    assert!(!is_error(&r), "{r}");
    assert_eq!(text(&r), "HTTP 204 No Content (empty body)");
    let q = api.last();
    assert_eq!(
        q.header("Content-Type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(
        String::from_utf8(q.body.clone()).unwrap(),
        "username=ann&password=p%26ss%20w%3D1&scopes=r&scopes=w"
    );
    assert_eq!(q.header("X-API-Key"), None);
    assert_eq!(q.header("Authorization"), None);

    // Multipart body: the base64 argument arrives as raw bytes in a file part.
    let png = [0x89u8, b'P', b'N', b'G', 0, 255];
    let b64 = base64::engine::general_purpose::STANDARD.encode(png);
    let r = s.call("upload_file", json!({"file": b64, "caption": "hi"}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(text(&r), "stored");
    let q = api.last();
    let ct = q.header("Content-Type").unwrap().to_string();
    let boundary = ct
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap_or_else(|| panic!("content type {ct}"));
    let expected = [
        format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"file\"\r\nContent-Type: image/png\r\n\r\n").into_bytes(),
        png.to_vec(),
        format!("\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--{boundary}--\r\n").into_bytes(),
    ]
    .concat();
    assert_eq!(q.body, expected);

    // DELETE with an integer path parameter.
    let r = s.call("delete_pet", json!({"id": 7}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(
        (api.last().method.as_str(), api.last().target.as_str()),
        ("DELETE", "/v1/pets/7")
    );

    // 404 -> tool error with the status and the body.
    let r = s.call("get_missing", json!({}));
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).starts_with("HTTP 404 Not Found from http://127.0.0.1:"),
        "{r}"
    );
    assert!(text(&r).contains(r#"{"error":"no such thing"}"#), "{r}");

    // Invalid arguments: a tool error naming the argument, and no request at all.
    let before = api.count();
    let r = s.call("get_file", json!({"theme": "x"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("missing required argument `id`"), "{r}");
    let r = s.call("search", json!({"limit": "five"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("argument `limit`"), "{r}");
    let r = s.call("search", json!({"limit": 0}));
    assert!(is_error(&r) && text(&r).contains("argument `limit`"), "{r}");
    let r = s.call("get_file", json!({"id": "1", "idd": "2"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("unknown argument `idd`"), "{r}");
    let r = s.call("create_pet", json!({"tags": "not-an-array"}));
    assert!(is_error(&r), "{r}");
    assert_eq!(api.count(), before, "invalid calls must not reach the API");

    // Unknown tool: a JSON-RPC error, not a tool result.
    let r = s.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );

    let stderr = s.finish();
    // --verbose: one line per request, credentials hidden.
    assert!(
        stderr.contains(&format!(
            "GET {}/search?tag=a&tag=b%20c&ids=1,2&limit=5&filter[color]=red&api_key=*** -> 200 (",
            api.base
        )),
        "{stderr}"
    );
    assert!(stderr.contains("/missing -> 404 ("), "{stderr}");
    for (_, secret) in ENV {
        assert!(
            !stderr.contains(secret),
            "a credential leaked to stderr:\n{stderr}"
        );
    }
    assert!(
        stderr.contains("credentials from OPENAPI_MCP_QUERYKEY"),
        "{stderr}"
    );
}

#[test]
fn timeout_is_a_tool_error_and_the_server_goes_on() {
    let api = Api::start();
    let mut s = Session::start(&["--base-url", &api.base, "--timeout", "1"], &[]);
    s.initialize();
    let started = Instant::now();
    let r = s.call("slow", json!({}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("timed out after 1 s"), "{r}");
    assert!(
        started.elapsed() < Duration::from_millis(2900),
        "the timeout was not applied"
    );
    let r = s.call("get_file", json!({"id": "1"}));
    assert!(!is_error(&r), "{r}");
    s.finish();
}

#[test]
fn network_failure_is_a_tool_error() {
    // A server that closes every connection without answering.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            drop(stream);
        }
    });
    let base = format!("http://127.0.0.1:{port}/v1");
    let mut s = Session::start(&["--base-url", &base], ENV);
    s.initialize();
    let r = s.call("search", json!({"limit": 1}));
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).starts_with(&format!("GET {base}/search?limit=1&api_key=*** failed: ")),
        "{r}"
    );
    assert!(!r.to_string().contains("qk-789"), "{r}");
    let stderr = s.finish();
    assert!(!stderr.contains("qk-789"));
}

/// Run `cmd` with no standard input, killing it after 20 s.
fn run_bounded(cmd: &mut Command) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + WAIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{cmd:?} did not exit within {WAIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn startup_errors_are_clear() {
    let out = run_bounded(binary().args(["serve", SPEC]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("server URL \"/v1\" is relative; pass --base-url"),
        "{stderr}"
    );

    let out = run_bounded(binary().args(["serve", "-"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SPEC must be a file"));

    let out = run_bounded(binary().args([
        "serve",
        SPEC,
        "--base-url",
        "http://h",
        "--header",
        "no-colon",
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--header"));
}

#[test]
fn stdin_closed_before_initialize_exits() {
    let out = run_bounded(binary().args(["serve", SPEC, "--base-url", "http://127.0.0.1:9"]));
    assert!(
        out.stdout.is_empty(),
        "nothing but protocol on stdout: {:?} {:?}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.code().is_some());
}

// ---------------------------------------------------------------------------------------------
// What an argument, an upstream or a sloppy spec may not bend (specs/serve/attack.yaml).

const ATTACK: &str = "specs/serve/attack.yaml";

#[test]
fn a_path_argument_cannot_change_the_host_or_leave_the_prefix() {
    let api = Api::start();
    // No path prefix: `{id}` joined straight to `http://127.0.0.1:PORT` would extend the port.
    let mut s = Session::start_spec(ATTACK, &["--base-url", api.origin()], &[]);
    s.initialize();
    for (id, target) in [
        ("0", "/0"),
        (".evil.example", "/.evil.example"),
        ("@x", "/%40x"),
    ] {
        let before = api.count();
        s.call("bare", json!({ "id": id }));
        assert_eq!(api.count(), before + 1, "{id}: the request went elsewhere");
        assert_eq!(api.last().target, target);
    }
    s.finish();
    // With a prefix, it is kept.
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base], &[]);
    s.initialize();
    s.call("bare", json!({"id": "0"}));
    assert_eq!(api.last().target, "/v1/0");
    s.finish();
}

#[test]
fn dot_segments_are_refused_before_sending() {
    let api = Api::start();
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base], &[]);
    s.initialize();
    for (tool, args, argument) in [
        ("tfile_content", json!({"path": ".."}), "path"),
        ("tfile_content", json!({"path": "a/../../x"}), "path"),
        ("labelled", json!({"ids": [""]}), "ids"),
        ("labelled", json!({"ids": ["", ""]}), "ids"),
        ("bare", json!({"id": ".."}), "id"),
    ] {
        let r = s.call(tool, args.clone());
        assert!(is_error(&r), "{tool} {args}: {r}");
        assert!(text(&r).contains(&format!("argument `{argument}`")), "{r}");
        assert!(text(&r).contains("`..`"), "{r}");
    }
    assert_eq!(api.count(), 0, "nothing may be sent");
    s.call("labelled", json!({"ids": ["a", "b"]}));
    assert_eq!(api.last().target, "/v1/label/.a.b");
    s.finish();
}

impl Session {
    /// Call `name` with `arguments` written as they are (JSON text that `json!` cannot hold).
    fn call_raw(&mut self, name: &str, arguments: &str) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
        );
        self.send_raw(format!("{line}\n").as_bytes());
        let r = self.answer(&json!(id));
        assert!(r.get("error").is_none(), "{name}: JSON-RPC error {r}");
        r["result"].clone()
    }
}

#[test]
fn integers_beyond_64_bits_are_refused_and_nothing_is_sent() {
    let api = Api::start();
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base, "--verbose"], &[]);
    s.initialize();
    // 2^70 in the path, -2^63 - 1 in the query, 2^64 in the body: each as JSON reads it.
    for (arguments, argument, read) in [
        (
            r#"{"id": 1180591620717411303424}"#,
            "id",
            "1.1805916207174113e+21",
        ),
        (
            r#"{"id": 1, "step": -9223372036854775809}"#,
            "step",
            "-9.223372036854776e+18",
        ),
        (
            r#"{"id": 1, "value": 18446744073709551616}"#,
            "value",
            "1.8446744073709552e+19",
        ),
    ] {
        let r = s.call_raw("set_counter", arguments);
        assert!(is_error(&r), "{arguments}: {r}");
        let expected = format!(
            "argument `{argument}`: integer {read} is beyond 64 bits and cannot be sent exactly"
        );
        assert!(text(&r).contains(&expected), "{r}");
    }
    assert_eq!(api.count(), 0, "nothing may be sent");
    // The 64-bit extremes go out exactly, and a `number` keeps a large float.
    s.call_raw(
        "set_counter",
        r#"{"id": 18446744073709551615, "step": -9223372036854775808, "value": 9223372036854775807, "scale": 1.5e300}"#,
    );
    let sent = api.last();
    assert_eq!(
        sent.target,
        "/v1/counters/18446744073709551615?step=-9223372036854775808"
    );
    assert_eq!(
        String::from_utf8_lossy(&sent.body),
        r#"{"value":9223372036854775807,"scale":1.5e+300}"#
    );
    let log = s.finish();
    assert_eq!(
        log.matches("openapi-mcp: refused: a call to `set_counter`: ")
            .count(),
        3,
        "{log}"
    );
}

#[test]
fn validation_past_its_work_budget_is_refused_and_nothing_is_sent() {
    let api = Api::start();
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base, "--verbose"], &[]);
    s.initialize();
    // Each string takes `^(a|aa)+\1$` past the backtracking limit: without a bound, minutes.
    let hostile: Vec<String> = (0..1000)
        .map(|i| format!("{}!", "a".repeat(100 + i)))
        .collect();
    let r = s.call("tag_all", json!({ "tags": hostile }));
    assert!(is_error(&r), "{r}");
    assert!(
        text(&r).starts_with("validation of argument `tags` exceeded its work budget"),
        "{r}"
    );
    assert_eq!(api.count(), 0, "nothing may be sent");
    s.call("tag_all", json!({"tags": ["aa", "aaaa"]}));
    assert_eq!(api.last().body, br#"{"tags":["aa","aaaa"]}"#);
    let log = s.finish();
    assert!(
        log.contains("openapi-mcp: refused: a call to `tag_all`: validation of argument `tags`"),
        "{log}"
    );
}

#[test]
fn cookie_keys_cannot_add_or_shadow_a_cookie() {
    let api = Api::start();
    let env = [
        ("OPENAPI_MCP_SID", "REALSESSION-1"),
        ("OPENAPI_MCP_QKEY", "qk-12345678"),
    ];
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base], &env);
    s.initialize();
    s.call(
        "prefs",
        json!({"prefs": {"x=1; sid": "attacker", "lang": "en"}}),
    );
    // The credential comes first: back ends that keep the first of two names keep it.
    assert_eq!(
        api.last().header("Cookie"),
        Some("sid=REALSESSION-1; x%3D1%3B%20sid=attacker; lang=en")
    );
    // An argument cookie named like the credential, as written or as PHP reads names, is
    // refused and nothing is sent.
    let before = api.count();
    let r = s.call("prefs", json!({"prefs": {"sid": "evil", "lang": "en"}}));
    assert!(is_error(&r), "{r}");
    assert!(r.to_string().contains("credential cookie"), "{r}");
    assert_eq!(api.count(), before, "nothing was sent");
    s.finish();
    // A session cookie given with --header wins over an argument of that name.
    let mut s = Session::start_spec(
        ATTACK,
        &[
            "--base-url",
            &api.base,
            "--header",
            "Cookie: sid=OPERATOR-SESSION",
        ],
        &[],
    );
    s.initialize();
    s.call("prefs", json!({"prefs": {"sid": "evil", "lang": "en"}}));
    assert_eq!(
        api.last().header("Cookie"),
        Some("sid=OPERATOR-SESSION; lang=en")
    );
    s.finish();
}

#[test]
fn credentials_never_reach_the_client_or_the_log() {
    let api = Api::start();
    let origin = api.origin().strip_prefix("http://").unwrap();
    let base = format!("http://ann:pw%40Secret-77@{origin}/v1");
    // The query key has characters that are percent-encoded when sent; the cookie is short.
    let env = [
        ("OPENAPI_MCP_SID", "s1d"),
        ("OPENAPI_MCP_QKEY", "q k/ey+99887766"),
    ];
    let mut s = Session::start_spec(
        ATTACK,
        &[
            "--base-url",
            &base,
            "--header",
            "X-Auth-Token: hdr-token-999888",
            "--header",
            "X-Tenant: acme-tenant",
            "--header",
            "X-Custom: custom-secret-5544",
            "--secret-header",
            "x-custom",
            "--verbose",
        ],
        &env,
    );
    s.initialize();
    let forms = [
        "s1d",
        "q k/ey+99887766",
        "q%20k%2Fey%2B99887766",
        "hdr-token-999888",
        "custom-secret-5544",
        "Secret-77",
        "pw%40Secret-77",
        "pw@Secret-77",
    ];
    let basic = base64::engine::general_purpose::STANDARD.encode("ann:pw@Secret-77");
    let sent_basic = base64::engine::general_purpose::STANDARD.encode("ann:pw%40Secret-77");
    let secrets: Vec<&str> = forms
        .iter()
        .copied()
        .chain([basic.as_str(), sent_basic.as_str()])
        .collect();
    let no_secret_in = |text: &str, place: &str| {
        for secret in &secrets {
            assert!(!text.contains(secret), "{secret} reached {place}: {text}");
        }
    };
    // A 200 body echoing the request: text and structuredContent (after outputSchema checks).
    let r = s.call("echo", json!({}));
    assert!(!is_error(&r), "{r}");
    let q = api.last();
    assert!(
        q.target.contains("api_key=q%20k%2Fey%2B99887766"),
        "{}",
        q.target
    );
    assert_eq!(q.header("X-Tenant"), Some("acme-tenant"));
    // The client sends the userinfo as Basic credentials (as written in the URL).
    assert_eq!(
        q.header("Authorization"),
        Some(format!("Basic {sent_basic}").as_str())
    );
    let shown = r.to_string();
    no_secret_in(&shown, "the client");
    assert!(
        shown.contains("acme-tenant"),
        "an ordinary header is not masked: {shown}"
    );
    assert!(
        r["structuredContent"]["target"]
            .as_str()
            .unwrap()
            .contains("api_key=***"),
        "{r}"
    );
    // An error whose excerpt ends inside the echoed credentials.
    let r = s.call("echo_error", json!({}));
    assert!(is_error(&r), "{r}");
    let shown = r.to_string();
    no_secret_in(&shown, "the client");
    assert!(shown.contains("api_key=***"), "{shown}");
    for piece in ["q%20k", "hdr-token", "custom-secret", "Secret-7"] {
        assert!(
            !shown.contains(piece),
            "half a credential ({piece}) in {shown}"
        );
    }
    let stderr = s.finish();
    no_secret_in(&stderr, "the log");
    assert!(
        stderr.contains("credentials are sent to http://127.0.0.1:"),
        "start-up names where credentials go: {stderr}"
    );
    assert!(
        stderr.contains("the credential from OPENAPI_MCP_SID is shorter than 8 characters"),
        "{stderr}"
    );
}

#[test]
fn headers_and_the_base_url_can_come_from_the_environment_or_a_file() {
    let api = Api::start();
    let origin = api.origin().strip_prefix("http://").unwrap();
    let base = format!("http://ann:env-pass-97531@{origin}/v1");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("headers.txt");
    std::fs::write(
        &file,
        "# for the test\n\nX-File-Secret: file-secret-24680\r\nX-Both: from-the-file-1357\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let env = [
        ("OPENAPI_MCP_BASE_URL", base.as_str()),
        (
            "OPENAPI_MCP_HEADERS",
            "X-Env-Token: env-token-86420\nX-Both: from-the-env-0000\nX-Plain: env-plain-11223",
        ),
    ];
    let mut s = Session::start_spec(
        ATTACK,
        &[
            "--header-file",
            file,
            "--header",
            "X-Tenant: acme-tenant",
            "--header",
            "X-Plain: flag-wins-4455",
            "--verbose",
        ],
        &env,
    );
    s.initialize();
    let r = s.call("echo", json!({}));
    assert!(!is_error(&r), "{r}");
    let q = api.last();
    assert_eq!(q.header("X-Env-Token"), Some("env-token-86420"));
    assert_eq!(q.header("X-File-Secret"), Some("file-secret-24680"));
    // A file comes after the variable, the command line after both.
    assert_eq!(q.header("X-Both"), Some("from-the-file-1357"));
    assert_eq!(q.header("X-Plain"), Some("flag-wins-4455"));
    assert_eq!(q.header("X-Tenant"), Some("acme-tenant"));
    let basic = base64::engine::general_purpose::STANDARD.encode("ann:env-pass-97531");
    assert_eq!(
        q.header("Authorization"),
        Some(format!("Basic {basic}").as_str())
    );
    // Every value from the variable or the file is a credential, whatever its name.
    let secrets = [
        "env-token-86420",
        "file-secret-24680",
        "from-the-file-1357",
        "env-pass-97531",
        basic.as_str(),
    ];
    let shown = r.to_string();
    for secret in secrets {
        assert!(
            !shown.contains(secret),
            "{secret} reached the client: {shown}"
        );
    }
    assert!(shown.contains("acme-tenant"), "{shown}");
    let log = s.finish();
    for secret in secrets {
        assert!(!log.contains(secret), "{secret} reached the log: {log}");
    }
    for line in [
        "openapi-mcp: base URL from OPENAPI_MCP_BASE_URL",
        "openapi-mcp: headers X-Env-Token, X-Both, X-Plain from OPENAPI_MCP_HEADERS",
        &format!("openapi-mcp: headers X-File-Secret, X-Both from --header-file {file}"),
        "credentials are sent to http://127.0.0.1:",
    ] {
        assert!(log.contains(line), "{line:?} missing: {log}");
    }

    // An unreadable file, a bad line and a bad URL stop the start (exit 2), naming where they
    // came from and never quoting the value.
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_str().unwrap();
    let out = run_bounded(binary().args(["serve", ATTACK, "--header-file", missing]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("--header-file {missing}: cannot read it")),
        "{stderr}"
    );
    let out = run_bounded(
        binary()
            .args(["serve", ATTACK, "--base-url", "http://127.0.0.1:9"])
            .env("OPENAPI_MCP_HEADERS", "X-Ok: fine\nbad-line-secret-8642"),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("OPENAPI_MCP_HEADERS line 2: no `:`"),
        "{stderr}"
    );
    assert!(!stderr.contains("bad-line-secret-8642"), "{stderr}");
    let out = run_bounded(
        binary()
            .args(["serve", ATTACK])
            .env("OPENAPI_MCP_BASE_URL", "ftp://ann:url-secret-7531@h"),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("OPENAPI_MCP_BASE_URL: expected an absolute http:// or https:// URL"),
        "{stderr}"
    );
    assert!(!stderr.contains("url-secret-7531"), "{stderr}");
}

#[test]
fn every_json_rpc_line_gets_an_answer() {
    let mut s = Session::start_spec(ATTACK, &["--base-url", "http://127.0.0.1:9"], &[]);
    s.initialize();
    s.send_raw(b"this is not json\n");
    let r = s.answer(&Value::Null);
    assert_eq!(r["error"]["code"], -32700, "{r}");
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\xff\xfe}\n");
    let r = s.answer(&json!(1));
    assert_eq!(r["error"]["code"], -32700, "{r}");
    // Valid JSON that serde refuses keeps the request's id, so the client's call ends.
    for (id, line) in [
        (
            json!(41),
            r#"{"jsonrpc":"2.0","id":41,"method":"ping","params":{"n":1e400}}"#,
        ),
        (
            json!("s"),
            r#"{"jsonrpc":"2.0","method":"ping","params":{"a":"\ud800"},"id":"s"}"#,
        ),
    ] {
        s.send_raw(format!("{line}\n").as_bytes());
        let r = s.answer(&id);
        assert_eq!(r["error"]["code"], -32700, "{line}: {r}");
    }
    // A numeric id rmcp cannot hold (not a 64-bit integer) is refused with that id as written.
    s.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}\n");
    let r = s.answer(&json!(1.5));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    for params in [
        json!({"name": "bare", "arguments": [1]}),
        json!({"name": 5, "arguments": {}}),
        json!({"name": "bare", "arguments": "id=1"}),
        json!([]),
    ] {
        let r = s.request("tools/call", params.clone());
        assert_eq!(r["error"]["code"], -32602, "{params}: {r}");
    }
    // An unknown tool's name, of any length, is shown cut.
    let r = s.request(
        "tools/call",
        json!({"name": "n".repeat(1_000_000), "arguments": {}}),
    );
    let message = r["error"]["message"].as_str().unwrap();
    assert_eq!(r["error"]["code"], -32602, "{message}");
    assert!(
        message.len() < 1_000 && message.contains("1000000 characters"),
        "{message}"
    );
    // Over the limit: an error that says it, with the request's id.
    let mut line = br#"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"bare","arguments":{"id":""#.to_vec();
    line.extend(std::iter::repeat_n(b'a', 17 * 1024 * 1024));
    line.extend_from_slice(b"\"}}}\n");
    s.send_raw(&line);
    let r = s.answer(&json!("big"));
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        r["error"]["message"].as_str().unwrap().contains("16 MiB"),
        "{r}"
    );
    // A large request under the limit is answered, and the server goes on.
    let r = s.request(
        "tools/call",
        json!({"name": "bare", "arguments": {"id": "a".repeat(10_000_000), "x": 1}}),
    );
    assert!(is_error(&r["result"]), "{r}");
    let r = s.request("ping", json!({}));
    assert!(r.get("result").is_some(), "{r}");
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// `--dynamic`: the whole API through four tools.

fn tool_names(listed: &Value) -> Vec<String> {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn dynamic_serves_four_tools_with_enforced_hints() {
    let api = Api::start();
    let mut s = Session::start(&["--base-url", &api.base, "--dynamic"], ENV);
    s.initialize();

    let listed = s.request("tools/list", json!({}));
    assert_eq!(
        tool_names(&listed),
        [
            "search_operations",
            "describe_operation",
            "call_read_operation",
            "call_operation"
        ]
    );
    let size = serde_json::to_string(&listed["result"]).unwrap().len();
    assert!(size < 6000, "tools/list is {size} bytes");
    let hints = |i: usize| {
        let a = &listed["result"]["tools"][i]["annotations"];
        [
            a["readOnlyHint"].as_bool().unwrap(),
            a["destructiveHint"].as_bool().unwrap(),
            a["idempotentHint"].as_bool().unwrap(),
            a["openWorldHint"].as_bool().unwrap(),
        ]
    };
    assert_eq!(hints(0), [true, false, true, false], "search_operations");
    assert_eq!(hints(1), [true, false, true, false], "describe_operation");
    assert_eq!(hints(2), [true, false, true, true], "call_read_operation");
    // delete_pet is exposed, so call_operation may destroy.
    assert_eq!(hints(3), [false, true, false, true], "call_operation");

    // Search: the operation and its final hints.
    let r = s.call(
        "search_operations",
        json!({"query": "Add a new pet", "limit": 2}),
    );
    assert!(!is_error(&r), "{r}");
    let hits = r["structuredContent"]["operations"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{r}");
    assert_eq!(hits[0]["name"], "create_pet");
    assert_eq!(hits[0]["method"], "POST");
    assert_eq!(hits[0]["path"], "/pets");
    assert_eq!(hits[0]["summary"], "Create a pet");
    assert_eq!(hits[0]["annotations"]["readOnlyHint"], false);
    let r = s.call("search_operations", json!({"query": "zebra quantum"}));
    assert_eq!(r["structuredContent"]["operations"], json!([]));

    // Describe: exactly what convert emits for the operation.
    let r = s.call("describe_operation", json!({"name": "get_file"}));
    assert!(!is_error(&r), "{r}");
    let converted = convert(&[]);
    let get_file = converted["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_file")
        .unwrap();
    assert_eq!(&r["structuredContent"], get_file);

    // A read goes through call_read_operation, validated and mapped as the per-operation tool.
    let r = s.call(
        "call_read_operation",
        json!({"name": "get_file", "arguments": {"id": "a/b", "X-Trace": "t-9"}}),
    );
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["structuredContent"], json!({"id": "f-1", "size": 3}));
    let q = api.last();
    assert_eq!(
        (q.method.as_str(), q.target.as_str()),
        ("GET", "/v1/files/a%2Fb")
    );
    assert_eq!(q.header("X-Trace"), Some("t-9"));
    assert_eq!(q.header("X-API-Key"), Some("key-123"));

    // A write through call_read_operation is refused and sends nothing.
    let before = api.count();
    let r = s.call(
        "call_read_operation",
        json!({"name": "create_pet", "arguments": {"name": "Rex"}}),
    );
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("call_operation"), "{}", text(&r));
    let r = s.call(
        "call_read_operation",
        json!({"name": "delete_pet", "arguments": {"id": 3}}),
    );
    assert!(is_error(&r), "{r}");
    assert_eq!(api.count(), before, "a refused call must not reach the API");

    // Invalid arguments are refused as by the per-operation tools; unknown names too.
    for (tool, args) in [
        (
            "call_operation",
            json!({"name": "create_pet", "arguments": {}}),
        ),
        (
            "call_operation",
            json!({"name": "create_pet", "arguments": {"name": 5}}),
        ),
        (
            "call_read_operation",
            json!({"name": "get_file", "arguments": {}}),
        ),
        (
            "call_operation",
            json!({"name": "no_such_tool", "arguments": {}}),
        ),
        ("call_operation", json!({"arguments": {}})),
        ("describe_operation", json!({"name": "no_such_tool"})),
        ("search_operations", json!({"query": "pets", "limit": 0})),
    ] {
        let r = s.call(tool, args.clone());
        assert!(is_error(&r), "{tool} {args}: {r}");
    }
    let r = s.call(
        "call_operation",
        json!({"name": "create_pet", "arguments": {}}),
    );
    assert!(text(&r).contains("`name`"), "{}", text(&r));
    assert_eq!(api.count(), before, "invalid calls must not reach the API");

    // A write through call_operation is sent.
    let r = s.call(
        "call_operation",
        json!({"name": "create_pet", "arguments": {"name": "Rex", "tags": ["a"]}}),
    );
    assert!(!is_error(&r), "{r}");
    let q = api.last();
    assert_eq!((q.method.as_str(), q.target.as_str()), ("POST", "/v1/pets"));
    assert_eq!(q.body, br#"{"name":"Rex","tags":["a"]}"#);
    assert_eq!(q.header("Authorization"), Some("Bearer tok-456"));

    // Not one of the four: a protocol error, as for an unknown per-operation tool.
    let r = s.request(
        "tools/call",
        json!({"name": "get_file", "arguments": {"id": "x"}}),
    );
    assert!(r.get("error").is_some(), "{r}");
    s.finish();
}

#[test]
fn calls_beyond_the_limit_wait_and_the_server_answers_meanwhile() {
    let api = Api::start();
    let mut s = Session::start_spec(ATTACK, &["--base-url", &api.base, "--max-calls", "2"], &[]);
    s.initialize();
    let ids: Vec<u64> = (0..5)
        .map(|_| s.send_request("tools/call", json!({"name": "slow1", "arguments": {}})))
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let r = s.request("ping", json!({}));
    assert!(r.get("result").is_some(), "{r}");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "ping waited for the calls"
    );
    for id in ids {
        let r = s.answer(&json!(id));
        assert_eq!(text(&r["result"]), "late", "{r}");
    }
    assert_eq!(api.flight.most.load(Ordering::SeqCst), 2);
    s.finish();
}

/// `serve` with `--max-calls 1` (answers sent whole) whose standard output nobody reads until
/// the test takes it, initialized; its standard input.
fn unread_server(api: &Api) -> (Child, ChildStdin) {
    let mut child = binary()
        .args(["serve", SPEC, "--base-url", &api.base, "--max-calls", "1"])
        .args(["--max-result-bytes", "100000000"])
        .envs(ENV.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{initialize}").unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    (child, stdin)
}

/// A `tools/call` of `get_file` with `id`.
fn get_file(id: usize, file: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_file", "arguments": {"id": file}}})
}

/// The next `n` lines of `child`'s standard output, and how many of them contain `needle`.
fn read_answers(child: &mut Child, n: usize, needle: &str) -> (usize, usize) {
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut answered, mut matching) = (0, 0);
    let mut line = String::new();
    while answered < n && out.read_line(&mut line).unwrap() > 0 {
        answered += 1;
        matching += usize::from(line.contains(needle));
        line.clear();
    }
    (answered, matching)
}

#[test]
fn a_call_holds_its_place_until_its_answer_is_written() {
    let api = Api::start();
    let (mut child, mut stdin) = unread_server(&api);
    for id in 1..=3 {
        writeln!(stdin, "{}", get_file(id, "big")).unwrap();
    }
    // Nobody reads standard output yet: the first 8 MB answer cannot be written, so the only
    // place stays taken and the next calls are not sent.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(api.count(), 1, "calls sent while an answer was unwritten");
    // The initialize answer, then the three calls'.
    let (answered, with_pad) = read_answers(&mut child, 4, "\"pad\"");
    assert_eq!((answered, with_pad), (4, 3));
    assert_eq!(api.count(), 3);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn arguments_of_waiting_calls_are_bounded() {
    let api = Api::start();
    let (mut child, mut stdin) = unread_server(&api);
    // Its 8 MB answer is not read yet, so it keeps the only place; then nine calls with 8 MB
    // arguments: eight wait (64 MB), the ninth is refused at once.
    writeln!(stdin, "{}", get_file(1, "big")).unwrap();
    let pad = "p".repeat(8_000_000);
    for id in 2..=10 {
        writeln!(stdin, "{}", get_file(id, &pad)).unwrap();
    }
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let (answered, refused) = read_answers(&mut child, 11, "too many calls are waiting");
    assert_eq!(answered, 11);
    assert_eq!(refused, 1);
    drop(stdin);
    let _ = child.wait();
}

#[test]
fn tools_list_pages_join_to_the_full_list() {
    let full = convert(&[]);
    let mut s = Session::start(
        &["--base-url", "http://127.0.0.1:9/v1", "--page-size", "2"],
        &[],
    );
    s.initialize();
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let r = s.request("tools/list", params);
        let page = r["result"]["tools"].as_array().unwrap().clone();
        assert!(page.len() <= 2, "{r}");
        tools.extend(page);
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(Value::Array(tools), full["tools"]);
    let r = s.request("tools/list", json!({"cursor": "nope"}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    s.finish();
}

#[test]
fn an_empty_path_parameter_is_refused_and_nothing_is_sent() {
    let api = Api::start();
    let mut s = Session::start(&["--base-url", &api.base], ENV);
    s.initialize();
    let r = s.call("get_file", json!({"id": ""}));
    assert!(is_error(&r), "{r}");
    assert!(r.to_string().contains("empty"), "{r}");
    assert_eq!(api.count(), 0, "nothing reaches the API");
    s.finish();
}

#[test]
fn a_password_in_the_documents_server_url_is_never_shown() {
    let api = Api::start();
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("api.yaml");
    let port = api
        .base
        .rsplit(':')
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let pass = "Spec-Pass-8837";
    std::fs::write(
        &spec,
        format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\n\
             servers: [{{url: 'http://ann:{pass}@127.0.0.1:{port}/v1'}}]\n\
             paths:\n  /files/{{id}}:\n    get:\n      operationId: getFile\n      \
             parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]\n      \
             responses: {{'200': {{description: ok}}}}\n"
        ),
    )
    .unwrap();
    let spec = spec.to_str().unwrap();
    for dynamic in [false, true] {
        let args: &[&str] = if dynamic { &["--dynamic"] } else { &[] };
        let mut s = Session::start_spec(spec, args, &[]);
        s.initialize();
        let listed = s.request("tools/list", json!({})).to_string();
        assert!(!listed.contains(pass), "tools/list: {listed}");
        if dynamic {
            let d = s.call("describe_operation", json!({"name": "get_file"}));
            assert!(!d.to_string().contains(pass), "describe_operation: {d}");
            assert!(d.to_string().contains("ann:***@127.0.0.1"), "{d}");
        } else {
            assert!(listed.contains("ann:***@127.0.0.1"), "{listed}");
            // The real URL is still the one called, with the password as Basic credentials.
            let r = s.call("get_file", json!({"id": "7"}));
            assert!(!r.to_string().contains(pass), "{r}");
            assert!(
                api.last().target.ends_with("/v1/files/7"),
                "{}",
                api.last().target
            );
            assert!(
                api.last()
                    .header("Authorization")
                    .is_some_and(|h| h.starts_with("Basic "))
            );
        }
        let stderr = s.finish();
        assert!(!stderr.contains(pass), "the log: {stderr}");
    }
}

#[test]
fn dynamic_keeps_filters_and_reviewed_hints() {
    let api = Api::start();
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    // login is a POST: read-only only where a person reviewed it so.
    let write_hints = |reviewed: bool| {
        std::fs::write(
            &hints,
            format!(
                "tools:\n  login:\n    operation: \"POST /login\"\n    readOnlyHint: true\n    \
                 destructiveHint: false\n    openWorldHint: false\n    reviewed: {reviewed}\n"
            ),
        )
        .unwrap();
    };
    let login = json!({"name": "login", "arguments": {"username": "ann", "password": "p"}});

    write_hints(false);
    let hints_arg = hints.to_str().unwrap();
    let mut s = Session::start(
        &["--base-url", &api.base, "--dynamic", "--hints", hints_arg],
        ENV,
    );
    s.initialize();
    let before = api.count();
    let r = s.call("call_read_operation", login.clone());
    assert!(
        is_error(&r),
        "an unreviewed read-only guess is refused: {r}"
    );
    assert!(text(&r).contains("call_operation"), "{}", text(&r));
    assert_eq!(api.count(), before);
    s.finish();

    write_hints(true);
    let mut s = Session::start(
        &["--base-url", &api.base, "--dynamic", "--hints", hints_arg],
        ENV,
    );
    s.initialize();
    let r = s.call("call_read_operation", login);
    assert!(!is_error(&r), "a reviewed read-only operation runs: {r}");
    assert_eq!(api.last().target, "/v1/login");
    s.finish();

    // Filters: only the exposed operations can be searched, described or called.
    let mut s = Session::start(
        &["--base-url", &api.base, "--dynamic", "--methods", "get"],
        ENV,
    );
    s.initialize();
    let listed = s.request("tools/list", json!({}));
    // No DELETE exposed: call_operation is not destructive.
    assert_eq!(
        listed["result"]["tools"][3]["annotations"]["destructiveHint"],
        false
    );
    let r = s.call("search_operations", json!({"query": "create a pet"}));
    let hits = r["structuredContent"]["operations"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["method"] == "GET"), "{r}");
    let before = api.count();
    let r = s.call(
        "call_operation",
        json!({"name": "create_pet", "arguments": {"name": "Rex"}}),
    );
    assert!(is_error(&r), "{r}");
    let r = s.call("describe_operation", json!({"name": "create_pet"}));
    assert!(is_error(&r), "{r}");
    assert_eq!(api.count(), before);
    s.finish();
}

/// OAuth2 client credentials over stdio: the token is fetched from the flow's token endpoint once,
/// sent as a bearer token, and masked in results.
#[test]
fn oauth_client_credentials_over_stdio() {
    let api = Api::start();
    let token_url = format!("{}/token", api.origin());
    let mut s = Session::start_spec(
        "specs/serve/oauth.yaml",
        &["--base-url", &api.base],
        &[
            ("OPENAPI_MCP_CC_CLIENT_ID", "stdio-client"),
            ("OPENAPI_MCP_CC_CLIENT_SECRET", "stdio-secret-123"),
            ("OPENAPI_MCP_CC_TOKEN_URL", &token_url),
        ],
    );
    s.initialize();
    for _ in 0..2 {
        let r = s.call("echo", json!({}));
        assert!(!is_error(&r), "{r}");
        assert!(!r.to_string().contains("stdio-tok-123456789"), "{r}");
        assert!(text(&r).contains("Bearer ***"), "{r}");
    }
    let requests = api.requests.lock().unwrap().clone();
    let tokens: Vec<_> = requests.iter().filter(|r| r.target == "/token").collect();
    assert_eq!(tokens.len(), 1, "one token for two calls");
    assert_eq!(
        String::from_utf8_lossy(&tokens[0].body),
        "grant_type=client_credentials&scope=read"
    );
    assert_eq!(
        api.last().header("authorization"),
        Some("Bearer stdio-tok-123456789")
    );
    let err = s.finish();
    assert!(err.contains("OAuth2 client credentials"), "{err}");
    assert!(
        !err.contains("stdio-secret-123") && !err.contains("stdio-tok-123456789"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------------
// Answers that are not JSON (specs/serve/media.yaml, tests/it/common/media.rs).

fn media_session(media: &common::media::Media, extra: &[&str]) -> Session {
    let mut args = vec!["--base-url", media.base.as_str()];
    args.extend_from_slice(extra);
    let mut s = Session::start_spec(common::media::SPEC, &args, &[]);
    s.initialize();
    s
}

fn decoded(data: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data.as_str().expect("base64 text"))
        .expect("valid base64")
}

/// An image, audio and a gzip archive come back as image, audio and embedded resource content:
/// the same bytes after base64 decoding, with their media type; the resource's `uri` is the
/// request URL.
#[test]
fn binary_answers_are_image_audio_and_resource_content() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &[]);
    let r = s.call("get_media", json!({"name": "png"}));
    assert!(!is_error(&r), "{r}");
    let image = &r["content"][0];
    assert_eq!(image["type"], "image", "{r}");
    assert_eq!(image["mimeType"], "image/png");
    assert_eq!(decoded(&image["data"]), common::media::png());
    assert!(text(&json!({"content": [r["content"][1]]})).contains("image/png, 716 bytes"));

    let r = s.call("get_media", json!({"name": "wav"}));
    assert_eq!(r["content"][0]["type"], "audio", "{r}");
    assert_eq!(r["content"][0]["mimeType"], "audio/wav");
    assert_eq!(decoded(&r["content"][0]["data"]), common::media::wav());

    let r = s.call("get_media", json!({"name": "tgz"}));
    let resource = &r["content"][0];
    assert_eq!(resource["type"], "resource", "{r}");
    assert_eq!(resource["resource"]["mimeType"], "application/gzip");
    assert_eq!(
        resource["resource"]["uri"],
        format!("{}/media/tgz", media.base)
    );
    assert_eq!(
        decoded(&resource["resource"]["blob"]),
        common::media::gzip()
    );
    s.finish();
}

/// CSV and Latin-1 text come back as text (decoded to UTF-8); a CSV over the result budget is
/// cut, within the budget, with a line saying so.
#[test]
fn text_answers_are_decoded_and_cut_to_the_budget() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &[]);
    let r = s.call("get_media", json!({"name": "csv"}));
    assert_eq!(text(&r), common::media::csv(3), "{r}");
    let r = s.call("get_media", json!({"name": "latin1"}));
    assert_eq!(text(&r), "Café crème £5 ±1", "{r}");
    let r = s.call("get_media", json!({"name": "big.csv"}));
    assert!(!is_error(&r), "{r}");
    let size = serde_json::to_vec(&r).unwrap().len();
    assert!(size <= 40_000 && size > 39_000, "{size} bytes");
    let cut = text(&r);
    assert!(cut.starts_with("id,name,city\n0,pet 0,Zürich\n"), "{cut}");
    assert!(cut.contains("characters sent, to stay within the result budget of 40000 bytes"));
    s.finish();
}

/// A JSON answer with more values than serve builds a tree of (1.5 million small integers, 3 MB)
/// gets a text saying its size and that it is too large to shape, nothing of it; the server
/// goes on, and a JSON answer under the cap (100,000 integers) is still cut to the budget.
#[test]
fn a_json_answer_of_too_many_values_is_described_not_shaped() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &[]);
    let r = s.call("get_media", json!({"name": "many.json"}));
    assert!(!is_error(&r), "{r}");
    let said = text(&r);
    let bytes = common::media::ints(common::media::MANY_INTS).len();
    assert!(
        said.contains(&format!("JSON answer ({} bytes", thousands(bytes)))
            && said.contains("more than 1,000,000 JSON values")
            && said.contains("too large to shape")
            && said.contains("smaller page"),
        "{said}"
    );
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert!(serde_json::to_vec(&r).unwrap().len() < 1000, "{r}");
    let r = s.call("get_media", json!({"name": "some.json"}));
    assert!(!is_error(&r), "{r}");
    let size = serde_json::to_vec(&r).unwrap().len();
    assert!(size <= 40_000 && size > 30_000, "{size} bytes");
    assert!(!text(&r).contains("too large to shape"), "{r}");
    let r = s.call("get_media", json!({"name": "csv"}));
    assert_eq!(text(&r), common::media::csv(3), "{r}");
    s.finish();
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An image whose base64 would not fit the budget is not sent: a text says what it was, how big,
/// and how to raise the budget.
#[test]
fn an_image_over_the_budget_is_described_not_sent() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &[]);
    let r = s.call("get_media", json!({"name": "big.png"}));
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "{r}");
    let said = text(&r);
    assert!(
        said.contains("an image (image/png, 56320 bytes) was not sent"),
        "{said}"
    );
    assert!(said.contains("--max-result-bytes"), "{said}");
    // With a larger budget it comes whole.
    let mut s = media_session(&media, &["--max-result-bytes", "100000"]);
    let r = s.call("get_media", json!({"name": "big.png"}));
    assert_eq!(decoded(&r["content"][0]["data"]).len(), 56_320, "{r}");
    s.finish();
}

/// An event stream that stays open is answered within a few seconds (well before the request
/// timeout) with the events so far, and its connection is closed.
#[test]
fn an_open_event_stream_is_answered_with_the_events_so_far() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &["--timeout", "30"]);
    let started = Instant::now();
    let r = s.call("get_media", json!({"name": "events"}));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(6), "answered after {took:?}");
    assert!(!is_error(&r), "{r}");
    let note = text(&r);
    assert!(note.contains("event stream, 2 events"), "{note}");
    assert!(note.contains("still open"), "{note}");
    assert_eq!(
        r["content"][1]["text"],
        "event: progress\nid: 1\ndata: {\"step\":1}\n\nevent: message\ndata: line one\ndata: line two\n",
        "{r}"
    );
    let open = media
        .closed
        .recv_timeout(Duration::from_secs(10))
        .expect("the stream's connection was closed");
    assert!(open < Duration::from_secs(5), "closed after {open:?}");
    s.finish();
}

/// An event stream that keeps sending is read up to the result budget and answered with the
/// events that fit, cut within the budget (not dropped for being over it).
#[test]
fn a_flooding_event_stream_returns_the_events_that_fit() {
    let media = common::media::Media::start();
    for budget in ["40000", "5000"] {
        let mut s = media_session(&media, &["--max-result-bytes", budget]);
        let r = s.call("get_media", json!({"name": "flood"}));
        assert!(!is_error(&r), "{r}");
        assert!(
            size(&r) <= budget.parse().unwrap(),
            "{} bytes: {r}",
            size(&r)
        );
        let note = text(&r);
        assert!(
            note.contains("reading stopped at the result budget"),
            "{note}"
        );
        let events = r["content"][1]["text"].as_str().expect("the events");
        assert!(
            events
                .starts_with("event: message\ndata: {\"n\":0}\n\nevent: message\ndata: {\"n\":1}"),
            "{r}"
        );
        assert!(events.contains("[... cut: "), "{r}");
        s.finish();
    }
}

fn token_session(media: &common::media::Media) -> Session {
    let auth = format!("Authorization: Bearer {}", common::media::TOKEN);
    media_session(media, &["--header", &auth])
}

/// A credential written with JSON escapes (`\u002B`, `\/`, lower-case hex, escaped letters) is
/// masked in an error's excerpt, in a JSON answer's text copy and in plain text.
#[test]
fn escaped_credentials_are_masked_everywhere() {
    let media = common::media::Media::start();
    let mut s = token_session(&media);
    for name in ["denied", "escaped.json", "escaped.txt"] {
        let r = s.call("get_media", json!({"name": name}));
        let all = r.to_string();
        assert!(all.contains("***"), "{name}: {r}");
        for piece in ["7Lx9Rt2Vb5N", "Zq8"] {
            assert!(!all.contains(piece), "{name}: {piece} in {r}");
        }
    }
    let r = s.call("get_media", json!({"name": "denied"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("invalid token ***"), "{r}");
    let r = s.call("get_media", json!({"name": "escaped.json"}));
    assert_eq!(r["structuredContent"]["token"], "***", "{r}");
    assert_eq!(text(&r), r#"{"token":"***"}"#, "{r}");
    s.finish();
}

/// Textual media types that are not `text/*` (NDJSON, a JWT), and any body that is UTF-8 text
/// whatever its type, are text with the credential masked, not an unmasked blob.
#[test]
fn textual_answers_of_any_type_are_masked_text() {
    let media = common::media::Media::start();
    let mut s = token_session(&media);
    for name in ["token.ndjson", "token.jwt", "token.bin"] {
        let r = s.call("get_media", json!({"name": name}));
        assert!(!is_error(&r), "{r}");
        assert_eq!(r["content"][0]["type"], "text", "{name}: {r}");
        let all = r.to_string();
        assert!(all.contains("***"), "{name}: {r}");
        assert!(!all.contains("7Lx9Rt2Vb5N"), "{name}: {r}");
    }
    // Binary bytes stay a blob resource.
    let r = s.call("get_media", json!({"name": "tgz"}));
    assert_eq!(r["content"][0]["type"], "resource", "{r}");
    s.finish();
}

/// `--dynamic`'s call tools answer through the same path: an image is image content.
#[test]
fn dynamic_calls_return_the_same_content() {
    let media = common::media::Media::start();
    let mut s = media_session(&media, &["--dynamic"]);
    let r = s.call(
        "call_read_operation",
        json!({"name": "get_media", "arguments": {"name": "png"}}),
    );
    assert_eq!(r["content"][0]["type"], "image", "{r}");
    assert_eq!(decoded(&r["content"][0]["data"]), common::media::png());
    let r = s.call(
        "call_read_operation",
        json!({"name": "get_media", "arguments": {"name": "big.png"}}),
    );
    assert!(text(&r).contains("was not sent"), "{r}");
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Results over the budget (specs/serve/pages.yaml, tests/it/common/pages.rs).

fn pages_session(pages: &common::pages::Pages, extra: &[&str]) -> Session {
    let mut args = vec!["--base-url", pages.base.as_str()];
    args.extend_from_slice(extra);
    let mut s = Session::start_spec(common::pages::SPEC, &args, &[]);
    s.initialize();
    s
}

fn size(result: &Value) -> usize {
    serde_json::to_vec(result).unwrap().len()
}

/// The JSON object a note tells the model to call again with, after `call again with `.
fn again(note: &str) -> Value {
    let start = note.find("call again with {").expect("a continuation") + 16;
    let mut depth = 0;
    for (i, c) in note[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return serde_json::from_str(&note[start..start + i + 1]).unwrap();
                }
            }
            _ => {}
        }
    }
    panic!("no object in {note}")
}

/// A page of 100 issues (about 50 KB, with a `Link` header) is cut to the budget: the note says
/// how many were sent and the arguments of a smaller page that starts at the first one not
/// sent; that call answers exactly the next issues, whole. A page sent whole (long bodies
/// shortened) names the next page from the `Link` header: only the argument that changes.
#[test]
fn a_long_list_is_cut_and_continued_from_its_link_header() {
    let pages = common::pages::Pages::start();
    let mut s = pages_session(&pages, &[]);
    let r = s.call(
        "list_issues",
        json!({"state": "open", "page": 1, "per_page": 100}),
    );
    assert!(!is_error(&r), "{r}");
    assert!(size(&r) <= 40_000, "{} bytes", size(&r));
    let items = r["structuredContent"]["result"].as_array().unwrap();
    let kept = items.len();
    assert!(kept > 10 && kept < 100, "{kept}");
    assert_eq!(items[kept - 1]["number"], kept - 1);
    let note = text(&r);
    assert!(note.contains(&format!("{kept} of 100 items")), "{note}");
    // The note is in structuredContent too: Claude Code shows the model only that.
    assert_eq!(r["structuredContent"]["_budget_note"], note);
    let next = again(&note);
    assert_eq!(next, json!({"page": 2, "per_page": kept}), "{note}");
    let copy: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(copy.as_array().unwrap().len(), kept);

    let mut args = json!({"state": "open"});
    args.as_object_mut()
        .unwrap()
        .extend(next.as_object().unwrap().clone());
    let r = s.call("list_issues", args);
    let items = r["structuredContent"]["result"].as_array().unwrap();
    assert_eq!(items.len(), kept, "{r}");
    assert_eq!(items[0]["number"], kept, "the first issue not sent before");
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "sent whole: {r}");

    // Three closed issues of 30,000 characters each: all three sent, bodies shortened.
    let r = s.call(
        "list_issues",
        json!({"state": "closed", "page": 2, "per_page": 3}),
    );
    assert!(size(&r) <= 40_000, "{} bytes", size(&r));
    let items = r["structuredContent"]["result"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[2]["number"], 5);
    assert!(items[0]["body"].as_str().unwrap().contains("…[cut "), "{r}");
    let note = text(&r);
    assert!(note.contains("3 long strings were shortened"), "{note}");
    assert_eq!(again(&note), json!({"page": 3}), "{note}");
    s.finish();
}

/// A list whose body names the next cursor: cut, the note asks for a smaller page (the tool's
/// `limit`), whose answer's cursor then goes on from the first user not sent; a page sent whole
/// with shortened strings names the next cursor as the tool's `cursor` argument.
#[test]
fn a_cursor_paginated_list_names_its_next_cursor() {
    let pages = common::pages::Pages::start();
    let mut s = pages_session(&pages, &[]);
    let r = s.call("list_users", json!({"limit": 200}));
    assert!(size(&r) <= 40_000, "{} bytes", size(&r));
    let kept = r["structuredContent"]["members"].as_array().unwrap().len();
    assert!(kept > 10 && kept < 200, "{kept}");
    let note = text(&r);
    assert!(
        note.contains(&format!("{kept} of 200 items of `members`")),
        "{note}"
    );
    assert_eq!(again(&note), json!({"limit": kept}), "{note}");
    assert!(note.contains("next page"), "{note}");
    let r = s.call("list_users", json!({"limit": kept}));
    assert_eq!(
        r["structuredContent"]["response_metadata"]["next_cursor"],
        format!("u{kept}")
    );

    let r = s.call("list_users", json!({"limit": 3, "cursor": "u6"}));
    assert!(size(&r) <= 40_000, "{} bytes", size(&r));
    assert_eq!(
        r["structuredContent"]["members"].as_array().unwrap().len(),
        3
    );
    let note = text(&r);
    assert_eq!(again(&note), json!({"cursor": "u9"}), "{note}");
    s.finish();
}

/// A file with a 104,000-character content: strings without a constraint are shortened with a
/// marker, those under `pattern`, `enum`, `format` or `maxLength` are kept, and the result is
/// valid against the outputSchema `tools/list` advertises.
#[test]
fn long_strings_are_shortened_and_the_result_still_validates() {
    let pages = common::pages::Pages::start();
    let mut s = pages_session(&pages, &[]);
    let listed = s.request("tools/list", json!({}));
    let tool = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_file")
        .unwrap()
        .clone();
    let validator = jsonschema::validator_for(&tool["outputSchema"]).unwrap();
    let r = s.call("get_file", json!({"name": "notes.txt"}));
    assert!(!is_error(&r), "{r}");
    assert!(size(&r) <= 40_000, "{} bytes", size(&r));
    let file = &r["structuredContent"];
    assert!(validator.is_valid(file), "{file}");
    assert_eq!(file["sha"], common::pages::SHA);
    assert_eq!(file["encoding"], "utf-8");
    assert_eq!(file["updated"], "2026-12-07T10:00:00Z");
    assert_eq!(file["summary"], "s".repeat(300));
    let content = file["content"].as_str().unwrap();
    assert!(
        content.starts_with("line of text\nline of text\n"),
        "{content:.40}"
    );
    let marker = content.rsplit_once("…[cut ").unwrap().1;
    let cut: usize = marker
        .trim_end_matches(" characters]")
        .replace(',', "")
        .parse()
        .unwrap();
    assert_eq!(
        content.chars().count() - "…[cut ".chars().count() - marker.chars().count() + cut,
        common::pages::content().len()
    );
    assert_eq!(file["lines"][0], "first line");
    let mut copy: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert!(copy.get("_budget_note").is_none());
    copy["_budget_note"] = json!(text(&r));
    assert_eq!(&copy, file);
    assert!(text(&r).contains("long strings were shortened"), "{r}");
    s.finish();
}

/// A small answer is passed on as it came: the API's own text, no note.
#[test]
fn a_small_answer_is_unchanged() {
    let pages = common::pages::Pages::start();
    let mut s = pages_session(&pages, &[]);
    let r = s.call("list_issues", json!({"per_page": 3}));
    let items: Vec<Value> = (0..3).map(|n| common::pages::issue(n, "open")).collect();
    assert_eq!(r["structuredContent"]["result"], json!(items));
    assert_eq!(r["content"].as_array().unwrap().len(), 1);
    assert_eq!(text(&r), serde_json::to_string_pretty(&items).unwrap());
    s.finish();
}

/// `--result-copies text` (with --no-output-schema; refused without it) sends no
/// structuredContent; `structured` no text copy; one copy holds more of a cut list.
#[test]
fn result_copies_sends_one_copy() {
    let pages = common::pages::Pages::start();
    let out = run_bounded(binary().args([
        "serve",
        common::pages::SPEC,
        "--base-url",
        &pages.base,
        "--result-copies",
        "text",
    ]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--no-output-schema"), "{err}");

    let big = json!({"page": 1, "per_page": 100});
    let mut s = pages_session(&pages, &[]);
    let both = s.call("list_issues", big.clone())["structuredContent"]["result"]
        .as_array()
        .unwrap()
        .len();
    s.finish();
    let mut s = pages_session(&pages, &["--result-copies", "text", "--no-output-schema"]);
    let r = s.call("list_issues", json!({"per_page": 3}));
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert_eq!(r["content"].as_array().unwrap().len(), 1);
    let r = s.call("list_issues", big.clone());
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert!(size(&r) <= 40_000);
    let copy: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    let one = copy.as_array().unwrap().len();
    assert!(one > both * 3 / 2, "{one} with one copy, {both} with two");
    assert!(text(&r).contains(&format!("{one} of 100 items")), "{r}");
    s.finish();
    let mut s = pages_session(&pages, &["--result-copies", "structured"]);
    let r = s.call("list_issues", json!({"per_page": 3}));
    assert_eq!(
        r["structuredContent"]["result"].as_array().unwrap().len(),
        3
    );
    assert_eq!(r["content"], json!([]), "{r}");
    let r = s.call("list_issues", big);
    let kept = r["structuredContent"]["result"].as_array().unwrap().len();
    assert!(kept > both * 3 / 2, "{kept}");
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "the note only");
    s.finish();
}

/// A hints entry's `maxResultBytes` raises that tool's budget (the 50 KB page comes whole), is
/// written as `_meta["anthropic/maxResultSizeChars"]` by `convert`, and `tools/list` is the same.
#[test]
fn max_result_bytes_in_the_hints_file_raises_the_tools_budget() {
    let pages = common::pages::Pages::start();
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::write(
        &hints,
        "tools:\n  list_issues:\n    maxResultBytes: 200000\n    reviewed: true\n",
    )
    .unwrap();
    let hints = hints.to_str().unwrap();
    let out = binary()
        .args(["convert", common::pages::SPEC, "--hints", hints])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let converted: Value = serde_json::from_slice(&out.stdout).unwrap();
    let meta = |tools: &Value, name: &str| {
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["_meta"]
            .clone()
    };
    assert_eq!(
        meta(&converted, "list_issues")["anthropic/maxResultSizeChars"],
        200_000
    );
    assert!(
        meta(&converted, "list_users")
            .get("anthropic/maxResultSizeChars")
            .is_none()
    );

    let mut s = pages_session(&pages, &["--hints", hints]);
    let listed = s.request("tools/list", json!({}));
    assert_eq!(listed["result"], converted);
    let r = s.call("list_issues", json!({"per_page": 100}));
    assert_eq!(
        r["structuredContent"]["result"].as_array().unwrap().len(),
        100
    );
    assert!(size(&r) > 40_000 && size(&r) <= 200_000, "{}", size(&r));
    // Other tools keep --max-result-bytes.
    let r = s.call("list_users", json!({"limit": 200}));
    assert!(size(&r) <= 40_000);
    s.finish();
}

const FIELDS: &str = "specs/serve/fields.yaml";

/// A tool by name from a `tools/list` answer.
fn listed_tool(listed: &Value, name: &str) -> Value {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// MCP clients refuse a success without `structuredContent` from a tool with an `outputSchema`
/// (the SDKs check it), so such an answer is an error result that says the request succeeded.
#[test]
fn an_answer_without_structured_content_for_an_output_schema_is_an_error() {
    let api = Api::start();
    let mut s = Session::start_spec(FIELDS, &["--base-url", &api.base], &[]);
    s.initialize();
    for (args, body) in [
        (json!({}), "<html>maintenance</html>"),
        (json!({"empty": true}), "HTTP 204 No Content (empty body)"),
    ] {
        let r = s.call("get_broken", args.clone());
        assert!(is_error(&r), "{args}: {r}");
        assert!(r.get("structuredContent").is_none(), "{r}");
        let text: String = r["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect();
        assert!(text.contains("The request succeeded"), "{text}");
        assert!(text.contains(body), "{text}");
    }
    s.finish();
}

#[test]
fn fields_keep_only_the_named_paths_and_stay_valid() {
    let api = Api::start();
    let mut s = Session::start_spec(FIELDS, &["--base-url", &api.base], &[]);
    s.initialize();
    let listed = s.request("tools/list", json!({}));
    let issues = listed_tool(&listed, "list_issues");
    assert_eq!(
        issues["inputSchema"]["properties"]["_fields"]["items"],
        json!({"type": "string"})
    );
    assert_eq!(issues["_meta"]["openapi-mcp/http"]["arguments"], json!({}));
    assert_eq!(
        issues["_meta"]["openapi-mcp/http"]["output"],
        json!({"wrapped": "result", "fields": "_fields"})
    );
    let output = jsonschema::validator_for(&issues["outputSchema"]).unwrap();

    // A list of objects: exactly the named keys, in every item.
    let r = s.call(
        "list_issues",
        json!({"_fields": ["number", "title", "user.login"]}),
    );
    assert!(!is_error(&r), "{r}");
    let expected = json!([
        {"number": 1, "title": "Crash", "user": {"login": "ann"}},
        {"number": 2, "title": "Typo", "user": null}
    ]);
    assert_eq!(r["structuredContent"], json!({"result": expected}));
    assert_eq!(
        serde_json::from_str::<Value>(&text(&r)).unwrap(),
        expected,
        "the text copy is projected too"
    );
    let errors: Vec<String> = output
        .iter_errors(&r["structuredContent"])
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // Items of nested lists are implied too; the whole answer validates as well.
    let r = s.call("list_issues", json!({"_fields": ["labels.name"]}));
    assert_eq!(
        r["structuredContent"]["result"],
        json!([{"labels": [{"name": "bug"}]}, {"labels": [{"name": "doc"}, {"name": "easy"}]}])
    );
    assert!(output.is_valid(&r["structuredContent"]), "{r}");
    let whole = s.call("list_issues", json!({}));
    assert_eq!(whole["structuredContent"]["result"][0]["body"], "b");
    assert!(output.is_valid(&whole["structuredContent"]));
    let sent = api.count();
    assert!(api.last().target == "/v1/issues", "`_fields` is never sent");

    // An unknown path: a tool error naming it and the top-level fields, and nothing sent.
    let r = s.call("list_issues", json!({"_fields": ["number", "user.name"]}));
    assert!(is_error(&r), "{r}");
    let message = text(&r);
    assert!(message.contains("unknown field `user.name`"), "{message}");
    assert!(
        message.contains("the fields of `user` are: `login`, `id`"),
        "{message}"
    );
    assert!(
        message.contains("`number`, `title`, `user`, `body`, `state`, `labels`"),
        "{message}"
    );
    let r = s.call("list_issues", json!({"_fields": ["numbr"]}));
    assert!(
        text(&r).contains("unknown field `numbr`; the answer's fields are"),
        "{r}"
    );
    assert_eq!(api.count(), sent, "nothing may be sent");

    // A key holding dots, written with `\.`; an object answer is not wrapped.
    let people = listed_tool(&listed, "list_people");
    let r = s.call(
        "list_people",
        json!({"_fields": ["@odata\\.nextLink", "value.name"]}),
    );
    let expected =
        json!({"@odata.nextLink": "http://next", "value": [{"name": "a"}, {"name": "b"}]});
    assert_eq!(r["structuredContent"], expected);
    assert!(
        jsonschema::validator_for(&people["outputSchema"])
            .unwrap()
            .is_valid(&expected)
    );
    let r = s.call("list_people", json!({"_fields": ["@odata.nextLink"]}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains(r"`@odata\.nextLink`"), "{r}");

    // An operation with its own `_fields`: it is the operation's, sent as a query parameter.
    let own = listed_tool(&listed, "get_own");
    assert_eq!(
        own["inputSchema"]["properties"]["_fields"],
        json!({"type": "string"})
    );
    assert!(
        own["_meta"]["openapi-mcp/http"].get("output").is_none(),
        "{own}"
    );
    let r = s.call("get_own", json!({"_fields": "id"}));
    assert_eq!(r["structuredContent"], json!({"id": 1, "note": "n"}));
    assert_eq!(api.last().target, "/v1/own?_fields=id");
    s.finish();

    // `--dynamic`: the description shows `_fields`, and the call tool applies it.
    let mut s = Session::start_spec(FIELDS, &["--base-url", &api.base, "--dynamic"], &[]);
    s.initialize();
    let described = s.call("describe_operation", json!({"name": "list_issues"}));
    assert_eq!(
        described["structuredContent"]["inputSchema"]["properties"]["_fields"],
        issues["inputSchema"]["properties"]["_fields"]
    );
    let r = s.call(
        "call_read_operation",
        json!({"name": "list_issues", "arguments": {"_fields": ["number"]}}),
    );
    assert_eq!(
        r["structuredContent"],
        json!({"result": [{"number": 1}, {"number": 2}]})
    );
    s.finish();
}
