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
use super::redact::SHORT_SECRET;
use super::request::Prepared;
use base64::Engine as _;
use serde_json::{Map, Value};

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Header,
    Query,
    Cookie,
}

/// One credential ready to be put into a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Credential {
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
pub(crate) struct Auth {
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
pub(crate) struct Resolved {
    pub fixed: Vec<Credential>,
    pub oauth: Vec<Need>,
}

/// One alternative of a security requirement: each scheme's name with the scopes it needs.
pub(crate) type Alternative = crate::model::Requirement;

/// The document's security schemes, as the conversion carries them
/// ([`crate::Conversion::security_schemes`]); each tool carries its own requirement
/// ([`crate::tool::Call::security`]).
pub(crate) struct Security<'a> {
    pub schemes: Option<&'a Map<String, Value>>,
}

impl<'a> Security<'a> {
    /// The schemes of `components.securitySchemes`.
    pub(crate) fn new(schemes: &'a Map<String, Value>) -> Self {
        Security {
            schemes: Some(schemes),
        }
    }
}

/// The per-scheme variable name for `scheme`.
pub(crate) fn variable(scheme: &str) -> String {
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
    pub(crate) fn from_env(security: &Security<'_>, env: &dyn Fn(&str) -> Option<String>) -> Self {
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
    pub(crate) fn for_requirement(&self, requirement: &[Alternative]) -> Resolved {
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
    pub(crate) fn secrets(&self) -> Vec<String> {
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
pub(crate) fn bearer(token: &str) -> Credential {
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
pub(crate) fn apply(
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
pub(crate) fn is_secret_header(name: &str, marked: &[String]) -> bool {
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
pub(crate) fn header_secrets(name: &str, value: &str) -> Vec<String> {
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
pub(crate) fn userinfo_secrets(url: &str) -> Vec<String> {
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
