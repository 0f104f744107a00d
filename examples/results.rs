//! Benchmark what `serve` hands a model for large answers: the bytes of each tool result for
//! real-shaped list pages with nothing cut (`--max-result-bytes` raised), with the default
//! budget, and with `_fields` where the tool has it; and the time a call takes each way.
//!
//! ```text
//! cargo build --release
//! cargo run --release --example results -- "$(../shared/corpus/fetch)" [--calls N]
//! ```
//!
//! The pages are built from GitHub's own examples in the corpus copy of its spec
//! (`github.com/api.github.com.json`, `components.examples`): 100 issues, 30 pull requests and
//! 100 commits, each item the example with its numbers and title changed, sent by a local API on
//! 127.0.0.1 with a `Link: <...>; rel="next"` header. `serve` runs over stdio on that spec (the
//! binary in `OPENAPI_MCP_BIN`, else `target/release/openapi-mcp`), limited to the three
//! operations. For each page it prints the answer's size, the result's size (the serialized
//! JSON-RPC `result`) in each configuration and the median time of N calls (default 20); "added"
//! is the median against the uncut configuration's.

#[path = "common/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A page: the tool, its arguments, the API path it calls, how many items and which example.
struct Page {
    tool: &'static str,
    path: &'static str,
    example: &'static str,
    items: usize,
    fields: &'static [&'static str],
}

const PAGES: [Page; 3] = [
    Page {
        tool: "issues_list_for_repo",
        path: "/repos/octo/hello/issues",
        example: "issue-items",
        items: 100,
        fields: &["number", "title", "user.login"],
    },
    Page {
        tool: "pulls_list",
        path: "/repos/octo/hello/pulls",
        example: "pull-request-simple-items",
        items: 30,
        fields: &["number", "title", "user.login"],
    },
    Page {
        tool: "repos_list_commits",
        path: "/repos/octo/hello/commits",
        example: "commit-items",
        items: 100,
        fields: &["sha", "commit.message"],
    },
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let calls = args
        .iter()
        .position(|a| a == "--calls")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(20usize);
    let (root, _) = corpus::args("results");
    let spec = root.join("github.com/api.github.com.json");
    let doc: Value = match std::fs::read(&spec).map(|b| serde_json::from_slice(&b)) {
        Ok(Ok(doc)) => doc,
        _ => {
            eprintln!("results: cannot read {}", spec.display());
            std::process::exit(2);
        }
    };
    let bodies: HashMap<&'static str, Vec<u8>> = PAGES
        .iter()
        .map(|p| (p.path, page(&doc, p.example, p.items)))
        .collect();
    let sizes: HashMap<&str, usize> = bodies.iter().map(|(k, v)| (*k, v.len())).collect();
    let api = start_api(Arc::new(bodies));
    let bin = std::env::var("OPENAPI_MCP_BIN").unwrap_or("target/release/openapi-mcp".into());
    let uncut = Server::start(&bin, &spec, &api, &["--max-result-bytes", "100000000"]);
    let default = Server::start(&bin, &spec, &api, &[]);
    println!("page                   answer    uncut result  default result  _fields result");
    for p in &PAGES {
        let answer = sizes[p.path];
        let run = |server: &Server, fields: Option<&[&str]>| {
            let mut arguments = json!({"owner": "octo", "repo": "hello"});
            if let Some(f) = fields {
                arguments["_fields"] = json!(f);
            }
            let mut times = Vec::with_capacity(calls);
            let mut size = 0;
            for _ in 0..calls {
                let started = Instant::now();
                size = server.call(p.tool, &arguments);
                times.push(started.elapsed());
            }
            times.sort();
            (size, times[times.len() / 2])
        };
        let (u, ut) = run(&uncut, None);
        let (d, dt) = run(&default, None);
        let projected = default
            .has_argument(p.tool, "_fields")
            .then(|| run(&default, Some(p.fields)));
        let shown = |(bytes, t): (usize, Duration)| {
            format!(
                "{:>8} B {:>6.1} ms (added {:+.1})",
                bytes,
                t.as_secs_f64() * 1e3,
                (t.as_secs_f64() - ut.as_secs_f64()) * 1e3
            )
        };
        println!(
            "{:<18} {:>8} B  {:>8} B {:>5.1} ms  {}  {}",
            p.tool,
            answer,
            u,
            ut.as_secs_f64() * 1e3,
            shown((d, dt)),
            projected.map_or("(no _fields argument)".into(), shown)
        );
    }
}

/// `items` copies of the example list's first item, each with its own number, id and title.
fn page(doc: &Value, example: &str, items: usize) -> Vec<u8> {
    let item = doc["components"]["examples"][example]["value"][0].clone();
    let list: Vec<Value> = (1..=items)
        .map(|i| {
            let mut it = item.clone();
            for key in ["number", "id"] {
                if it.get(key).is_some() {
                    it[key] = json!(i);
                }
            }
            if it.get("title").is_some() {
                it["title"] = json!(format!(
                    "Item {i}: {}",
                    item["title"].as_str().unwrap_or("")
                ));
            }
            if let Some(sha) = it.get("sha").and_then(Value::as_str) {
                it["sha"] = json!(format!("{i:04}{}", &sha[4.min(sha.len())..]));
            }
            it
        })
        .collect();
    serde_json::to_vec(&list).unwrap()
}

/// A local API answering each known path with its page (keep-alive, a thread a connection).
fn start_api(bodies: Arc<HashMap<&'static str, Vec<u8>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let host = addr.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let bodies = bodies.clone();
            let host = host.clone();
            std::thread::spawn(move || {
                let mut conn = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut line = String::new();
                    if conn.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let target = line.split(' ').nth(1).unwrap_or("/").to_string();
                    loop {
                        line.clear();
                        if conn.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if line.trim_end().is_empty() {
                            break;
                        }
                    }
                    let path = target.split('?').next().unwrap_or("");
                    let empty = Vec::new();
                    let body = bodies.get(path).unwrap_or(&empty);
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n\
                         Link: <http://{host}{path}?page=2&per_page=100>; rel=\"next\"\r\n\
                         Content-Length: {}\r\n\r\n",
                        body.len()
                    );
                    if out.write_all(head.as_bytes()).is_err() || out.write_all(body).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// `openapi-mcp serve` over stdio, initialized, with the three operations.
struct Server {
    child: std::cell::RefCell<Child>,
    io: std::cell::RefCell<(ChildStdin, BufReader<ChildStdout>, u64)>,
    tools: Vec<Value>,
}

impl Server {
    fn start(bin: &str, spec: &std::path::Path, api: &str, extra: &[&str]) -> Server {
        let mut child = Command::new(bin)
            .arg("serve")
            .arg(spec)
            .args(["--base-url", &format!("http://{api}")])
            .args([
                "--include-op",
                "issues/list-for-repo,pulls/list,repos/list-commits",
            ])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child: child.into(),
            io: (stdin, stdout, 0).into(),
            tools: Vec::new(),
        };
        server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "results", "version": "1"}}),
        );
        server.notify("notifications/initialized");
        server.tools = server.request("tools/list", json!({}))["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        server
    }

    fn has_argument(&self, tool: &str, name: &str) -> bool {
        self.tools
            .iter()
            .find(|t| t["name"] == tool)
            .is_some_and(|t| t["inputSchema"]["properties"].get(name).is_some())
    }

    fn notify(&self, method: &str) {
        let mut io = self.io.borrow_mut();
        writeln!(io.0, "{}", json!({"jsonrpc": "2.0", "method": method})).unwrap();
    }

    /// Send a request and return its `result`.
    fn request(&self, method: &str, params: Value) -> Value {
        let mut io = self.io.borrow_mut();
        io.2 += 1;
        let id = io.2;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(io.0, "{line}").unwrap();
        io.0.flush().unwrap();
        let mut answer = String::new();
        io.1.read_line(&mut answer).unwrap();
        let v: Value = serde_json::from_str(&answer).expect("a JSON-RPC answer");
        v["result"].clone()
    }

    /// Call `tool`; the size of its serialized result.
    fn call(&self, tool: &str, arguments: &Value) -> usize {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            result["isError"] != true,
            "{tool}: {}",
            result["content"][0]["text"]
        );
        serde_json::to_string(&result).unwrap().len()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.borrow_mut().kill();
    }
}
