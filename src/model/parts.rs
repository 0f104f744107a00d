//! Reading an operation's parts: its parameters, its request body (the preferred media type)
//! and its success response (the first 2xx with a JSON schema), and the media-type ranking
//! those choices use.

use super::reader::{At, Reader};
use super::{BodyKind, ParamIn, Parameter, RequestBody, Response};
use crate::error::Result;
use serde_json::Value;

impl<'a> Reader<'a> {
    pub(super) fn parameters(
        &self,
        list: Option<&'a Value>,
        at: &At,
    ) -> Result<Vec<Parameter<'a>>> {
        let items = self.opt_array(list, "parameters", at)?;
        let mut out: Vec<Parameter<'a>> = Vec::with_capacity(items.len());
        for (i, p) in items.iter().enumerate() {
            if let Some(p) = self.parameter(p, &at.index(i))? {
                // A later duplicate (same name and location) replaces the earlier one.
                out.retain(|q| !(q.name == p.name && q.location == p.location));
                out.push(p);
            }
        }
        Ok(out)
    }

    fn parameter(&self, p: &'a Value, at: &At) -> Result<Option<Parameter<'a>>> {
        let (p, led) = self.follow(p, at)?;
        let at = led.as_deref().map_or(*at, At::Text);
        let obj = self.object(p, &at)?;
        let name = self
            .opt_str(obj, "name", &at)?
            .ok_or_else(|| self.err(&at.to_string(), "parameter has no `name`"))?;
        let location = match self.opt_str(obj, "in", &at)? {
            Some("path") => ParamIn::Path,
            Some("query") | Some("querystring") => ParamIn::Query,
            Some("header") => ParamIn::Header,
            Some("cookie") => ParamIn::Cookie,
            Some(other) => {
                return Err(self.err(
                    &at.key("in").to_string(),
                    format!("unknown parameter location {other:?}"),
                ));
            }
            None => {
                return Err(self.err(&at.to_string(), format!("parameter {name:?} has no `in`")));
            }
        };
        // OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
        if location == ParamIn::Header
            && ["accept", "content-type", "authorization"]
                .contains(&name.to_ascii_lowercase().as_str())
        {
            return Ok(None);
        }
        let (schema, content_type) = match (obj.get("schema"), obj.get("content")) {
            (Some(s), _) => (Some(s), None),
            (None, Some(Value::Object(content))) => match content.iter().next() {
                Some((media, m)) => {
                    let m = self.object(m, &at.key("content").key(media))?;
                    (m.get("schema"), Some(media.clone()))
                }
                None => (None, None),
            },
            _ => (None, None),
        };
        let default_style = match location {
            ParamIn::Path | ParamIn::Header => "simple",
            ParamIn::Query | ParamIn::Cookie => "form",
        };
        let style = match self.opt_str(obj, "style", &at)? {
            Some(s) => match s {
                "matrix" => "matrix",
                "label" => "label",
                "simple" => "simple",
                "form" => "form",
                "spaceDelimited" => "spaceDelimited",
                "pipeDelimited" => "pipeDelimited",
                "deepObject" => "deepObject",
                "cookie" => "cookie",
                other => {
                    return Err(self.err(
                        &at.key("style").to_string(),
                        format!("unknown parameter style {other:?}"),
                    ));
                }
            },
            None => default_style,
        };
        let explode = self
            .opt_bool(obj, "explode", &at)?
            .unwrap_or(style == "form");
        Ok(Some(Parameter {
            name: name.to_string(),
            location,
            required: location == ParamIn::Path
                || self.opt_bool(obj, "required", &at)?.unwrap_or(false),
            deprecated: self.opt_bool(obj, "deprecated", &at)?.unwrap_or(false),
            description: self.opt_str(obj, "description", &at)?,
            schema,
            content_type,
            style,
            explode,
            allow_reserved: self.opt_bool(obj, "allowReserved", &at)?.unwrap_or(false),
            example: obj.get("example"),
        }))
    }

    pub(super) fn request_body(&self, b: &'a Value, at: &At) -> Result<Option<RequestBody<'a>>> {
        let (b, led) = self.follow(b, at)?;
        let at = led.as_deref().map_or(*at, At::Text);
        let obj = self.object(b, &at)?;
        let content_at = at.key("content");
        let content = match obj.get("content") {
            None | Some(Value::Null) => return Ok(None),
            Some(c) => self.object(c, &content_at)?,
        };
        let Some((media, entry)) = content.iter().min_by_key(|(media, _)| body_rank(media)) else {
            return Ok(None);
        };
        let entry_at = content_at.key(media);
        let entry = self.object(entry, &entry_at)?;
        let encoding = match entry.get("encoding") {
            Some(e) => Some(self.object(e, &entry_at.key("encoding"))?),
            None => None,
        };
        Ok(Some(RequestBody {
            required: self.opt_bool(obj, "required", &at)?.unwrap_or(false),
            description: self.opt_str(obj, "description", &at)?,
            content_type: media.clone(),
            kind: body_kind(media),
            schema: entry.get("schema"),
            encoding,
        }))
    }

    pub(super) fn success(
        &self,
        responses: Option<&'a Value>,
        at: &At,
    ) -> Result<(Option<Response<'a>>, bool)> {
        let responses = match responses {
            None | Some(Value::Null) => return Ok((None, false)),
            Some(r) => self.object(r, at)?,
        };
        let mut codes: Vec<(&String, &'a Value)> = responses
            .iter()
            .filter(|(code, _)| success_order(code).is_some())
            .collect();
        codes.sort_by_key(|(code, _)| success_order(code));
        let has_success = !codes.is_empty();
        for (code, r) in codes {
            let code_at = at.key(code);
            let (r, led) = self.follow(r, &code_at)?;
            let r_at = led.as_deref().map_or(code_at, At::Text);
            let r = self.object(r, &r_at)?;
            let Some(content) = r.get("content") else {
                continue;
            };
            let content = self.object(content, &r_at.key("content"))?;
            let best = content
                .iter()
                .filter_map(|(media, m)| Some((json_rank(media)?, media, m)))
                .min_by_key(|(rank, _, _)| *rank);
            if let Some((_, media, m)) = best
                && let Some(schema) = m.as_object().and_then(|m| m.get("schema"))
            {
                return Ok((
                    Some(Response {
                        status: code.clone(),
                        content_type: media.clone(),
                        schema,
                    }),
                    true,
                ));
            }
        }
        Ok((None, has_success))
    }
}

/// Order of success responses: 200..299 ascending, then the `2XX` range.
fn success_order(code: &str) -> Option<u16> {
    if code.eq_ignore_ascii_case("2XX") {
        return Some(300);
    }
    match code.parse::<u16>() {
        Ok(n) if (200..300).contains(&n) => Some(n),
        _ => None,
    }
}

/// The essence of a media type: lower-case, parameters dropped.
fn essence(media: &str) -> String {
    media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Rank of a JSON-like media type (lower is better); `None` for non-JSON.
pub fn json_rank(media: &str) -> Option<u8> {
    let m = essence(media);
    if m == "application/json" {
        Some(0)
    } else if m.ends_with("+json") || m.ends_with("/json") {
        Some(1)
    } else if m == "*/*" || m == "application/*" {
        Some(2)
    } else {
        None
    }
}

fn body_kind(media: &str) -> BodyKind {
    let m = essence(media);
    if json_rank(&m).is_some() {
        BodyKind::Json
    } else if m == "application/x-www-form-urlencoded" {
        BodyKind::Form
    } else if m == "multipart/form-data" || m.starts_with("multipart/") {
        BodyKind::Multipart
    } else if m.starts_with("text/") {
        BodyKind::Text
    } else {
        BodyKind::Other
    }
}

/// Preference among a request body's media types: JSON, form, multipart, text, anything else.
fn body_rank(media: &str) -> (u8, u8) {
    let m = essence(media);
    match body_kind(&m) {
        BodyKind::Json => (0, json_rank(&m).unwrap_or(9)),
        BodyKind::Form => (1, 0),
        BodyKind::Multipart => (2, u8::from(m != "multipart/form-data")),
        BodyKind::Text => (3, u8::from(m != "text/plain")),
        BodyKind::Other => (4, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_codes_are_ordered() {
        assert!(success_order("201") > success_order("200"));
        assert!(success_order("2XX") > success_order("299"));
        assert_eq!(success_order("default"), None);
        assert_eq!(success_order("404"), None);
    }

    #[test]
    fn body_media_preference() {
        let mut media = [
            "text/plain",
            "multipart/form-data",
            "application/json",
            "application/x-www-form-urlencoded",
        ];
        media.sort_by_key(|m| body_rank(m));
        assert_eq!(media[0], "application/json");
        assert_eq!(media[1], "application/x-www-form-urlencoded");
    }
}
