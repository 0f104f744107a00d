//! Redact: every credential value in every form it is sent or echoed back (percent-encoded,
//! JSON-escaped, HTML character references, nested), masked as `***` in what reaches the client
//! or the log.

use serde_json::Value;
use std::sync::{Arc, Mutex, RwLock};

/// Every credential value in every form it is sent or echoed ([`echoed_forms`]), to be replaced
/// by `***` in whatever goes back to the client or to the log.
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets {
    /// Each form once, longest first; the flag says the value is long enough to be masked
    /// wherever it appears, glued to letters or not.
    forms: Vec<(String, bool)>,
    /// The values that read as JSON numbers, so that one echoed as a number (`123`, `123.0`,
    /// `1.23e2`) is masked in a parsed answer too.
    numbers: Vec<f64>,
    /// Whether a form could be part of a number's text (digits, sign, point, exponent): if
    /// not, numbers need no search.
    numeric: bool,
}

/// Credentials shorter than this get a startup warning: a short value may also be ordinary text.
/// Values this long or longer are masked anywhere; shorter ones only as whole tokens.
pub(crate) const SHORT_SECRET: usize = 8;

impl Secrets {
    /// The forms of these secret values.
    pub(crate) fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut forms: Vec<(String, bool)> = Vec::new();
        let mut numbers = Vec::new();
        for v in values {
            let v = v.as_ref().trim();
            if v.is_empty() {
                continue;
            }
            let anywhere = v.chars().count() >= SHORT_SECRET;
            forms.extend(echoed_forms(v).into_iter().map(|f| (f, anywhere)));
            if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(v)
                && let Some(f) = n.as_f64()
            {
                numbers.push(f);
            }
        }
        forms.sort_by(|a, b| {
            b.0.len()
                .cmp(&a.0.len())
                .then_with(|| a.0.cmp(&b.0))
                .then_with(|| b.1.cmp(&a.1))
        });
        forms.dedup_by(|a, b| a.0 == b.0);
        let numeric = forms.iter().any(|(f, _)| {
            f.bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
        });
        Secrets {
            forms,
            numbers,
            numeric,
        }
    }

    /// Whether there is nothing to mask.
    pub(crate) fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with every secret, in every form it is echoed, replaced by `***`. A long secret is
    /// masked wherever it appears; a short one starting (ending) with a letter or digit only where
    /// the text before (after) it is not a letter or digit or is a JSON escape such as `\n`, so
    /// `abc` is masked in `key=abc&` and in `"\nabc"` but not in `abcdef`. The text is never
    /// parsed: a result's text copy can be megabytes.
    ///
    /// Then, when the text has a `\`, `&` or `%`, it is searched again as decoded views in which
    /// every JSON escape (`\uXXXX` in either case, surrogate pairs, `\/`, `\n`, `\\`...), HTML/XML
    /// character reference (`&amp;`, `&#43;`) and percent-encoded ASCII byte is one character (up
    /// to [`UNESCAPE_LEVELS`] times, for JSON inside a JSON string or a value percent-encoded
    /// twice), so a secret written with escaped characters of any kind is found; the span of the
    /// original text it covers, escapes included, becomes `***`.
    pub(crate) fn redact<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        // Every match is found in the text as given, before anything is masked: masking a short
        // secret first could break an encoded longer one that the decoded views would find.
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for (secret, anywhere) in &self.forms {
            spans.extend(token_spans(text, secret, *anywhere));
        }
        self.escaped_spans(text, &mut spans);
        if spans.is_empty() {
            return std::borrow::Cow::Borrowed(text);
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for (s, e) in spans {
            if e <= copied {
                continue;
            }
            if s >= copied {
                out.push_str(&text[copied..s]);
                out.push_str("***");
            }
            copied = e;
        }
        out.push_str(&text[copied..]);
        std::borrow::Cow::Owned(out)
    }

    /// Adds to `spans` the span of `text` (escapes included) of every secret found in its decoded
    /// views (see [`Secrets::redact`]).
    fn escaped_spans(&self, text: &str, spans: &mut Vec<(usize, usize)>) {
        let mut view: Option<(String, Vec<u32>)> = None;
        for _ in 0..UNESCAPE_LEVELS {
            let current = view.as_ref().map_or(text, |(v, _)| v.as_str());
            let Some((decoded, starts)) = unescaped(current) else {
                break;
            };
            // Offsets into `text`, through the views before.
            let starts = match &view {
                Some((_, before)) => starts.iter().map(|&i| before[i as usize]).collect(),
                None => starts,
            };
            for (secret, anywhere) in &self.forms {
                for (s, e) in token_spans(&decoded, secret, *anywhere) {
                    spans.push((starts[s] as usize, starts[e] as usize));
                }
            }
            view = Some((decoded, starts));
        }
    }

    /// Redact every string and object key in `value`, in place.
    pub(crate) fn redact_value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(s) => {
                if let std::borrow::Cow::Owned(r) = self.redact(s) {
                    *s = r;
                }
            }
            // A number that is a secret, or whose digits hold one, becomes the masked text.
            Value::Number(n) if self.numeric => {
                let f = n.as_f64();
                if f.is_some_and(|f| self.numbers.contains(&f)) {
                    *value = Value::String("***".into());
                } else if let std::borrow::Cow::Owned(r) = self.redact(&n.to_string()) {
                    *value = Value::String(r);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v)),
            Value::Object(map) => {
                let needs = map
                    .keys()
                    .any(|k| matches!(self.redact(k), std::borrow::Cow::Owned(_)));
                if needs {
                    let old = std::mem::take(map);
                    for (k, v) in old {
                        map.insert(self.redact(&k).into_owned(), v);
                    }
                }
                map.values_mut().for_each(|v| self.redact_value(v));
            }
            _ => {}
        }
    }
}

/// The forms `value` takes when it is sent, or echoed back by a server that re-encodes it:
/// percent-encoding in upper or lower case hex, `+` for a space, base64 (standard or URL-safe,
/// padded or not), a doubled quote (CSV, SQL), and JSON escapes (`\/`, `\u0026`-style escapes of
/// HTML characters and of anything not ASCII, in either case).
fn echoed_forms(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sent in super::request::sent_forms(value) {
        let lower = lower_hex_escapes(&sent, '%');
        for f in [sent, lower] {
            if f.contains("%20") {
                out.push(f.replace("%20", "+"));
            }
            out.push(f);
        }
    }
    // Base64 of the value (standard and URL-safe, with and without padding), as an API echoes
    // an encoded field; CSV and SQL quoting, which double a `"` or `'`.
    for engine in [
        &base64::engine::general_purpose::STANDARD,
        &base64::engine::general_purpose::URL_SAFE,
    ] {
        let encoded = base64::Engine::encode(engine, value);
        out.push(encoded.trim_end_matches('=').to_string());
        out.push(encoded);
    }
    for quote in ["\"", "'"] {
        if value.contains(quote) {
            out.push(value.replace(quote, &quote.repeat(2)));
        }
    }
    for slash in [false, true] {
        for html in [false, true] {
            for ascii in [false, true] {
                let json = json_escape(value, slash, html, ascii);
                out.push(lower_hex_escapes(&json, 'u'));
                out.push(json);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `value` as inside a JSON string; `slash` writes `/` as `\/`, `html` writes `<>&'=` as
/// `\u00XX`, `ascii` writes every character past ASCII as `\uXXXX` (upper case hex).
fn json_escape(value: &str, slash: bool, html: bool, ascii: bool) -> String {
    let mut out = String::new();
    for c in value.chars() {
        match c {
            '/' if slash => out.push_str("\\/"),
            '<' | '>' | '&' | '\'' | '=' if html => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if ascii && !c.is_ascii() => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04X}"));
                }
            }
            c => {
                let json = serde_json::to_string(&c.to_string()).unwrap_or_default();
                out.push_str(json.get(1..json.len().saturating_sub(1)).unwrap_or(""));
            }
        }
    }
    out
}

/// `text` with the hex digits after each `%` (or `\u`) in lower case.
fn lower_hex_escapes(text: &str, mark: char) -> String {
    let (lead, digits) = if mark == '%' { ("%", 2) } else { ("\\u", 4) };
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(lead) {
        let end = (at + lead.len() + digits).min(rest.len());
        out.push_str(&rest[..at + lead.len()]);
        let hex = rest.get(at + lead.len()..end).unwrap_or("");
        out.push_str(&hex.to_ascii_lowercase());
        rest = &rest[at + lead.len() + hex.len()..];
    }
    out.push_str(rest);
    out
}

/// The masked values: those known at startup, every token while the cache holds it, and the
/// latest [`SharedSecrets::KEPT`] tokens it has dropped, as one [`Secrets`] that each call takes a
/// snapshot of.
#[derive(Debug, Default)]
pub(crate) struct SharedSecrets {
    base: Vec<String>,
    tokens: Mutex<Tokens>,
    current: RwLock<Arc<Secrets>>,
}

/// Fetched tokens: those cached now, and those dropped from the cache, newest first.
#[derive(Debug, Default)]
struct Tokens {
    cached: std::collections::BTreeSet<String>,
    dropped: std::collections::VecDeque<String>,
}

impl SharedSecrets {
    /// Tokens kept masked after the cache has dropped them, newest first.
    pub(crate) const KEPT: usize = 64;

    pub(crate) fn new(base: Vec<String>) -> Self {
        let current = RwLock::new(Arc::new(Secrets::new(&base)));
        SharedSecrets {
            base,
            tokens: Mutex::default(),
            current,
        }
    }

    /// The values to mask now.
    pub(crate) fn get(&self) -> Arc<Secrets> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Mask `value` from now on: a token the cache now holds.
    pub(crate) fn add(&self, value: &str) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.dropped.retain(|v| v != value);
        if tokens.cached.insert(value.to_string()) {
            self.rebuild(&tokens);
        }
    }

    /// `value` has left the cache: keep masking it among the latest [`Self::KEPT`] dropped.
    pub(crate) fn drop_cached(&self, value: &str) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        if tokens.cached.remove(value) {
            tokens.dropped.push_front(value.to_string());
            tokens.dropped.truncate(Self::KEPT);
            self.rebuild(&tokens);
        }
    }

    fn rebuild(&self, tokens: &Tokens) {
        let all = self
            .base
            .iter()
            .chain(&tokens.cached)
            .chain(&tokens.dropped);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Secrets::new(all));
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Whether `head` ends in a one-letter JSON escape (`\n`, `\t`, `\r`, `\b`, `\f`): the letter
/// is not part of the word that follows.
fn after_escape(head: &[u8]) -> bool {
    let Some((&letter, rest)) = head.split_last() else {
        return false;
    };
    let slashes = rest.iter().rev().take_while(|&&b| b == b'\\').count();
    matches!(letter, b'n' | b't' | b'r' | b'b' | b'f') && slashes % 2 == 1
}

/// The byte spans of whole-token occurrences of `secret` in `text` (every one when `anywhere`),
/// in order and apart.
fn token_spans(text: &str, secret: &str, anywhere: bool) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let s = secret.as_bytes();
    let mut spans = Vec::new();
    let (Some(&first), Some(&last)) = (s.first(), s.last()) else {
        return spans;
    };
    let mut from = 0;
    while let Some(pos) = text[from..].find(secret) {
        let start = from + pos;
        let end = start + s.len();
        let before = anywhere
            || start == 0
            || !is_word(first)
            || !is_word(bytes[start - 1])
            || after_escape(&bytes[..start]);
        let after = anywhere || end == bytes.len() || !is_word(last) || !is_word(bytes[end]);
        if before && after {
            spans.push((start, end));
            from = end;
        } else {
            // Next match may start inside this one: move one character on.
            from = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
    }
    spans
}

/// How many times [`Secrets::redact`] decodes the JSON escapes of a text: JSON in a JSON string
/// in a JSON string is still searched.
const UNESCAPE_LEVELS: usize = 3;

/// `text` with each escape ([`escape_at`]) decoded to the character it stands for (`\uXXXX` in
/// either case, a surrogate pair as one character; a lone surrogate or an unknown escape is kept as
/// written), and for each byte of the decoded text (and one past its end) the offset in `text`
/// of the character or escape it comes from. `None` when there is no escape to decode.
fn unescaped(text: &str) -> Option<(String, Vec<u32>)> {
    // Nothing is allocated unless something decodes (offsets as u32: 4 bytes a byte).
    let len = u32::try_from(text.len()).ok()?;
    if !text
        .match_indices(['\\', '&', '%'])
        .any(|(at, _)| escape_at(&text[at..]).is_some())
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut starts: Vec<u32> = Vec::with_capacity(text.len() + 1);
    let mut decoded = false;
    let mut at = 0;
    while let Some(c) = text[at..].chars().next() {
        let (c, used) = match escape_at(&text[at..]) {
            Some(escape) => {
                decoded = true;
                escape
            }
            None => (c, c.len_utf8()),
        };
        out.push(c);
        // `at` < `text.len()`, which fits in u32.
        starts.extend(std::iter::repeat_n(at as u32, c.len_utf8()));
        at += used;
    }
    starts.push(len);
    decoded.then_some((out, starts))
}

/// The character an escape at the start of `text` stands for, and the escape's length: a JSON
/// escape, an HTML/XML character reference (`&amp;`, `&#43;`, `&#x2B;`), or a percent-encoded
/// ASCII byte (`%2B`, so a value percent-encoded twice is found a level down).
fn escape_at(text: &str) -> Option<(char, usize)> {
    if let Some(rest) = text.strip_prefix('%') {
        let byte = u8::from_str_radix(rest.get(..2)?, 16).ok()?;
        return (byte.is_ascii() && rest.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit))
            .then_some((char::from(byte), 3));
    }
    if let Some(rest) = text.strip_prefix('&') {
        // As HTML reads them: a numeric reference ends at its last digit, `;` or not; of the
        // named ones, those HTML also reads without `;` (`&amp`, `&lt`, `&gt`, `&quot`).
        if let Some(number) = rest.strip_prefix('#') {
            let (hex, digits) = match number.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, number),
            };
            let n = digits
                .bytes()
                .take(8)
                .take_while(|b| {
                    if hex {
                        b.is_ascii_hexdigit()
                    } else {
                        b.is_ascii_digit()
                    }
                })
                .count();
            if n == 0 {
                return None;
            }
            let code = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 }).ok()?;
            let used = 1 + (number.len() - digits.len()) + n;
            let semicolon = usize::from(rest[used..].starts_with(';'));
            return Some((char::from_u32(code)?, 1 + used + semicolon));
        }
        for (name, c, bare) in [
            ("amp", '&', true),
            ("lt", '<', true),
            ("gt", '>', true),
            ("quot", '"', true),
            ("apos", '\'', false),
        ] {
            if let Some(after) = rest.strip_prefix(name) {
                if after.starts_with(';') {
                    return Some((c, name.len() + 2));
                }
                if bare {
                    return Some((c, name.len() + 1));
                }
            }
        }
        return None;
    }
    let rest = text.strip_prefix('\\')?;
    let c = match rest.as_bytes().first()? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4(rest.get(1..5)?)?;
            if (0xD800..0xDC00).contains(&unit) {
                let low = rest
                    .get(5..11)
                    .and_then(|l| l.strip_prefix("\\u"))
                    .and_then(hex4)?;
                if !(0xDC00..0xE000).contains(&low) {
                    return None;
                }
                let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Some((char::from_u32(c)?, 12));
            }
            return Some((char::from_u32(unit)?, 6));
        }
        _ => return None,
    };
    Some((c, 2))
}

/// Four hex digits, in either case.
fn hex4(digits: &str) -> Option<u32> {
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shared_secrets_take_fetched_tokens() {
        let s = SharedSecrets::new(vec!["base-secret".into()]);
        assert_eq!(
            s.get().redact("a base-secret b fetched-1"),
            "a *** b fetched-1"
        );
        s.add("fetched-1");
        assert_eq!(s.get().redact("a base-secret b fetched-1"), "a *** b ***");
        // Cached tokens stay masked however many there are; dropped ones, the latest KEPT.
        for i in 0..SharedSecrets::KEPT + 5 {
            s.add(&format!("tok-{i}"));
        }
        assert_eq!(s.get().redact("tok-0 tok-68"), "*** ***");
        for i in 0..SharedSecrets::KEPT + 5 {
            s.drop_cached(&format!("tok-{i}"));
        }
        assert_eq!(s.get().redact("tok-0 tok-68 fetched-1"), "tok-0 *** ***");
    }

    #[test]
    fn redaction_sees_through_escapes_and_re_encodings() {
        let key = "sk_live_Ab/c&d e";
        let s = Secrets::new([key, "abc"]);
        for (echoed, masked) in [
            // After a JSON escape in the raw text; glued to letters (a long key, anywhere).
            (
                r#"{"m":"bad key:\nsk_live_Ab\/c\u0026d e"}"#,
                r#"{"m":"bad key:\n***"}"#,
            ),
            (r#"{"m":"x\tsk_live_Ab/c\u0026d e"}"#, r#"{"m":"x\t***"}"#),
            ("xxsk_live_Ab/c&d exx", "xx***xx"),
            // Escapes in non-JSON text, and re-encoded query values.
            (r"key=sk_live_Ab\/c\u0026d e;", "key=***;"),
            ("q=sk_live_Ab%2fc%26d+e&x=1", "q=***&x=1"),
            ("q=sk_live_Ab%2Fc%26d%20e", "q=***"),
            // A short key after an escape in JSON text.
            (r#"["\nabc"]"#, r#"["\n***"]"#),
        ] {
            assert_eq!(s.redact(echoed), masked, "{echoed}");
        }
        // JSON text the forms already masked keeps its spacing.
        assert_eq!(s.redact("{ \"k\": \"abc\" }"), "{ \"k\": \"***\" }");
        let mut v = json!({"text": "{\"m\":\"\\nabc\"}"});
        s.redact_value(&mut v);
        assert_eq!(v, json!({"text": "{\"m\":\"\\n***\"}"}));
    }

    #[test]
    fn redaction_decodes_every_json_escape() {
        let token = "Zq8/Kp&3Wm+7Lx9Rt2Vb5Nc0";
        let s = Secrets::new([format!("Bearer {token}"), token.to_string(), "abc".into()]);
        for (echoed, masked) in [
            // Any escaped character, in either case of hex.
            (
                r#"{"error":"invalid token Zq8/Kp&3Wm\u002B7Lx9Rt2Vb5Nc0"}"#,
                r#"{"error":"invalid token ***"}"#,
            ),
            (
                r#"{"t":"Zq8\u002fKp\u00263Wm\u002b7Lx9Rt2Vb5Nc0"}"#,
                r#"{"t":"***"}"#,
            ),
            (
                r#"{"t":"\u005Aq8\/Kp&3Wm+7Lx9Rt2Vb5N\u0063\u0030!"}"#,
                r#"{"t":"***!"}"#,
            ),
            // The header value with an escaped space, and as plain text.
            (
                r"auth: Bearer\u0020Zq8\u002FKp&3Wm+7Lx9Rt2Vb5Nc0.",
                "auth: ***.",
            ),
            // JSON in a JSON string: the escapes are escaped again.
            (
                r#"{"text":"{\"t\":\"Zq8\\u002FKp&3Wm+7Lx9Rt2Vb5Nc0\"}"}"#,
                r#"{"text":"{\"t\":\"***\"}"}"#,
            ),
            // A short secret stays whole-token in the decoded view.
            (
                r#"["\u0061bc", "\u0061bcdef", "x\nabc"]"#,
                r#"["***", "\u0061bcdef", "x\n***"]"#,
            ),
        ] {
            assert_eq!(s.redact(echoed), masked, "{echoed}");
        }
        // Surrogate pairs, lone surrogates and unknown escapes.
        let s = Secrets::new(["k\u{1F600}y-secret-1"]);
        assert_eq!(s.redact(r"x k\uD83D\ude00y-secret-1 x"), "x *** x");
        assert_eq!(s.redact(r"\uD83D \q k\u{1F600}"), r"\uD83D \q k\u{1F600}");
        let (decoded, starts) = unescaped(r"a\u00e9\n").unwrap();
        assert_eq!(decoded, "a\u{e9}\n");
        assert_eq!(starts, vec![0, 1, 1, 7, 9]);
        assert!(unescaped("no escapes").is_none());
        // HTML/XML character references and percent-encoding twice over.
        let s = Secrets::new(["HkeyV4lue&/+ 9zzT"]);
        for echoed in [
            "<e>HkeyV4lue&amp;/+ 9zzT</e>",
            "<e>HkeyV4lue&#38;&#x2F;&#43; 9zzT</e>",
            "q=HkeyV4lue%2526%252F%252B%25209zzT",
        ] {
            assert_eq!(s.redact(echoed).matches("***").count(), 1, "{echoed}");
            assert!(!s.redact(echoed).contains("9zzT"), "{echoed}");
        }
        assert_eq!(
            s.redact("a &amp; b %41 &#9999999999; %zz &"),
            "a &amp; b %41 &#9999999999; %zz &"
        );
    }

    #[test]
    fn base64_doubled_quotes_and_references_without_semicolons_are_masked() {
        let key = r#"Zk9/Qw+Rt&y=U<p>"s'x~Vb mKEY"#;
        let s = Secrets::new([key]);
        let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, key);
        let url = base64::Engine::encode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, key);
        assert_eq!(s.redact(&format!("{{\"b\":\"{b64}\"}}")), r#"{"b":"***"}"#);
        assert_eq!(s.redact(&format!("u={url}.")), "u=***.");
        let csv = format!("1,\"{}\"", key.replace('"', "\"\""));
        assert_eq!(s.redact(&csv), "1,\"***\"");
        let sql = format!("'{}'", key.replace('\'', "''"));
        assert_eq!(s.redact(&sql), "'***'");
        let refs = "Zk9&#x2fQw&#x2bRt&#x26y=U&lt;p&gt&quot;s&#39x~Vb mKEY";
        assert_eq!(s.redact(refs), "***");
        // Not a reference: left as it is.
        assert_eq!(s.redact("&#; &#x; &ampere"), "&#; &#x; &ampere");
    }

    #[test]
    fn a_secret_echoed_as_a_json_number_is_masked() {
        let s = Secrets::new(["839201746512907", "7001"]);
        let mut v = json!({"n": 839201746512907_u64, "f": 839201746512907.0, "e": 8.39201746512907e14,
            "in": 98392017465129071_u64, "short": 7001, "other": 70011, "x": 1});
        s.redact_value(&mut v);
        assert_eq!(
            v,
            json!({"n": "***", "f": "***", "e": "***", "in": "9***1", "short": "***",
                   "other": 70011, "x": 1})
        );
        // No credential made of number characters: numbers are left as they are.
        let s = Secrets::new(["sk_live_839201746512907"]);
        let mut v = json!({"n": 839201746512907_u64, "s": "sk_live_839201746512907"});
        s.redact_value(&mut v);
        assert_eq!(v, json!({"n": 839201746512907_u64, "s": "***"}));
    }

    #[test]
    fn a_shorter_secret_does_not_break_an_encoded_longer_one() {
        // The short secret is the long one's last word: masked first, it would leave the long
        // one's encoded head behind, which its decoded views no longer match.
        let s = Secrets::new(["Tok&en-value-zz", "zz"]);
        assert_eq!(s.redact("v=Tok&amp;en-value-zz;"), "v=***;");
        assert_eq!(s.redact(r#"v="Tok\u0026en-value-zz""#), r#"v="***""#);
        assert_eq!(s.redact("v=Tok%26en-value-zz&w=zz"), "v=***&w=***");
        let s = Secrets::new(["p@ss word", "word"]);
        assert_eq!(s.redact("pw=p&#64;ss word."), "pw=***.");
    }

    #[test]
    fn redaction_is_whole_token_and_every_form() {
        let s = Secrets::new(["s3cret", "abc", "p@ss w/rd"]);
        assert_eq!(s.redact("bad key s3cret here"), "bad key *** here");
        assert_eq!(
            s.redact("key=abc&x=abcdef&y=xabc"),
            "key=***&x=abcdef&y=xabc"
        );
        assert_eq!(s.redact("abc"), "***");
        assert_eq!(s.redact("pw=p%40ss%20w%2Frd;"), "pw=***;");
        // Partly percent-encoded still reads as the password.
        assert_eq!(s.redact("pw=p%40ss w/rd"), "pw=***");
        assert_eq!(
            s.redact(r#"{"h":"Bearer s3cret"}"#),
            r#"{"h":"Bearer ***"}"#
        );
        let mut v = json!({"abc": ["s3cret", {"k": "x abc"}], "n": 1});
        s.redact_value(&mut v);
        assert_eq!(v, json!({"***": ["***", {"k": "x ***"}], "n": 1}));
    }
}
