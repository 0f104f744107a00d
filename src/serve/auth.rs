//! Auth: takes the security schemes the conversion carries and each tool's requirement (the tool
//! model, not the document), finds credentials for them in environment variables, and applies
//! them to requests; secret values are never shown.
//!
//! Each scheme's credential comes from `OPENAPI_MCP_<SCHEME>` (the scheme's name upper-cased,
//! every other character than `A-Z0-9` turned into `_`), else from a variable shared by all schemes
//! of its kind: `OPENAPI_MCP_API_KEY` (apiKey), `OPENAPI_MCP_BEARER_TOKEN` (http bearer, oauth2,
//! openIdConnect: sent as `Authorization: Bearer`), `OPENAPI_MCP_BASIC_USER` +
//! `OPENAPI_MCP_BASIC_PASSWORD` (http basic; the per-scheme variable holds `user:password`).
//! An oauth2 scheme with a `clientCredentials` flow and no `OPENAPI_MCP_<SCHEME>` gets its tokens
//! from the flow's token URL when `OPENAPI_MCP_<SCHEME>_CLIENT_ID` and `_CLIENT_SECRET` are set
//! (see [`super::oauth`]).

use super::oauth::{ClientAuth, ClientConfig, Need};
use super::request::Prepared;
use base64::Engine as _;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex, RwLock};

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Header,
    Query,
    Cookie,
}

/// One credential ready to be put into a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub place: Place,
    pub name: String,
    /// The secret value as sent (for a header, the whole header value).
    pub value: String,
    /// The secret material inside `value` (token, key, password), for redaction.
    pub raw: Vec<String>,
}

/// What a scheme authenticates with.
#[derive(Debug, Clone)]
enum Found {
    /// Values from the environment, sent as they are.
    Fixed(Vec<Credential>),
    /// Tokens fetched with the client credentials of [`Auth::clients`]`[i]`.
    OAuth(usize),
}

/// How to authenticate, per scheme name; built once at startup.
#[derive(Debug, Default)]
pub struct Auth {
    /// Scheme name -> credential, for the schemes whose variables are set.
    found: Vec<(String, Found)>,
    /// The oauth2 client credentials found, one per scheme using them.
    pub clients: Vec<ClientConfig>,
    /// Lines for standard error at startup (variable names only, never values).
    pub notes: Vec<String>,
    /// The variables whose credential is shorter than [`SHORT_SECRET`].
    pub short: Vec<String>,
    /// Settings that cannot be used (serve refuses to start).
    pub problems: Vec<String>,
}

/// The credentials one operation sends: fixed values, and tokens to fetch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub fixed: Vec<Credential>,
    pub oauth: Vec<Need>,
}

/// One alternative of a security requirement: each scheme's name with the scopes it needs.
pub type Alternative = crate::model::Requirement;

/// The document's security schemes, as the conversion carries them
/// ([`crate::Conversion::security_schemes`]); each tool carries its own requirement
/// ([`crate::tool::Call::security`]).
pub struct Security<'a> {
    pub schemes: Option<&'a Map<String, Value>>,
}

impl<'a> Security<'a> {
    /// The schemes of `components.securitySchemes`.
    pub fn new(schemes: &'a Map<String, Value>) -> Self {
        Security {
            schemes: Some(schemes),
        }
    }
}

/// The per-scheme variable name for `scheme`.
pub fn variable(scheme: &str) -> String {
    let upper: String = scheme
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("OPENAPI_MCP_{upper}")
}

impl Auth {
    /// Find credentials for every declared scheme, reading variables through `env`.
    pub fn from_env(security: &Security<'_>, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| env(name).filter(|v| !v.is_empty());
        let mut auth = Auth::default();
        let Some(schemes) = security.schemes else {
            return auth;
        };
        for (name, scheme) in schemes {
            let own = variable(name);
            let kind = scheme.get("type").and_then(Value::as_str).unwrap_or("");
            let http = scheme
                .get("scheme")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            let found = match (kind, http.as_str()) {
                ("apiKey", _) => {
                    let place = match scheme.get("in").and_then(Value::as_str) {
                        Some("query") => Place::Query,
                        Some("cookie") => Place::Cookie,
                        _ => Place::Header,
                    };
                    let key_name = scheme
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("X-API-Key");
                    let from = [own.as_str(), "OPENAPI_MCP_API_KEY"];
                    from.iter()
                        .find_map(|v| get(v).map(|value| (*v, value)))
                        .map(|(v, value)| {
                            let c = Credential {
                                place,
                                name: key_name.to_string(),
                                raw: vec![value.clone()],
                                value,
                            };
                            (v.to_string(), vec![c])
                        })
                }
                ("http", "bearer") | ("oauth2", _) | ("openIdConnect", _) => {
                    let bearer = |v: &str| {
                        get(v).map(|token| {
                            let header = format!("Bearer {token}");
                            (v.to_string(), vec![authorization(header, vec![token])])
                        })
                    };
                    if let Some(found) = bearer(&own) {
                        Some(found)
                    } else if kind == "oauth2"
                        && let Some(client) = auth.client_credentials(name, scheme, &get)
                    {
                        auth.notes.push(format!(
                            "security scheme {name:?}: OAuth2 client credentials from {own}_CLIENT_ID and {own}_CLIENT_SECRET, tokens from {}{}",
                            crate::serve::request::strip_userinfo(&client.token_url),
                            match client.auth {
                                ClientAuth::Basic => " (client authentication: HTTP Basic)",
                                ClientAuth::Post => " (client authentication: form fields)",
                            }
                        ));
                        if client.client_secret.chars().count() < SHORT_SECRET {
                            auth.short.push(format!("{own}_CLIENT_SECRET"));
                        }
                        auth.clients.push(client);
                        auth.found
                            .push((name.clone(), Found::OAuth(auth.clients.len() - 1)));
                        continue;
                    } else {
                        bearer("OPENAPI_MCP_BEARER_TOKEN")
                    }
                }
                ("http", "basic") => {
                    let pair = get(&own).map(|p| (own.clone(), p)).or_else(|| {
                        let user = get("OPENAPI_MCP_BASIC_USER")?;
                        let password = get("OPENAPI_MCP_BASIC_PASSWORD").unwrap_or_default();
                        Some((
                            "OPENAPI_MCP_BASIC_USER/_PASSWORD".to_string(),
                            format!("{user}:{password}"),
                        ))
                    });
                    pair.map(|(v, pair)| {
                        let encoded = base64::engine::general_purpose::STANDARD.encode(&pair);
                        let mut raw = vec![encoded.clone(), pair.clone()];
                        raw.extend(pair.split_once(':').map(|(_, pw)| pw.to_string()));
                        (v, vec![authorization(format!("Basic {encoded}"), raw)])
                    })
                }
                _ => {
                    auth.notes.push(format!(
                        "security scheme {name:?} ({kind}{}{http}) is not supported; pass credentials with --header",
                        if http.is_empty() { "" } else { " " }
                    ));
                    continue;
                }
            };
            match found {
                Some((var, creds)) => {
                    let material = creds.iter().filter_map(|c| c.raw.last());
                    if material
                        .into_iter()
                        .any(|m| m.chars().count() < SHORT_SECRET)
                    {
                        auth.short.push(var.clone());
                    }
                    auth.notes
                        .push(format!("security scheme {name:?}: credentials from {var}"));
                    auth.found.push((name.clone(), Found::Fixed(creds)));
                }
                None => auth.notes.push(format!(
                    "security scheme {name:?}: no credentials (set {own}{})",
                    match (kind, http.as_str()) {
                        ("apiKey", _) => " or OPENAPI_MCP_API_KEY",
                        ("http", "basic") =>
                            " or OPENAPI_MCP_BASIC_USER and OPENAPI_MCP_BASIC_PASSWORD",
                        ("oauth2", _) if client_credentials_flow(scheme) =>
                            " or OPENAPI_MCP_BEARER_TOKEN, or _CLIENT_ID and _CLIENT_SECRET for its clientCredentials flow",
                        _ => " or OPENAPI_MCP_BEARER_TOKEN",
                    }
                )),
            }
        }
        auth
    }

    /// The client credentials for oauth2 scheme `name`, when `_CLIENT_ID` and `_CLIENT_SECRET`
    /// are set and a token URL is known; a note or problem says why not otherwise.
    fn client_credentials(
        &mut self,
        name: &str,
        scheme: &Value,
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Option<ClientConfig> {
        let own = variable(name);
        let id = get(&format!("{own}_CLIENT_ID"));
        let secret = get(&format!("{own}_CLIENT_SECRET"));
        let (client_id, client_secret) = match (id, secret) {
            (Some(i), Some(s)) => (i, s),
            (None, None) => return None,
            (Some(_), None) => {
                self.problems.push(format!(
                    "{own}_CLIENT_ID is set but {own}_CLIENT_SECRET is not"
                ));
                return None;
            }
            (None, Some(_)) => {
                self.problems.push(format!(
                    "{own}_CLIENT_SECRET is set but {own}_CLIENT_ID is not"
                ));
                return None;
            }
        };
        let auth = match get(&format!("{own}_CLIENT_AUTH"))
            .map(|v| v.trim().to_ascii_lowercase())
            .as_deref()
        {
            None | Some("basic") => ClientAuth::Basic,
            Some("post") => ClientAuth::Post,
            Some(other) => {
                self.problems.push(format!(
                    "{own}_CLIENT_AUTH is {other:?}; expected basic (the default) or post"
                ));
                return None;
            }
        };
        let declared = scheme
            .pointer("/flows/clientCredentials/tokenUrl")
            .and_then(Value::as_str);
        let token_url = match get(&format!("{own}_TOKEN_URL")).or(declared.map(str::to_string)) {
            Some(u) => u.trim().to_string(),
            None => {
                self.problems.push(format!(
                    "security scheme {name:?} has no clientCredentials flow with a tokenUrl; set {own}_TOKEN_URL"
                ));
                return None;
            }
        };
        let absolute = (token_url.starts_with("https://") || token_url.starts_with("http://"))
            && !token_url.contains(char::is_whitespace)
            && !token_url.contains('#');
        if !absolute {
            self.problems.push(format!(
                "security scheme {name:?}: the token URL {token_url:?} is not an absolute http(s) URL; set {own}_TOKEN_URL"
            ));
            return None;
        }
        if super::plain_http_off_loopback(&token_url) {
            self.notes.push(format!(
                "warning: security scheme {name:?}: the token URL {} is plain http, so the client \
                 secret travels in cleartext (RFC 6749 requires TLS for the token endpoint)",
                crate::serve::request::strip_userinfo(&token_url)
            ));
        }
        Some(ClientConfig {
            scheme: name.to_string(),
            token_url,
            client_id,
            client_secret,
            auth,
        })
    }

    /// The credentials to send for an operation with this requirement: the first alternative
    /// whose schemes all have credentials (an empty alternative, "no auth", only when no other
    /// one can be satisfied); nothing when none can.
    pub fn for_requirement(&self, requirement: &[Alternative]) -> Resolved {
        let creds = |alt: &Alternative| -> Option<Resolved> {
            let mut out = Resolved::default();
            for (scheme, scopes) in alt {
                let (_, found) = self.found.iter().find(|(n, _)| n == scheme)?;
                match found {
                    Found::Fixed(c) => out.fixed.extend(c.iter().cloned()),
                    Found::OAuth(i) => out.oauth.push(Need::new(*i, scopes)),
                }
            }
            Some(out)
        };
        requirement
            .iter()
            .filter(|alt| !alt.is_empty())
            .find_map(creds)
            .unwrap_or_default()
    }

    /// Every secret value found, for redaction.
    pub fn secrets(&self) -> Vec<String> {
        let fixed = self.found.iter().flat_map(|(_, f)| match f {
            Found::Fixed(c) => c.as_slice(),
            Found::OAuth(_) => &[],
        });
        fixed
            .flat_map(|c| std::iter::once(c.value.clone()).chain(c.raw.iter().cloned()))
            .chain(self.clients.iter().flat_map(ClientConfig::secrets))
            .filter(|s| !s.is_empty())
            .collect()
    }
}

/// Whether an oauth2 scheme declares a client-credentials flow.
fn client_credentials_flow(scheme: &Value) -> bool {
    scheme.pointer("/flows/clientCredentials").is_some()
}

/// `Authorization: Bearer token`.
pub fn bearer(token: &str) -> Credential {
    authorization(format!("Bearer {token}"), vec![token.to_string()])
}

fn authorization(value: String, raw: Vec<String>) -> Credential {
    Credential {
        place: Place::Header,
        name: "Authorization".into(),
        value,
        raw,
    }
}

/// Put the credentials into `request`. A header already set by `--header` wins over a
/// credential of the same name; a credential wins over an argument, and so does a cookie named
/// in a `--header 'Cookie: ...'`. An argument cookie named like a credential cookie is an error
/// (the message says so): nothing may be sent.
pub fn apply(
    request: &mut Prepared,
    creds: &[Credential],
    fixed_headers: &[(String, String)],
) -> Result<(), String> {
    for (name, value) in fixed_headers {
        if name.eq_ignore_ascii_case("cookie") {
            request.drop_cookies_named_in(value);
        }
    }
    for c in creds {
        match c.place {
            Place::Header => {
                if !fixed_headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case(&c.name))
                {
                    request.set_header(&c.name, &c.value);
                }
            }
            Place::Query => request.set_query(&c.name, &c.value, true),
            Place::Cookie => request.set_cookie(&c.name, &c.value).map_err(|clash| {
                format!(
                    "the cookie argument {clash:?} has the name of a credential cookie (as back \
                     ends such as PHP read names); nothing was sent"
                )
            })?,
        }
    }
    Ok(())
}

/// Whether a `--header` of this name carries a credential: `Authorization`,
/// `Proxy-Authorization`, `Cookie`, a name containing `key`, `token`, `secret`, `auth`, `session`
/// or `password`, or one named with `--secret-header`.
pub fn is_secret_header(name: &str, marked: &[String]) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || ["key", "token", "secret", "auth", "session", "password"]
        .iter()
        .any(|w| lower.contains(w))
        || marked.iter().any(|m| m.eq_ignore_ascii_case(name))
}

/// The secret material of a `--header` value: the whole value, the part after an
/// authentication scheme word (`Bearer abc` -> `abc`), and for `Cookie` each cookie's value.
pub fn header_secrets(name: &str, value: &str) -> Vec<String> {
    let mut out = vec![value.to_string()];
    if name.eq_ignore_ascii_case("cookie") {
        out.extend(
            value
                .split(';')
                .filter_map(|pair| pair.split_once('=').map(|(_, v)| v.trim().to_string())),
        );
    } else if let Some((_, token)) = value.split_once(' ') {
        out.push(token.trim().to_string());
    }
    out
}

/// The user information of a URL (`user:password@`), as written and percent-decoded, with the
/// Basic form of each (the HTTP client encodes it as written) and the password alone; empty when
/// the URL has none.
pub fn userinfo_secrets(url: &str) -> Vec<String> {
    let Some((_, rest)) = url.split_once("://") else {
        return Vec::new();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let Some((info, _)) = authority.rsplit_once('@') else {
        return Vec::new();
    };
    let decoded = percent_encoding::percent_decode_str(info)
        .decode_utf8_lossy()
        .into_owned();
    let mut out = vec![info.to_string(), decoded.clone()];
    for pair in [info, decoded.as_str()] {
        out.push(base64::engine::general_purpose::STANDARD.encode(pair));
    }
    for pair in [info, decoded.as_str()] {
        out.extend(pair.split_once(':').map(|(_, pw)| pw.to_string()));
    }
    out
}

/// `url` with the password of its user information (`user:password@`) shown as `***`, for
/// what the model and the log see; the URL itself when it has none.
pub fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let Some((info, _)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    let user = info.split_once(':').map_or(info, |(user, _)| user);
    format!("{scheme}://{user}:***{}", &rest[info.len()..])
}

/// Every credential value in every form it is sent or echoed (raw, percent-encoded in either
/// case or with `+` for space, JSON-escaped as common encoders write it), to be replaced by `***`
/// in whatever goes back to the client or to the log.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    /// Longest first, so a longer secret is masked before a shorter one inside it; the flag says
    /// the value is long enough to be masked wherever it appears, glued to letters or not.
    forms: Vec<(String, bool)>,
}

/// Credentials shorter than this get a startup warning: a short value may also be ordinary text.
/// Values this long or longer are masked anywhere; shorter ones only as whole tokens.
pub const SHORT_SECRET: usize = 8;

impl Secrets {
    /// The forms of these secret values.
    pub fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut forms: Vec<(String, bool)> = Vec::new();
        for v in values {
            let v = v.as_ref().trim();
            if v.is_empty() {
                continue;
            }
            let anywhere = v.chars().count() >= SHORT_SECRET;
            forms.extend(echoed_forms(v).into_iter().map(|f| (f, anywhere)));
        }
        forms.sort_by(|a, b| {
            b.0.len()
                .cmp(&a.0.len())
                .then_with(|| a.0.cmp(&b.0))
                .then_with(|| b.1.cmp(&a.1))
        });
        forms.dedup_by(|a, b| a.0 == b.0);
        Secrets { forms }
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
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
    pub fn redact<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
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
    pub fn redact_value(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(s) => {
                if let std::borrow::Cow::Owned(r) = self.redact(s) {
                    *s = r;
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
/// percent-encoding in upper or lower case hex, `+` for a space, and JSON escapes (`\/`,
/// `\u0026`-style escapes of HTML characters and of anything not ASCII, in either case).
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
pub struct SharedSecrets {
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
    pub const KEPT: usize = 64;

    pub fn new(base: Vec<String>) -> Self {
        let current = RwLock::new(Arc::new(Secrets::new(&base)));
        SharedSecrets {
            base,
            tokens: Mutex::default(),
            current,
        }
    }

    /// The values to mask now.
    pub fn get(&self) -> Arc<Secrets> {
        Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// Mask `value` from now on: a token the cache now holds.
    pub fn add(&self, value: &str) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.dropped.retain(|v| v != value);
        if tokens.cached.insert(value.to_string()) {
            self.rebuild(&tokens);
        }
    }

    /// `value` has left the cache: keep masking it among the latest [`Self::KEPT`] dropped.
    pub fn drop_cached(&self, value: &str) {
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
        let end = rest.bytes().take(12).position(|b| b == b';')?;
        let name = &rest[..end];
        let c = match name {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let number = name.strip_prefix('#')?;
                let code = match number.strip_prefix(['x', 'X']) {
                    Some(hex) if hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                        u32::from_str_radix(hex, 16).ok()?
                    }
                    None if number.bytes().all(|b| b.is_ascii_digit()) => number.parse().ok()?,
                    _ => return None,
                };
                char::from_u32(code)?
            }
        };
        return Some((c, end + 2));
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

    fn doc() -> Value {
        json!({
            "security": [{"key": []}],
            "components": {"securitySchemes": {
                "key": {"type": "apiKey", "in": "query", "name": "api_key"},
                "token": {"type": "http", "scheme": "Bearer"},
                "basic-auth": {"type": "http", "scheme": "basic"},
                "mtls": {"type": "mutualTLS"}
            }},
            "paths": {"/a": {"get": {"security": [{}, {"token": []}]}}}
        })
    }

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn variables_and_requirements() {
        assert_eq!(variable("basic-auth"), "OPENAPI_MCP_BASIC_AUTH");
        let root = doc();
        let security = Security::new(root["components"]["securitySchemes"].as_object().unwrap());
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_API_KEY", "k1"),
                ("OPENAPI_MCP_TOKEN", "t0k3n"),
                ("OPENAPI_MCP_BASIC_AUTH", "ann:pw"),
            ]),
        );
        let req = vec![vec![], vec![("token".to_string(), vec![])]];
        assert_eq!(
            auth.for_requirement(&req).fixed,
            vec![Credential {
                place: Place::Header,
                name: "Authorization".into(),
                value: "Bearer t0k3n".into(),
                raw: vec!["t0k3n".into()],
            }]
        );
        let key = vec![vec![("key".to_string(), vec![])]];
        assert_eq!(auth.for_requirement(&key).fixed[0].place, Place::Query);
        let basic = auth.for_requirement(&[vec![("basic-auth".into(), vec![])]]);
        assert_eq!(basic.fixed[0].value, "Basic YW5uOnB3");
        assert!(auth.notes.iter().any(|n| n.contains("mtls")));
        assert!(auth.notes.iter().all(|n| !n.contains("t0k3n")));
    }

    #[test]
    fn missing_credentials_send_nothing() {
        let root = doc();
        let security = Security::new(root["components"]["securitySchemes"].as_object().unwrap());
        let auth = Auth::from_env(&security, &env(&[]));
        assert_eq!(
            auth.for_requirement(&[vec![("key".into(), vec![])]]),
            Resolved::default()
        );
        assert!(
            auth.notes
                .iter()
                .any(|n| n.contains("OPENAPI_MCP_KEY or OPENAPI_MCP_API_KEY"))
        );
    }

    fn oauth_doc() -> Value {
        json!({
            "components": {"securitySchemes": {
                "cc": {"type": "oauth2", "flows": {"clientCredentials": {
                    "tokenUrl": "https://auth.example/token", "scopes": {"read": "", "write": ""}}}},
                "code": {"type": "oauth2", "flows": {"authorizationCode": {
                    "authorizationUrl": "https://auth.example/a", "tokenUrl": "https://auth.example/t", "scopes": {}}}}
            }},
            "paths": {"/a": {"get": {"security": [{"cc": ["write", "read"]}]}}}
        })
    }

    #[test]
    fn oauth_client_credentials() {
        let root = oauth_doc();
        let security = Security::new(root["components"]["securitySchemes"].as_object().unwrap());
        let req = vec![vec![(
            "cc".to_string(),
            vec!["write".into(), "read".into()],
        )]];
        // Client credentials: a token to fetch with the operation's scopes, sorted.
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "very-secret-1"),
                ("OPENAPI_MCP_CC_CLIENT_AUTH", "POST"),
            ]),
        );
        assert!(auth.problems.is_empty(), "{:?}", auth.problems);
        let r = auth.for_requirement(&req);
        assert!(r.fixed.is_empty());
        assert_eq!(
            r.oauth,
            vec![Need::new(0, &["read".into(), "write".into()])]
        );
        assert_eq!(auth.clients[0].token_url, "https://auth.example/token");
        assert_eq!(auth.clients[0].auth, ClientAuth::Post);
        assert!(auth.secrets().contains(&"very-secret-1".to_string()));
        assert!(auth.notes.iter().all(|n| !n.contains("very-secret-1")));
        // The token URL variable overrides the flow's.
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "very-secret-1"),
                ("OPENAPI_MCP_CC_TOKEN_URL", "http://127.0.0.1:9/t"),
            ]),
        );
        assert_eq!(auth.clients[0].token_url, "http://127.0.0.1:9/t");
        assert_eq!(auth.clients[0].auth, ClientAuth::Basic);
        // A static token wins; the shared one does not.
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_CC", "static-token"),
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "very-secret-1"),
            ]),
        );
        assert!(auth.clients.is_empty());
        assert_eq!(
            auth.for_requirement(&req).fixed[0].value,
            "Bearer static-token"
        );
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_BEARER_TOKEN", "shared-token"),
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "very-secret-1"),
            ]),
        );
        assert_eq!(auth.for_requirement(&req).oauth.len(), 1);
        // Half a pair, an unknown client auth, or no token URL: refused.
        for vars in [
            &[("OPENAPI_MCP_CC_CLIENT_ID", "app")][..],
            &[
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "x"),
                ("OPENAPI_MCP_CC_CLIENT_AUTH", "jwt"),
            ],
            &[
                ("OPENAPI_MCP_CODE_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CODE_CLIENT_SECRET", "x"),
            ],
            &[
                ("OPENAPI_MCP_CC_CLIENT_ID", "app"),
                ("OPENAPI_MCP_CC_CLIENT_SECRET", "x"),
                ("OPENAPI_MCP_CC_TOKEN_URL", "/token"),
            ],
        ] {
            let vars: &'static [(&'static str, &'static str)] =
                Box::leak(vars.to_vec().into_boxed_slice());
            let auth = Auth::from_env(&security, &env(vars));
            assert_eq!(auth.problems.len(), 1, "{vars:?}");
            assert!(auth.clients.is_empty());
        }
    }

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

    #[test]
    fn credential_headers_and_userinfo() {
        for name in [
            "Authorization",
            "X-Api-Key",
            "X-Auth-Token",
            "Cookie",
            "X-Session-Id",
        ] {
            assert!(is_secret_header(name, &[]), "{name}");
        }
        assert!(!is_secret_header("X-Tenant", &[]));
        assert!(is_secret_header("x-tenant", &["X-Tenant".into()]));
        assert_eq!(
            header_secrets("Authorization", "Bearer abc"),
            vec!["Bearer abc".to_string(), "abc".into()]
        );
        assert_eq!(
            header_secrets("Cookie", "sid=1234; t=x"),
            vec!["sid=1234; t=x".to_string(), "1234".into(), "x".into()]
        );
        let u = userinfo_secrets("https://ann:p%40ss@h/v1");
        assert!(u.contains(&"ann:p@ss".to_string()), "{u:?}");
        assert!(u.contains(&"p@ss".to_string()) && u.contains(&"p%40ss".to_string()));
        assert!(u.contains(&base64::engine::general_purpose::STANDARD.encode("ann:p@ss")));
        assert!(u.contains(&base64::engine::general_purpose::STANDARD.encode("ann:p%40ss")));
        assert!(userinfo_secrets("https://h/v1@x").is_empty());
        assert_eq!(
            hide_password("https://ann:p%40ss@h/v1"),
            "https://ann:***@h/v1"
        );
        assert_eq!(
            hide_password("https://tok@h:8443/v1"),
            "https://tok:***@h:8443/v1"
        );
        assert_eq!(hide_password("https://h/v1@x"), "https://h/v1@x");
    }
}
