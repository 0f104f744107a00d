//! Response: turns the API's HTTP response into an MCP `CallToolResult` — JSON as
//! `structuredContent` (wrapped like the `outputSchema`) plus a text copy, other text (decoded
//! from its charset, and any body that is UTF-8 text) and event streams as text, images and audio
//! as such, other binary as an embedded resource, each within the result budget, and any non-2xx
//! status as a tool error with a body excerpt.

use super::budget;
use super::count;
use super::http::Reply;
use super::redact::Secrets;
use super::stream::{self, Stopped};
use crate::model::json_rank;
use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value};

/// Longest body excerpt in an error result, in characters.
pub(crate) const EXCERPT: usize = 2000;
/// Longest text of an error result, in characters (an argument or a URL it quotes can be
/// megabytes).
pub(crate) const MAX_ERROR_TEXT: usize = 8000;

/// `name` for a message, cut to 200 characters with a count of the rest: a request's tool name
/// comes from the client and may be of any length.
pub(crate) fn shown_name(name: &str) -> String {
    const MAX: usize = 200;
    match name.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}… ({} characters)", &name[..at], name.chars().count()),
        None => name.to_string(),
    }
}

/// A tool error result with one text block.
pub(crate) fn error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.into())])
}

/// The result for `reply`, requested from `shown` (the URL as shown: the `uri` of an embedded
/// resource). `wrapped` is the tool's `output.wrapped` key; `check` validates structured content
/// against the tool's `outputSchema` (when it has one), returning the first problem. Binary
/// content, plain text and event streams are kept within `budget` bytes of serialized result
/// here (binary is not encoded unless it fits); JSON is left to [`budget::fit`]. Secrets are
/// masked in error excerpts and in text before it is cut; the caller masks the whole result with
/// [`redact_result`] (after `check` has seen the real values).
pub(crate) fn to_result(
    reply: &Reply,
    shown: &str,
    wrapped: Option<&str>,
    check: &dyn Fn(&Value) -> Option<String>,
    secrets: &Secrets,
    budget: usize,
) -> CallToolResult {
    let status = reply.status_line();
    let content_type = reply.content_type.as_deref().unwrap_or("").trim();
    let text = if reply.stream.is_some() {
        // Event streams are always UTF-8.
        Some(utf8(&reply.body))
    } else {
        textual(content_type, &reply.body)
    };
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
    if let Some(stopped) = &reply.stream {
        return events(&status, &reply.body, stopped, secrets, budget);
    }
    if reply.body.is_empty() {
        return CallToolResult::success(vec![ContentBlock::text(format!(
            "HTTP {status} (empty body)"
        ))]);
    }
    let Some(text) = text else {
        return binary_content(&status, content_type, &reply.body, shown, budget);
    };
    if text.trim().is_empty() {
        return CallToolResult::success(vec![ContentBlock::text(format!(
            "HTTP {status} (empty body)"
        ))]);
    }
    let json_typed = json_rank(content_type).is_some() || content_type.is_empty();
    if json_typed && count::over(&text, count::MAX_VALUES).is_some() {
        return too_many_values(&status, reply.body.len());
    }
    // No outputSchema and not an object: MCP wants an object, so text only ([`budget::fit`]
    // cuts it as JSON); checked without building a tree of it.
    if json_typed
        && wrapped.is_none()
        && !text.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok()
    {
        return CallToolResult::success(vec![ContentBlock::text(text)]);
    }
    let json = if json_typed {
        serde_json::from_str::<Value>(&text).ok()
    } else {
        None
    };
    let Some(value) = json else {
        return text_within(None, &text, secrets, budget);
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

/// `result` as an error when it is a success without structured content (text, an image, an empty
/// body, a note that the answer was not sent) from a tool with an `outputSchema`: MCP requires
/// structured content there, and the SDKs' clients refuse such a success. A first line says the
/// request succeeded, when it fits in `budget` bytes of serialized result.
pub(crate) fn unstructured(mut result: CallToolResult, budget: usize) -> CallToolResult {
    if result.is_error == Some(true) || result.structured_content.is_some() {
        return result;
    }
    result.is_error = Some(true);
    let note = "The request succeeded, but the answer is not JSON of this tool's outputSchema, \
                so it is sent as an error result (MCP requires structuredContent of a success); \
                the answer follows.";
    result.content.insert(0, ContentBlock::text(note));
    if budget::bytes(&result) > budget {
        result.content.remove(0);
    }
    result
}

/// The result for a JSON answer of `bytes` bytes with more than [`count::MAX_VALUES`] values
/// (counted without building a tree): too large to shape, nothing of it sent.
fn too_many_values(status: &str, bytes: usize) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(format!(
        "HTTP {status}: the JSON answer ({} bytes, more than {} JSON values) is too large \
         to shape within the result budget and was not sent. Ask for a smaller page (a \
         page-size or limit argument) or narrower filters.",
        budget::thousands(bytes),
        budget::thousands(count::MAX_VALUES)
    ))])
}

/// `result` with every secret masked, in its text and in its structured content. Binary data
/// (image, audio, resource blob) is passed on as it came.
pub(crate) fn redact_result(mut result: CallToolResult, secrets: &Secrets) -> CallToolResult {
    if secrets.is_empty() {
        return result;
    }
    // Taken out while the rest is masked: masking base64 could only corrupt it.
    let held: Vec<(usize, String)> = result
        .content
        .iter_mut()
        .enumerate()
        .filter_map(|(i, block)| binary_data(block).map(|d| (i, std::mem::take(d))))
        .collect();
    // Masked in place: a copy of a large structured value as a second tree is what memory
    // cannot afford (the rest, text blocks, goes through a JSON value once).
    let mut structured = result.structured_content.take();
    if let Some(value) = &mut structured {
        secrets.redact_value(value);
    }
    let Ok(mut value) = serde_json::to_value(&result) else {
        return error("the result could not be checked for credentials");
    };
    drop(result);
    secrets.redact_value(&mut value);
    let Ok(mut masked) = serde_json::from_value::<CallToolResult>(value) else {
        return error("the result could not be checked for credentials");
    };
    masked.structured_content = structured;
    for (i, data) in held {
        if let Some(slot) = masked.content.get_mut(i).and_then(binary_data) {
            *slot = data;
        }
    }
    masked
}

/// The base64 data of an image, audio or blob resource block.
fn binary_data(block: &mut ContentBlock) -> Option<&mut String> {
    match block {
        ContentBlock::Image(image) => Some(&mut image.data),
        ContentBlock::Audio(audio) => Some(&mut audio.data),
        ContentBlock::Resource(r) => match &mut r.resource {
            ResourceContents::BlobResourceContents { blob, .. } => Some(blob),
            _ => None,
        },
        _ => None,
    }
}

/// `result` with the text of an error cut to [`MAX_ERROR_TEXT`] characters, saying how much was
/// left out. Applied after masking, so a cut cannot leave half a credential unmasked.
pub(crate) fn bound_error(mut result: CallToolResult) -> CallToolResult {
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

/// The media type without parameters, in lower case.
fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The value of parameter `name` of a media type (quotes removed).
fn parameter<'c>(content_type: &'c str, name: &str) -> Option<&'c str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().trim_matches('"'))
    })
}

/// Whether a media type (its essence) is text.
fn is_text(essence: &str) -> bool {
    essence.starts_with("text/")
        || json_rank(essence).is_some()
        || essence.ends_with("+xml")
        || essence.ends_with("/xml")
        || essence.ends_with("+yaml")
        || matches!(
            essence,
            "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/x-www-form-urlencoded"
                | "application/yaml"
                | "application/x-yaml"
                | "application/graphql"
                | "application/sql"
                | "application/toml"
                | "application/csv"
                | "application/json-seq"
                | "application/x-ndjson"
                | "application/ndjson"
                | "application/jsonl"
                | "application/x-jsonlines"
                | "application/jwt"
                | "application/jose"
                | "application/x-sh"
                | "application/x-httpd-php"
                | "application/rtf"
                | "application/x-tex"
                | "application/pem-certificate-chain"
                | "application/x-pem-file"
                | "message/http"
        )
}

/// The body as text when it can carry readable text, decoded from its `charset` (UTF-8 by
/// default; a byte that is not valid becomes U+FFFD): a textual media type ([`is_text`]) or one
/// with a `charset` parameter, or — whatever the type, except `image/*` and `audio/*` — a body
/// that is valid UTF-8 without a NUL byte (so a credential in it is masked). `None`: binary, or
/// a charset this server does not decode (and a body that is not UTF-8).
fn textual(content_type: &str, body: &[u8]) -> Option<String> {
    let essence = essence(content_type);
    let utf8_text = || {
        std::str::from_utf8(body)
            .ok()
            .filter(|t| !t.contains('\0'))
            .map(str::to_string)
    };
    if is_text(&essence) || parameter(content_type, "charset").is_some() {
        return decode(parameter(content_type, "charset"), body).or_else(utf8_text);
    }
    if essence.starts_with("image/") || essence.starts_with("audio/") {
        return None;
    }
    utf8_text()
}

/// `body` decoded from the charset `label` (a byte order mark first wins over it). Labels as
/// WHATWG's Encoding Standard reads them: ISO-8859-1 and US-ASCII are read as windows-1252.
fn decode(label: Option<&str>, body: &[u8]) -> Option<String> {
    if let Some(rest) = body.strip_prefix(b"\xEF\xBB\xBF") {
        return Some(String::from_utf8_lossy(rest).into_owned());
    }
    if let Some(rest) = body.strip_prefix(b"\xFF\xFE") {
        return Some(utf16(rest, u16::from_le_bytes));
    }
    if let Some(rest) = body.strip_prefix(b"\xFE\xFF") {
        return Some(utf16(rest, u16::from_be_bytes));
    }
    let Some(label) = label else {
        return Some(utf8(body));
    };
    match label.trim().to_ascii_lowercase().as_str() {
        "utf-8" | "utf8" | "unicode-1-1-utf-8" | "unicode11utf8" | "unicode20utf8"
        | "x-unicode20utf8" => Some(utf8(body)),
        "windows-1252" | "cp1252" | "x-cp1252" | "iso-8859-1" | "iso8859-1" | "iso88591"
        | "iso_8859-1" | "iso_8859-1:1987" | "iso-ir-100" | "csisolatin1" | "latin1" | "l1"
        | "cp819" | "ibm819" | "us-ascii" | "ascii" | "ansi_x3.4-1968" => {
            Some(single_byte(body, WINDOWS_1252_80, &[]))
        }
        "iso-8859-15" | "iso8859-15" | "iso885915" | "iso_8859-15" | "csisolatin9" | "l9"
        | "latin9" | "latin-9" => Some(single_byte(body, &[], LATIN9_DIFFERENCES)),
        "utf-16" | "utf-16le" => Some(utf16(body, u16::from_le_bytes)),
        "utf-16be" => Some(utf16(body, u16::from_be_bytes)),
        _ => None,
    }
}

fn utf8(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

fn utf16(body: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let units = body.chunks(2).map(|pair| match pair {
        [a, b] => unit([*a, *b]),
        // An odd last byte.
        _ => 0xFFFD,
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// windows-1252 from 0x80 to 0x9F (the rest is Latin-1).
const WINDOWS_1252_80: &[char; 32] = &[
    '\u{20AC}', '\u{81}', '\u{201A}', '\u{192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{2C6}', '\u{2030}', '\u{160}', '\u{2039}', '\u{152}', '\u{8D}', '\u{17D}', '\u{8F}',
    '\u{90}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{2DC}', '\u{2122}', '\u{161}', '\u{203A}', '\u{153}', '\u{9D}', '\u{17E}', '\u{178}',
];

/// The bytes where ISO-8859-15 differs from Latin-1.
const LATIN9_DIFFERENCES: &[(u8, char)] = &[
    (0xA4, '\u{20AC}'),
    (0xA6, '\u{160}'),
    (0xA8, '\u{161}'),
    (0xB4, '\u{17D}'),
    (0xB8, '\u{17E}'),
    (0xBC, '\u{152}'),
    (0xBD, '\u{153}'),
    (0xBE, '\u{178}'),
];

/// A single-byte charset: Latin-1, with `from_80` for 0x80.. and then `differences`.
fn single_byte(body: &[u8], from_80: &[char], differences: &[(u8, char)]) -> String {
    body.iter()
        .map(|&b| {
            if let Some(&(_, c)) = differences.iter().find(|(d, _)| *d == b) {
                return c;
            }
            match usize::from(b)
                .checked_sub(0x80)
                .and_then(|i| from_80.get(i))
            {
                Some(&c) => c,
                None => char::from(b),
            }
        })
        .collect()
}

/// A success whose text blocks are `note` (if any) and `text`, masked, with `text` cut so that
/// the serialized result stays within `budget` bytes; the cut says how much was sent.
fn text_within(
    note: Option<String>,
    text: &str,
    secrets: &Secrets,
    budget: usize,
) -> CallToolResult {
    let build = |text: String| {
        let mut blocks: Vec<ContentBlock> = note.iter().cloned().map(ContentBlock::text).collect();
        blocks.push(ContentBlock::text(text));
        CallToolResult::success(blocks)
    };
    // Masked before it is cut, so the cut cannot leave half a secret.
    let text = secrets.redact(text);
    let whole = build(String::new());
    let room = budget.saturating_sub(budget::bytes(&whole));
    if json_len(&text) <= room {
        return build(text.into_owned());
    }
    let total = text.chars().count();
    let marker = |kept: usize| {
        format!(
            "\n[... cut: {kept} of {total} characters sent, to stay within the result budget of \
             {budget} bytes; ask for less, or raise --max-result-bytes]"
        )
    };
    // The marker is longest with the most digits; its line break takes two bytes in JSON.
    let room = room.saturating_sub(json_len(&marker(total)));
    let (mut used, mut end, mut kept) = (0, 0, 0);
    for (at, c) in text.char_indices() {
        used += char_json_len(c);
        if used > room {
            break;
        }
        end = at + c.len_utf8();
        kept += 1;
    }
    build(format!("{}{}", &text[..end], marker(kept)))
}

/// Bytes `text` takes inside a JSON string as serde_json writes it.
fn json_len(text: &str) -> usize {
    text.chars().map(char_json_len).sum()
}

fn char_json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// An image (`image/*`), audio (`audio/*`) or any other binary body as an embedded resource
/// (its `uri` is `shown`), base64-encoded, with a line saying what it is; over `budget` (which
/// is known before anything is encoded), a text saying what was not sent and how to get it.
fn binary_content(
    status: &str,
    content_type: &str,
    body: &[u8],
    shown: &str,
    budget: usize,
) -> CallToolResult {
    let essence = essence(content_type);
    let shown_type = if content_type.is_empty() {
        "application/octet-stream"
    } else {
        content_type
    };
    let (what, block) = if essence.starts_with("image/") {
        ("an image", ContentBlock::image(String::new(), essence))
    } else if essence.starts_with("audio/") {
        ("audio", ContentBlock::audio(String::new(), essence))
    } else {
        let resource = ResourceContents::blob(String::new(), shown).with_mime_type(shown_type);
        (
            "a file, as an embedded resource",
            ContentBlock::resource(resource),
        )
    };
    let line = format!("HTTP {status}: {what} ({shown_type}, {} bytes)", body.len());
    let mut result = CallToolResult::success(vec![block, ContentBlock::text(line)]);
    // Base64 needs no escapes in JSON: the encoded size is the size added.
    let encoded = body.len().div_ceil(3).saturating_mul(4);
    let size = budget::bytes(&result).saturating_add(encoded);
    if size > budget {
        return CallToolResult::success(vec![ContentBlock::text(format!(
            "HTTP {status}: {what} ({shown_type}, {} bytes) was not sent: as base64 the result \
             would be {size} bytes, over the result budget of {budget} bytes. Ask the API for a \
             smaller one if it can send one, or start the server with --max-result-bytes {size} \
             or more.",
            body.len()
        ))]);
    }
    if let Some(data) = result.content.first_mut().and_then(binary_data) {
        *data = base64::engine::general_purpose::STANDARD.encode(body);
    }
    result
}

/// One event of an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Event {
    /// `event:`, `message` when not given.
    kind: String,
    /// The `data:` lines joined by line breaks.
    data: String,
    /// `id:`, when the event set one.
    id: Option<String>,
}

/// The events of an event stream, parsed as the HTML standard says: lines end with CRLF, LF or
/// CR; `field: value` (one space after the colon dropped); a line starting with `:` is a
/// comment; an empty line ends an event (one without data is dropped); fields other than
/// `event`, `data` and `id` are ignored. An event not ended by an empty line (the stream stopped
/// in it) is dropped.
fn parse_events(text: &str) -> Vec<Event> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut events = Vec::new();
    let (mut kind, mut data, mut id) = (String::new(), None::<String>, None::<String>);
    let mut rest = text;
    while let Some(end) = rest.find(['\r', '\n']) {
        let line = &rest[..end];
        let skip = if rest[end..].starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = &rest[end + skip..];
        if line.is_empty() {
            if let Some(data) = data.take() {
                events.push(Event {
                    kind: if kind.is_empty() {
                        "message".into()
                    } else {
                        kind.clone()
                    },
                    data,
                    id: id.take(),
                });
            }
            kind.clear();
            id = None;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => kind = value.to_string(),
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_string()),
            },
            "id" if !value.contains('\0') => id = Some(value.to_string()),
            _ => {}
        }
    }
    events
}

/// Events as text: `event:`, `id:` (when set) and one `data:` line per line of data, events
/// apart by an empty line.
fn render_events(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("event: ");
        out.push_str(&e.kind);
        out.push('\n');
        if let Some(id) = &e.id {
            out.push_str("id: ");
            out.push_str(id);
            out.push('\n');
        }
        for line in e.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// An event stream as read: a line saying how many events came and why reading stopped, then
/// the events as text (within `budget`).
fn events(
    status: &str,
    body: &[u8],
    stopped: &Stopped,
    secrets: &Secrets,
    budget: usize,
) -> CallToolResult {
    let events = parse_events(&utf8(body));
    let why = match stopped {
        Stopped::Ended => "the stream ended".to_string(),
        Stopped::Idle => format!(
            "the stream was still open, but nothing came for {} s, so reading stopped",
            stream::IDLE.as_secs()
        ),
        Stopped::Cap => format!(
            "the stream was still open after {} s (or the request timeout), so reading stopped",
            stream::CAP.as_secs()
        ),
        Stopped::Full => format!(
            "reading stopped at the result budget of {budget} bytes (raise --max-result-bytes \
             for more)"
        ),
        Stopped::Broken(how) => format!("the stream broke off ({how})"),
    };
    let n = events.len();
    let plural = if n == 1 { "" } else { "s" };
    let note = format!("HTTP {status}: event stream, {n} event{plural}; {why}.");
    if events.is_empty() {
        return CallToolResult::success(vec![ContentBlock::text(secrets.redact(&note))]);
    }
    text_within(Some(note), &render_events(&events), secrets, budget)
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

    const BUDGET: usize = budget::DEFAULT_MAX_RESULT_BYTES;

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
            stream: None,
            link: None,
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
            BUDGET,
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
            BUDGET,
        );
        assert_eq!(json_of(&r)["structuredContent"], json!({"result": [1, 2]}));
        let r = to_result(
            &reply(200, "application/json", b"[1,2]"),
            "u",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
        );
        assert!(json_of(&r).get("structuredContent").is_none());
    }

    #[test]
    fn a_success_without_structured_content_is_an_error_for_an_output_schema() {
        let text = CallToolResult::success(vec![ContentBlock::text("<html>not json</html>")]);
        let r = unstructured(text.clone(), BUDGET);
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.content.len(), 2);
        assert!(
            r.content[0]
                .as_text()
                .unwrap()
                .text
                .contains("request succeeded")
        );
        assert_eq!(r.content[1], text.content[0]);
        // Without room for the first line, the content stays as it was.
        let r = unstructured(text.clone(), budget::bytes(&text) + 20);
        assert_eq!((r.is_error, r.content.len()), (Some(true), 1));
        // Structured results and errors are left alone.
        let structured = CallToolResult::structured(json!({"a": 1}));
        assert_eq!(unstructured(structured.clone(), BUDGET), structured);
        let e = error("HTTP 500");
        assert_eq!(unstructured(e.clone(), BUDGET), e);
    }

    #[test]
    fn errors_text_and_binary() {
        let r = to_result(
            &reply(404, "text/plain", b"no such pet"),
            "http://h/p",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
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
            BUDGET,
        );
        let v = json_of(&r);
        assert_eq!(v["content"][0]["type"], "image");
        assert_eq!(v["content"][0]["data"], "AAEC");
        assert_eq!(v["content"][0]["mimeType"], "image/png");
        let r = to_result(
            &reply(200, "text/csv", b"a,b"),
            "u",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
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
            BUDGET,
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
            BUDGET,
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
            BUDGET,
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
            BUDGET,
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
            BUDGET,
        );
        let r = redact_result(r, &Secrets::new(["s3cret"]));
        assert_eq!(seen.borrow()["echo"], "s3cret");
        let v = json_of(&r);
        assert_eq!(v["structuredContent"], json!({"echo": "***", "***": 1}));
        assert_eq!(v["content"][0]["text"], r#"{"echo":"***","***":1}"#);
    }

    fn event(kind: &str, data: &str, id: Option<&str>) -> Event {
        Event {
            kind: kind.into(),
            data: data.into(),
            id: id.map(Into::into),
        }
    }

    #[test]
    fn event_stream_lines_are_parsed() {
        let text = "\u{FEFF}: a comment\r\n\
                    data: one\r\n\r\n\
                    event: update\nid: 7\ndata: first\ndata:second\ndata\nretry: 10\n\n\
                    event: empty\n\n\
                    data:  two spaces\rid\r\r\
                    data: never ended\n";
        assert_eq!(
            parse_events(text),
            vec![
                event("message", "one", None),
                event("update", "first\nsecond\n", Some("7")),
                event("message", " two spaces", Some("")),
            ]
        );
        assert_eq!(
            render_events(&parse_events(
                "event: a\nid: 1\ndata: x\ndata: y\n\ndata: z\n\n"
            )),
            "event: a\nid: 1\ndata: x\ndata: y\n\nevent: message\ndata: z\n"
        );
    }

    #[test]
    fn an_open_event_stream_says_why_reading_stopped() {
        let r = to_result(
            &Reply {
                stream: Some(Stopped::Idle),
                ..reply(200, "text/event-stream", b"data: {\"n\":1}\n\ndata: half")
            },
            "u",
            None,
            &ok,
            &Secrets::new(["s3cretvalue"]),
            BUDGET,
        );
        let v = json_of(&r);
        let note = v["content"][0]["text"].as_str().unwrap();
        assert!(
            note.starts_with("HTTP 200 OK: event stream, 1 event;"),
            "{note}"
        );
        assert!(note.contains("nothing came for 2 s"), "{note}");
        assert_eq!(v["content"][1]["text"], "event: message\ndata: {\"n\":1}\n");
    }

    #[test]
    fn a_flooding_event_stream_is_cut_to_the_budget() {
        let body: String = (0..20_000)
            .map(|n| format!("data: {{\"n\":{n}}}\n\n"))
            .collect();
        for budget in [2_000, 10_000, BUDGET] {
            let r = to_result(
                &Reply {
                    stream: Some(Stopped::Full),
                    ..reply(200, "text/event-stream", &body.as_bytes()[..budget])
                },
                "http://h/v1/s",
                None,
                &ok,
                &Secrets::default(),
                budget,
            );
            assert!(
                budget::bytes(&r) <= budget,
                "{} > {budget}",
                budget::bytes(&r)
            );
            let v = json_of(&r);
            let events = v["content"][1]["text"].as_str().unwrap();
            assert!(
                events.starts_with("event: message\ndata: {\"n\":0}\n"),
                "{v}"
            );
            assert!(events.contains("[... cut: "), "{v}");
        }
        // Plain text cut to the budget: ASCII that fills it exactly.
        let r = text_within(None, &"x".repeat(5000), &Secrets::default(), 1000);
        assert!(
            (990..=1000).contains(&budget::bytes(&r)),
            "{}",
            budget::bytes(&r)
        );
    }

    #[test]
    fn text_is_decoded_from_its_charset() {
        let latin1 = b"caf\xE9 \x80";
        assert_eq!(
            textual("text/plain; charset=ISO-8859-1", latin1).unwrap(),
            "caf\u{e9} \u{20ac}"
        );
        assert_eq!(
            textual("text/csv;charset=\"latin1\"", latin1).unwrap(),
            "caf\u{e9} \u{20ac}"
        );
        assert_eq!(
            textual("text/plain; charset=iso-8859-15", b"\xA4\xE9").unwrap(),
            "\u{20ac}\u{e9}"
        );
        assert_eq!(
            textual("text/plain; charset=utf-16be", b"\x00h\x00\xE9").unwrap(),
            "h\u{e9}"
        );
        assert_eq!(
            textual("text/plain; charset=utf-16", b"\xFE\xFF\x00h").unwrap(),
            "h"
        );
        assert_eq!(
            textual("application/xml", b"\xEF\xBB\xBF<a>caf\xC3\xA9</a>").unwrap(),
            "<a>caf\u{e9}</a>"
        );
        // UTF-8 by default; a byte that is not UTF-8 is replaced, not a reason to drop the text.
        assert_eq!(textual("text/plain", b"caf\xE9").unwrap(), "caf\u{fffd}");
        // A charset not decoded here (unless the body is UTF-8), images and audio, and bytes
        // that are not UTF-8 or have a NUL, of no stated type or of any other.
        assert_eq!(textual("text/plain; charset=shift_jis", b"\x82\xA0"), None);
        assert_eq!(
            textual("text/plain; charset=shift_jis", b"abc").unwrap(),
            "abc"
        );
        assert_eq!(textual("image/png", b"abc"), None);
        assert_eq!(textual("audio/basic", b"abc"), None);
        assert_eq!(textual("", b"\xFF\x00"), None);
        assert_eq!(textual("application/octet-stream", b"ab\0c"), None);
        assert_eq!(textual("application/zip", b"PK\x03\x04\xFF"), None);
        // Textual application types, and any other type whose body is UTF-8 text.
        for ct in [
            "application/x-ndjson",
            "application/jwt",
            "application/json-seq",
            "application/problem+json",
            "application/octet-stream",
            "application/vnd.acme.token",
            "font/x-unknown",
        ] {
            assert_eq!(textual(ct, b"tok \xC3\xA9").unwrap(), "tok \u{e9}", "{ct}");
        }
        assert_eq!(textual("image/svg+xml", b"<svg/>").unwrap(), "<svg/>");
    }

    #[test]
    fn binary_becomes_image_audio_or_resource() {
        let png = b"\x89PNG\r\n\x1a\n\x00\xFF";
        let r = to_result(
            &reply(200, "image/png; q=1", png),
            "http://h/p.png",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
        );
        let v = json_of(&r);
        assert_eq!(v["content"][0]["type"], "image");
        assert_eq!(v["content"][0]["mimeType"], "image/png");
        let data = v["content"][0]["data"].as_str().unwrap();
        let engine = base64::engine::general_purpose::STANDARD;
        assert_eq!(engine.decode(data).unwrap(), png);
        let r = to_result(
            &reply(200, "audio/wav", b"RIFF"),
            "u",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
        );
        assert_eq!(json_of(&r)["content"][0]["type"], "audio");
        let r = to_result(
            &reply(200, "application/gzip", b"\x1f\x8b\x08"),
            "http://h/a.tgz?key=***",
            None,
            &ok,
            &Secrets::default(),
            BUDGET,
        );
        let v = json_of(&r);
        assert_eq!(v["content"][0]["type"], "resource");
        assert_eq!(
            v["content"][0]["resource"],
            json!({"uri": "http://h/a.tgz?key=***", "mimeType": "application/gzip", "blob": "H4sI"})
        );
    }

    #[test]
    fn binary_over_the_budget_is_described_not_encoded() {
        let body = vec![7u8; 3000];
        let fits = to_result(
            &reply(200, "image/jpeg", &body),
            "u",
            None,
            &ok,
            &Secrets::default(),
            4200,
        );
        assert!(budget::bytes(&fits) <= 4200, "{}", budget::bytes(&fits));
        assert_eq!(json_of(&fits)["content"][0]["type"], "image");
        let over = to_result(
            &reply(200, "image/jpeg", &body),
            "u",
            None,
            &ok,
            &Secrets::default(),
            4000,
        );
        let v = json_of(&over);
        assert_eq!(v["content"].as_array().unwrap().len(), 1);
        let text = v["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("an image (image/jpeg, 3000 bytes) was not sent"),
            "{text}"
        );
        assert!(text.contains("--max-result-bytes"), "{text}");
    }

    #[test]
    fn long_text_is_cut_within_the_budget_after_masking() {
        let secret = "k".repeat(40);
        let body = format!("{}\"{secret}\" {}", "a\tb".repeat(2000), "z".repeat(9000));
        let secrets = Secrets::new([secret.as_str()]);
        let r = to_result(
            &reply(200, "text/csv", body.as_bytes()),
            "u",
            None,
            &ok,
            &secrets,
            10_000,
        );
        let size = budget::bytes(&r);
        assert!(size <= 10_000 && size > 9_800, "{size}");
        let text = &r.content[0].as_text().unwrap().text;
        assert!(!text.contains("kkkkkkkk"));
        assert!(text.contains("\"***\""));
        assert!(text.ends_with("raise --max-result-bytes]"), "{text}");
        assert!(text.contains(&format!("of {} characters sent", body.chars().count() - 37)));
    }

    #[test]
    fn masking_leaves_binary_data_alone() {
        // A blob whose base64 happens to hold a secret's text is passed on as it came.
        let body = base64::engine::general_purpose::STANDARD
            .decode("c2VjcmV0c2VjcmV0AAAA")
            .unwrap();
        let secrets = Secrets::new(["c2VjcmV0c2VjcmV0AAAA", "uri-secret-1"]);
        let r = to_result(
            &reply(200, "application/octet-stream", &body),
            "http://h/x?t=uri-secret-1",
            None,
            &ok,
            &secrets,
            BUDGET,
        );
        let v = json_of(&redact_result(r, &secrets));
        assert_eq!(v["content"][0]["resource"]["blob"], "c2VjcmV0c2VjcmV0AAAA");
        assert_eq!(v["content"][0]["resource"]["uri"], "http://h/x?t=***");
    }
}
