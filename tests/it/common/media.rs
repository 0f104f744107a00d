//! A local upstream for specs/serve/media.yaml: answers `GET /v1/media/<name>` with a fixed file
//! in its own media type, and `/v1/media/events` with an event stream that stays open.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const SPEC: &str = "specs/serve/media.yaml";

/// The running upstream.
pub struct Media {
    /// Base URL, `/v1` included.
    pub base: String,
    /// One message per event stream the client closed: how long it was open.
    pub closed: Receiver<Duration>,
}

/// Bytes that are not text: every byte value, after a signature.
pub fn bytes_after(signature: &[u8]) -> Vec<u8> {
    let mut out = signature.to_vec();
    out.extend((0..=255u8).cycle().take(700));
    out
}

pub fn png() -> Vec<u8> {
    bytes_after(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
}

pub fn wav() -> Vec<u8> {
    bytes_after(b"RIFF\x24\x08\0\0WAVEfmt ")
}

pub fn gzip() -> Vec<u8> {
    bytes_after(b"\x1f\x8b\x08\0\0\0\0\0\0\x03")
}

/// A CSV file of `rows` rows.
pub fn csv(rows: usize) -> String {
    let mut out = String::from("id,name,city\n");
    for i in 0..rows {
        out.push_str(&format!("{i},pet {i},Z\u{fc}rich\n"));
    }
    out
}

/// Items of `many.json`: more JSON values than serve shapes (its cap is 1,000,000).
pub const MANY_INTS: usize = 1_500_000;
/// Items of `some.json`: under the cap, over the result budget.
pub const SOME_INTS: usize = 100_000;

/// A JSON array of `n` small integers (`[1,1,…]`: two bytes a value).
pub fn ints(n: usize) -> String {
    let mut out = String::with_capacity(2 * n + 1);
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push('1');
    }
    out.push(']');
    out
}

/// `Café crème £5 ±1` in ISO-8859-1.
pub const LATIN1: &[u8] = b"Caf\xe9 cr\xe8me \xa35 \xb11";

/// The events sent before the stream goes quiet (and stays open).
pub const EVENTS: &str = ": connected\n\nevent: progress\nid: 1\ndata: {\"step\":1}\n\n\
                          data: line one\ndata: line two\n\n";

impl Media {
    pub fn start() -> Media {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let (tx, closed) = channel();
        let tx = Arc::new(Mutex::new(tx));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let tx = Arc::clone(&tx);
                std::thread::spawn(move || answer(stream, &tx));
            }
        });
        Media {
            base: format!("http://127.0.0.1:{port}/v1"),
            closed,
        }
    }
}

fn answer(mut stream: TcpStream, closed: &Mutex<Sender<Duration>>) {
    let Some(request) = super::http::read_request(&stream, Duration::from_secs(10)) else {
        return;
    };
    let name = request.target.trim_start_matches("/v1/media/");
    let mut status = "200 OK";
    let (content_type, body): (&str, Vec<u8>) = match name {
        "events" => return events(stream, closed),
        "flood" => return flood(stream),
        "token.ndjson" => (
            "application/x-ndjson",
            format!("{{\"token\":\"{TOKEN}\"}}\n{{\"n\":2}}\n").into_bytes(),
        ),
        "token.jwt" => ("application/jwt", TOKEN.as_bytes().to_vec()),
        "token.bin" => ("application/octet-stream", TOKEN.as_bytes().to_vec()),
        "escaped.json" => ("application/json", ESCAPED_JSON.as_bytes().to_vec()),
        "escaped.txt" => ("text/plain", ESCAPED_TEXT.as_bytes().to_vec()),
        "denied" => {
            status = "401 Unauthorized";
            ("application/json", ESCAPED_ERROR.as_bytes().to_vec())
        }
        "png" => ("image/png", png()),
        "big.png" => ("image/png", bytes_after(b"\x89PNG").repeat(80)),
        "wav" => ("audio/wav", wav()),
        "tgz" => ("application/gzip", gzip()),
        "csv" => ("text/csv; charset=utf-8", csv(3).into_bytes()),
        "big.csv" => ("text/csv; charset=utf-8", csv(5000).into_bytes()),
        "latin1" => ("text/plain; charset=ISO-8859-1", LATIN1.to_vec()),
        "many.json" => ("application/json", ints(MANY_INTS).into_bytes()),
        "some.json" => ("application/json", ints(SOME_INTS).into_bytes()),
        _ => ("text/plain", b"no such file".to_vec()),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// A credential the tests send (`--header 'Authorization: Bearer <TOKEN>'`) and the upstream
/// echoes in the `token.*`, `escaped.*` and `denied` answers.
pub const TOKEN: &str = "Zq8/Kp&3Wm+7Lx9Rt2Vb5Nc0";
/// [`TOKEN`] in JSON with `+` (and, upper or lower case hex, other characters) escaped.
pub const ESCAPED_JSON: &str = r#"{"token":"Zq8\u002FKp\u00263Wm\u002b7Lx9Rt2Vb5N\u00630"}"#;
pub const ESCAPED_TEXT: &str = r"token: Zq8\/Kp&3Wm\u002B7Lx9Rt2Vb5Nc0";
pub const ESCAPED_ERROR: &str = r#"{"error":"invalid token Zq8/Kp&3Wm\u002B7Lx9Rt2Vb5Nc0"}"#;

/// A chunked event stream that never stops sending (up to 10 MB, or until the client closes it).
fn flood(mut stream: TcpStream) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    let _ = stream.write_all(head.as_bytes());
    let mut chunk = String::new();
    for n in 0..100_000 {
        chunk.push_str(&format!("data: {{\"n\":{n}}}\n\n"));
        if chunk.len() > 4000 {
            if write!(stream, "{:x}\r\n{chunk}\r\n", chunk.len()).is_err() {
                return;
            }
            chunk.clear();
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
}

/// A chunked event stream: [`EVENTS`], then nothing, open until the client closes it (or 30 s).
fn events(mut stream: TcpStream, closed: &Mutex<Sender<Duration>>) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    let _ = stream.write_all(head.as_bytes());
    for part in EVENTS.split_inclusive("\n\n") {
        let _ = write!(stream, "{:x}\r\n{part}\r\n", part.len());
        let _ = stream.flush();
        std::thread::sleep(Duration::from_millis(100));
    }
    let opened = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut buf = [0u8; 64];
    // The client sends nothing more: a read returns when it closes the connection.
    while matches!(stream.read(&mut buf), Ok(n) if n > 0) {}
    let _ = closed.lock().unwrap().send(opened.elapsed());
}
