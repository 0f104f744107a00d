//! Hints: the four MCP tool annotations suggested for an operation, each with where it came from,
//! why, and how sure the suggestion is. The HTTP method table gives the start; with
//! [`Suggest::Evidence`] what the operation says of itself may depart from it
//! ([`super::evidence`]); vendor extensions in the document override both. (A human's hints
//! file, applied later, overrides all.)

use crate::model::{HintOverride, Method};

/// How hints are suggested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Suggest {
    /// The method table, then what the operation's name, summary, path and body say.
    #[default]
    Evidence,
    /// The HTTP method table only: GET reads, PUT is idempotent, DELETE destructive.
    Method,
}

/// Where a hint's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintSource {
    /// The HTTP method table.
    Method,
    /// The verb of the operationId.
    Name,
    /// The verb the summary starts with.
    Summary,
    /// The path's last segment, an action (`/cancel`, `/_search`, `:batchGet`).
    Path,
    /// The API is RPC-style (nearly every operation a POST), so the name decides.
    ApiStyle,
    /// The request body (a PATCH of a few optional fields).
    Body,
    /// The description ("cannot be undone", "overwrites").
    Description,
    /// The responses (only 202 Accepted).
    Response,
    /// A parameter (a required `Idempotency-Key` header).
    Parameter,
    /// A vendor extension in the document (`x-mcp-annotations`, `x-speakeasy-mcp`).
    Extension(&'static str),
    /// The hints file's `defaults:` block.
    Defaults,
    /// A hints file entry a human has not yet marked `reviewed: true`.
    File,
    /// A hints file entry marked `reviewed: true`.
    Reviewed,
}

impl HintSource {
    pub fn label(&self) -> &'static str {
        match self {
            HintSource::Method => "method",
            HintSource::Name => "name",
            HintSource::Summary => "summary",
            HintSource::Path => "path",
            HintSource::ApiStyle => "api-style",
            HintSource::Body => "body",
            HintSource::Description => "description",
            HintSource::Response => "response",
            HintSource::Parameter => "parameter",
            HintSource::Extension(_) => "extension",
            HintSource::Defaults => "defaults",
            HintSource::File => "hints file",
            HintSource::Reviewed => "reviewed",
        }
    }
}

/// Whether the evidence settles a suggestion, or a name's verb its action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The evidence agrees (or a human or the document set the value); a verb at either end of
    /// the name.
    Sure,
    /// Signals conflict, or one weak signal departs from the method table: a reviewer decides. A
    /// verb in the middle of a name may be part of a noun phrase (`user_logout_history`).
    Unsure,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Sure => "sure",
            Confidence::Unsure => "unsure",
        }
    }
}

/// One suggested hint value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub value: bool,
    pub source: HintSource,
    /// Why, in one sentence a reviewer can check.
    pub reason: String,
    pub confidence: Confidence,
}

/// The four MCP tool hints, always all present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hints {
    pub read_only: Hint,
    pub destructive: Hint,
    pub idempotent: Hint,
    pub open_world: Hint,
}

impl Hints {
    /// (annotation key, hint) pairs in the order MCP documents them.
    pub fn entries(&self) -> [(&'static str, &Hint); 4] {
        [
            ("readOnlyHint", &self.read_only),
            ("destructiveHint", &self.destructive),
            ("idempotentHint", &self.idempotent),
            ("openWorldHint", &self.open_world),
        ]
    }

    /// The hints the evidence does not settle.
    pub fn unsure(&self) -> Vec<(&'static str, &Hint)> {
        self.entries()
            .into_iter()
            .filter(|(_, h)| h.confidence == Confidence::Unsure)
            .collect()
    }

    /// `Unsure` when any hint is.
    pub fn confidence(&self) -> Confidence {
        if self.unsure().is_empty() {
            Confidence::Sure
        } else {
            Confidence::Unsure
        }
    }
}

fn method_hint(value: bool, reason: &str) -> Hint {
    Hint {
        value,
        source: HintSource::Method,
        reason: reason.to_string(),
        confidence: Confidence::Sure,
    }
}

/// Whether `method` is safe by RFC 9110 (reads only): not POST, PUT, PATCH or DELETE.
pub(crate) fn is_safe(method: Method) -> bool {
    !matches!(
        method,
        Method::Post | Method::Put | Method::Patch | Method::Delete
    )
}

/// The method table: what an HTTP method implies, with the reason.
pub(crate) fn from_method(method: Method) -> Hints {
    let m = method.as_str();
    let open_world = method_hint(true, "calls an external HTTP API (MCP's cautious default)");
    match method {
        Method::Get | Method::Head | Method::Options | Method::Trace | Method::Query => Hints {
            read_only: method_hint(true, &format!("{m}: safe method by RFC 9110; reads only")),
            destructive: method_hint(false, &format!("{m}: safe method; changes nothing")),
            idempotent: method_hint(
                true,
                &format!("{m}: safe methods are idempotent by RFC 9110"),
            ),
            open_world,
        },
        Method::Put => Hints {
            read_only: method_hint(false, "PUT: changes state"),
            destructive: method_hint(true, "PUT: replaces the target, may overwrite data"),
            idempotent: method_hint(true, "PUT: idempotent by RFC 9110"),
            open_world,
        },
        Method::Patch => Hints {
            read_only: method_hint(false, "PATCH: changes state"),
            destructive: method_hint(true, "PATCH: modifies existing data in place"),
            idempotent: method_hint(false, "PATCH: not idempotent by RFC 5789"),
            open_world,
        },
        Method::Delete => Hints {
            read_only: method_hint(false, "DELETE: changes state"),
            destructive: method_hint(true, "DELETE: removes the target"),
            idempotent: method_hint(true, "DELETE: idempotent by RFC 9110"),
            open_world,
        },
        Method::Post => Hints {
            read_only: method_hint(false, "POST: changes state"),
            destructive: method_hint(false, "POST: assumed additive (creates), not destructive"),
            idempotent: method_hint(false, "POST: not idempotent by RFC 9110"),
            open_world,
        },
    }
}

/// Apply each vendor extension in order (later wins) over `hints`.
pub(crate) fn with_extensions(mut hints: Hints, overrides: &[HintOverride]) -> Hints {
    for o in overrides {
        let set = |slot: &mut Hint, value: Option<bool>| {
            if let Some(value) = value {
                *slot = Hint {
                    value,
                    source: HintSource::Extension(o.source),
                    reason: format!("set by {} in the document", o.source),
                    confidence: Confidence::Sure,
                };
            }
        };
        set(&mut hints.read_only, o.read_only);
        set(&mut hints.destructive, o.destructive);
        set(&mut hints.idempotent, o.idempotent);
        set(&mut hints.open_world, o.open_world);
    }
    hints
}

/// Suggested hints by the method table, then each vendor extension in order (later wins).
#[cfg(test)]
pub(crate) fn suggest(method: Method, overrides: &[HintOverride]) -> Hints {
    with_extensions(from_method(method), overrides)
}

#[cfg(test)]
mod tests {
    use super::*;
    fn values(h: &Hints) -> [bool; 4] {
        [
            h.read_only.value,
            h.destructive.value,
            h.idempotent.value,
            h.open_world.value,
        ]
    }

    #[test]
    fn method_table() {
        assert_eq!(values(&from_method(Method::Get)), [true, false, true, true]);
        assert_eq!(values(&from_method(Method::Put)), [false, true, true, true]);
        assert_eq!(
            values(&from_method(Method::Patch)),
            [false, true, false, true]
        );
        assert_eq!(
            values(&from_method(Method::Delete)),
            [false, true, true, true]
        );
        assert_eq!(
            values(&from_method(Method::Post)),
            [false, false, false, true]
        );
        assert_eq!(
            values(&from_method(Method::Head)),
            [true, false, true, true]
        );
    }

    #[test]
    fn extensions_override_with_reason() {
        let o = HintOverride {
            source: "x-mcp-annotations",
            read_only: Some(true),
            ..Default::default()
        };
        let h = suggest(Method::Post, &[o]);
        assert!(h.read_only.value);
        assert_eq!(
            h.read_only.source,
            HintSource::Extension("x-mcp-annotations")
        );
        assert_eq!(h.idempotent.source, HintSource::Method);
    }
}
