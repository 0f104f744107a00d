//! A local upstream for specs/serve/pages.yaml: `GET /v1/issues` answers pages of issues with a
//! `Link` header to the next page (closed issues have long bodies), `GET /v1/users` pages of
//! users with the next cursor in the body, `GET /v1/files/<name>` one file with long text.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const SPEC: &str = "specs/serve/pages.yaml";

/// Issues there are in all.
pub const ISSUES: usize = 1000;

/// The running upstream.
pub struct Pages {
    /// Base URL, `/v1` included.
    pub base: String,
    /// The targets requested, in order.
    pub targets: Arc<Mutex<Vec<String>>>,
}

impl Pages {
    pub fn start() -> Pages {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let base = format!("http://127.0.0.1:{port}/v1");
        let targets = Arc::new(Mutex::new(Vec::new()));
        let (b, t) = (base.clone(), Arc::clone(&targets));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (b, t) = (b.clone(), Arc::clone(&t));
                std::thread::spawn(move || answer(stream, &b, &t));
            }
        });
        Pages { base, targets }
    }
}

/// The query parameter `name` of `target`.
pub fn param<'t>(target: &'t str, name: &str) -> Option<&'t str> {
    let query = target.split_once('?')?.1;
    query
        .split('&')
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
}

/// Issue `n`: about 500 bytes, or 30,000 when closed.
pub fn issue(n: usize, state: &str) -> serde_json::Value {
    let body = if state == "closed" { 30_000 } else { 400 };
    serde_json::json!({
        "number": n,
        "title": format!("issue {n}"),
        "state": state,
        "body": "b".repeat(body),
    })
}

/// The file's long content.
pub fn content() -> String {
    "line of text\n".repeat(8000)
}

pub const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

fn answer(mut stream: TcpStream, base: &str, targets: &Mutex<Vec<String>>) {
    let Some(request) = super::http::read_request(&stream, Duration::from_secs(10)) else {
        return;
    };
    let target = request.target;
    targets.lock().unwrap().push(target.clone());
    let path = target.split('?').next().unwrap_or("");
    let number = |name: &str, default: usize| {
        param(&target, name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let mut link = None;
    let body = match path {
        "/v1/issues" => {
            let state = param(&target, "state").unwrap_or("open");
            let (page, per_page) = (number("page", 1).max(1), number("per_page", 30));
            let first = (page - 1) * per_page;
            let items: Vec<_> = (first..(first + per_page).min(ISSUES))
                .map(|n| issue(n, state))
                .collect();
            if first + per_page < ISSUES {
                link = Some(format!(
                    "<{base}/issues?state={state}&page={}&per_page={per_page}>; rel=\"next\", \
                     <{base}/issues?state={state}&page=1&per_page={per_page}>; rel=\"first\"",
                    page + 1
                ));
            }
            serde_json::to_string_pretty(&items).unwrap()
        }
        "/v1/users" => {
            let from: usize = param(&target, "cursor")
                .and_then(|c| c.strip_prefix("u"))
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            let limit = number("limit", 200);
            let bio = if limit <= 3 { 30_000 } else { 200 };
            let members: Vec<_> = (from..from + limit)
                .map(|i| serde_json::json!({"id": format!("U{i:05}"), "name": format!("user {i}"), "bio": "x".repeat(bio)}))
                .collect();
            serde_json::json!({
                "ok": true,
                "members": members,
                "response_metadata": {"next_cursor": format!("u{}", from + limit)},
            })
            .to_string()
        }
        p if p.starts_with("/v1/files/") => serde_json::json!({
            "name": p.trim_start_matches("/v1/files/"),
            "sha": SHA,
            "encoding": "utf-8",
            "updated": "2026-12-07T10:00:00Z",
            "summary": "s".repeat(300),
            "content": content(),
            "lines": ["first line", "l".repeat(20_000)],
        })
        .to_string(),
        _ => r#"{"error":"no such thing"}"#.to_string(),
    };
    let mut head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    if let Some(link) = link {
        head.push_str(&format!("Link: {link}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}
