//! Target: what each client accepts, as presets over the conversion options (longest tool name,
//! first character of names, `$ref` support). The output shapes for direct API use are in
//! [`crate::output::emit::Shape`]. Every rule names its source; the README has the table.
//!
//! Rules that hold for every target by construction, so no preset needs them: tool names use only
//! `[A-Za-z0-9_-]` (the strictest set, Claude's and OpenAI's), argument names only
//! `[A-Za-z0-9_.-]`, and an `inputSchema` root is always a plain `{"type": "object"}` with
//! `properties` (never a union, `enum`, `const` or `not`, which Anthropic and OpenAI reject at the
//! top level): a request body that is a union goes under one `body` argument.

/// The client the tools are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Target {
    /// Any MCP client: the MCP schema, names of at most 64 characters (the limit most clients
    /// share; the 2025-11-25 spec allows 128), `$defs` kept.
    #[default]
    Mcp,
    /// Claude (API, Claude Desktop, Claude Code): names of at most 64 characters.
    Claude,
    /// OpenAI (Chat Completions, Responses, Agents SDK): names of at most 64 characters.
    Openai,
    /// Cursor: names of at most 60 characters, `$ref`s inlined. Cursor counts the server's name
    /// too, so lower `--max-name-len` by its length + 1.
    Cursor,
    /// Google Gemini (API, Gemini CLI): names of at most 63 characters starting with a letter or
    /// `_`, `$ref`s inlined.
    Gemini,
}

/// What a target needs from the conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Longest tool name the client accepts.
    pub max_name_len: usize,
    /// Names must start with a letter or `_` (a name starting with a digit gets a `_` prefix).
    pub letter_first: bool,
    /// The client does not follow `$ref` reliably: inline every non-recursive one.
    pub inline_refs: bool,
    /// Where the rules come from.
    pub source: &'static str,
}

impl Target {
    /// The preset for this target.
    pub fn rules(self) -> Rules {
        match self {
            Target::Mcp => Rules {
                max_name_len: 64,
                letter_first: false,
                inline_refs: false,
                source: "MCP 2025-11-25 server/tools \"Tool names\" (1-128 of [A-Za-z0-9_.-]); \
                         64 is the limit of Claude and OpenAI, the most common clients",
            },
            Target::Claude => Rules {
                max_name_len: 64,
                letter_first: false,
                inline_refs: false,
                source: "Anthropic Messages API tools: name ^[a-zA-Z0-9_-]{1,64}$ (Claude Desktop \
                         enforces 64 on the name, Claude Code on mcp__<server>__<name>), input_schema without a top-level \
                         oneOf/anyOf/allOf; $ref/$defs are supported",
            },
            Target::Openai => Rules {
                max_name_len: 64,
                letter_first: false,
                inline_refs: false,
                source: "OpenAI function tools: name [a-zA-Z0-9_-], at most 64; parameters an \
                         object schema without a top-level union; $ref/$defs are supported",
            },
            Target::Cursor => Rules {
                max_name_len: 60,
                letter_first: false,
                inline_refs: true,
                source: "Cursor drops tools whose server name + tool name exceed 60 characters \
                         and has failed on $defs (reports in composio#2788, stitch-mcp#184)",
            },
            Target::Gemini => Rules {
                max_name_len: 63,
                letter_first: true,
                inline_refs: true,
                source: "Gemini FunctionDeclaration.name: starts with a letter or _, \
                         [a-zA-Z0-9_.:-], at most 64 (Gemini CLI rewrites names over 63); \
                         $ref is unsupported in `parameters` and unreliable in Gemini CLI",
            },
        }
    }
}

/// `name` with a `_` in front when `letter_first` is asked for and it starts with a digit.
pub fn letter_first(name: String) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_get_an_underscore() {
        assert_eq!(letter_first("2fa_enable".into()), "_2fa_enable");
        assert_eq!(letter_first("list_pets".into()), "list_pets");
        assert_eq!(letter_first("_x".into()), "_x");
    }

    #[test]
    fn presets() {
        assert_eq!(Target::Cursor.rules().max_name_len, 60);
        assert_eq!(Target::Gemini.rules().max_name_len, 63);
        assert!(Target::Gemini.rules().inline_refs && Target::Gemini.rules().letter_first);
        assert!(!Target::Claude.rules().inline_refs);
    }
}
