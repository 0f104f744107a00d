//! `multipart/form-data` bodies: one part per property, arrays as repeated parts, base64 properties
//! decoded and sent as files, objects as JSON parts, under a boundary that occurs in no part.

use super::ArgError;
use super::body::{Parts, decode_base64, is_base64};
use super::encode::atom_text;
use crate::model::json_rank;
use serde_json::Value;

/// One part of a multipart body.
struct Part {
    name: String,
    filename: Option<String>,
    content_type: Option<String>,
    data: Vec<u8>,
}

/// `multipart/form-data`: one part per property; arrays as repeated parts; base64 (binary)
/// properties decoded and sent as files; objects as JSON parts.
pub(super) fn multipart(
    parts: &Parts<'_>,
    encoding: Option<&Value>,
    root: &Value,
    essence: &str,
) -> Result<(String, Vec<u8>), ArgError> {
    let mut out: Vec<Part> = Vec::new();
    for (name, schema, value) in parts {
        let declared = encoding
            .and_then(|e| e.get(name.as_str()))
            .and_then(|e| e.get("contentType"))
            .and_then(Value::as_str)
            .and_then(|ct| ct.split(',').next())
            .map(|ct| ct.trim().to_string())
            .filter(|ct| !ct.is_empty() && !ct.contains('*'));
        let binary = schema.is_some_and(|s| is_base64(s, root));
        let items_binary = schema
            .and_then(|s| s.get("items"))
            .is_some_and(|s| is_base64(s, root));
        let items: Vec<(&Value, bool)> = match value {
            Value::Array(items) if !declared.as_deref().is_some_and(is_json) => {
                items.iter().map(|v| (v, items_binary)).collect()
            }
            Value::Null => Vec::new(),
            v => vec![(v, binary)],
        };
        for (v, binary) in items {
            let part = match v {
                Value::String(s) if binary => Part {
                    name: name.clone(),
                    filename: Some(name.clone()),
                    content_type: Some(
                        declared
                            .clone()
                            .unwrap_or_else(|| "application/octet-stream".into()),
                    ),
                    data: decode_base64(name, s)?,
                },
                Value::Object(_) | Value::Array(_) => Part {
                    name: name.clone(),
                    filename: None,
                    content_type: Some(
                        declared
                            .clone()
                            .unwrap_or_else(|| "application/json".into()),
                    ),
                    data: v.to_string().into_bytes(),
                },
                other => Part {
                    name: name.clone(),
                    filename: None,
                    content_type: declared.clone(),
                    data: atom_text(other).into_bytes(),
                },
            };
            out.push(part);
        }
    }
    let boundary = boundary(&out);
    let mut bytes = Vec::new();
    for p in &out {
        bytes.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let mut disposition = format!(
            "Content-Disposition: form-data; name=\"{}\"",
            quoted(&p.name)
        );
        if let Some(f) = &p.filename {
            disposition.push_str(&format!("; filename=\"{}\"", quoted(f)));
        }
        bytes.extend_from_slice(disposition.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        if let Some(ct) = &p.content_type {
            bytes.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
        }
        bytes.extend_from_slice(b"\r\n");
        bytes.extend_from_slice(&p.data);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((format!("{essence}; boundary={boundary}"), bytes))
}

fn is_json(ct: &str) -> bool {
    json_rank(ct).is_some()
}

/// A name inside a quoted Content-Disposition parameter.
fn quoted(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_control())
        .map(|c| if c == '"' { '\'' } else { c })
        .collect()
}

/// A boundary that occurs in no part.
fn boundary(parts: &[Part]) -> String {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut n: u128 = seed;
    loop {
        let candidate = format!("openapi-mcp-{:016x}", n as u64);
        let bytes = candidate.as_bytes();
        if !parts
            .iter()
            .any(|p| p.data.windows(bytes.len()).any(|w| w == bytes))
        {
            return candidate;
        }
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
    }
}

#[cfg(test)]
mod tests {
    use crate::serve::request::build;
    use crate::serve::request::tests::{args, body_arg, call, spread};
    use serde_json::json;

    #[test]
    fn multipart_body_decodes_binary() {
        let schema = json!({"properties": {
            "file": {"type": "string", "contentEncoding": "base64"},
            "caption": {"type": "string"}
        }});
        let c = call(
            "/files",
            vec![body_arg("file"), body_arg("caption")],
            spread(
                "multipart/form-data",
                Some(json!({"file": {"contentType": "image/png, image/jpeg"}})),
            ),
        );
        let r = build(
            &c,
            &schema,
            "http://h",
            &args(json!({"file": "AAEC/w==", "caption": "hi"})),
        )
        .unwrap();
        let ct = &r.headers[0].1;
        let boundary = ct.split("boundary=").nth(1).unwrap();
        let expected = [
            format!("--{boundary}\r\n").into_bytes(),
            b"Content-Disposition: form-data; name=\"file\"; filename=\"file\"\r\n".to_vec(),
            b"Content-Type: image/png\r\n\r\n".to_vec(),
            vec![0, 1, 2, 255],
            b"\r\n".to_vec(),
            format!("--{boundary}\r\n").into_bytes(),
            b"Content-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n".to_vec(),
            format!("--{boundary}--\r\n").into_bytes(),
        ]
        .concat();
        assert_eq!(r.body.unwrap(), expected);
        assert!(ct.starts_with("multipart/form-data; boundary="));

        let e = build(
            &c,
            &schema,
            "http://h",
            &args(json!({"file": "not base64!"})),
        )
        .unwrap_err();
        assert_eq!(e.argument, "file");
    }
}
