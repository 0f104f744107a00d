//! `openapi-mcp serve` driven by the official MCP Python SDK client against a local `http.server`:
//! over stdio (`tests/python/serve_client.py`: `stdio_client` + `ClientSession`) and over
//! Streamable HTTP (`tests/python/http_client.py`: `streamable_http_client` + `ClientSession`).
//!
//! Runs when `python3` can `import mcp`; otherwise it prints why it skips. With
//! `OPENAPI_MCP_REQUIRE_SHARED` set (as `.ci/run` does after installing `mcp`), a skip is a failure.

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn skip(reason: &str) {
    if std::env::var_os("OPENAPI_MCP_REQUIRE_SHARED").is_some() {
        panic!("required check cannot run: {reason}");
    }
    eprintln!("SKIPPED: {reason}");
}

#[test]
fn python_sdk_client_lists_and_calls_tools() {
    run_script(
        "tests/python/serve_client.py",
        "import mcp.client.stdio, mcp.client.session",
        "python-sdk: ok",
        &[],
    );
}

/// The same client through `serve --dynamic`'s four tools.
#[test]
fn python_sdk_client_through_dynamic_tools() {
    run_script(
        "tests/python/serve_client.py",
        "import mcp.client.stdio, mcp.client.session",
        "python-sdk: ok",
        &["dynamic"],
    );
}

/// `serve --http` with the SDK's Streamable HTTP client: list and call with the bearer token, the
/// client's own headers not forwarded, exit 0 on SIGTERM.
#[test]
fn python_sdk_streamable_http_client_lists_and_calls_tools() {
    run_script(
        "tests/python/http_client.py",
        "import mcp.client.streamable_http, mcp.client.session",
        "python-sdk-http: ok",
        &[],
    );
}

fn run_script(script: &str, import: &str, done: &str, extra: &[&str]) {
    let probe = Command::new("python3")
        .args(["-c", import])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match probe {
        Err(e) => return skip(&format!("python3 is not available ({e})")),
        Ok(s) if !s.success() => {
            return skip("the MCP Python SDK is not installed (pip install mcp)");
        }
        Ok(_) => {}
    }
    let mut child = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_openapi-mcp"))
        .arg("specs/serve/api.yaml")
        .args(extra)
        .current_dir(common::root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run python3");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the Python client did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = out.join().unwrap_or_default();
    let err = err.join().unwrap_or_default();
    // The transcript (shown with `cargo test -- --nocapture`, and on failure).
    println!("{out}");
    eprintln!("{err}");
    assert!(status.success(), "Python SDK client failed:\n{out}\n{err}");
    assert!(out.contains(done), "{out}");
    for secret in ["py-key-1", "py-tok-2", "http-token-0123456789abcdef"] {
        assert!(
            !err.contains(secret),
            "a credential leaked to stderr:\n{err}"
        );
    }
}
