//! OAuth2: fetches client-credentials tokens from a token endpoint and caches them per token URL,
//! client and scope set, refreshing them shortly before they expire.
//!
//! The client authenticates with HTTP Basic (id and secret form-encoded, then base64, as RFC 6749
//! section 2.3.1 says) or, with `OPENAPI_MCP_<SCHEME>_CLIENT_AUTH=post`, with `client_id` and
//! `client_secret` form fields. A token without `expires_in` is kept until the API answers 401.
//! Every fetched token joins the masked credentials.

use super::http::Client;
use super::redact::SharedSecrets;
use super::request::{Prepared, QueryPair};
use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `application/x-www-form-urlencoded` values: everything but `A-Z a-z 0-9 - . _ ~` encoded.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Longest wait before a token's expiry at which it is fetched again.
pub(crate) const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// How the client proves who it is to the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    /// `Authorization: Basic base64(id:secret)`.
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Post,
}

/// One scheme's client credentials and where to use them.
#[derive(Debug, Clone)]
pub(crate) struct ClientConfig {
    /// The security scheme's name (for messages).
    pub scheme: String,
    pub token_url: String,
    pub client_id: String,
    pub client_secret: String,
    pub auth: ClientAuth,
}

impl ClientConfig {
    /// The values to mask: the secret, and the Basic header value carrying it.
    pub(crate) fn secrets(&self) -> Vec<String> {
        vec![
            self.client_secret.clone(),
            self.basic(),
            form(&self.client_secret),
        ]
    }

    fn basic(&self) -> String {
        let pair = format!("{}:{}", form(&self.client_id), form(&self.client_secret));
        base64::engine::general_purpose::STANDARD.encode(pair)
    }

    /// The token request for these scopes (sorted; none: no `scope` field).
    fn request(&self, scopes: &[String]) -> Prepared {
        let mut body = "grant_type=client_credentials".to_string();
        if !scopes.is_empty() {
            body.push_str("&scope=");
            body.push_str(&form(&scopes.join(" ")));
        }
        let mut headers = vec![(
            "Content-Type".to_string(),
            "application/x-www-form-urlencoded".to_string(),
        )];
        match self.auth {
            ClientAuth::Basic => {
                headers.push(("Authorization".into(), format!("Basic {}", self.basic())));
            }
            ClientAuth::Post => {
                body.push_str("&client_id=");
                body.push_str(&form(&self.client_id));
                body.push_str("&client_secret=");
                body.push_str(&form(&self.client_secret));
            }
        }
        headers.push(("Accept".into(), "application/json".into()));
        let (url, query) = split_query(&self.token_url);
        Prepared {
            method: "POST",
            url,
            query,
            headers,
            cookies: Vec::new(),
            credential_cookies: 0,
            body: Some(body.into_bytes()),
        }
    }
}

/// The token URL without its query, and the query's pairs as written (kept when sent).
fn split_query(url: &str) -> (String, Vec<QueryPair>) {
    match url.split_once('?') {
        None => (url.to_string(), Vec::new()),
        Some((base, query)) => {
            let pairs = query
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    let (k, v) = p.split_once('=').unwrap_or((p, ""));
                    QueryPair {
                        key: k.to_string(),
                        value: v.to_string(),
                        secret: false,
                    }
                })
                .collect();
            (base.to_string(), pairs)
        }
    }
}

fn form(value: &str) -> String {
    utf8_percent_encode(value, FORM).to_string()
}

/// A token one operation needs: the client (an index into [`Tokens`]' clients) and the scopes
/// its security requirement names, sorted, without repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Need {
    pub client: usize,
    pub scopes: Vec<String>,
}

impl Need {
    pub(crate) fn new(client: usize, scopes: &[String]) -> Self {
        let mut scopes = scopes.to_vec();
        scopes.sort();
        scopes.dedup();
        Need { client, scopes }
    }
}

/// A cached token and when to fetch a new one (`None`: until the API refuses it).
struct Cached {
    value: String,
    refresh_at: Option<Instant>,
}

/// Token URL, client id and scope set.
type Key = (String, String, Vec<String>);
/// One key's token, locked while it is fetched.
type Slot = Arc<Mutex<Option<Cached>>>;

/// The token cache: one slot per token URL, client id and scope set, each locked while its token
/// is fetched so that calls needing it at the same time make one request.
pub(crate) struct Tokens {
    clients: Vec<ClientConfig>,
    slots: Mutex<HashMap<Key, Slot>>,
}

impl Tokens {
    pub(crate) fn new(clients: Vec<ClientConfig>) -> Self {
        Tokens {
            clients,
            slots: Mutex::new(HashMap::new()),
        }
    }

    fn slot(&self, need: &Need) -> Slot {
        let c = &self.clients[need.client];
        let key = (
            c.token_url.clone(),
            c.client_id.clone(),
            need.scopes.clone(),
        );
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(slots.entry(key).or_default())
    }

    /// The token for `need`: the cached one while it is fresh, else a new one from the token
    /// endpoint. `Err` says what failed, without secrets.
    pub(crate) fn get(
        &self,
        need: &Need,
        http: &Client,
        secrets: &SharedSecrets,
    ) -> Result<String, String> {
        let slot = self.slot(need);
        let mut cached = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref()
            && c.refresh_at.is_none_or(|at| Instant::now() < at)
        {
            return Ok(c.value.clone());
        }
        let fresh = self.fetch(need, http, secrets)?;
        let value = fresh.value.clone();
        if let Some(old) = cached.replace(fresh)
            && old.value != value
        {
            secrets.drop_cached(&old.value);
        }
        Ok(value)
    }

    /// Fetch a new token in place of `used` (the API refused it), unless another call has
    /// replaced it already. It stays cached (and masked) until the new one takes its place.
    pub(crate) fn refused(&self, need: &Need, used: &str) {
        let slot = self.slot(need);
        let mut cached = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_mut()
            && c.value == used
        {
            c.refresh_at = Some(Instant::now());
        }
    }

    fn fetch(&self, need: &Need, http: &Client, secrets: &SharedSecrets) -> Result<Cached, String> {
        let client = &self.clients[need.client];
        let request = client.request(&need.scopes);
        let shown = request.shown_url();
        let what = format!(
            "cannot get an OAuth2 token for security scheme {:?} from {shown}",
            client.scheme
        );
        let started = Instant::now();
        let reply = http
            .send(&request, &secrets.get())
            .map_err(|e| format!("{what}: {e}"))?;
        let body: Option<Value> = serde_json::from_slice(&reply.body).ok();
        let field = |k: &str| {
            body.as_ref()
                .and_then(|b| b.get(k))
                .and_then(Value::as_str)
                .map(|s| s.chars().take(200).collect::<String>())
        };
        if !(200..300).contains(&reply.status) {
            let mut detail = format!("the token endpoint answered HTTP {}", reply.status_line());
            if let Some(code) = field("error") {
                detail.push_str(&format!(" ({code}"));
                if let Some(d) = field("error_description") {
                    detail.push_str(&format!(": {d}"));
                }
                detail.push(')');
            }
            return Err(secrets
                .get()
                .redact(&format!("{what}: {detail}"))
                .into_owned());
        }
        let Some(token) = field("access_token").filter(|t| !t.is_empty()) else {
            return Err(format!(
                "{what}: the answer (HTTP {}) has no access_token",
                reply.status
            ));
        };
        // `field` cut the value for messages: take the whole token.
        let token = body
            .as_ref()
            .and_then(|b| b.get("access_token"))
            .and_then(Value::as_str)
            .unwrap_or(&token)
            .to_string();
        if let Some(kind) = field("token_type")
            && !kind.eq_ignore_ascii_case("bearer")
        {
            return Err(format!(
                "{what}: the token type is {kind:?}; only bearer tokens can be sent"
            ));
        }
        if token.chars().any(|c| c.is_control() || !c.is_ascii()) {
            return Err(format!(
                "{what}: the access_token is not a usable header value"
            ));
        }
        secrets.add(&token);
        let lifetime = body
            .as_ref()
            .and_then(|b| b.get("expires_in"))
            .and_then(|v| {
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            });
        let refresh_at = lifetime.filter(|s| s.is_finite()).map(|secs| {
            let life = Duration::from_secs_f64(secs.clamp(0.0, 1e9));
            started + life - (life / 5).min(REFRESH_MARGIN)
        });
        Ok(Cached {
            value: token,
            refresh_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(auth: ClientAuth) -> ClientConfig {
        ClientConfig {
            scheme: "oauth".into(),
            token_url: "https://auth.example/token?tenant=a".into(),
            client_id: "my app".into(),
            client_secret: "s3cr:et".into(),
            auth,
        }
    }

    #[test]
    fn token_requests() {
        let scopes = vec!["read".to_string(), "write:all".to_string()];
        let basic = config(ClientAuth::Basic).request(&scopes);
        assert_eq!(basic.full_url(), "https://auth.example/token?tenant=a");
        assert_eq!(
            String::from_utf8(basic.body.clone().unwrap()).unwrap(),
            "grant_type=client_credentials&scope=read%20write%3Aall"
        );
        let auth = basic
            .headers
            .iter()
            .find(|(n, _)| n == "Authorization")
            .unwrap();
        // RFC 6749 2.3.1: form-encoded, then base64.
        assert_eq!(
            auth.1,
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("my%20app:s3cr%3Aet")
            )
        );
        let post = config(ClientAuth::Post).request(&[]);
        assert_eq!(
            String::from_utf8(post.body.unwrap()).unwrap(),
            "grant_type=client_credentials&client_id=my%20app&client_secret=s3cr%3Aet"
        );
        assert!(!post.headers.iter().any(|(n, _)| n == "Authorization"));
        assert!(
            config(ClientAuth::Basic)
                .secrets()
                .contains(&"s3cr:et".to_string())
        );
    }

    #[test]
    fn needs_are_scope_sets() {
        let a = Need::new(0, &["b".into(), "a".into(), "b".into()]);
        assert_eq!(a, Need::new(0, &["a".into(), "b".into()]));
    }
}
