//! Hints: the four MCP tool annotations suggested for an operation, each with where it came from
//! and why. The HTTP method gives the default; vendor extensions in the document override it.
//! (A human's reviewed hints file, applied later, overrides both.)

use crate::model::{HintOverride, Method};

/// Where a hint's value came from, weakest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HintSource {
    /// The HTTP method table.
    Method,
    /// A vendor extension in the document (`x-mcp-annotations`, `x-speakeasy-mcp`).
    Extension(&'static str),
    /// A hints file entry a human has not yet marked `reviewed: true`.
    File,
    /// A hints file entry marked `reviewed: true`.
    Reviewed,
}

impl HintSource {
    pub fn label(&self) -> &'static str {
        match self {
            HintSource::Method => "method",
            HintSource::Extension(_) => "extension",
            HintSource::File => "hints file",
            HintSource::Reviewed => "reviewed",
        }
    }
}

/// One suggested hint value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hint {
    pub value: bool,
    pub source: HintSource,
    pub reason: String,
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
}

fn method_hint(value: bool, reason: &str) -> Hint {
    Hint {
        value,
        source: HintSource::Method,
        reason: reason.to_string(),
    }
}

/// The method table: what an HTTP method implies, with the reason.
pub fn from_method(method: Method) -> Hints {
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

/// Suggested hints: the method table, then each vendor extension in order (later wins).
pub fn suggest(method: Method, overrides: &[HintOverride]) -> Hints {
    let mut hints = from_method(method);
    for o in overrides {
        let set = |slot: &mut Hint, value: Option<bool>| {
            if let Some(value) = value {
                *slot = Hint {
                    value,
                    source: HintSource::Extension(o.source),
                    reason: format!("set by {} in the document", o.source),
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
