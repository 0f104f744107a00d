//! Response: turns the API's HTTP response into an MCP `CallToolResult` — JSON as
//! `structuredContent` (wrapped like the `outputSchema`) plus a text copy, other text as text,
//! binary as a short description, and any non-2xx status as a tool error with a body excerpt.

use super::auth::Secrets;
use super::http::Reply;
use crate::model::json_rank;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

/// Longest body excerpt in an error result, in characters.
pub const EXCERPT: usize = 2000;
/// Longest text of an error result, in characters (an argument or a URL it quotes can be
/// megabytes).
pub const MAX_ERROR_TEXT: usize = 8000;

/// A tool error result with one text block.
pub fn error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// The result for `reply`. `wrapped` is the tool's `output.wrapped` key; `check` validates
/// structured content against the tool's `outputSchema` (when it has one), returning the first
/// problem. Secrets are masked in error excerpts here; the caller masks the whole result with
/// [`redact_result`] (after `check` has seen the real values).
pub fn to_result(
    reply: &Reply,
    shown: &str,
    wrapped: Option<&str>,
    check: &dyn Fn(&Value) -> Option<String>,
    secrets: &Secrets,
) -> CallToolResult {
    let status = reply.status_line();
    let content_type = reply.content_type.as_deref().unwrap_or("");
    let text = textual(content_type, &reply.body);
    if !(200..300).contains(&reply.status) {
        // Masked before it is cut, so the cut cannot leave half a secret.
        let excerpt = match &text {
            Some(t) if t.trim().is_empty() => "(empty body)".to_string(),
            Some(t) => excerpt(&secrets.redact(t)),
            None => binary(content_type, reply.body.len()),
        };
        return error(
            secrets
                .redact(&format!("HTTP {status} from {shown}\n{excerpt}"))
                .into_owned(),
        );
    }
    let Some(text) = text else {
        return CallToolResult::success(vec![ContentBlock::text(format!(
            "HTTP {status}: {}",
            binary(content_type, reply.body.len())
        ))]);
    };
    if text.trim().is_empty() {
        return CallToolResult::success(vec![ContentBlock::text(format!(
            "HTTP {status} (empty body)"
        ))]);
    }
    let json = if json_rank(content_type).is_some() || content_type.is_empty() {
        serde_json::from_str::<Value>(&text).ok()
    } else {
        None
    };
    let Some(value) = json else {
        return CallToolResult::success(vec![ContentBlock::text(text)]);
    };
    let structured = match (wrapped, value) {
        (Some(key), v) => {
            let mut m = Map::new();
            m.insert(key.to_string(), v);
            Value::Object(m)
        }
        (None, v @ Value::Object(_)) => v,
        // No outputSchema and not an object: MCP wants an object, so text only.
        (None, _) => return CallToolResult::success(vec![ContentBlock::text(text)]),
    };
    if let Some(problem) = check(&structured) {
        return error(format!(
            "HTTP {status}: the request succeeded, but the response does not match the tool's \
             outputSchema ({problem}); the response body follows.\n{text}"
        ));
    }
    let mut result = CallToolResult::structured(structured);
    result.content = vec![ContentBlock::text(text)];
    result
}

/// `result` with every secret masked, in its text and in its structured content.
pub fn redact_result(result: CallToolResult, secrets: &Secrets) -> CallToolResult {
    if secrets.is_empty() {
        return result;
    }
    let Ok(mut value) = serde_json::to_value(&result) else {
        return error("the result could not be checked for credentials");
    };
    secrets.redact_value(&mut value);
    serde_json::from_value(value)
        .unwrap_or_else(|_| error("the result could not be checked for credentials"))
}

/// `result` with the text of an error cut to [`MAX_ERROR_TEXT`] characters, saying how much was
/// left out. Applied after masking, so a cut cannot leave half a credential unmasked.
pub fn bound_error(mut result: CallToolResult) -> CallToolResult {
    if result.is_error != Some(true) {
        return result;
    }
    for block in &mut result.content {
        if let Some(text) = block.as_text()
            && let Some((cut, _)) = text.text.char_indices().nth(MAX_ERROR_TEXT)
        {
            let left = text.text[cut..].chars().count();
            let short = format!("{} [... {left} more characters]", &text.text[..cut]);
            *block = ContentBlock::text(short);
        }
    }
    result
}

/// The body as text when the media type is textual (or unknown but valid UTF-8).
fn textual(content_type: &str, body: &[u8]) -> Option<String> {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let texty = essence.is_empty()
        || essence.starts_with("text/")
        || json_rank(&essence).is_some()
        || essence.ends_with("+xml")
        || essence.ends_with("/xml")
        || matches!(
            essence.as_str(),
            "application/javascript"
                | "application/x-www-form-urlencoded"
                | "application/yaml"
                | "application/x-yaml"
                | "application/graphql"
        );
    if !texty {
        return None;
    }
    String::from_utf8(body.to_vec()).ok()
}

fn binary(content_type: &str, len: usize) -> String {
    let ct = if content_type.is_empty() {
        "unknown type"
    } else {
        content_type
    };
    format!("binary response ({ct}, {len} bytes) not shown")
}

fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(EXCERPT).collect();
    if out.len() < text.len() {
        out.push_str(" [...]");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_text_is_bounded() {
        let long = format!(
            "GET http://h/{} failed: the URL is not valid",
            "a".repeat(13_000_000)
        );
        let r = bound_error(error(long));
        let text = &r.content[0].as_text().unwrap().text;
        assert!(text.chars().count() < MAX_ERROR_TEXT + 40, "{}", text.len());
        assert!(
            text.ends_with("more characters]"),
            "{}",
            &text[text.len() - 60..]
        );
        let ok = bound_error(CallToolResult::success(vec![ContentBlock::text(
            "x".repeat(9000),
        )]));
        assert_eq!(ok.content[0].as_text().unwrap().text.len(), 9000);
    }

    fn reply(status: u16, ct: &str, body: &[u8]) -> Reply {
        Reply {
            status,
            content_type: (!ct.is_empty()).then(|| ct.to_string()),
            body: body.to_vec(),
        }
    }

    fn ok(_: &Value) -> Option<String> {
        None
    }

    fn json_of(r: &CallToolResult) -> Value {
        serde_json::to_value(r).unwrap()
    }

    #[test]
    fn json_becomes_structured_content() {
        let r = to_result(
            &reply(200, "application/json", br#"{"id":1}"#),
            "u",
            None,
            &ok,
            &Secrets::default(),
        );
        let v = json_of(&r);
        assert_eq!(v["structuredContent"], json!({"id": 1}));
        assert_eq!(v["content"][0]["text"], r#"{"id":1}"#);
        assert_eq!(v["isError"], false);
    }

    #[test]
    fn wrapped_output() {
        let r = to_result(
            &reply(200, "application/json", b"[1,2]"),
            "u",
            Some("result"),
            &ok,
            &Secrets::default(),
        );
        assert_eq!(json_of(&r)["structuredContent"], json!({"result": [1, 2]}));
        let r = to_result(
            &reply(200, "application/json", b"[1,2]"),
            "u",
            None,
            &ok,
            &Secrets::default(),
        );
        assert!(json_of(&r).get("structuredContent").is_none());
    }

    #[test]
    fn errors_text_and_binary() {
        let r = to_result(
            &reply(404, "text/plain", b"no such pet"),
            "http://h/p",
            None,
            &ok,
            &Secrets::default(),
        );
        let v = json_of(&r);
        assert_eq!(v["isError"], true);
        assert_eq!(
            v["content"][0]["text"],
            "HTTP 404 Not Found from http://h/p\nno such pet"
        );
        let r = to_result(
            &reply(200, "image/png", &[0, 1, 2]),
            "u",
            None,
            &ok,
            &Secrets::default(),
        );
        assert_eq!(
            json_of(&r)["content"][0]["text"],
            "HTTP 200 OK: binary response (image/png, 3 bytes) not shown"
        );
        let r = to_result(
            &reply(200, "text/csv", b"a,b"),
            "u",
            None,
            &ok,
            &Secrets::default(),
        );
        assert_eq!(json_of(&r)["content"][0]["text"], "a,b");
    }

    #[test]
    fn output_mismatch_is_reported() {
        let bad = |_: &Value| Some("\"x\" is not of type \"integer\"".to_string());
        let r = to_result(
            &reply(201, "application/json", br#"{"id":"x"}"#),
            "u",
            None,
            &bad,
            &Secrets::default(),
        );
        let v = json_of(&r);
        assert_eq!(v["isError"], true);
        assert!(
            v["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("the request succeeded")
        );
    }

    #[test]
    fn secrets_are_redacted_from_errors() {
        let r = to_result(
            &reply(401, "text/plain", b"bad key s3cret"),
            "u",
            None,
            &ok,
            &Secrets::new(["s3cret"]),
        );
        assert!(!json_of(&r).to_string().contains("s3cret"));
        // A secret across the excerpt's end is masked whole, not cut in half.
        let secret = "k".repeat(40);
        let body = format!("{}{secret} tail", "x ".repeat(EXCERPT / 2 - 10));
        let secrets = Secrets::new([secret.as_str()]);
        let r = to_result(
            &reply(500, "text/plain", body.as_bytes()),
            "u",
            None,
            &ok,
            &secrets,
        );
        assert!(
            !json_of(&r).to_string().contains("kkkkkkkk"),
            "{}",
            json_of(&r)
        );
        // Glued to letters across the cut too.
        let body = format!("{}x{secret}x", "x".repeat(EXCERPT - 20));
        let r = to_result(
            &reply(500, "text/plain", body.as_bytes()),
            "u",
            None,
            &ok,
            &secrets,
        );
        assert!(!json_of(&r).to_string().contains("kkkkkkkk"));
        // A success body and its structured content, after the outputSchema check saw the value.
        let seen = std::cell::RefCell::new(Value::Null);
        let check = |v: &Value| {
            *seen.borrow_mut() = v.clone();
            None
        };
        let body = br#"{"echo":"s3cret","s3cret":1}"#;
        let r = to_result(
            &reply(200, "application/json", body),
            "u",
            None,
            &check,
            &secrets,
        );
        let r = redact_result(r, &Secrets::new(["s3cret"]));
        assert_eq!(seen.borrow()["echo"], "s3cret");
        let v = json_of(&r);
        assert_eq!(v["structuredContent"], json!({"echo": "***", "***": 1}));
        assert_eq!(v["content"][0]["text"], r#"{"echo":"***","***":1}"#);
    }
}
