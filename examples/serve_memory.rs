//! Measure the peak memory of `openapi-mcp serve` under many large answers read slowly.
//!
//! ```text
//! cargo build --release
//! cargo run --release --example serve_memory [-- KIB MS]
//! ```
//!
//! Starts a local HTTP/1.1 API on 127.0.0.1 whose every answer is a 10 MB JSON object, then
//! `openapi-mcp serve specs/serve/api.yaml` (the binary in `OPENAPI_MCP_BIN`, else
//! `target/release/openapi-mcp`) once per scenario, with the default `--max-result-bytes` and
//! with `--max-result-bytes 100000000` (answers sent whole), an API key set (so results are
//! masked):
//!
//! - stdio: after `initialize`, 50 `get_file` calls written at once; one reader takes KIB
//!   (default 1024) KiB from standard output every MS (default 50) milliseconds until all 50
//!   answers came.
//! - HTTP (`--http`, with `OPENAPI_MCP_HTTP_TOKEN`): 100 connections each POST one `get_file`
//!   call to `/mcp` at once and read the answer 64 KiB every MS milliseconds.
//!
//! For each it prints the server's peak memory (VmHWM from `/proc/PID/status`), the wall time from
//! start to the last answer, and the server's CPU time (utime + stime from `/proc/PID/stat`), both
//! read just before it is stopped. Linux only; loopback only.

use serde_json::Value;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

/// Bytes of the API's answer (the response limit is 10 MiB).
const ANSWER: usize = 10_000_000;
const STDIO_CALLS: usize = 50;
const HTTP_CLIENTS: usize = 100;
const HTTP_KIB: usize = 64;
const TOKEN: &str = "serve-memory-token-0123456789abcdef";
/// Longest wait for an HTTP answer's next bytes, and for all stdio answers (checked between
/// reads), so that a stuck server fails the run.
const WAIT: Duration = Duration::from_secs(300);

fn main() {
    let mut args = std::env::args().skip(1);
    let kib: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let ms: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(50);
    let pause = Duration::from_millis(ms);
    let bin = std::env::var("OPENAPI_MCP_BIN").unwrap_or("target/release/openapi-mcp".into());
    let api = start_api();
    let base = format!("http://{api}/v1");
    let raised = ["--max-result-bytes", "100000000"];
    println!(
        "stdio: {STDIO_CALLS} calls read {kib} KiB every {ms} ms; \
         HTTP: {HTTP_CLIENTS} clients read {HTTP_KIB} KiB every {ms} ms; API answer {ANSWER} bytes\n"
    );
    println!(
        "| scenario | --max-result-bytes | answers | bytes each | peak MiB | wall s | CPU s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (budget, extra) in [("40,000", &[][..]), ("100,000,000", &raised[..])] {
        let r = stdio(&bin, &base, extra, kib * 1024, pause);
        r.print(&format!("stdio, {STDIO_CALLS} calls"), budget);
    }
    for (budget, extra) in [("40,000", &[][..]), ("100,000,000", &raised[..])] {
        let r = http(&bin, &base, extra, pause);
        r.print(&format!("HTTP, {HTTP_CLIENTS} clients"), budget);
    }
}

/// What one scenario measured.
struct Run {
    answers: usize,
    bytes: usize,
    peak_kib: u64,
    wall: Duration,
    cpu: f64,
}

impl Run {
    fn print(&self, scenario: &str, budget: &str) {
        println!(
            "| {scenario} | {budget} | {} | {} | {:.0} | {:.1} | {:.1} |",
            self.answers,
            self.bytes / self.answers.max(1),
            self.peak_kib as f64 / 1024.0,
            self.wall.as_secs_f64(),
            self.cpu
        );
    }
}

/// `serve` started with `args`, every `OPENAPI_MCP_` variable of ours removed, the API key set.
fn serve(bin: &str, base: &str, args: &[&str]) -> Command {
    let mut c = Command::new(bin);
    c.args(["serve", "specs/serve/api.yaml", "--base-url", base])
        .args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OPENAPI_MCP_") && k != "OPENAPI_MCP_BIN" {
            c.env_remove(k);
        }
    }
    c.env("OPENAPI_MCP_HEADERKEY", "memory-key-123456");
    c
}

fn call(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"get_file","arguments":{{"id":"x"}}}}}}"#
    )
}

/// Whether `answer` is a JSON-RPC result that is not a tool error.
fn ok(answer: &[u8]) -> bool {
    serde_json::from_slice::<Value>(answer)
        .is_ok_and(|v| v.get("result").is_some_and(|r| r["isError"] != true))
}

fn stdio(bin: &str, base: &str, extra: &[&str], chunk: usize, pause: Duration) -> Run {
    let started = Instant::now();
    let mut child = serve(bin, base, extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin} ({e}); cargo build --release first"));
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::with_capacity(chunk, child.stdout.take().unwrap());
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"serve_memory","version":"0"}}}"#;
    writeln!(stdin, "{init}").unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert!(line.contains("\"result\""), "initialize: {line}");
    let mut calls =
        String::from("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for id in 1..=STDIO_CALLS {
        calls.push_str(&call(id));
        calls.push('\n');
    }
    stdin.write_all(calls.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // The slow reader: `chunk` bytes, then a pause; answers are split at newlines.
    let (mut answers, mut bytes, mut failed) = (0, 0, 0);
    let mut current = Vec::new();
    let mut buf = vec![0; chunk];
    let mut taken = 0;
    let deadline = Instant::now() + WAIT;
    while answers < STDIO_CALLS {
        assert!(Instant::now() < deadline, "stdio answers did not all come");
        let n = out.read(&mut buf[taken..]).unwrap();
        assert!(n > 0, "serve closed its output after {answers} answers");
        let mut rest = &buf[taken..taken + n];
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            current.extend_from_slice(&rest[..at]);
            answers += 1;
            bytes += current.len();
            failed += usize::from(!ok(&current));
            current.clear();
            rest = &rest[at + 1..];
        }
        current.extend_from_slice(rest);
        taken += n;
        if taken == chunk {
            taken = 0;
            std::thread::sleep(pause);
        }
    }
    let wall = started.elapsed();
    let run = measured(&child, answers, bytes, wall);
    drop(stdin);
    finish(child);
    assert_eq!(failed, 0, "stdio answers that were errors");
    run
}

fn http(bin: &str, base: &str, extra: &[&str], pause: Duration) -> Run {
    let started = Instant::now();
    let mut child = serve(bin, base, extra)
        .args(["--http", "127.0.0.1:0"])
        .env("OPENAPI_MCP_HTTP_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin} ({e}); cargo build --release first"));
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut addr = None;
    // The startup lines end with the protections; read until the last one.
    for _ in 0..40 {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(rest) = line.split("over Streamable HTTP at http://").nth(1) {
            addr = rest.split("/mcp").next().map(str::to_string);
        }
        if line.contains("requests handled at once") {
            break;
        }
    }
    let addr = addr.expect("serve --http started");
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
    });
    let barrier = Arc::new(Barrier::new(HTTP_CLIENTS));
    let clients: Vec<_> = (0..HTTP_CLIENTS)
        .map(|id| {
            let (addr, barrier) = (addr.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                slow_post(&addr, &call(id), pause)
            })
        })
        .collect();
    let (mut answers, mut bytes, mut failed) = (0, 0, 0);
    for c in clients {
        match c.join().unwrap() {
            Some(body) if ok(&body) => {
                answers += 1;
                bytes += body.len();
            }
            _ => failed += 1,
        }
    }
    let wall = started.elapsed();
    let run = measured(&child, answers, bytes, wall);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    finish(child);
    assert_eq!(failed, 0, "HTTP answers that were missing or errors");
    run
}

/// POST `body` to `/mcp` on a connection of its own, then read the answer [`HTTP_KIB`] KiB at a
/// time with `pause` between reads; the answer's body when its status is 200.
fn slow_post(addr: &str, body: &str, pause: Duration) -> Option<Vec<u8>> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(WAIT)).ok()?;
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-06-18\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut all = Vec::new();
    let mut buf = vec![0; HTTP_KIB * 1024];
    loop {
        match fill(&mut s, &mut buf).ok()? {
            0 => break,
            n => all.extend_from_slice(&buf[..n]),
        }
        std::thread::sleep(pause);
    }
    let head = all.windows(4).position(|w| w == b"\r\n\r\n")?;
    all.starts_with(b"HTTP/1.1 200 ")
        .then(|| all.split_off(head + 4))
}

/// Read until `buf` is full or the end.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(m) => n += m,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The server's peak memory and CPU time so far, read from `/proc` while it still runs.
fn measured(child: &Child, answers: usize, bytes: usize, wall: Duration) -> Run {
    let pid = child.id();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    let peak_kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // Fields after the command name (which may hold spaces), from the state (field 3) on:
    // utime and stime are fields 14 and 15.
    let after = &stat[stat.rfind(')').expect("stat has a command") + 2..];
    let fields: Vec<u64> = after
        .split(' ')
        .skip(11)
        .take(2)
        .map(|f| f.parse().expect("a number"))
        .collect();
    Run {
        answers,
        bytes,
        peak_kib,
        wall,
        cpu: (fields[0] + fields[1]) as f64 / clock_ticks(),
    }
}

/// Clock ticks per second of `/proc/PID/stat` (`getconf CLK_TCK`; 100 on Linux if that fails).
fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// Wait for the server to exit, killing it after 10 s.
fn finish(mut child: Child) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().ok().flatten().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The API: every request is answered with the same 10 MB JSON object, one request per
/// connection. Returns `127.0.0.1:PORT`.
fn start_api() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let head = r#"{"id":"x","size":1,"pad":""#;
    let tail = r#""}"#;
    let mut body = String::with_capacity(ANSWER);
    body.push_str(head);
    body.push_str(&"p".repeat(ANSWER - head.len() - tail.len()));
    body.push_str(tail);
    let answer = Arc::new(
        [
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {ANSWER}\r\n\
                 Connection: close\r\n\r\n"
            )
            .into_bytes(),
            body.into_bytes(),
        ]
        .concat(),
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let answer = Arc::clone(&answer);
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                let mut reader = BufReader::new(&stream);
                let mut line = String::new();
                // The request's head; a GET has no body.
                loop {
                    line.clear();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) if line == "\r\n" => break,
                        Ok(_) => {}
                    }
                }
                let _ = (&stream).write_all(&answer);
            });
        }
    });
    addr
}
