//! Benchmark `openapi-mcp serve --http`: `tools/call` through the server against a local API,
//! beside the same request sent to the API directly.
//!
//! ```text
//! cargo build --release
//! cargo run --release --example serve_http_bench [-- SECONDS]
//! ```
//!
//! Starts a small HTTP/1.1 API on 127.0.0.1 (keep-alive, one thread per connection, a fixed JSON
//! answer), then `openapi-mcp serve specs/serve/api.yaml --http 127.0.0.1:0` (the binary in
//! `OPENAPI_MCP_BIN`, else `target/release/openapi-mcp`). For 1 and 64 concurrent clients (each
//! one keep-alive connection) it sends `get_file` calls for SECONDS (default 5) and reports calls
//! per second and the p50/p99 latency, then the same for `GET /v1/files/x` straight to the API;
//! "added" is the difference. Last, 200 concurrent sessions (each its own connection:
//! initialize, tools/list, 20 calls) must all be answered without an error. Loopback only;
//! every loop is bounded in time or count.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5.0);
    let bin = std::env::var("OPENAPI_MCP_BIN").unwrap_or("target/release/openapi-mcp".into());
    let api = start_api();
    let mut child = Command::new(&bin)
        .args([
            "serve",
            "specs/serve/api.yaml",
            "--base-url",
            &format!("http://{api}/v1"),
            "--http",
            "127.0.0.1:0",
        ])
        .env("OPENAPI_MCP_HEADERKEY", "bench-key-123456")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin} ({e}); cargo build --release first"));
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut addr = None;
    for _ in 0..40 {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(rest) = line.split("over Streamable HTTP at http://").nth(1) {
            addr = rest.split("/mcp").next().map(str::to_string);
            break;
        }
    }
    let addr = addr.expect("serve --http started");
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
    });
    let call = body(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_file","arguments":{"id":"x"}}}"#,
    );
    let secs = Duration::from_secs_f64(seconds);
    println!("| clients | path | calls/s | p50 ms | p99 ms | p50 added ms | p99 added ms |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for clients in [1, 64] {
        let direct = run(&api, clients, secs, || {
            format!("GET /v1/files/x HTTP/1.1\r\nHost: {api}\r\nX-API-Key: k\r\n\r\n").into_bytes()
        });
        let served = run(&addr, clients, secs, || mcp_post(&addr, &call));
        let (d50, d99) = (pct(&direct.1, 0.50), pct(&direct.1, 0.99));
        let (s50, s99) = (pct(&served.1, 0.50), pct(&served.1, 0.99));
        println!(
            "| {clients} | direct | {:.0} | {d50:.3} | {d99:.3} | | |",
            direct.0
        );
        println!(
            "| {clients} | serve --http | {:.0} | {s50:.3} | {s99:.3} | {:.3} | {:.3} |",
            served.0,
            s50 - d50,
            s99 - d99
        );
        assert_eq!(served.2, 0, "errors through serve");
    }
    // 200 sessions at once.
    let started = Instant::now();
    let sessions: Vec<_> = (0..200)
        .map(|_| {
            let addr = addr.clone();
            let call = call.clone();
            std::thread::spawn(move || {
                let mut conn = Conn::open(&addr);
                let mut errors = 0;
                let init = body(
                    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
                );
                let list = body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
                for b in [init, list] {
                    if !conn.exchange(&mcp_post(&addr, &b)).is_some_and(|r| ok(&r)) {
                        errors += 1;
                    }
                }
                for _ in 0..20 {
                    if !conn.exchange(&mcp_post(&addr, &call)).is_some_and(|r| ok(&r)) {
                        errors += 1;
                    }
                }
                errors
            })
        })
        .collect();
    let errors: usize = sessions.into_iter().map(|s| s.join().unwrap_or(22)).sum();
    println!(
        "\n200 concurrent sessions (initialize, tools/list, 20 calls each): {errors} errors, {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert_eq!(errors, 0);
}

fn body(json: &str) -> Arc<String> {
    Arc::new(json.to_string())
}

fn mcp_post(addr: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Whether an answer is a 200 without a JSON-RPC or tool error.
fn ok(answer: &(u16, Vec<u8>)) -> bool {
    let text = String::from_utf8_lossy(&answer.1);
    answer.0 == 200 && !text.contains("\"error\"") && !text.contains("\"isError\":true")
}

/// `clients` threads each sending `request()` over one keep-alive connection for `secs`:
/// (calls per second, sorted latencies in ms, errors).
fn run(
    addr: &str,
    clients: usize,
    secs: Duration,
    request: impl Fn() -> Vec<u8>,
) -> (f64, Vec<f64>, usize) {
    let bytes = Arc::new(request());
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..clients)
        .map(|_| {
            let (addr, bytes, stop) = (addr.to_string(), Arc::clone(&bytes), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut conn = Conn::open(&addr);
                let mut lat = Vec::new();
                let mut errors = 0;
                while !stop.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    match conn.exchange(&bytes) {
                        Some(r) if ok(&r) => lat.push(t.elapsed().as_secs_f64() * 1e3),
                        _ => errors += 1,
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    std::thread::sleep(secs);
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    let mut errors = 0;
    for t in threads {
        let (l, e) = t.join().unwrap();
        all.extend(l);
        errors += e;
    }
    all.sort_by(f64::total_cmp);
    (all.len() as f64 / secs.as_secs_f64(), all, errors)
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// One keep-alive HTTP/1.1 connection.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_nodelay(true).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        Conn {
            reader: BufReader::new(s.try_clone().unwrap()),
            writer: s,
        }
    }

    /// Send one request, read its answer (status and body by Content-Length).
    fn exchange(&mut self, request: &[u8]) -> Option<(u16, Vec<u8>)> {
        self.writer.write_all(request).ok()?;
        let mut line = String::new();
        self.reader.read_line(&mut line).ok()?;
        let status: u16 = line.split(' ').nth(1)?.parse().ok()?;
        let mut length = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).ok()?;
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().ok()?;
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body).ok()?;
        Some((status, body))
    }
}

/// The API: keep-alive HTTP/1.1, a fixed JSON answer to everything. Returns `127.0.0.1:PORT`.
fn start_api() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                let mut conn = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                let answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"id\":\"f-1\",\"size\":3}";
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    let mut first = true;
                    loop {
                        line.clear();
                        if conn.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let l = line.trim_end();
                        if l.is_empty() && !first {
                            break;
                        }
                        first = false;
                        if let Some((k, v)) = l.split_once(':')
                            && k.eq_ignore_ascii_case("content-length")
                        {
                            length = v.trim().parse().unwrap_or(0);
                        }
                    }
                    let mut body = vec![0; length];
                    if conn.read_exact(&mut body).is_err() || out.write_all(answer).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}
