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

    /// Every secret value known, for redaction.
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
/// credential of the same name; a credential wins over an argument.
pub fn apply(request: &mut Prepared, creds: &[Credential], fixed_headers: &[(String, String)]) {
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

/// Replace every occurrence of a secret in `text` by `***`.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut sorted: Vec<&String> = secrets.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in sorted {
        if s.len() >= 4 {
            out = out.replace(s.as_str(), "***");
        }
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
    fn redaction() {
        assert_eq!(
            redact("bad key s3cret here", &["s3cret".into()]),
            "bad key *** here"
        );
    }
}
