//! Command line arguments: the clap definitions of every command and flag, and the library
//! options they make. The commands are in `commands`.

use clap::{Args, Parser, Subcommand};
use openapi_mcp::model::Method;
use openapi_mcp::output::emit::{Format, Shape};
use openapi_mcp::review::{self, HintsFile, lint};
use openapi_mcp::tool::target::Target;
use openapi_mcp::{Filter, NameStyle, Options, Suggest};
use std::path::PathBuf;

/// Turn an OpenAPI document (Swagger 2.0, OpenAPI 3.0, 3.1, 3.2; JSON or YAML) into MCP tool
/// definitions, with suggested hints for a human to review.
///
/// Exit codes: 0 success; 1 `convert --check` found drift or `lint` found errors; 2 unusable input
/// or usage.
#[derive(Debug, Parser)]
#[command(name = "openapi-mcp", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert SPEC into an MCP ListToolsResult ({"tools": [...]}).
    Convert(ConvertArgs),
    /// Write a starter hints file for review, or update one (`--update FILE`) keeping every human
    /// decision.
    Hints(HintsArgs),
    /// Report tools whose names contradict their hints, and other defects. Exit 1 on errors.
    Lint(LintArgs),
    /// Print a Markdown table of every tool's hints, where each came from, findings and review state.
    Review(ReviewArgs),
    /// Rank the operations of SPEC for a free-text request ("add a comment to an issue"), best
    /// first; finding nothing is an empty list, not an error.
    Search(SearchArgs),
    /// Run the tools as an MCP server (stdio, or Streamable HTTP with --http) that sends each call
    /// to the real API.
    #[cfg(feature = "serve")]
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct HintsArgs {
    /// The OpenAPI document: a path, or `-` for standard input.
    pub spec: String,
    /// Write to FILE (atomically) instead of standard output; with `--update`, defaults to the
    /// updated file itself.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Merge with this existing hints file: keep every entry as written, add new tools
    /// (unreviewed), move entries whose tool is gone under `removed:`.
    #[arg(long, value_name = "FILE")]
    pub update: Option<PathBuf>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The OpenAPI document, or an already converted tools file ({"tools": [...]}); `-` for
    /// standard input.
    pub spec: String,
    /// Apply this reviewed hints file first; findings on `reviewed: true` tools become info.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    /// Also exit 1 while a tool that is not reviewed has an unsure hint or a finding of a hint
    /// rule (name-contradicts-hints, hint-uncertain, put-creates-idempotent), or the hints
    /// file's `defaults:` is not reviewed; standard error says how many and which.
    #[arg(long)]
    pub strict: bool,
    /// Output format: `text` (one finding a line: `severity tool rule: message`) or `json`.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
    /// Also check that the tools fit this client: how many it takes, and how long a name may be
    /// with the prefix it adds (see README, "Client fit").
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub client: Option<openapi_mcp::review::fit::Client>,
    /// The server's name in the client's configuration, which some clients put before each tool
    /// name (Claude Code: `mcp__NAME__tool`).
    #[arg(long, value_name = "NAME", default_value = "api", requires = "client")]
    pub server_name: String,
    #[command(flatten)]
    pub budgets: BudgetArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Size budgets for `lint` and `review`.
#[derive(Debug, Args, Clone)]
pub struct BudgetArgs {
    /// Warn about a tool larger than BYTES as a client receives it (compact JSON); the default
    /// is about 8,000 tokens. `0`: no limit.
    #[arg(long, value_name = "BYTES", default_value_t = lint::DEFAULT_MAX_TOOL_BYTES)]
    pub max_tool_bytes: usize,
    /// Warn when all tools together are larger than BYTES; the default is about 100,000 tokens,
    /// half of a 200k-token context. `0`: no limit.
    #[arg(long, value_name = "BYTES", default_value_t = lint::DEFAULT_MAX_LIST_BYTES)]
    pub max_list_bytes: usize,
}

impl BudgetArgs {
    pub fn lint_options(&self, hints: Option<&HintsFile>) -> lint::LintOptions {
        lint::LintOptions {
            expect_review: hints.is_some(),
            defaults_reviewed: hints.is_some_and(HintsFile::defaults_reviewed),
            max_tool_bytes: (self.max_tool_bytes > 0).then_some(self.max_tool_bytes),
            max_list_bytes: (self.max_list_bytes > 0).then_some(self.max_list_bytes),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The OpenAPI document, or an already converted tools file; `-` for standard input.
    pub spec: String,
    /// Apply this reviewed hints file first.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    /// List every tool. By default the review lists the tools that need a decision, then the
    /// others if they fit, within 65,536 characters (a pull-request comment).
    #[arg(long)]
    pub all: bool,
    /// Output format: `markdown` or `json` (see README, "Reviewing a large API in a pull request").
    #[arg(long, value_enum, default_value_t = review::report::ReviewFormat::Markdown)]
    pub format: review::report::ReviewFormat,
    /// List only the tools that are new or whose hints, findings or curation changed against
    /// this earlier state: the spec (or tools file) of the pull request's base.
    #[arg(long, value_name = "SPEC")]
    pub base: Option<String>,
    /// The base's hints file, applied to `--base`.
    #[arg(long, value_name = "FILE", requires = "base")]
    pub base_hints: Option<PathBuf>,
    #[command(flatten)]
    pub budgets: BudgetArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The OpenAPI document: a path, or `-` for standard input.
    pub spec: String,
    /// What the operation should do, in words: a request, or a tool description.
    pub query: String,
    /// Show at most N operations.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub limit: usize,
    /// Output format: `text` (one hit a line: score, name, method and path, title) or `json` (an
    /// array of objects with `name`, `title`, `method`, `path`, `score`).
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
    /// Apply this hints file first: its curated names and descriptions are searched, its
    /// disabled tools are not.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The OpenAPI document: a path, or `-` for standard input. JSON or YAML, detected from content.
    pub spec: String,
    /// Write to FILE (atomically: a temporary file in the same folder, then renamed) instead of
    /// standard output. FILE may not be the document or the hints file this run reads.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format: `json` (compact, one tool a line), `json-pretty` (indented), `yaml`.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// What to write: `mcp`, an MCP tools list (`{"tools": [...]}`); or the tool list of a model
    /// API called directly, without MCP: `anthropic` (Messages API), `openai` (Chat Completions),
    /// `openai-responses` (Responses API), `gemini` (a `functionDeclarations` tool, names start
    /// with a letter or `_`). The API shapes hold name, description and input schema only.
    #[arg(long, value_enum, default_value_t = Shape::Mcp)]
    pub shape: Shape,
    /// Apply this reviewed hints file (its values win over vendor extensions and the method
    /// table). An entry naming a tool that does not exist is an error.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    /// Do not write: exit 0 if `-o FILE` already holds exactly this output, 1 (with a summary of
    /// tools added, removed and changed) if not.
    #[arg(long, requires = "output")]
    pub check: bool,
    /// Threads building tools for `--format json` (the default format; the other formats and
    /// `--check` build on every thread of the pool). Default: one per core, at most 4; a list
    /// under 128 tools is built on one. They are rayon's pool's threads (one per core), so more
    /// than the cores build no faster. The output is the same bytes with any number. At most 64.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=openapi_mcp::output::stream::MAX_THREADS as i64))]
    pub threads: Option<u16>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// `openapi-mcp serve` arguments.
#[cfg(feature = "serve")]
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The OpenAPI document (a file: standard input carries the protocol).
    pub spec: String,
    /// Apply this reviewed hints file.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    /// Send every request to this base URL instead of the document's servers (it replaces the
    /// server URL entirely, so include any path prefix such as `/v1`). Default:
    /// OPENAPI_MCP_BASE_URL, which keeps a password in the URL out of the process list.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Add this header to every request: `--header 'Name: value'` (repeatable). The process list
    /// shows it: pass credentials with --header-file or OPENAPI_MCP_HEADERS instead.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Add the headers in FILE to every request, one `Name: value` a line (blank lines and
    /// `#` comments skipped; repeatable), as credentials: masked as `***` in results and logs.
    /// OPENAPI_MCP_HEADERS is read the same way; a --header of the same name wins.
    #[arg(long = "header-file", value_name = "FILE")]
    pub header_files: Vec<PathBuf>,
    /// Seconds one request may take (connecting, sending, reading the response).
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,
    /// Log one line per request to standard error: method, URL (credentials hidden), status,
    /// duration.
    #[arg(long)]
    pub verbose: bool,
    /// Treat the `--header` of this name as a credential: its value is masked as `***` in
    /// results and logs (repeatable). `Authorization`, `Proxy-Authorization`, `Cookie` and names
    /// containing key, token, secret, auth, session or password always are.
    #[arg(long, value_name = "NAME")]
    pub secret_header: Vec<String>,
    /// Tool calls sent at the same time at most; further calls wait their turn. A call holds its
    /// place, and an answer of up to 10 MB, until its result is written.
    #[arg(long, value_name = "N", default_value_t = openapi_mcp::serve::DEFAULT_MAX_CALLS as u16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub max_calls: u16,
    /// Answer `tools/list` in pages of N tools (with `nextCursor`); default: all tools in one
    /// answer, since some clients read only the first page.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub page_size: Option<u32>,
    /// Serve the whole API through four tools (search_operations, describe_operation,
    /// call_read_operation, call_operation) instead of one tool per operation.
    #[arg(long)]
    pub dynamic: bool,
    /// Serve MCP over Streamable HTTP at http://ADDR/mcp (for example 127.0.0.1:8080) instead of
    /// stdio; `GET /healthz` answers 200. Stateless: any instance can answer any request.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: accept requests whose Origin header is URL (scheme://host[:port];
    /// repeatable). Requests with any other Origin get 403.
    #[arg(long, value_name = "URL", requires = "http")]
    pub allow_origin: Vec<String>,
    /// With --http: accept requests whose Host header is NAME (or NAME:PORT; repeatable), as a
    /// proxy or load balancer forwards it. Loopback names are accepted when bound to loopback.
    #[arg(long, value_name = "NAME", requires = "http")]
    pub allow_host: Vec<String>,
    /// With --http: listen on a non-loopback address without OPENAPI_MCP_HTTP_TOKEN (only when
    /// something in front authenticates the clients).
    #[arg(long, requires = "http")]
    pub allow_unauthenticated: bool,
    /// With --http: largest request body in bytes (413 beyond).
    #[arg(long, value_name = "BYTES", requires = "http", default_value_t = openapi_mcp::serve::streamable::DEFAULT_MAX_BODY as u32, value_parser = clap::value_parser!(u32).range(1024..))]
    pub max_body: u32,
    /// With --http: requests handled at once; further requests wait their turn.
    #[arg(long, value_name = "N", requires = "http", default_value_t = openapi_mcp::serve::streamable::DEFAULT_MAX_REQUESTS as u16, value_parser = clap::value_parser!(u16).range(1..=4096))]
    pub max_requests: u16,
    /// Largest tool result in bytes of serialized JSON (a hints entry's maxResultBytes wins for
    /// its tool); a longer JSON list is cut to its first items, then long strings are shortened,
    /// and the result says which arguments get the rest (the default fits Claude Code's limits).
    #[arg(long, value_name = "BYTES", default_value_t = openapi_mcp::serve::budget::DEFAULT_MAX_RESULT_BYTES as u32, value_parser = clap::value_parser!(u32).range(1024..))]
    pub max_result_bytes: u32,
    /// Which copies of a JSON answer a result carries: `both` (structuredContent and the same
    /// JSON as text, as MCP asks), `text` (needs --no-output-schema) or `structured`; both copies
    /// count against --max-result-bytes.
    #[arg(long, value_name = "COPIES", value_enum, default_value_t = openapi_mcp::serve::budget::Copies::Both)]
    pub result_copies: openapi_mcp::serve::budget::Copies,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[cfg(feature = "serve")]
impl ServeArgs {
    pub fn options(&self) -> openapi_mcp::serve::ServeOptions {
        openapi_mcp::serve::ServeOptions {
            spec: PathBuf::from(&self.spec),
            hints: self.hints.clone(),
            base_url: self.base_url.clone(),
            headers: self.headers.clone(),
            header_files: self.header_files.clone(),
            timeout: self.timeout,
            verbose: self.verbose,
            secret_headers: self.secret_header.clone(),
            max_calls: usize::from(self.max_calls),
            page_size: self.page_size.map(|n| n as usize),
            ref_root: self.read.ref_root.clone(),
            conversion: self.select.options(),
            dynamic: self.dynamic,
            http: self.http.clone(),
            allow_origins: self.allow_origin.clone(),
            allow_hosts: self.allow_host.clone(),
            allow_unauthenticated: self.allow_unauthenticated,
            max_body: self.max_body as usize,
            max_requests: usize::from(self.max_requests),
            max_result_bytes: self.max_result_bytes as usize,
            result_copies: self.result_copies,
        }
    }
}

/// How every command reads the document.
#[derive(Debug, Args, Clone)]
pub struct ReadArgs {
    /// Let file `$ref`s reach any file under DIR (default: only the document's own folder and
    /// below). Absolute references and anything but regular files are always refused.
    #[arg(long, value_name = "DIR")]
    pub ref_root: Option<PathBuf>,
}

/// Options shared by every command that builds tools.
#[derive(Debug, Args, Clone)]
pub struct SelectArgs {
    /// Keep only operations with this tag (repeatable, or comma-separated).
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    pub include_tag: Vec<String>,
    /// Drop operations with this tag (repeatable, or comma-separated).
    #[arg(long, value_name = "TAG", value_delimiter = ',')]
    pub exclude_tag: Vec<String>,
    /// Keep only operations whose path template matches GLOB (repeatable). `*` matches within one
    /// segment, `**` across segments: `/pets/**`, `/users/{id}/*`.
    #[arg(long, value_name = "GLOB")]
    pub include_path: Vec<String>,
    /// Keep only these HTTP methods, comma-separated: `--methods get,post`.
    #[arg(long, value_name = "METHODS", value_delimiter = ',', value_parser = parse_method)]
    pub methods: Vec<Method>,
    /// Keep only the operation with this operationId (repeatable, or comma-separated).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub include_op: Vec<String>,
    /// Drop the operation with this operationId (repeatable, or comma-separated).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub exclude_op: Vec<String>,
    /// Drop operations marked `deprecated: true`.
    #[arg(long)]
    pub skip_deprecated: bool,
    /// How tool names are spelled (from operationId, else method + path).
    #[arg(long, value_enum, default_value_t = NameStyle::Snake)]
    pub name_style: NameStyle,
    /// The client the tools are for; presets the name length, the first character of names and
    /// whether `$ref`s are inlined (see README, "Client targets"): mcp and claude and openai 64
    /// characters; cursor 60 and inlined; gemini 63, a letter or `_` first, inlined.
    #[arg(long, value_enum, default_value_t = Target::Mcp)]
    pub target: Target,
    /// Longest tool name; longer ones are cut and get a 6-character stable hash. Default: the
    /// target's (64 for mcp). Lower it by your server name's length + 1 for Cursor, which counts
    /// both.
    #[arg(long, value_name = "N")]
    pub max_name_len: Option<usize>,
    /// Inline every non-recursive `$ref` instead of emitting `$defs` (for clients that cannot
    /// follow `$ref`; on for the cursor and gemini targets). Recursive schemas keep `$defs`.
    #[arg(long)]
    pub inline_refs: bool,
    /// Most bytes (compact JSON) of one tool's input or output schema, counting referenced
    /// definitions nearest first; definitions past it become described stubs that accept any
    /// value of their type, and an inline part over it sheds its examples, then nested levels.
    /// `0`: no limit (every schema complete).
    #[arg(long, value_name = "BYTES", default_value_t = openapi_mcp::DEFAULT_SCHEMA_BUDGET)]
    pub schema_budget: usize,
    /// Expand `$ref`s at most N levels deep; deeper definitions become described stubs.
    #[arg(long, value_name = "N")]
    pub max_ref_depth: Option<usize>,
    /// Leave out `outputSchema` (responses are still returned; clients just cannot validate them).
    #[arg(long)]
    pub no_output_schema: bool,
    /// How hints are suggested: `evidence` weighs the operation's name, summary, path and body
    /// and the API's style over the HTTP method table (see README, "Suggested hints");
    /// `method` uses the method table alone.
    #[arg(long, value_enum, default_value_t = Suggest::Evidence)]
    pub suggest: Suggest,
}

fn parse_method(s: &str) -> std::result::Result<Method, String> {
    Method::parse(s).ok_or_else(|| {
        format!("unknown HTTP method {s:?} (expected get, put, post, delete, options, head, patch, trace, query)")
    })
}

impl SelectArgs {
    pub fn options(&self) -> Options {
        let preset = Options::for_target(self.target);
        Options {
            filter: Filter {
                include_tags: self.include_tag.clone(),
                exclude_tags: self.exclude_tag.clone(),
                include_paths: self.include_path.clone(),
                methods: self.methods.clone(),
                include_ops: self.include_op.clone(),
                exclude_ops: self.exclude_op.clone(),
                skip_deprecated: self.skip_deprecated,
            },
            name_style: self.name_style,
            max_name_len: self.max_name_len.unwrap_or(preset.max_name_len),
            letter_first: preset.letter_first,
            inline_refs: self.inline_refs || preset.inline_refs,
            schema_budget: (self.schema_budget > 0).then_some(self.schema_budget),
            max_ref_depth: self.max_ref_depth,
            output_schema: !self.no_output_schema,
            suggest: self.suggest,
        }
    }
}
