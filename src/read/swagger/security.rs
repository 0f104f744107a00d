//! Security schemes: `securityDefinitions` entries in their 3.0 form (`basic` -> `http`,
//! an oauth2 `flow` -> `flows`).

use serde_json::{Map, Value};

/// A Swagger security scheme in its 3.0 form.
pub(super) fn security_scheme(s: &Value) -> Value {
    let Value::Object(obj) = s else {
        return s.clone();
    };
    let mut out = Map::new();
    let extras = |out: &mut Map<String, Value>| {
        for (k, v) in obj {
            if k == "description" || k.starts_with("x-") {
                out.insert(k.clone(), v.clone());
            }
        }
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("basic") => {
            out.insert("type".into(), "http".into());
            out.insert("scheme".into(), "basic".into());
            extras(&mut out);
        }
        Some("oauth2") => {
            let (flow, keys): (&str, &[&str]) = match obj.get("flow").and_then(Value::as_str) {
                Some("implicit") => ("implicit", &["authorizationUrl"]),
                Some("password") => ("password", &["tokenUrl"]),
                Some("application") => ("clientCredentials", &["tokenUrl"]),
                Some("accessCode") => ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
                _ => return s.clone(),
            };
            let mut f = Map::new();
            for k in keys {
                if let Some(v) = obj.get(*k) {
                    f.insert((*k).into(), v.clone());
                }
            }
            let scopes = match obj.get("scopes") {
                Some(v @ Value::Object(_)) => v.clone(),
                _ => Value::Object(Map::new()),
            };
            f.insert("scopes".into(), scopes);
            let mut flows = Map::new();
            flows.insert(flow.into(), Value::Object(f));
            out.insert("type".into(), "oauth2".into());
            out.insert("flows".into(), Value::Object(flows));
            extras(&mut out);
        }
        _ => return s.clone(),
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn security_schemes_map() {
        assert_eq!(
            security_scheme(&json!({"type": "basic", "description": "d"})),
            json!({"type": "http", "scheme": "basic", "description": "d"})
        );
        let k = json!({"type": "apiKey", "name": "k", "in": "header"});
        assert_eq!(security_scheme(&k), k);
        assert_eq!(
            security_scheme(&json!({"type": "oauth2", "flow": "accessCode",
                "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {"r": "read"}})),
            json!({"type": "oauth2", "flows": {"authorizationCode": {
                "authorizationUrl": "https://a", "tokenUrl": "https://t", "scopes": {"r": "read"}}}})
        );
        assert_eq!(
            security_scheme(
                &json!({"type": "oauth2", "flow": "application", "tokenUrl": "https://t"})
            ),
            json!({"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}}})
        );
    }
}
