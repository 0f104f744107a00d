//! Auth: reads the document's security schemes and requirements, finds credentials for them in
//! environment variables, and applies them to requests; secret values are never shown.
//!
//! Each scheme's credential comes from `OPENAPI_MCP_<SCHEME>` (the scheme's name upper-cased,
//! every other character than `A-Z0-9` turned into `_`), else from a variable shared by all schemes
//! of its kind: `OPENAPI_MCP_API_KEY` (apiKey), `OPENAPI_MCP_BEARER_TOKEN` (http bearer, oauth2,
//! openIdConnect: sent as `Authorization: Bearer`), `OPENAPI_MCP_BASIC_USER` +
//! `OPENAPI_MCP_BASIC_PASSWORD` (http basic; the per-scheme variable holds `user:password`).

use super::request::Prepared;
use base64::Engine as _;
use serde_json::{Map, Value};

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

/// How to authenticate, per scheme name; built once at startup.
#[derive(Debug, Default)]
pub struct Auth {
    /// Scheme name -> credential, for the schemes whose variables are set.
    found: Vec<(String, Vec<Credential>)>,
    /// Lines for standard error at startup (variable names only, never values).
    pub notes: Vec<String>,
    /// The variables whose credential is shorter than [`SHORT_SECRET`].
    pub short: Vec<String>,
}

/// The document's security declarations: `components.securitySchemes`, the top-level `security`.
/// This is the only place `serve` reads the document beyond the tool model.
pub struct Security<'a> {
    pub schemes: Option<&'a Map<String, Value>>,
    pub default: Option<&'a Value>,
}

impl<'a> Security<'a> {
    /// Read the declarations from a loaded document's root.
    pub fn read(root: &'a Value) -> Self {
        Security {
            schemes: root
                .pointer("/components/securitySchemes")
                .and_then(Value::as_object),
            default: root.get("security"),
        }
    }

    /// The requirement in effect for the operation at `pointer`: its own `security`, else the
    /// document's. A list of alternatives, each a list of scheme names that must all be applied.
    pub fn requirement(&self, root: &Value, pointer: &str) -> Vec<Vec<String>> {
        let own = root.pointer(pointer).and_then(|op| op.get("security"));
        let Some(Value::Array(alternatives)) = own.or(self.default) else {
            return Vec::new();
        };
        alternatives
            .iter()
            .filter_map(Value::as_object)
            .map(|alt| alt.keys().cloned().collect())
            .collect()
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
                    let from = [own.as_str(), "OPENAPI_MCP_BEARER_TOKEN"];
                    from.iter()
                        .find_map(|v| get(v).map(|token| (*v, token)))
                        .map(|(v, token)| {
                            let header = format!("Bearer {token}");
                            (v.to_string(), vec![authorization(header, vec![token])])
                        })
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
                    auth.found.push((name.clone(), creds));
                }
                None => auth.notes.push(format!(
                    "security scheme {name:?}: no credentials (set {own}{})",
                    match (kind, http.as_str()) {
                        ("apiKey", _) => " or OPENAPI_MCP_API_KEY",
                        ("http", "basic") =>
                            " or OPENAPI_MCP_BASIC_USER and OPENAPI_MCP_BASIC_PASSWORD",
                        _ => " or OPENAPI_MCP_BEARER_TOKEN",
                    }
                )),
            }
        }
        auth
    }

    /// The credentials to send for an operation with this requirement: the first alternative
    /// whose schemes all have credentials (an empty alternative, "no auth", only when no other
    /// one can be satisfied); nothing when none can.
    pub fn for_requirement(&self, requirement: &[Vec<String>]) -> Vec<Credential> {
        let creds = |alt: &Vec<String>| -> Option<Vec<Credential>> {
            let mut out = Vec::new();
            for scheme in alt {
                let (_, c) = self.found.iter().find(|(n, _)| n == scheme)?;
                out.extend(c.iter().cloned());
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
        self.found
            .iter()
            .flat_map(|(_, c)| c.iter())
            .flat_map(|c| std::iter::once(c.value.clone()).chain(c.raw.iter().cloned()))
            .filter(|s| !s.is_empty())
            .collect()
    }
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
/// in a `--header 'Cookie: ...'`.
pub fn apply(request: &mut Prepared, creds: &[Credential], fixed_headers: &[(String, String)]) {
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
            Place::Cookie => request.set_cookie(&c.name, &c.value),
        }
    }
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

/// Every credential value in every form it is sent (raw, percent-encoded, JSON-escaped), to be
/// replaced by `***` in whatever goes back to the client or to the log.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    /// Longest first, so a longer secret is masked before a shorter one inside it.
    forms: Vec<String>,
}

/// Credentials shorter than this get a startup warning: a short value may also be ordinary text.
pub const SHORT_SECRET: usize = 8;

impl Secrets {
    /// The forms of these secret values.
    pub fn new<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        let mut forms: Vec<String> = Vec::new();
        for v in values {
            let v = v.as_ref().trim();
            if v.is_empty() {
                continue;
            }
            forms.extend(super::request::sent_forms(v));
            if let Ok(json) = serde_json::to_string(v) {
                forms.push(json[1..json.len() - 1].to_string());
            }
            forms.push(v.to_string());
        }
        forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        Secrets { forms }
    }

    /// Whether there is nothing to mask.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with every secret that appears as a whole token replaced by `***`. A secret
    /// starting (ending) with a letter or digit only matches where the text before (after) it
    /// is not a letter or digit, so `abc` is masked in `key=abc&` but not in `abcdef`.
    pub fn redact<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let mut out = std::borrow::Cow::Borrowed(text);
        for secret in &self.forms {
            if let Some(replaced) = replace_token(&out, secret) {
                out = std::borrow::Cow::Owned(replaced);
            }
        }
        out
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

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// `text` with whole-token occurrences of `secret` replaced by `***`; `None` when there is none.
fn replace_token(text: &str, secret: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let s = secret.as_bytes();
    let (first, last) = (*s.first()?, *s.last()?);
    let mut out = String::new();
    let mut copied = 0;
    let mut from = 0;
    while let Some(pos) = text[from..].find(secret) {
        let start = from + pos;
        let end = start + s.len();
        let before = start == 0 || !is_word(first) || !is_word(bytes[start - 1]);
        let after = end == bytes.len() || !is_word(last) || !is_word(bytes[end]);
        if before && after {
            out.push_str(&text[copied..start]);
            out.push_str("***");
            copied = end;
            from = end;
        } else {
            // Next match may start inside this one: move one character on.
            from = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
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
        let security = Security::read(&root);
        let auth = Auth::from_env(
            &security,
            &env(&[
                ("OPENAPI_MCP_API_KEY", "k1"),
                ("OPENAPI_MCP_TOKEN", "t0k3n"),
                ("OPENAPI_MCP_BASIC_AUTH", "ann:pw"),
            ]),
        );
        let req = security.requirement(&root, "/paths/~1a/get");
        assert_eq!(req, vec![vec![], vec!["token".to_string()]]);
        assert_eq!(
            auth.for_requirement(&req),
            vec![Credential {
                place: Place::Header,
                name: "Authorization".into(),
                value: "Bearer t0k3n".into(),
                raw: vec!["t0k3n".into()],
            }]
        );
        let default = security.requirement(&root, "/paths/~1b/get");
        assert_eq!(auth.for_requirement(&default)[0].place, Place::Query);
        let basic = auth.for_requirement(&[vec!["basic-auth".into()]]);
        assert_eq!(basic[0].value, "Basic YW5uOnB3");
        assert!(auth.notes.iter().any(|n| n.contains("mtls")));
        assert!(auth.notes.iter().all(|n| !n.contains("t0k3n")));
    }

    #[test]
    fn missing_credentials_send_nothing() {
        let root = doc();
        let security = Security::read(&root);
        let auth = Auth::from_env(&security, &env(&[]));
        assert!(auth.for_requirement(&[vec!["key".into()]]).is_empty());
        assert!(
            auth.notes
                .iter()
                .any(|n| n.contains("OPENAPI_MCP_KEY or OPENAPI_MCP_API_KEY"))
        );
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
        assert_eq!(s.redact("pw=p%40ss w/rd"), "pw=p%40ss w/rd");
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
    }
}
