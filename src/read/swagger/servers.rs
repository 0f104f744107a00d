//! Servers: 3.0 `servers` from `host`, `basePath` and `schemes`, for the document and for an
//! operation with its own `schemes`.

use super::{Upgrader, pointer, push, string_list};
use crate::error::{Error, Result};
use crate::read::kind;
use serde_json::{Map, Value};

impl Upgrader<'_> {
    /// Read `host`, `basePath` and `schemes` into the document-level servers.
    pub(super) fn document_servers(&mut self, src: &Map<String, Value>) -> Result<()> {
        self.host = opt_string(self.file, src, "host", &[])?;
        self.base = opt_string(self.file, src, "basePath", &[])?;
        let schemes = string_list(self.file, src.get("schemes"), &["schemes".into()])?;
        self.servers = server_urls(
            self.host.as_deref(),
            self.base.as_deref(),
            schemes.as_deref().unwrap_or(&[]),
        );
        Ok(())
    }

    /// An operation's `servers` from its own `schemes` (at `at`), when they give other URLs than
    /// the document's and there is a `host`.
    pub(super) fn operation_servers(
        &self,
        schemes: &Value,
        at: &[String],
    ) -> Result<Option<Value>> {
        let schemes = string_list(self.file, Some(schemes), at)?;
        let urls = server_urls(
            self.host.as_deref(),
            self.base.as_deref(),
            schemes.as_deref().unwrap_or(&[]),
        );
        Ok((urls != self.servers && self.host.is_some()).then(|| server_objects(&urls)))
    }
}

/// The string at `key` of `obj`, trimmed; `None` when absent, null or blank.
fn opt_string(
    file: &str,
    obj: &Map<String, Value>,
    key: &str,
    at: &[String],
) -> Result<Option<String>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(other) => Err(Error::at(
            file,
            &pointer(&push(at, key)),
            format!("`{key}` must be a string, found {}", kind(other)),
        )),
    }
}

/// Server URLs from `host`, `basePath` and `schemes`.
fn server_urls(host: Option<&str>, base: Option<&str>, schemes: &[String]) -> Vec<String> {
    let base_given = base.is_some();
    let base = base.map(|b| b.trim_end_matches('/')).unwrap_or("");
    let base = if base.is_empty() || base.starts_with('/') {
        base.to_string()
    } else {
        format!("/{base}")
    };
    let host = host
        .map(|h| h.trim_end_matches('/'))
        .filter(|h| !h.is_empty());
    let Some(host) = host else {
        return match base.as_str() {
            _ if !base_given => Vec::new(),
            "" => vec!["/".into()],
            b => vec![b.to_string()],
        };
    };
    let default = ["https".to_string()];
    let schemes = if schemes.is_empty() {
        &default[..]
    } else {
        schemes
    };
    // HTTPS first when offered: the first server is the one clients (and `serve`) use, and
    // credentials must not travel in clear when the API takes them encrypted.
    let mut ordered: Vec<&String> = schemes.iter().collect();
    ordered.sort_by_key(|s| !s.eq_ignore_ascii_case("https"));
    let mut out: Vec<String> = Vec::new();
    for scheme in ordered {
        let url = if host.contains("://") {
            format!("{host}{base}")
        } else {
            format!("{}://{host}{base}", scheme.to_ascii_lowercase())
        };
        if !out.contains(&url) {
            out.push(url);
        }
    }
    out
}

pub(super) fn server_objects(urls: &[String]) -> Value {
    Value::Array(
        urls.iter()
            .map(|u| {
                let mut m = Map::new();
                m.insert("url".into(), u.clone().into());
                Value::Object(m)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_from_host_base_path_and_schemes() {
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            server_urls(Some("api.x.com"), Some("/v1/"), &s(&["http", "https"])),
            s(&["https://api.x.com/v1", "http://api.x.com/v1"])
        );
        assert_eq!(
            server_urls(Some("h"), None, &s(&["ws", "http", "HTTPS", "wss"])),
            s(&["https://h", "ws://h", "http://h", "wss://h"])
        );
        assert_eq!(
            server_urls(Some("api.x.com"), None, &[]),
            s(&["https://api.x.com"])
        );
        assert_eq!(server_urls(None, Some("/v2"), &s(&["http"])), s(&["/v2"]));
        assert_eq!(server_urls(None, Some("/"), &[]), s(&["/"]));
        assert_eq!(server_urls(None, None, &[]), Vec::<String>::new());
    }
}
