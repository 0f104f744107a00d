//! Fit: whether a tool list fits a given MCP client — how many tools it takes and how long a
//! name may be once the client adds its prefix — for `lint --client`. Every limit names its
//! source; the README has the table.

use super::lint::{Finding, Severity, WHOLE_LIST};
use crate::tool::Tool;

/// Rule names.
pub mod rules {
    /// More tools than the client takes.
    pub const TOO_MANY_TOOLS: &str = "too-many-tools-for-client";
    /// A name that, with the client's prefix, is longer than the client takes.
    pub const NAME_TOO_LONG: &str = "name-too-long-for-client";
}

/// An MCP client whose limits `lint --client` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Client {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    Windsurf,
    #[cfg_attr(feature = "cli", value(name = "vscode"))]
    VsCode,
    /// OpenAI's API, Agents SDK and ChatGPT.
    #[cfg_attr(feature = "cli", value(alias = "chatgpt"))]
    Openai,
    GeminiCli,
}

/// What a client takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most tools the client takes (all servers together); `None`: no documented limit.
    pub max_tools: Option<usize>,
    /// What happens past `max_tools`: an error where the request fails, else a warning.
    pub tools_severity: Severity,
    /// Longest name the client takes, its prefix included.
    pub max_name: usize,
    /// The prefix the client puts before each tool name; `{server}` is the server's name.
    pub prefix: &'static str,
    /// What happens past `max_name`: an error where the tool or the request fails, a warning
    /// where the client rewrites the name.
    pub name_severity: Severity,
    /// Where the limits come from.
    pub source: &'static str,
}

impl Client {
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Windsurf => "Windsurf",
            Client::VsCode => "VS Code",
            Client::Openai => "OpenAI",
            Client::GeminiCli => "Gemini CLI",
        }
    }

    /// The client's limits.
    pub fn limits(self) -> Limits {
        let (warning, error) = (Severity::Warning, Severity::Error);
        match self {
            Client::ClaudeDesktop => Limits {
                max_tools: None,
                tools_severity: warning,
                max_name: 64,
                prefix: "",
                name_severity: error,
                source: "Anthropic Messages API tools[].name ^[a-zA-Z0-9_-]{1,64}$; Claude Desktop \
                         rejects longer names (anthropics/claude-code#34960)",
            },
            Client::ClaudeCode => Limits {
                max_tools: None,
                tools_severity: warning,
                max_name: 64,
                prefix: "mcp__{server}__",
                name_severity: error,
                source: "Claude Code names MCP tools mcp__<server>__<tool> and the API takes 64 \
                         characters (anthropics/claude-code#2445, #22276)",
            },
            Client::Cursor => Limits {
                max_tools: Some(40),
                tools_severity: warning,
                max_name: 60,
                prefix: "{server}_",
                name_severity: error,
                source: "Cursor takes at most 40 MCP tools from all servers together and drops \
                         a tool whose server name + tool name exceeds 60 characters (easymanage's \
                         MCP guide, \"Cursor allows maximum total of 40 Tools\"; \
                         sparfenyuk/mcp-proxy#45)",
            },
            Client::Windsurf => Limits {
                max_tools: Some(100),
                tools_severity: warning,
                max_name: 64,
                prefix: "",
                name_severity: warning,
                source: "Windsurf docs, Cascade MCP: \"a limit of 100 total tools\"; names as the \
                         model APIs take them (64)",
            },
            Client::VsCode => Limits {
                max_tools: Some(128),
                tools_severity: warning,
                max_name: 64,
                prefix: "",
                name_severity: warning,
                source: "VS Code docs, MCP servers in agent mode: at most 128 tools per request \
                         (microsoft/azure-devops-mcp#396); names as the model APIs take them (64)",
            },
            Client::Openai => Limits {
                max_tools: Some(128),
                tools_severity: error,
                max_name: 64,
                prefix: "",
                name_severity: error,
                source: "OpenAI API: tools array of at most 128 (array_above_max_length), \
                         function name of at most 64 characters",
            },
            Client::GeminiCli => Limits {
                max_tools: Some(512),
                tools_severity: error,
                max_name: 63,
                prefix: "mcp_{server}_",
                name_severity: warning,
                source: "Gemini API: at most 512 function declarations (google-gemini/gemini-cli\
                         #19083); Gemini CLI names MCP tools mcp_<server>_<tool> and \
                         middle-truncates past 63 characters (gemini-cli#20987, #28971)",
            },
        }
    }
}

/// The findings about `tools` in `client` under the server name `server`: each name too long
/// with the client's prefix, then the count.
pub fn check(tools: &[Tool], client: Client, server: &str) -> Vec<Finding> {
    let limits = client.limits();
    let prefix = limits.prefix.replace("{server}", server);
    let mut out = Vec::new();
    for t in tools {
        let length = prefix.chars().count() + t.name.chars().count();
        if length > limits.max_name {
            let seen = format!("{prefix}{}", t.name);
            let over = length - limits.max_name;
            let fix = if prefix.is_empty() {
                format!("--max-name-len {}", limits.max_name)
            } else {
                format!(
                    "a shorter server name, or --max-name-len {}",
                    limits.max_name.saturating_sub(prefix.chars().count())
                )
            };
            out.push(Finding {
                tool: t.name.clone(),
                operation: t.operation(),
                rule: rules::NAME_TOO_LONG,
                severity: limits.name_severity,
                message: format!(
                    "{} sees `{seen}`: {length} characters, {over} over its {}; {}: {fix}",
                    client.label(),
                    limits.max_name,
                    if limits.name_severity == Severity::Error {
                        "the client rejects it"
                    } else {
                        "the client shortens it"
                    },
                ),
                confidence: None,
            });
        }
    }
    if let Some(max) = limits.max_tools.filter(|&max| tools.len() > max) {
        out.push(Finding {
            tool: WHOLE_LIST.into(),
            operation: String::new(),
            rule: rules::TOO_MANY_TOOLS,
            severity: limits.tools_severity,
            message: format!(
                "{} tools, over the {max} {} takes from all servers together: serve them with \
                 `serve --dynamic` (4 tools), or select fewer (--include-tag, --include-path, \
                 --methods, --include-op)",
                tools.len(),
                client.label(),
            ),
            confidence: None,
        });
    }
    out
}
