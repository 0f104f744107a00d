//! Budget: keeps a tool result within its byte budget (`--max-result-bytes`, or the tool's
//! `maxResultBytes` hint), sending one or both copies of a JSON answer, cutting its longest array
//! and then its unconstrained strings, and saying what was cut and which arguments get the rest.
//!
//! The rule, in order, for a success with `structuredContent` (or JSON text alone) over the
//! budget:
//!
//! 0. The text copy is written compactly; if that fits, nothing else changes.
//! 1. The longest array (at most three objects deep) keeps the most first items that fit.
//! 2. When not one item fits (or there is no array), the array keeps its items (else its first
//!    one) and every string the `outputSchema` leaves unconstrained (no `pattern`, `format`,
//!    `enum`, `const`, length or content keyword, nor one above it) that is longer than a cap is
//!    cut to it with a marker `…[cut 1,234 characters]`; the cap is the largest that fits.
//! 3. The result must still validate against the `outputSchema`; when it cannot be made to fit
//!    valid, a text says its size and that it was not sent.
//!
//! The note (a text block first, and the structured value's `_budget_note` member when the
//! `outputSchema` admits it) says what was cut and how to continue. Items cut: the rest of
//! this page in a smaller page, from the tool's own arguments: `starting_after` with the last
//! item's `id`, else `offset` moved past the items sent, else a page number and size that start
//! at the first item not sent (`page: 2` at the size sent, from page 1), else a smaller page
//! size to call again with. The whole page sent:
//! the next page, from a `Link: <url>; rel="next"` header (the tool's arguments its query sets
//! to other values) or the body's next-page fields (`next_cursor`, `nextPageToken`,
//! `@odata.nextLink`, `next`, `has_more` with `starting_after`, ...) matched to the tool's
//! arguments.

use crate::tool::{ArgIn, Argument};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value, json};

/// Default result budget in bytes: below the 50,000 characters over which Claude Code writes a
/// tool result to a file instead of showing it, and well below its `MAX_MCP_OUTPUT_TOKENS`
/// default of 25,000 tokens.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 40_000;

/// Which copies of a JSON answer a result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Copies {
    /// `structuredContent` and the same JSON as a text block (what the MCP specification asks
    /// for: "SHOULD also return the serialized JSON in a TextContent block").
    #[default]
    Both,
    /// The text block only (the tools then need `--no-output-schema`).
    Text,
    /// `structuredContent` only (with the budget's note, when there is one, as text).
    Structured,
}

/// Argument names that commonly set a page size.
const PAGE_SIZE_NAMES: &[&str] = &[
    "limit",
    "per_page",
    "perPage",
    "page_size",
    "pageSize",
    "size",
    "count",
    "max_results",
    "maxResults",
    "top",
    "$top",
    "first",
];

/// Argument names of an item offset.
const OFFSET_NAMES: &[&str] = &[
    "offset",
    "skip",
    "$skip",
    "start",
    "start_index",
    "startIndex",
];

/// Argument names of a page number.
const PAGE_NAMES: &[&str] = &["page", "page_number", "pageNumber"];

/// Argument names that start a page after an item's id (Stripe).
const AFTER_ID_NAMES: &[&str] = &["starting_after", "startingAfter"];

/// Argument names that take an opaque next-page cursor.
const CURSOR_NAMES: &[&str] = &[
    "cursor",
    "page_token",
    "pageToken",
    "next_token",
    "nextToken",
    "NextToken",
    "continuation_token",
    "continuationToken",
    "after",
    "marker",
];

/// Body fields that give the next page: a cursor, a page number or a URL.
const NEXT_FIELDS: &[&str] = &[
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "NextToken",
    "continuation_token",
    "continuationToken",
    "next_marker",
    "NextMarker",
    "@odata.nextLink",
    "nextLink",
    "next_page_url",
    "next_url",
    "next_page",
    "nextPage",
    "next",
    "endCursor",
    "cursor",
];

/// Objects of the body where next-page fields are looked for, besides its top level.
const PAGING_OBJECTS: &[&str] = &[
    "meta",
    "metadata",
    "pagination",
    "paging",
    "page_info",
    "pageInfo",
    "response_metadata",
    "links",
    "_links",
    "cursor",
];

/// What [`fit`] knows about the tool and the call.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The budget in bytes of serialized result.
    pub budget: usize,
    /// The tool's `output.wrapped` key.
    pub wrapped: Option<&'a str>,
    /// The tool's `inputSchema` (`$defs` included).
    pub input: &'a Value,
    /// The tool's `outputSchema` (`$defs` included), if it has one.
    pub output: Option<&'a Value>,
    /// How each argument travels (to read a next page's URL).
    pub arguments: &'a [Argument],
    /// The call's arguments.
    pub args: &'a Map<String, Value>,
    /// The answer's `Link` header, credentials masked.
    pub link: Option<&'a str>,
    /// Which copies to send.
    pub copies: Copies,
    /// Whether structured content is valid against the `outputSchema`.
    pub valid: &'a dyn Fn(&Value) -> bool,
}

/// `result` within `call.budget` bytes of serialized JSON, with the copies `call.copies` asks
/// for. A success with structured content over the budget is cut as the module's rule says and
/// gains a text block first saying what was cut and how to get the rest. A result that cannot
/// be cut is replaced by a text saying its size and that it was not sent. Errors are left to
/// their own bound.
pub(crate) fn fit(mut result: CallToolResult, call: &Call<'_>) -> CallToolResult {
    if result.is_error == Some(true) {
        return result;
    }
    // The structured value is kept aside while the text copy alone is measured.
    let aside = match call.copies {
        Copies::Text => result.structured_content.take(),
        _ => None,
    };
    if aside.is_none() {
        result = copies(result, call.copies);
    }
    let size = bytes(&result);
    if size <= call.budget {
        return result;
    }
    if let Some(structured) = aside.or_else(|| result.structured_content.take()) {
        // The text copy is not needed to cut: one copy of the body less while cutting.
        result.content.clear();
        if let Some(cut) = cut(structured, call) {
            return cut;
        }
    } else if let [only] = result.content.as_slice()
        && let Some(text) = only.as_text()
        && let Ok(value @ (Value::Array(_) | Value::Object(_))) =
            serde_json::from_str::<Value>(&text.text)
    {
        // JSON sent as text only (not an object without an outputSchema, or `--result-copies
        // text`): cut the same way; with no structured content there is nothing to validate.
        let as_text = Call {
            copies: Copies::Text,
            wrapped: None,
            valid: &|_| true,
            ..*call
        };
        result.content.clear();
        if let Some(cut) = cut(value, &as_text) {
            return cut;
        }
    }
    let page = page_size(call)
        .map(|n| format!(" (the `{n}` argument)"))
        .unwrap_or_default();
    CallToolResult::success(vec![ContentBlock::text(format!(
        "The result ({size} bytes) is over the result budget of {} bytes and was not sent. Ask \
         for less: a smaller page size or narrower filters{page}; or raise this tool's budget \
         (`maxResultBytes` in the hints file, or `serve --max-result-bytes`).",
        call.budget
    ))])
}

/// `result` with only the copies `copies` asks for: `Text` drops `structuredContent`,
/// `Structured` drops the text copy (kept when there is no structured content).
pub(crate) fn copies(mut result: CallToolResult, copies: Copies) -> CallToolResult {
    if result.structured_content.is_none() {
        return result;
    }
    match copies {
        Copies::Both => {}
        Copies::Text => result.structured_content = None,
        Copies::Structured => result.content.clear(),
    }
    result
}

/// Size of `result` serialized as the JSON-RPC `result`, counted without a copy.
pub(crate) fn bytes(result: &CallToolResult) -> usize {
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, result) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// A writer that only counts.
struct Count(usize);

impl std::io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How a structured value was cut.
#[derive(Debug, Clone, Copy)]
struct Cut {
    /// Items kept of the longest array.
    keep: usize,
    /// Strings longer than this many characters are cut (`None`: none are).
    cap: Option<usize>,
}

/// The structured value cut to fit, as a result, or `None` when it cannot fit. Only one copy
/// of the whole value exists at a time: the whole is tried by moving it into the result, and
/// each cut copies only the items it keeps.
fn cut(structured: Value, call: &Call<'_>) -> Option<CallToolResult> {
    let path = longest_array(&structured, 3).unwrap_or_default();
    let total = at(&structured, &path)
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    // 0. The whole value, its text copy written compactly (the API's may be indented).
    let mut whole = whole_result(structured, call);
    if measure(&mut whole, call.copies) <= call.budget {
        let valid = whole.structured_content.as_ref().is_some_and(call.valid);
        return valid.then(|| sent(whole, call.copies));
    }
    let structured = whole.structured_content.take().unwrap_or(Value::Null);
    drop(whole);
    let structured = &structured;
    let fits = |c: Cut| {
        let mut r = build(structured, &path, total, c, call, true);
        measure(&mut r, call.copies) <= call.budget
    };
    // 1. Items: the most that fit (fitting grows with the count kept, so search the boundary;
    // each item takes at least a byte and a comma, so no more than `budget` of them fit).
    if total > 0 {
        let keep = most(total.min(call.budget), |k| fits(Cut { keep: k, cap: None }));
        if let Some(keep) = keep.filter(|&k| k > 0) {
            return valid(structured, &path, total, Cut { keep, cap: None }, call);
        }
    }
    // 2. Strings: the whole array (else its first item) and the longest cap that fits.
    let longest = longest_string(structured);
    for keep in [total, total.min(1)] {
        let cap = most(longest, |l| fits(Cut { keep, cap: Some(l) }));
        if let Some(cap) = cap {
            return valid(
                structured,
                &path,
                total,
                Cut {
                    keep,
                    cap: Some(cap),
                },
                call,
            );
        }
        if total <= 1 {
            break;
        }
    }
    None
}

/// The result of `c`, when its structured content is valid.
fn valid(
    structured: &Value,
    path: &[String],
    total: usize,
    c: Cut,
    call: &Call<'_>,
) -> Option<CallToolResult> {
    let result = build(structured, path, total, c, call, true);
    if result.structured_content.as_ref().is_some_and(call.valid) {
        return Some(sent(result, call.copies));
    }
    // Without the note in the structured value (an outputSchema that admits no other member).
    let result = build(structured, path, total, c, call, false);
    result
        .structured_content
        .as_ref()
        .is_some_and(call.valid)
        .then(|| sent(result, call.copies))
}

/// The largest `n` in `0..=max` for which `fits(n)` holds, searching as if fitting shrinks with
/// `n`; `None` when even 0 does not fit.
fn most(max: usize, fits: impl Fn(usize) -> bool) -> Option<usize> {
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0usize, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// The member of a cut structured value that carries the note too: Claude Code shows the model
/// only `structuredContent` when it is present.
pub(crate) const NOTE_KEY: &str = "_budget_note";

/// The result for cut `c` of `structured`, its structured content kept even for `Copies::Text`
/// (to be validated; [`sent`] drops it); `note_in`: the note is also the structured value's
/// [`NOTE_KEY`] member (when it is an object without one).
fn build(
    structured: &Value,
    path: &[String],
    total: usize,
    c: Cut,
    call: &Call<'_>,
    note_in: bool,
) -> CallToolResult {
    let mut value = clone_cut(structured, path, c.keep);
    let shortened = match c.cap {
        Some(cap) => {
            let mut n = 0;
            shorten(&mut value, call.output, call.output, cap, &mut n, 0);
            n
        }
        None => 0,
    };
    let note = (c.keep < total || shortened > 0)
        .then(|| note(structured, path, total, c.keep, shortened, call));
    // The text copy is the body without the note.
    let text = text_copy(&value, call);
    if let (Some(note), true, Value::Object(map)) = (&note, note_in, &mut value)
        && call.copies != Copies::Text
        && !map.contains_key(NOTE_KEY)
    {
        map.insert(NOTE_KEY.to_string(), json!(note));
    }
    let mut r = CallToolResult::structured(value);
    r.content = note
        .into_iter()
        .chain(text)
        .map(ContentBlock::text)
        .collect();
    r
}

/// `value` as the structured content of a result with the text copy `call.copies` asks for;
/// the structured content is kept even for `Copies::Text`.
fn whole_result(value: Value, call: &Call<'_>) -> CallToolResult {
    let text = text_copy(&value, call);
    let mut r = CallToolResult::structured(value);
    r.content = text.into_iter().map(ContentBlock::text).collect();
    r
}

/// The text copy of structured `value` that `call.copies` asks for: the (wrapped) body, compact.
fn text_copy(value: &Value, call: &Call<'_>) -> Option<String> {
    if call.copies == Copies::Structured {
        return None;
    }
    let body = match call.wrapped {
        Some(key) => value.get(key).unwrap_or(&Value::Null),
        None => value,
    };
    Some(serde_json::to_string(body).unwrap_or_default())
}

/// The result as sent: without its structured content for `Copies::Text`.
fn sent(mut result: CallToolResult, copies: Copies) -> CallToolResult {
    if copies == Copies::Text {
        result.structured_content = None;
    }
    result
}

/// The size of `result` as [`sent`] (its structured content put back after).
fn measure(result: &mut CallToolResult, copies: Copies) -> usize {
    if copies != Copies::Text {
        return bytes(result);
    }
    let aside = result.structured_content.take();
    let size = bytes(result);
    result.structured_content = aside;
    size
}

/// A copy of `value` whose array at `path` keeps only its first `keep` items (the others are
/// not copied).
fn clone_cut(value: &Value, path: &[String], keep: usize) -> Value {
    match (path.split_first(), value) {
        (None, Value::Array(items)) => Value::Array(items.iter().take(keep).cloned().collect()),
        (Some((key, rest)), Value::Object(map)) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if k == key {
                        clone_cut(v, rest, keep)
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// What was cut and how to get the rest.
fn note(
    structured: &Value,
    path: &[String],
    total: usize,
    keep: usize,
    shortened: usize,
    call: &Call<'_>,
) -> String {
    let budget = call.budget;
    let shown = shown(path, call.wrapped);
    let mut out = if keep < total {
        format!(
            "Partial result: {keep} of {total} items of {shown} were sent (result budget {budget} \
             bytes)."
        )
    } else {
        format!("Partial result (result budget {budget} bytes).")
    };
    if shortened > 0 {
        out.push_str(&format!(
            " {shortened} long strings were shortened, each ending in \"…[cut N characters]\""
        ));
        let mut ways = Vec::new();
        if let Some(size) = page_size(call).filter(|_| total > 1) {
            ways.push(format!("fewer items per call (`{size}`)"));
        }
        if has_argument(call.input, "_fields") {
            ways.push("fewer fields (`_fields`)".to_string());
        }
        if !ways.is_empty() {
            out.push_str(&format!("; for them whole, ask for {}", ways.join(" or ")));
        }
        out.push('.');
    }
    let items = at(structured, path).and_then(Value::as_array);
    if keep == 0
        && let Some(first) = items.and_then(|a| a.first())
    {
        let size = serde_json::to_string(first).map_or(0, |t| t.len());
        out.push_str(&format!(
            " Its first item alone is {size} bytes, more than fits: raise this tool's budget \
             (`maxResultBytes` in the hints file, or `serve --max-result-bytes`)"
        ));
        if has_argument(call.input, "_fields") {
            out.push_str(", or ask for fewer fields (`_fields`)");
        }
        out.push('.');
        return out;
    }
    let last_sent = keep
        .checked_sub(1)
        .and_then(|i| items.and_then(|a| a.get(i)));
    if keep < total {
        out.push(' ');
        out.push_str(&rest_of_page(call, keep, last_sent));
    } else if let Some(next) = next_page(structured, call, last_sent) {
        out.push(' ');
        out.push_str(&next);
    }
    out
}

/// How to get the items of this page that were not sent.
fn rest_of_page(call: &Call<'_>, keep: usize, last_sent: Option<&Value>) -> String {
    let size = page_size(call);
    let mut args = Map::new();
    if let Some(s) = &size {
        args.insert(s.clone(), json!(keep));
    }
    let after = find_argument(call, AFTER_ID_NAMES);
    let id = last_sent
        .and_then(|v| v.get("id"))
        .filter(|v| v.is_string() || v.is_number());
    if let (Some(after), Some(id)) = (after, id) {
        let id = id_argument(call, &after, id);
        args.insert(after, id);
        return format!(
            "To get the rest, call again with {} (the other arguments as before).",
            shown_args(&args)
        );
    }
    if let Some(offset) = find_argument(call, OFFSET_NAMES) {
        let from = call.args.get(&offset).and_then(Value::as_u64).unwrap_or(0);
        args.insert(offset, json!(from.saturating_add(keep as u64)));
        return format!(
            "To get the rest, call again with {} (the other arguments as before).",
            shown_args(&args)
        );
    }
    if let (Some(page), Some(s)) = (find_argument(call, PAGE_NAMES), &size) {
        let given_page = call.args.get(&page).and_then(Value::as_u64).unwrap_or(1);
        let given_size = call.args.get(s).and_then(Value::as_u64);
        // The first item not sent, counted from 0 over all pages.
        let first = match (given_page, given_size) {
            (0 | 1, _) => Some(keep as u64),
            (p, Some(n)) => (p - 1)
                .checked_mul(n)
                .and_then(|x| x.checked_add(keep as u64)),
            _ => None,
        };
        // A page size that puts it at a page's start: the largest divisor of it up to `keep`,
        // when at least half of `keep`.
        if let Some(first) = first.filter(|&f| f > 0) {
            let keep = keep as u64;
            if let Some(d) = (keep.div_ceil(2).max(1)..=keep)
                .rev()
                .find(|d| first.is_multiple_of(*d))
            {
                args.insert(s.clone(), json!(d));
                args.insert(page, json!(first / d + 1));
                return format!(
                    "To get the rest, call again with {} (the other arguments as before).",
                    shown_args(&args)
                );
            }
        }
    }
    match size {
        Some(_) => format!(
            "To get the rest, ask for pages of at most {keep} items: call again with {} (the \
             other arguments as before; its first {keep} items are the ones sent) and go on \
             from that answer's next page.",
            shown_args(&args)
        ),
        None => {
            "The tool has no page-size argument: narrow the filters to get fewer items.".to_string()
        }
    }
}

/// The next page's arguments, when the answer says where it is.
fn next_page(structured: &Value, call: &Call<'_>, last_sent: Option<&Value>) -> Option<String> {
    if let Some(url) = call.link.and_then(link_next) {
        return Some(from_url(&url, call, "the `Link` header"));
    }
    let body = match call.wrapped {
        Some(key) => structured.get(key)?,
        None => structured,
    };
    let object = body.as_object()?;
    if object.get("has_more") == Some(&Value::Bool(true))
        && let Some(after) = find_argument(call, AFTER_ID_NAMES)
        && let Some(id) = last_sent.and_then(|v| v.get("id"))
    {
        let mut args = Map::new();
        let id = id_argument(call, &after, id);
        args.insert(after, id);
        return Some(format!(
            "The next page: call again with {} (the other arguments as before).",
            shown_args(&args)
        ));
    }
    let places = std::iter::once(object).chain(
        PAGING_OBJECTS
            .iter()
            .filter_map(|k| object.get(*k)?.as_object()),
    );
    for place in places {
        for field in NEXT_FIELDS {
            let Some(value) = place.get(*field) else {
                continue;
            };
            // GraphQL's `endCursor` only with `hasNextPage: true`.
            if *field == "endCursor" && place.get("hasNextPage") != Some(&Value::Bool(true)) {
                continue;
            }
            let value = match value {
                Value::Object(o) => o.get("href").unwrap_or(value),
                v => v,
            };
            match value {
                Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => {
                    return Some(from_url(s, call, &format!("`{field}`")));
                }
                Value::String(s) if s.starts_with('/') || s.starts_with('?') => {
                    return Some(from_url(s, call, &format!("`{field}`")));
                }
                Value::String(s) if !s.is_empty() => {
                    let arg = cursor_argument(call, field)?;
                    let mut args = Map::new();
                    args.insert(arg, json!(s));
                    return Some(format!(
                        "The next page (`{field}`): call again with {} (the other arguments as \
                         before).",
                        shown_args(&args)
                    ));
                }
                Value::Number(n) if matches!(*field, "next_page" | "nextPage") => {
                    let arg = find_argument(call, PAGE_NAMES)?;
                    let mut args = Map::new();
                    args.insert(arg, Value::Number(n.clone()));
                    return Some(format!(
                        "The next page (`{field}`): call again with {} (the other arguments as \
                         before).",
                        shown_args(&args)
                    ));
                }
                _ => {}
            }
        }
    }
    None
}

/// The sentence for a next page at `url`: the tool's arguments its query sets to values other
/// than the call's, and the query parameters the tool has no argument for.
fn from_url(url: &str, call: &Call<'_>, from: &str) -> String {
    let mut args = Map::new();
    let mut unknown = Vec::new();
    for (name, value) in query(url) {
        let arg = call.arguments.iter().find(|a| {
            a.location == ArgIn::Query && a.original.as_deref().unwrap_or(&a.name) == name
        });
        let Some(arg) = arg else {
            if !unknown.contains(&name) {
                unknown.push(name);
            }
            continue;
        };
        let typed = typed(call.input, &arg.name, &value);
        match (args.get_mut(&arg.name), typed) {
            (Some(Value::Array(items)), v) => items.push(v),
            (None, v) if is_array(call.input, &arg.name) => {
                args.insert(arg.name.clone(), Value::Array(vec![v]));
            }
            (_, v) => {
                args.insert(arg.name.clone(), v);
            }
        }
    }
    args.retain(|k, v| call.args.get(k) != Some(v));
    let mut out = if args.is_empty() {
        format!("The next page ({from}) sets no argument of this tool to a new value.")
    } else {
        format!(
            "The next page ({from}): call again with {} (the other arguments as before).",
            shown_args(&args)
        )
    };
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|n| format!("`{n}`")).collect();
        out.push_str(&format!(
            " Its URL also sets {}, which this tool has no argument for.",
            names.join(", ")
        ));
    }
    out
}

/// The `rel="next"` target of a `Link` header (RFC 8288), if any.
fn link_next(header: &str) -> Option<String> {
    let mut rest = header;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after.find('>')?;
        let target = &after[..close];
        let params_end = after[close..].find('<').map_or(after.len(), |i| close + i);
        let params = after[close + 1..params_end]
            .trim_end()
            .trim_end_matches(',');
        let next = params.split(';').any(|p| {
            let Some((k, v)) = p.split_once('=') else {
                return false;
            };
            k.trim().eq_ignore_ascii_case("rel")
                && v.trim()
                    .trim_matches('"')
                    .split_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("next"))
        });
        if next {
            return Some(target.trim().to_string());
        }
        rest = &after[params_end..];
    }
    None
}

/// The query parameters of `url`, percent-decoded (`+` as a space), in order.
fn query(url: &str) -> Vec<(String, String)> {
    let url = url.split('#').next().unwrap_or("");
    let Some((_, q)) = url.split_once('?') else {
        return Vec::new();
    };
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// The property schema of argument `name`.
fn property<'v>(input: &'v Value, name: &str) -> Option<&'v Value> {
    input.get("properties")?.get(name)
}

fn has_argument(input: &Value, name: &str) -> bool {
    property(input, name).is_some()
}

/// The JSON types argument `name` may have (empty: unknown).
fn types(input: &Value, name: &str) -> Vec<String> {
    match property(input, name).and_then(|p| p.get("type")) {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn is_array(input: &Value, name: &str) -> bool {
    types(input, name).iter().any(|t| t == "array")
}

/// An item's `id` as the value of argument `name`, in the argument's type (an integer id for a
/// string argument is written as a string).
fn id_argument(call: &Call<'_>, name: &str, id: &Value) -> Value {
    match id {
        Value::String(s) => typed(call.input, name, s),
        other => typed(call.input, name, &other.to_string()),
    }
}

/// A query value as argument `name` takes it: a number or boolean where its type says so.
fn typed(input: &Value, name: &str, value: &str) -> Value {
    let mut ts = types(input, name);
    if ts.iter().any(|t| t == "array") {
        ts = match property(input, name)
            .and_then(|p| p.get("items"))
            .and_then(|i| i.get("type"))
        {
            Some(Value::String(t)) => vec![t.clone()],
            _ => Vec::new(),
        };
    }
    let has = |t: &str| ts.iter().any(|x| x == t);
    if has("integer")
        && let Ok(n) = value.parse::<i64>()
    {
        return json!(n);
    }
    if has("number")
        && let Ok(n) = value.parse::<f64>()
        && let Some(n) = serde_json::Number::from_f64(n)
    {
        return Value::Number(n);
    }
    if has("boolean") && (value == "true" || value == "false") {
        return json!(value == "true");
    }
    json!(value)
}

/// The tool's argument named like one of `names` (its property name or its name in the
/// request), by its property name.
fn find_argument(call: &Call<'_>, names: &[&str]) -> Option<String> {
    for want in names {
        for a in call.arguments {
            let request = a.original.as_deref().unwrap_or(&a.name);
            if a.name.eq_ignore_ascii_case(want) || request.eq_ignore_ascii_case(want) {
                return Some(a.name.clone());
            }
        }
    }
    None
}

/// The tool's page-size argument: a known name whose type (when given) is a number.
fn page_size(call: &Call<'_>) -> Option<String> {
    let name = find_argument(call, PAGE_SIZE_NAMES)?;
    let ts = types(call.input, &name);
    (ts.is_empty() || ts.iter().any(|t| t == "integer" || t == "number")).then_some(name)
}

/// The argument that takes the cursor of body field `field`: the argument of the same name,
/// else of the name without `next` (`nextPageToken` -> `pageToken`), else a common cursor name.
fn cursor_argument(call: &Call<'_>, field: &str) -> Option<String> {
    let bare = field
        .strip_prefix("next_")
        .or_else(|| field.strip_prefix("Next"))
        .or_else(|| field.strip_prefix("next"))
        .map(|s| {
            let mut c = s.chars();
            c.next()
                .map(|f| f.to_lowercase().chain(c).collect::<String>())
                .unwrap_or_default()
        });
    let mut names = vec![field];
    if let Some(b) = bare.as_deref().filter(|b| !b.is_empty()) {
        names.push(b);
    }
    find_argument(call, &names).or_else(|| find_argument(call, CURSOR_NAMES))
}

/// `{"page": 3}` as JSON, for the model to copy.
fn shown_args(args: &Map<String, Value>) -> String {
    serde_json::to_string(args).unwrap_or_default()
}

/// The most characters of any string in `value`.
fn longest_string(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        Value::Array(items) => items.iter().map(longest_string).max().unwrap_or(0),
        Value::Object(map) => map.values().map(longest_string).max().unwrap_or(0),
        _ => 0,
    }
}

/// Room a marker takes: a string is cut only when that makes it shorter.
const MARKER_ROOM: usize = 32;

/// Keywords that make a string (or anything below them) not to be shortened: a cut could
/// break them.
const CONSTRAINTS: &[&str] = &[
    "pattern",
    "format",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "not",
    "if",
    "$dynamicRef",
    "$recursiveRef",
];

/// How deep schemas and values are followed.
const DEPTH: usize = 64;

/// Cut every string under `value` longer than `cap` characters that `schema` (within `root`)
/// leaves unconstrained; `n` counts them.
fn shorten(
    value: &mut Value,
    schema: Option<&Value>,
    root: Option<&Value>,
    cap: usize,
    n: &mut usize,
    depth: usize,
) {
    let mut set = Vec::new();
    if let Some(s) = schema
        && !expand(s, root, &mut set, 0)
    {
        return;
    }
    shorten_in(value, &set, root, cap, n, depth);
}

fn shorten_in(
    value: &mut Value,
    set: &[&Value],
    root: Option<&Value>,
    cap: usize,
    n: &mut usize,
    depth: usize,
) {
    if depth > DEPTH || set.iter().any(|s| constrained(s)) {
        return;
    }
    match value {
        Value::String(s) => {
            let chars = s.chars().count();
            if chars > cap.saturating_add(MARKER_ROOM) {
                let end = s.char_indices().nth(cap).map_or(s.len(), |(i, _)| i);
                let marker = format!("…[cut {} characters]", thousands(chars - cap));
                s.truncate(end);
                s.push_str(&marker);
                *n += 1;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let mut below = Vec::new();
                for s in set {
                    let prefix = s.get("prefixItems").and_then(Value::as_array);
                    let child = match prefix.and_then(|p| p.get(i)) {
                        Some(p) => Some(p),
                        None if prefix.is_some() => s.get("items").or(s.get("additionalItems")),
                        None => s.get("items").or(s.get("additionalItems")),
                    };
                    for c in child
                        .into_iter()
                        .chain(s.get("contains"))
                        .chain(s.get("unevaluatedItems"))
                    {
                        if !expand(c, root, &mut below, 0) {
                            return;
                        }
                    }
                }
                shorten_in(item, &below, root, cap, n, depth + 1);
            }
        }
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let mut below = Vec::new();
                for s in set {
                    let named = s.get("properties").and_then(|p| p.get(key.as_str()));
                    let patterns = s
                        .get("patternProperties")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flat_map(|p| p.values());
                    for c in named
                        .into_iter()
                        .chain(patterns)
                        .chain(s.get("additionalProperties"))
                        .chain(s.get("unevaluatedProperties"))
                    {
                        if !expand(c, root, &mut below, 0) {
                            return;
                        }
                    }
                }
                shorten_in(v, &below, root, cap, n, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether a schema's own keywords constrain what a cut could change.
fn constrained(s: &Value) -> bool {
    s.as_object()
        .is_some_and(|o| CONSTRAINTS.iter().any(|k| o.contains_key(*k)))
}

/// Add `s` and every schema it applies in place (`$ref`, `allOf`, `anyOf`, `oneOf`, `then`,
/// `else`, `dependentSchemas`) to `set`; `false` when one cannot be followed (a `$ref` outside
/// the document, too deep).
fn expand<'v>(
    s: &'v Value,
    root: Option<&'v Value>,
    set: &mut Vec<&'v Value>,
    depth: usize,
) -> bool {
    if depth > DEPTH {
        return false;
    }
    let o = match s {
        Value::Object(o) => o,
        Value::Bool(_) => return true,
        // Not a 2020-12 schema (`items` as an array): nothing below it is cut.
        _ => return false,
    };
    set.push(s);
    if let Some(r) = o.get("$ref") {
        let target = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root?.pointer(p));
        match target {
            Some(t) => {
                if !expand(t, root, set, depth + 1) {
                    return false;
                }
            }
            None => return false,
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for sub in o.get(key).and_then(Value::as_array).into_iter().flatten() {
            if !expand(sub, root, set, depth + 1) {
                return false;
            }
        }
    }
    for key in ["then", "else"] {
        if let Some(sub) = o.get(key)
            && !expand(sub, root, set, depth + 1)
        {
            return false;
        }
    }
    for sub in o
        .get("dependentSchemas")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|m| m.values())
    {
        if !expand(sub, root, set, depth + 1) {
            return false;
        }
    }
    true
}

/// `1234` as `1,234`.
pub(crate) fn thousands(n: usize) -> String {
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

/// Path (object keys) to the array with the most items, at most `depth` objects deep.
fn longest_array(value: &Value, depth: usize) -> Option<Vec<String>> {
    let mut best: Option<(usize, Vec<String>)> = None;
    walk(value, depth, &mut Vec::new(), &mut best);
    best.filter(|(n, _)| *n > 0).map(|(_, p)| p)
}

fn walk(
    value: &Value,
    depth: usize,
    path: &mut Vec<String>,
    best: &mut Option<(usize, Vec<String>)>,
) {
    match value {
        Value::Array(items) if best.as_ref().is_none_or(|(n, _)| items.len() > *n) => {
            *best = Some((items.len(), path.clone()));
        }
        Value::Object(map) if depth > 0 => {
            for (key, v) in map {
                path.push(key.clone());
                walk(v, depth - 1, path, best);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(value: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

/// The array's place in the API's body, as the model sees it.
fn shown(path: &[String], wrapped: Option<&str>) -> String {
    let inner: Vec<&str> = path
        .iter()
        .map(String::as_str)
        .skip(usize::from(
            wrapped.is_some() && path.first().map(String::as_str) == wrapped,
        ))
        .collect();
    if inner.is_empty() {
        "the list".to_string()
    } else {
        format!("`{}`", inner.join("."))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(n: usize) -> Value {
        Value::Array(
            (0..n)
                .map(|i| json!({"id": format!("it_{i}"), "number": i, "title": format!("issue {i} {}", "x".repeat(200))}))
                .collect(),
        )
    }

    fn result_of(structured: Value, text: &Value) -> CallToolResult {
        let mut r = CallToolResult::structured(structured);
        r.content = vec![ContentBlock::text(text.to_string())];
        r
    }

    fn query_arg(name: &str) -> Argument {
        Argument {
            name: name.trim_start_matches('$').to_string(),
            location: ArgIn::Query,
            original: Some(name.to_string()),
            style: None,
            explode: None,
            allow_reserved: false,
            content_type: None,
        }
    }

    /// A tool with these query arguments (all integers but `cursor`-like ones).
    struct Tool {
        arguments: Vec<Argument>,
        input: Value,
        output: Option<Value>,
        args: Map<String, Value>,
    }

    fn tool(names: &[&str]) -> Tool {
        let arguments: Vec<Argument> = names.iter().map(|n| query_arg(n)).collect();
        let properties: Map<String, Value> = arguments
            .iter()
            .map(|a| {
                let t = if CURSOR_NAMES.contains(&a.name.as_str())
                    || AFTER_ID_NAMES.contains(&a.name.as_str())
                {
                    "string"
                } else {
                    "integer"
                };
                (a.name.clone(), json!({"type": t}))
            })
            .collect();
        Tool {
            arguments,
            input: json!({"type": "object", "properties": properties}),
            output: None,
            args: Map::new(),
        }
    }

    fn always(_: &Value) -> bool {
        true
    }

    impl Tool {
        fn call<'a>(&'a self, budget: usize, wrapped: Option<&'a str>) -> Call<'a> {
            Call {
                budget,
                wrapped,
                input: &self.input,
                output: self.output.as_ref(),
                arguments: &self.arguments,
                args: &self.args,
                link: None,
                copies: Copies::Both,
                valid: &always,
            }
        }
    }

    fn note(r: &CallToolResult) -> String {
        r.content[0].as_text().unwrap().text.clone()
    }

    /// When not even one item fits (its strings may not be shortened), the note says how large
    /// the item is and how to raise the budget, not "0 of N" and a smaller page.
    #[test]
    fn an_item_larger_than_the_budget_says_so() {
        let body: Vec<Value> = (0..3)
            .map(|i| json!({"id": i, "u": "x".repeat(30_000)}))
            .collect();
        let r = result_of(json!({"items": body}), &json!(body));
        let mut t = tool(&["per_page"]);
        t.output = Some(
            json!({"type": "object", "properties": {"items": {"type": "array",
            "items": {"type": "object", "properties": {"u": {"type": "string", "format": "uri"}}}}}}),
        );
        let after = fit(r, &t.call(20_000, Some("items")));
        let first = note(&after);
        assert!(first.contains("maxResultBytes"), "{first}");
        // Kept as an empty list: the note names the item's size instead of a smaller page.
        let kept = json!({"items": [{"id": 0, "u": "x".repeat(30_000)}]});
        let r = result_of(kept.clone(), &kept["items"]);
        let after = fit(r, &t.call(20_000, Some("items")));
        let note = note(&after);
        assert!(note.contains("maxResultBytes"), "{note}");
    }

    #[test]
    fn small_result_is_unchanged() {
        let body = page(3);
        let r = result_of(json!({"items": body}), &body);
        let before = serde_json::to_value(&r).unwrap();
        let t = tool(&["per_page"]);
        let after = fit(r, &t.call(40_000, Some("items")));
        assert_eq!(serde_json::to_value(&after).unwrap(), before);
    }

    #[test]
    fn long_list_is_cut_within_budget_and_says_so() {
        let body = page(100);
        let r = result_of(json!({"items": body}), &body);
        assert!(bytes(&r) > 40_000);
        let t = tool(&["per_page"]);
        let after = fit(r, &t.call(20_000, Some("items")));
        assert!(bytes(&after) <= 20_000);
        let kept = after.structured_content.as_ref().unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        assert!(kept > 10 && kept < 100, "{kept}");
        let note = note(&after);
        assert!(note.contains(&format!("{kept} of 100 items")), "{note}");
        assert_eq!(after.structured_content.as_ref().unwrap()[NOTE_KEY], note);
        assert!(
            note.contains(&format!(r#"{{"per_page":{kept}}}"#)),
            "{note}"
        );
        let copy: Value = serde_json::from_str(&after.content[1].as_text().unwrap().text).unwrap();
        assert_eq!(copy.as_array().unwrap().len(), kept);
    }

    /// The rest of a cut page: after the last id sent (Stripe), past the items sent (offset),
    /// or page 2 at the size sent (page numbers from page 1).
    #[test]
    fn the_rest_of_a_cut_page_is_named_in_the_tools_arguments() {
        let body = page(100);
        let cut = |t: &Tool| {
            let r = fit(
                result_of(json!({"items": body}), &body),
                &t.call(20_000, Some("items")),
            );
            let kept = r.structured_content.as_ref().unwrap()["items"]
                .as_array()
                .unwrap()
                .len();
            (kept, note(&r))
        };
        let (kept, said) = cut(&tool(&["limit", "starting_after"]));
        let last = format!("it_{}", kept - 1);
        assert!(
            said.contains(&format!(r#"{{"limit":{kept},"starting_after":"{last}"}}"#)),
            "{said}"
        );
        // Integer ids for a string argument are written as strings, so the call is valid.
        let numbered: Vec<Value> = (0..100)
            .map(|i| json!({"id": i, "title": "x".repeat(300)}))
            .collect();
        let numbered = Value::Array(numbered);
        let t = tool(&["limit", "starting_after"]);
        let r = fit(
            result_of(json!({"items": numbered}), &numbered),
            &t.call(20_000, Some("items")),
        );
        let kept = r.structured_content.as_ref().unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        let said = note(&r);
        assert!(
            said.contains(&format!(
                r#"{{"limit":{kept},"starting_after":"{}"}}"#,
                kept - 1
            )),
            "{said}"
        );
        let mut t = tool(&["limit", "offset"]);
        t.args.insert("offset".into(), json!(200));
        let (kept, said) = cut(&t);
        assert!(
            said.contains(&format!(r#"{{"limit":{kept},"offset":{}}}"#, 200 + kept)),
            "{said}"
        );
        let (kept, said) = cut(&tool(&["per_page", "page"]));
        assert!(
            said.contains(&format!(r#"{{"page":2,"per_page":{kept}}}"#))
                || said.contains(&format!(r#"{{"per_page":{kept},"page":2}}"#)),
            "{said}"
        );
        // Page 3 of 100: the first item not sent is 200 + kept; a size dividing it.
        let mut t = tool(&["per_page", "page"]);
        t.args.insert("page".into(), json!(3));
        t.args.insert("per_page".into(), json!(100));
        let (kept, said) = cut(&t);
        let first = 200 + kept;
        let d = (kept.div_ceil(2)..=kept)
            .rev()
            .find(|d| first.is_multiple_of(*d))
            .unwrap();
        assert!(said.contains(&format!("\"per_page\":{d}")), "{said}");
        assert!(
            said.contains(&format!("\"page\":{}", first / d + 1)),
            "{said}"
        );
        let (_, said) = cut(&tool(&[]));
        assert!(said.contains("no page-size argument"), "{said}");
    }

    #[test]
    fn nested_list_is_found() {
        let body = json!({"total": 100, "data": {"results": page(100)}});
        let r = result_of(body.clone(), &body);
        let t = tool(&[]);
        let after = fit(r, &t.call(10_000, None));
        assert!(bytes(&after) <= 10_000);
        let s = after.structured_content.as_ref().unwrap();
        assert_eq!(s["total"], 100);
        assert!(s["data"]["results"].as_array().unwrap().len() < 100);
        assert!(note(&after).contains("`data.results`"));
    }

    #[test]
    fn link_next_is_read_from_the_header() {
        let h = r#"<https://api.example.com/x?page=1>; rel="prev", <https://api.example.com/x?page=3&per_page=30>; rel="next", <https://api.example.com/x?page=9>; rel=last"#;
        assert_eq!(
            link_next(h).as_deref(),
            Some("https://api.example.com/x?page=3&per_page=30")
        );
        assert_eq!(
            link_next(r#"<a?b=1>; rel="prev next""#).as_deref(),
            Some("a?b=1")
        );
        assert_eq!(link_next("<a>; rel=last"), None);
        assert_eq!(link_next("garbage <"), None);
        assert_eq!(
            query("/x?q=a%20b+c&tag=1&tag=2#f"),
            [
                ("q".into(), "a b c".into()),
                ("tag".into(), "1".into()),
                ("tag".into(), "2".into())
            ]
        );
    }

    /// Three items with long texts: nothing is left out, strings are shortened, and the note
    /// names the next page from the `Link` header (only the arguments that change), or from
    /// the body's cursor.
    #[test]
    fn strings_are_shortened_when_not_one_item_fits_and_the_next_page_is_named() {
        let items: Vec<Value> = (0..3)
            .map(|i| json!({"id": i, "body": "b".repeat(30_000), "state": "open"}))
            .collect();
        let body = Value::Array(items);
        let mut t = tool(&["page", "per_page", "state"]);
        t.args.insert("page".into(), json!(2));
        t.args.insert("per_page".into(), json!(3));
        t.arguments[2].name = "state".into();
        t.input["properties"]["state"] = json!({"type": "string"});
        t.args.insert("state".into(), json!("open"));
        let mut call = t.call(20_000, Some("result"));
        let link = "<http://h/v1/issues?page=3&per_page=3&state=open&after=x>; rel=\"next\"";
        call.link = Some(link);
        let r = fit(result_of(json!({"result": body}), &body), &call);
        assert!(bytes(&r) <= 20_000, "{}", bytes(&r));
        let s = r.structured_content.as_ref().unwrap();
        let kept = s["result"].as_array().unwrap();
        assert_eq!(kept.len(), 3);
        let b = kept[0]["body"].as_str().unwrap();
        assert!(b.starts_with("bbb") && b.contains("…[cut "), "{b}");
        assert_eq!(kept[0]["state"], "open");
        let said = note(&r);
        assert!(said.contains("3 long strings were shortened"), "{said}");
        assert!(said.contains(r#"call again with {"page":3}"#), "{said}");
        assert!(
            said.contains("`after`, which this tool has no argument"),
            "{said}"
        );
        assert!(!said.contains("_fields"), "{said}");

        // The next page from the body's cursor, and `_fields` once the tool has it.
        let mut t = tool(&["limit", "cursor"]);
        t.input["properties"]["_fields"] = json!({"type": "array"});
        let body = json!({"data": body, "response_metadata": {"next_cursor": "dXNlcjpV"}});
        let r = fit(result_of(body.clone(), &body), &t.call(20_000, None));
        let said = note(&r);
        assert!(said.contains(r#"{"cursor":"dXNlcjpV"}"#), "{said}");
        assert!(said.contains("`_fields`"), "{said}");
    }

    #[test]
    fn stripe_has_more_continues_after_the_last_id() {
        let items: Vec<Value> = (0..2)
            .map(|i| json!({"id": format!("cus_{i}"), "note": "n".repeat(30_000)}))
            .collect();
        let body = json!({"object": "list", "data": items, "has_more": true});
        let t = tool(&["limit", "starting_after"]);
        let r = fit(result_of(body.clone(), &body), &t.call(20_000, None));
        assert!(
            note(&r).contains(r#"{"starting_after":"cus_1"}"#),
            "{}",
            note(&r)
        );
    }

    /// Strings under `pattern`, `format`, `enum`, a length or an `enum` above them are kept;
    /// the result is valid against the schema.
    #[test]
    fn constrained_strings_are_kept_and_the_result_validates() {
        let long = "z".repeat(20_000);
        let schema = json!({
            "type": "object",
            "properties": {
                "free": {"type": "string"},
                "sha": {"type": "string", "pattern": "^z+$"},
                "when": {"type": "string", "format": "date-time"},
                "sized": {"type": "string", "maxLength": 100000},
                "ref": {"$ref": "#/$defs/Plain"},
                "fixed": {"$ref": "#/$defs/Fixed"},
                "tree": {"type": "object", "enum": [{"x": "t".repeat(5000)}]},
                "list": {"type": "array", "items": {"type": "string"}, "minItems": 1}
            },
            "additionalProperties": false,
            "$defs": {
                "Plain": {"type": "string"},
                "Fixed": {"allOf": [{"type": "string"}, {"minLength": 3}]}
            }
        });
        let value = json!({
            "free": long, "sha": "z".repeat(300), "when": "2026-12-07T10:00:00Z",
            "sized": "z".repeat(300), "ref": long, "fixed": "z".repeat(300),
            "tree": {"x": "t".repeat(5000)}, "list": [long]
        });
        let mut t = tool(&[]);
        t.output = Some(schema.clone());
        let validator = jsonschema::validator_for(&schema).unwrap();
        let valid = |v: &Value| validator.is_valid(v);
        let mut call = t.call(30_000, None);
        call.valid = &valid;
        let r = fit(result_of(value.clone(), &value), &call);
        assert!(bytes(&r) <= 30_000, "{}", bytes(&r));
        let s = r.structured_content.as_ref().unwrap();
        assert!(validator.is_valid(s));
        assert!(s.get(NOTE_KEY).is_none(), "additionalProperties: false");
        for key in ["sha", "when", "sized", "fixed"] {
            assert_eq!(s[key], value[key], "{key}");
        }
        assert_eq!(s["tree"], value["tree"]);
        assert!(s["free"].as_str().unwrap().contains("…[cut "));
        assert!(s["ref"].as_str().unwrap().contains("…[cut "));
        assert_eq!(s["list"].as_array().unwrap().len(), 1);
        // An invalid cut is never sent.
        let never = |_: &Value| false;
        call.valid = &never;
        let r = fit(result_of(value.clone(), &value), &call);
        assert!(r.structured_content.is_none());
        assert!(note(&r).contains("not sent"));
    }

    #[test]
    fn one_copy_is_sent_when_asked() {
        let body = page(3);
        let t = tool(&[]);
        let mut call = t.call(40_000, Some("items"));
        call.copies = Copies::Text;
        let r = fit(result_of(json!({"items": body}), &body), &call);
        assert!(r.structured_content.is_none());
        assert_eq!(r.content.len(), 1);
        call.copies = Copies::Structured;
        let r = fit(result_of(json!({"items": body}), &body), &call);
        assert!(r.structured_content.is_some());
        assert!(r.content.is_empty());
        // Over the budget: one copy, cut, with the note.
        let body = page(100);
        call.budget = 20_000;
        call.copies = Copies::Text;
        let r = fit(result_of(json!({"items": body}), &body), &call);
        assert!(r.structured_content.is_none() && r.content.len() == 2);
        assert!(bytes(&r) <= 20_000);
        let copy: Value = serde_json::from_str(&r.content[1].as_text().unwrap().text).unwrap();
        // As the server hands it over: the structured copy already dropped, and a validator for
        // the wrapped value (`--dynamic`), which the text alone is not checked against.
        let never = |_: &Value| false;
        call.valid = &never;
        let again = fit(
            copies(result_of(json!({"items": body}), &body), Copies::Text),
            &call,
        );
        assert_eq!(again.content.len(), 2, "{:?}", again.content);
        assert_eq!(again.content[1], r.content[1]);
        // One copy holds about twice the items of two.
        let both = fit(
            result_of(json!({"items": body}), &body),
            &t.call(20_000, Some("items")),
        );
        let two = both.structured_content.unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        assert!(copy.as_array().unwrap().len() > two * 3 / 2, "{two}");
    }

    /// An indented text copy over the budget that fits written compactly: sent whole, no note.
    #[test]
    fn an_indented_copy_is_written_compactly_before_anything_is_cut() {
        let body = page(30);
        let mut r = CallToolResult::structured(json!({"items": body}));
        let pretty = serde_json::to_string_pretty(&body)
            .unwrap()
            .replace("  ", "          ");
        r.content = vec![ContentBlock::text(pretty)];
        let t = tool(&[]);
        let size = bytes(&r);
        let after = fit(r, &t.call(size - 100, Some("items")));
        assert_eq!(after.content.len(), 1);
        assert_eq!(after.structured_content.unwrap()["items"], body);
    }

    #[test]
    fn uncuttable_result_is_described() {
        let body = json!({"blob": "y".repeat(50_000)});
        let mut t = tool(&[]);
        t.output = Some(
            json!({"type": "object", "properties": {"blob": {"type": "string", "contentEncoding": "base64"}}}),
        );
        let r = result_of(body.clone(), &body);
        let after = fit(r, &t.call(10_000, None));
        assert!(bytes(&after) <= 10_000);
        assert!(after.structured_content.is_none());
        assert!(note(&after).contains("not sent"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(5), "5");
        assert_eq!(thousands(1234), "1,234");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
