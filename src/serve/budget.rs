//! Budget: keeps a tool result within `--max-result-bytes` (counted on the serialized
//! `result`), cutting a JSON answer's longest array to its first items and saying what was cut
//! and how to get the rest.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

/// Default result budget in bytes: below the 50,000 characters over which Claude Code writes a
/// tool result to a file instead of showing it, and well below its `MAX_MCP_OUTPUT_TOKENS`
/// default of 25,000 tokens.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 40_000;

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

/// `result` within `budget` bytes of serialized JSON. A success with structured content over the
/// budget keeps the first items of its longest array (in `structuredContent` and the text copy)
/// and gains a text block saying what was cut; `wrapped` is the tool's `output.wrapped` key and
/// `inputs` its argument names (to name a page-size argument). A result that cannot be cut is
/// replaced by a text saying its size and that it was not sent. Errors are left to their own
/// bound.
pub fn fit(
    result: CallToolResult,
    budget: usize,
    wrapped: Option<&str>,
    inputs: &[String],
) -> CallToolResult {
    let size = bytes(&result);
    if size <= budget || result.is_error == Some(true) {
        return result;
    }
    if let Some(structured) = &result.structured_content
        && let Some(cut) = cut_array(structured, budget, wrapped, inputs)
    {
        return cut;
    }
    CallToolResult::success(vec![ContentBlock::text(format!(
        "The result ({size} bytes) is over the result budget of {budget} bytes and was not \
         sent. Ask for less: a smaller page size or narrower filters{}.",
        page_hint(inputs)
    ))])
}

/// Size of `result` serialized as the JSON-RPC `result`, counted without a copy.
pub fn bytes(result: &CallToolResult) -> usize {
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

fn cut_array(
    structured: &Value,
    budget: usize,
    wrapped: Option<&str>,
    inputs: &[String],
) -> Option<CallToolResult> {
    let path = longest_array(structured, 3)?;
    let total = at(structured, &path)?.as_array()?.len();
    let shown_path = shown(&path, wrapped);
    let build = |keep: usize| -> CallToolResult {
        let mut value = structured.clone();
        if let Some(Value::Array(items)) = at_mut(&mut value, &path) {
            items.truncate(keep);
        }
        let body = match wrapped {
            Some(key) => value.get(key).cloned().unwrap_or(Value::Null),
            None => value.clone(),
        };
        let text = serde_json::to_string(&body).unwrap_or_default();
        let note = format!(
            "Partial result: {keep} of {total} items of {shown_path} were sent (result budget \
             {budget} bytes). To get the rest, ask for fewer items per call{}, and continue \
             after the last item sent.",
            page_hint(inputs)
        );
        let mut r = CallToolResult::structured(value);
        r.content = vec![ContentBlock::text(note), ContentBlock::text(text)];
        r
    };
    // The most items that fit: fitting grows with the count kept, so search for the boundary.
    let (mut lo, mut hi) = (0usize, total);
    if bytes(&build(0)) > budget {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if bytes(&build(mid)) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(build(lo))
}

fn page_hint(inputs: &[String]) -> String {
    match inputs
        .iter()
        .find(|n| PAGE_SIZE_NAMES.iter().any(|p| p.eq_ignore_ascii_case(n)))
    {
        Some(name) => format!(" (the `{name}` argument)"),
        None => String::new(),
    }
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

fn at_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, k| v.get_mut(k))
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
    use serde_json::json;

    fn page(n: usize) -> Value {
        Value::Array(
            (0..n)
                .map(|i| json!({"number": i, "title": format!("issue {i} {}", "x".repeat(200))}))
                .collect(),
        )
    }

    fn result_of(structured: Value, text: &Value) -> CallToolResult {
        let mut r = CallToolResult::structured(structured);
        r.content = vec![ContentBlock::text(text.to_string())];
        r
    }

    #[test]
    fn small_result_is_unchanged() {
        let body = page(3);
        let r = result_of(json!({"items": body}), &body);
        let before = serde_json::to_value(&r).unwrap();
        let after = fit(r, 40_000, Some("items"), &[]);
        assert_eq!(serde_json::to_value(&after).unwrap(), before);
    }

    #[test]
    fn long_list_is_cut_within_budget_and_says_so() {
        let body = page(100);
        let r = result_of(json!({"items": body}), &body);
        assert!(bytes(&r) > 40_000);
        let after = fit(r, 20_000, Some("items"), &["per_page".to_string()]);
        assert!(bytes(&after) <= 20_000);
        let kept = after.structured_content.as_ref().unwrap()["items"]
            .as_array()
            .unwrap()
            .len();
        assert!(kept > 10 && kept < 100, "{kept}");
        let note = &after.content[0].as_text().unwrap().text;
        assert!(note.contains(&format!("{kept} of 100 items")), "{note}");
        assert!(note.contains("`per_page`"), "{note}");
        let copy: Value = serde_json::from_str(&after.content[1].as_text().unwrap().text).unwrap();
        assert_eq!(copy.as_array().unwrap().len(), kept);
    }

    #[test]
    fn nested_list_is_found() {
        let body = json!({"total": 100, "data": {"results": page(100)}});
        let r = result_of(body.clone(), &body);
        let after = fit(r, 10_000, None, &[]);
        assert!(bytes(&after) <= 10_000);
        let s = after.structured_content.unwrap();
        assert_eq!(s["total"], 100);
        assert!(s["data"]["results"].as_array().unwrap().len() < 100);
        assert!(
            after.content[0]
                .as_text()
                .unwrap()
                .text
                .contains("`data.results`")
        );
    }

    #[test]
    fn uncuttable_result_is_described() {
        let body = json!({"blob": "y".repeat(50_000)});
        let r = result_of(body.clone(), &body);
        let after = fit(r, 10_000, None, &[]);
        assert!(bytes(&after) <= 10_000);
        assert!(after.structured_content.is_none());
        assert!(
            after.content[0]
                .as_text()
                .unwrap()
                .text
                .contains("not sent")
        );
    }
}
