//! Serve: runs the converted tools as a live MCP server, over stdio or Streamable HTTP, that calls
//! the real API.
//!
//! `tools/list` answers exactly what `convert` emits for the same options; `tools/call` validates
//! the arguments against the tool's `inputSchema`, builds the HTTP request from the call mapping
//! (`_meta["openapi-mcp/http"]`), sends it, and returns the response as a tool result. The
//! stages live in one module each: [`validate`], [`request`], [`auth`] (with [`oauth`] tokens),
//! [`http`] (with [`stream`] for event streams), [`response`] (with [`budget`]); [`server`] ties
//! them to rmcp's `ServerHandler`, [`transport`] carries the JSON-RPC lines over stdio and
//! [`streamable`] serves the same handler over HTTP.

pub(crate) mod auth;
pub mod budget;
pub(crate) mod count;
pub(crate) mod dynamic;
pub(crate) mod fields;
pub(crate) mod http;
pub(crate) mod oauth;
pub(crate) mod redact;
pub(crate) mod request;
pub(crate) mod response;
pub(crate) mod server;
pub(crate) mod stream;
pub mod streamable;
pub(crate) mod transport;
pub(crate) mod validate;

use crate::error::{Error, Result};
use rmcp::ServiceExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Tool calls in flight at most, by default: each may hold a response of up to
/// [`http::MAX_BODY`] bytes (and its copies while it becomes a result).
pub const DEFAULT_MAX_CALLS: usize = 8;

/// What `serve` needs: the document, how to select and name its tools, and where and how to
/// send the calls.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// The OpenAPI document (a file: standard input carries the protocol).
    pub spec: PathBuf,
    /// A reviewed hints file to apply.
    pub hints: Option<PathBuf>,
    /// Send every request here instead of the document's servers (default: [`BASE_URL`]).
    pub base_url: Option<String>,
    /// Headers added to every request, each `Name: value`.
    pub headers: Vec<String>,
    /// Files of more headers, one `Name: value` a line, all credentials (as [`HEADERS`]).
    pub header_files: Vec<PathBuf>,
    /// Seconds one request may take.
    pub timeout: u64,
    /// One line per request on standard error.
    pub verbose: bool,
    /// More `--header` names whose values are credentials (masked like them).
    pub secret_headers: Vec<String>,
    /// Tool calls in flight at most (0: [`DEFAULT_MAX_CALLS`]); later calls wait their turn.
    pub max_calls: usize,
    /// Tools per `tools/list` page; `None`: all in one answer.
    pub page_size: Option<usize>,
    /// The folder file `$ref`s may reach (default: the spec's own folder).
    pub ref_root: Option<PathBuf>,
    /// How the tools are selected and named, as for `convert`.
    pub conversion: crate::Options,
    /// Serve the four tools of [`dynamic`] instead of one tool per operation.
    pub dynamic: bool,
    /// Serve Streamable HTTP on this address (`host:port`) instead of stdio.
    pub http: Option<String>,
    /// Origins a request's `Origin` header may name (`scheme://host[:port]`).
    pub allow_origins: Vec<String>,
    /// More host names a request's `Host` header may name.
    pub allow_hosts: Vec<String>,
    /// Listen on a non-loopback address without `OPENAPI_MCP_HTTP_TOKEN`.
    pub allow_unauthenticated: bool,
    /// Largest HTTP request body in bytes (0: [`streamable::DEFAULT_MAX_BODY`]).
    pub max_body: usize,
    /// HTTP requests handled at once (0: [`streamable::DEFAULT_MAX_REQUESTS`]); more wait.
    pub max_requests: usize,
    /// Largest tool result in bytes of serialized JSON (0: [`budget::DEFAULT_MAX_RESULT_BYTES`]).
    pub max_result_bytes: usize,
    /// Which copies of a JSON answer a result carries; `Text` needs the tools without
    /// `outputSchema` (`conversion.output_schema` false).
    pub result_copies: budget::Copies,
}

/// The variable holding the bearer token HTTP clients must send.
pub const HTTP_TOKEN: &str = "OPENAPI_MCP_HTTP_TOKEN";

/// The variable holding the base URL when `--base-url` is not given: a password in it stays
/// out of the process list.
pub const BASE_URL: &str = "OPENAPI_MCP_BASE_URL";

/// The variable holding headers added to every request, one `Name: value` a line, all
/// credentials: the way to pass a secret header without the process list showing it.
pub const HEADERS: &str = "OPENAPI_MCP_HEADERS";

/// Seconds to wait, beyond `--timeout`, for calls in flight after SIGTERM.
const DRAIN_EXTRA: u64 = 5;

/// Run the server until standard input closes (stdio) or SIGTERM (HTTP); returns the exit code.
pub fn run(args: &ServeOptions) -> Result<i32> {
    let env = |name: &str| std::env::var(name).ok();
    let listen = match &args.http {
        Some(addr) => Some(listen_settings(args, addr, &env)?),
        None => None,
    };
    let state = Arc::new(prepare(args, &env)?);
    match listen {
        None => run_stdio(state),
        Some(listen) => run_http(state, listen),
    }
}

/// What is served, for the startup line: the tools, or the operations behind `--dynamic`.
fn serving(state: &server::State) -> String {
    match &state.dynamic {
        Some(d) => format!(
            "{} operation(s) of {:?} through {} tools",
            state.entries.len(),
            state.name,
            d.tools.len()
        ),
        None => format!("{} tool(s) of {:?}", state.entries.len(), state.name),
    }
}

fn run_stdio(state: Arc<server::State>) -> Result<i32> {
    eprintln!("openapi-mcp: serving {} over stdio", serving(&state));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the async runtime: {e}")))?;
    let listing = Arc::clone(&state.listing);
    let unwritten = state.unwritten.clone();
    let server = server::Server::new(state);
    let code = runtime.block_on(async move {
        let (transport, writer) =
            transport::Transport::new(transport::stdin(), tokio::io::stdout(), listing, unwritten);
        let code = match server.serve(transport).await {
            Ok(running) => match running.waiting().await {
                Ok(_) => 0,
                Err(e) => {
                    eprintln!("openapi-mcp: error: the server stopped: {e}");
                    1
                }
            },
            Err(e) => {
                eprintln!("openapi-mcp: error: the MCP session did not start: {e}");
                1
            }
        };
        // The transport is gone; let the writer finish what is queued.
        let _ = writer.await;
        code
    });
    // Tokio's stdin reader may still be blocked in a read; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(code)
}

fn run_http(state: Arc<server::State>, listen: streamable::Listen) -> Result<i32> {
    let listener = streamable::bind(listen.addr)
        .map_err(|e| Error::Usage(format!("--http {}: cannot listen: {e}", listen.addr)))?;
    let bound = listener.local_addr().unwrap_or(listen.addr);
    eprintln!(
        "openapi-mcp: serving {} over Streamable HTTP at http://{bound}/mcp (health check: GET /healthz)",
        serving(&state)
    );
    for line in protections(&listen) {
        eprintln!("openapi-mcp: {line}");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the async runtime: {e}")))?;
    let listing = Arc::clone(&state.listing);
    let server = server::Server::new(state);
    let served = runtime.block_on(streamable::serve(listener, listen, server, listing));
    runtime.shutdown_timeout(Duration::from_millis(100));
    match served {
        Ok(()) => {
            eprintln!("openapi-mcp: stopped");
            Ok(0)
        }
        Err(e) => {
            eprintln!("openapi-mcp: error: the HTTP server stopped: {e}");
            Ok(1)
        }
    }
}

/// The startup lines saying which protections are on.
fn protections(listen: &streamable::Listen) -> Vec<String> {
    let mut out = vec![format!(
        "protection: Host header must be one of {}",
        if listen.hosts.is_empty() {
            "(none: every request is refused; add --allow-host NAME)".to_string()
        } else {
            listen.hosts.join(", ")
        }
    )];
    out.push(if listen.origins.is_empty() {
        "protection: requests with an Origin header are refused (add --allow-origin URL)".into()
    } else {
        format!(
            "protection: Origin header, when present, must be one of {}",
            listen.origins.join(", ")
        )
    });
    out.push(match &listen.token {
        Some(_) => format!("protection: bearer token required on /mcp (from {HTTP_TOKEN})"),
        None => format!(
            "protection: no bearer token required ({HTTP_TOKEN} is not set){}",
            if listen.addr.ip().is_loopback() {
                ""
            } else {
                "; --allow-unauthenticated: anyone who reaches this address can call the API"
            }
        ),
    });
    out.push(format!(
        "protection: request bodies up to {} bytes, {} requests handled at once (more wait), \
         {} connections",
        listen.max_body,
        listen.max_requests,
        streamable::MAX_CONNECTIONS
    ));
    out
}

/// Check the HTTP listener's settings: the address, the allowed hosts and origins, the token.
/// A non-loopback address without a token is refused unless `--allow-unauthenticated`.
pub(crate) fn listen_settings(
    args: &ServeOptions,
    addr: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<streamable::Listen> {
    use std::net::ToSocketAddrs;
    let bad = |why: String| Error::Usage(format!("--http {addr:?}: {why}"));
    let candidates: Vec<std::net::SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| bad(format!("expected HOST:PORT, such as 127.0.0.1:8080 ({e})")))?
        .collect();
    let addr = candidates
        .iter()
        .find(|a| a.is_ipv4())
        .or(candidates.first())
        .copied()
        .ok_or_else(|| bad("the name has no address".into()))?;
    let token = env(HTTP_TOKEN).filter(|t| !t.trim().is_empty());
    if let Some(t) = &token
        && (t.trim() != t || t.chars().any(|c| c.is_control() || !c.is_ascii()))
    {
        return Err(Error::Usage(format!(
            "{HTTP_TOKEN} must be printable ASCII without surrounding spaces"
        )));
    }
    let loopback = addr.ip().is_loopback();
    if !loopback && token.is_none() && !args.allow_unauthenticated {
        return Err(Error::Usage(format!(
            "--http {addr}: not a loopback address, and {HTTP_TOKEN} is not set: anyone who can \
             reach it could call the API with your credentials. Set {HTTP_TOKEN} (clients then \
             send Authorization: Bearer <token>), or pass --allow-unauthenticated if something \
             in front of it authenticates"
        )));
    }
    let mut hosts: Vec<String> = Vec::new();
    if loopback {
        hosts.extend(streamable::LOOPBACK_HOSTS.iter().map(|h| h.to_string()));
        let ip = addr.ip().to_string();
        if !hosts.contains(&ip) {
            hosts.push(ip);
        }
    }
    for h in &args.allow_hosts {
        let Some((name, port)) = streamable::split_host(h) else {
            return Err(Error::Usage(format!(
                "--allow-host {h:?}: expected a host name or NAME:PORT"
            )));
        };
        let entry = match port {
            Some(p) if name.contains(':') => format!("[{name}]:{p}"),
            Some(p) => format!("{name}:{p}"),
            None => name,
        };
        if !hosts.contains(&entry) {
            hosts.push(entry);
        }
    }
    let origins = args
        .allow_origins
        .iter()
        .map(|o| {
            if o.trim().eq_ignore_ascii_case("null") {
                return Err(Error::Usage(
                    "--allow-origin null: sandboxed frames and local files all send the origin \"null\", so any page could use it; name the page's real origin".into(),
                ));
            }
            streamable::normalize_origin(o).ok_or_else(|| {
                Error::Usage(format!(
                    "--allow-origin {o:?}: expected scheme://host[:port], such as https://app.example.com"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    if let Some(t) = &token
        && t.chars().count() < 16
    {
        eprintln!(
            "openapi-mcp: warning: {HTTP_TOKEN} is shorter than 16 characters; use a long random value"
        );
    }
    Ok(streamable::Listen {
        addr,
        origins,
        hosts,
        token,
        verbose: args.verbose,
        max_body: if args.max_body == 0 {
            streamable::DEFAULT_MAX_BODY
        } else {
            args.max_body
        },
        max_requests: if args.max_requests == 0 {
            streamable::DEFAULT_MAX_REQUESTS
        } else {
            args.max_requests
        },
        drain: Duration::from_secs(args.timeout.max(1) + DRAIN_EXTRA),
    })
}

/// Load the spec, convert it, and resolve base URLs, headers and credentials. `env` reads
/// environment variables.
pub(crate) fn prepare(
    args: &ServeOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<server::State> {
    if args.spec.as_os_str() == "-" {
        return Err(Error::Usage(
            "SPEC must be a file, not `-` (over stdio, standard input carries the protocol)".into(),
        ));
    }
    if args.timeout == 0 {
        return Err(Error::Usage("--timeout must be at least 1 second".into()));
    }
    if args.result_copies == budget::Copies::Text && args.conversion.output_schema && !args.dynamic
    {
        // MCP: a tool with an outputSchema MUST return structured results; clients check it.
        return Err(Error::Usage(
            "--result-copies text sends no structuredContent, which a tool with an outputSchema \
             must return: add --no-output-schema"
                .into(),
        ));
    }
    let headers = given_headers(args, env)?;
    let base_url = match &args.base_url {
        Some(url) => Some(absolute_url(url, "--base-url")?),
        None => match env(BASE_URL).filter(|u| !u.trim().is_empty()) {
            Some(url) => {
                eprintln!("openapi-mcp: base URL from {BASE_URL}");
                Some(absolute_url(&url, BASE_URL)?)
            }
            None => None,
        },
    };

    let doc = crate::read::load_file_in(&args.spec, args.ref_root.as_deref())?;
    let hints = args
        .hints
        .as_ref()
        .map(crate::review::HintsFile::load)
        .transpose()?;
    let conversion = crate::convert_with(&doc, &args.conversion, hints.as_ref())?;
    for n in &conversion.notices {
        eprintln!("openapi-mcp: note: {n}");
    }
    // Each tool's base URL; what the model sees of the servers (`_meta`, `describe_operation`)
    // is written with their passwords hidden (`emit::hide_password`).
    let tool_bases = conversion
        .tools
        .iter()
        .map(|t| match &base_url {
            Some(b) => Ok(b.clone()),
            None => server_url(t),
        })
        .collect::<Result<Vec<_>>>()?;

    let dynamic = args
        .dynamic
        .then(|| dynamic::Dynamic::new(&conversion.title, &conversion.tools))
        .transpose()?;
    let security = auth::Security::new(&conversion.security_schemes);
    let credentials = auth::Auth::from_env(&security, env);
    if let Some(problem) = credentials.problems.first() {
        return Err(Error::Usage(problem.clone()));
    }
    let creds: Vec<auth::Resolved> = conversion
        .tools
        .iter()
        .map(|t| credentials.for_requirement(&t.call.security))
        .collect();
    // The document is not needed any more: free it before the list is rendered.
    drop(doc);
    let listing = match &dynamic {
        Some(d) => server::Listing::of_values(&d.tools),
        None => server::Listing::new(&conversion.tools, args.page_size),
    };
    let mut secrets = credentials.secrets();
    if args.http.is_some() {
        secrets.extend(env(HTTP_TOKEN).filter(|t| !t.trim().is_empty()));
    }
    let mut short: Vec<String> = credentials.short.clone();
    let mut bases: Vec<String> = Vec::new();
    // The origins (scheme://host[:port]) credentials are sent to; a secret `--header` goes to all.
    let secret_header = headers.iter().any(|h| h.secret);
    let mut credited: Vec<String> = Vec::new();
    let mut entries = Vec::with_capacity(conversion.tools.len());
    for ((tool, creds), base) in conversion.tools.into_iter().zip(creds).zip(tool_bases) {
        if !bases.contains(&base) {
            bases.push(base.clone());
        }
        let sends = secret_header
            || !creds.fixed.is_empty()
            || !creds.oauth.is_empty()
            || !auth::userinfo_secrets(&base).is_empty();
        let origin = origin_of(&base);
        if sends && !credited.contains(&origin) {
            credited.push(origin);
        }
        entries.push(server::Served::new(tool, base, creds));
    }
    if !credited.is_empty() {
        eprintln!(
            "openapi-mcp: credentials are sent to {}",
            credited.join(", ")
        );
    }
    for origin in credited.iter().filter(|o| plain_http_off_loopback(o)) {
        eprintln!(
            "openapi-mcp: warning: credentials go to {origin} over plain http: anyone on the \
             network path can read them; use https"
        );
    }
    for base in &bases {
        let info = auth::userinfo_secrets(base);
        if info
            .last()
            .is_some_and(|pw| pw.chars().count() < redact::SHORT_SECRET)
        {
            short.push("the password in the base URL".into());
        }
        secrets.extend(info);
    }
    for Given {
        name,
        value,
        from,
        secret,
    } in &headers
    {
        if *secret {
            let material = auth::header_secrets(name, value);
            // The token after a scheme word (or each cookie value), else the whole value.
            let inner = if material.len() > 1 {
                &material[1..]
            } else {
                &material[..]
            };
            if inner
                .iter()
                .any(|m| m.chars().count() < redact::SHORT_SECRET)
            {
                short.push(format!("{from} {name}"));
            }
            secrets.extend(material);
        }
    }
    for note in &credentials.notes {
        eprintln!("openapi-mcp: {note}");
    }
    for what in &short {
        eprintln!(
            "openapi-mcp: warning: the credential from {what} is shorter than {} characters; \
             it is masked in results only where it stands alone, and may be mistaken for \
             ordinary text",
            redact::SHORT_SECRET
        );
    }
    let name = match crate::schema::shown_text(&conversion.title) {
        t if t.trim().is_empty() => "openapi-mcp".to_string(),
        t => t,
    };
    let version = if conversion.version.trim().is_empty() {
        env!("CARGO_PKG_VERSION").to_string()
    } else {
        conversion.version.clone()
    };
    let max_calls = if args.max_calls == 0 {
        DEFAULT_MAX_CALLS
    } else {
        args.max_calls
    };
    let max_result_bytes = if args.max_result_bytes == 0 {
        budget::DEFAULT_MAX_RESULT_BYTES
    } else {
        args.max_result_bytes
    };
    Ok(server::State {
        name,
        version,
        entries,
        listing: Arc::new(listing),
        client: http::Client::new(Duration::from_secs(args.timeout), args.verbose)
            .stream_bytes(max_result_bytes),
        headers: headers.into_iter().map(|h| (h.name, h.value)).collect(),
        secrets: redact::SharedSecrets::new(secrets),
        tokens: oauth::Tokens::new(credentials.clients),
        permits: Arc::new(tokio::sync::Semaphore::new(max_calls)),
        dynamic,
        // Over HTTP, a request's `--max-requests` place is held until its answer is written.
        unwritten: args.http.is_none().then(Arc::default),
        waiting: Default::default(),
        max_result_bytes,
        result_copies: args.result_copies,
        verbose: args.verbose,
        shaping: Default::default(),
    })
}

/// A header added to every request, and where it was given.
struct Given {
    name: String,
    value: String,
    /// `--header`, [`HEADERS`] or `--header-file FILE`, for messages.
    from: String,
    /// A credential: masked like one.
    secret: bool,
}

/// The headers of [`HEADERS`], each `--header-file` and each `--header`, in that order: a later
/// one replaces an earlier one of the same name when the request is built, so the command line
/// wins. Those of the variable and the files are all credentials; a `--header` is one by its
/// name (or `--secret-header`).
fn given_headers(args: &ServeOptions, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Given>> {
    let mut out = Vec::new();
    let mut lines = |text: &str, from: &str| -> Result<()> {
        let mut names = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_start_matches('\u{feff}').trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (name, value) = parse_header(line, &format!("{from} line {}", i + 1))?;
            names.push(name.clone());
            out.push(Given {
                name,
                value,
                from: from.to_string(),
                secret: true,
            });
        }
        if !names.is_empty() {
            eprintln!("openapi-mcp: headers {} from {from}", names.join(", "));
        }
        Ok(())
    };
    if let Some(text) = env(HEADERS) {
        lines(&text, HEADERS)?;
    }
    for file in &args.header_files {
        let from = format!("--header-file {}", file.display());
        let text = std::fs::read_to_string(file)
            .map_err(|e| Error::Usage(format!("{from}: cannot read it: {e}")))?;
        lines(&text, &from)?;
    }
    for h in &args.headers {
        let (name, value) = parse_header(h, "--header")?;
        let secret = auth::is_secret_header(&name, &args.secret_headers);
        out.push(Given {
            name,
            value,
            from: "--header".into(),
            secret,
        });
    }
    Ok(out)
}

/// `Name: value` -> (name, value). The name must be an HTTP token and the value free of line
/// breaks; the value is never echoed (it may be a credential). `from` says where it was given.
fn parse_header(h: &str, from: &str) -> Result<(String, String)> {
    let bad = |why: &str| Error::Usage(format!("{from}: {why} (expected 'Name: value')"));
    let (name, value) = h.split_once(':').ok_or_else(|| bad("no `:`"))?;
    let name = name.trim();
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    if name.is_empty() || !name.chars().all(token) {
        return Err(bad(&format!("{name:?} is not a header name")));
    }
    let value = value.trim();
    if value.chars().any(|c| c.is_control() && c != '\t') || !value.is_ascii() {
        return Err(bad(&format!(
            "the value of {name} must be ASCII text without control characters"
        )));
    }
    Ok((name.to_string(), value.to_string()))
}

/// Check that `url` is an absolute http(s) URL with a host; return it without a trailing slash.
/// `from` names where it was given in messages: `--base-url` with the URL (its password
/// hidden), a variable without it.
fn absolute_url(url: &str, from: &str) -> Result<String> {
    let url = url.trim();
    let shown = if from.starts_with("--") {
        format!("{from} {:?}", crate::output::emit::hide_password(url))
    } else {
        from.to_string()
    };
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| {
            Error::Usage(format!(
                "{shown}: expected an absolute http:// or https:// URL"
            ))
        })?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() || rest.contains(['?', '#']) || url.contains(char::is_whitespace) {
        return Err(Error::Usage(format!(
            "{shown}: expected scheme://host[:port][/path], without query or fragment"
        )));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// The tool's first server, which must be absolute when `--base-url` is not given.
/// `scheme://host[:port]` of an absolute URL, without user information.
fn origin_of(url: &str) -> String {
    let url = request::strip_userinfo(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return url;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{authority}")
}

/// Whether `url` is plain `http://` to a host other than a loopback one.
pub(crate) fn plain_http_off_loopback(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = streamable::split_host(authority).map(|(h, _)| h);
    !host.is_some_and(|h| is_loopback(&h))
}

/// `localhost` or a loopback address (`127.0.0.0/8`, `::1`), not a name that merely starts
/// like one (`127.0.0.1.nip.io`).
fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `url` as compared for the same server: scheme and host in lower case, no trailing `/`.
fn same_server_key(url: &str) -> String {
    let url = url.trim_end_matches('/');
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
            format!(
                "{}://{}{path}",
                scheme.to_ascii_lowercase(),
                authority.to_ascii_lowercase()
            )
        }
        None => url.to_string(),
    }
}

/// The server a tool is called on: its first, or the `https` form of the first where the list
/// also has it (documents often list `http` first for the same host).
fn server_url(tool: &crate::Tool) -> Result<String> {
    let servers = &tool.call.servers;
    // The same server: compared with scheme and host in any case and without a trailing `/`.
    let first = servers.first().map(|s| {
        let key = same_server_key(s);
        key.strip_prefix("http://")
            .map(|rest| format!("https://{rest}"))
            .and_then(|https| servers.iter().find(|o| same_server_key(o) == https))
            .cloned()
            .unwrap_or_else(|| s.clone())
    });
    let Some(real) = first.as_ref() else {
        return Err(Error::Usage(format!(
            "tool {}: the document declares no server; pass --base-url URL (the API's absolute URL)",
            tool.name
        )));
    };
    let server = &crate::output::emit::hide_password(real);
    if server.contains('{') {
        return Err(Error::Usage(format!(
            "tool {}: server URL {server:?} has a variable without a default; pass --base-url URL",
            tool.name
        )));
    }
    if !(server.starts_with("http://") || server.starts_with("https://")) {
        return Err(Error::Usage(format!(
            "tool {}: server URL {server:?} is relative; pass --base-url with the API's absolute URL (for example https://api.example.com{})",
            tool.name,
            if server.starts_with('/') {
                server.as_str()
            } else {
                ""
            }
        )));
    }
    absolute_url(real, "the server URL").map_err(|_| {
        Error::Usage(format!(
            "tool {}: server URL {server:?} is not usable; pass --base-url URL",
            tool.name
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_is_preferred_and_plain_http_is_named() {
        let spec = r#"{"openapi":"3.0.3","info":{"title":"t","version":"1"},
            "servers":[{"url":"http://api.example.com/v1"},{"url":"https://api.example.com/v1"}],
            "paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}"#;
        let conv = crate::convert_str("t.json", spec, &crate::Options::default()).unwrap();
        assert_eq!(
            server_url(&conv.tools[0]).unwrap(),
            "https://api.example.com/v1"
        );
        // The tool keeps the document's order.
        assert_eq!(conv.tools[0].call.servers[0], "http://api.example.com/v1");
        let only_http = spec.replace(r#",{"url":"https://api.example.com/v1"}"#, "");
        let conv = crate::convert_str("t.json", &only_http, &crate::Options::default()).unwrap();
        assert_eq!(
            server_url(&conv.tools[0]).unwrap(),
            "http://api.example.com/v1"
        );

        assert_eq!(
            origin_of("https://ann:pw@h.example:8443/v1?q"),
            "https://h.example:8443"
        );
        // The same server written with a trailing `/` or another case still prefers https.
        for (http, https) in [
            ("http://api.example.com/v1/", "https://api.example.com/v1"),
            ("http://localhost:8/v1", "https://LOCALHOST:8/v1"),
        ] {
            let doc = spec
                .replace("http://api.example.com/v1\"}", &format!("{http}\"}}"))
                .replace("https://api.example.com/v1", https);
            let conv = crate::convert_str("t.json", &doc, &crate::Options::default()).unwrap();
            assert_eq!(server_url(&conv.tools[0]).unwrap(), https, "{doc}");
        }
        assert!(plain_http_off_loopback("http://api.example.com/v1"));
        assert!(plain_http_off_loopback("http://u:p@10.0.0.2:8080"));
        // A name that starts like a loopback address is not one.
        assert!(plain_http_off_loopback("http://127.0.0.1.nip.io/v1"));
        assert!(plain_http_off_loopback("http://127.attacker.example/token"));
        for quiet in [
            "https://api.example.com",
            "http://127.0.0.1:9/v1",
            "http://localhost/x",
            "http://[::1]:80",
        ] {
            assert!(!plain_http_off_loopback(quiet), "{quiet}");
        }
    }

    #[test]
    fn headers_parse() {
        assert_eq!(
            parse_header("X-Api-Version:  2 ", "--header").unwrap(),
            ("X-Api-Version".to_string(), "2".to_string())
        );
        assert!(parse_header("no colon", "--header").is_err());
        assert!(parse_header("Bad Name: x", "--header").is_err());
        let e = parse_header("X: a\nb", "--header").unwrap_err().to_string();
        assert!(!e.contains("a\nb"));
    }

    #[test]
    fn listen_settings_refuse_open_listeners_without_a_token() {
        let args = ServeOptions::default();
        let none = |_: &str| None;
        let token = |name: &str| (name == HTTP_TOKEN).then(|| "a-long-enough-token".to_string());
        // Loopback: allowed without a token, and the loopback names are accepted.
        let l = listen_settings(&args, "127.0.0.1:0", &none).unwrap();
        assert!(l.hosts.contains(&"localhost".to_string()));
        assert_eq!(l.max_body, streamable::DEFAULT_MAX_BODY);
        assert_eq!(l.max_requests, streamable::DEFAULT_MAX_REQUESTS);
        // Every interface: refused without a token, unless told.
        let e = listen_settings(&args, "0.0.0.0:0", &none).unwrap_err();
        assert!(e.to_string().contains("--allow-unauthenticated"), "{e}");
        let l = listen_settings(&args, "0.0.0.0:0", &token).unwrap();
        assert_eq!(l.token.as_deref(), Some("a-long-enough-token"));
        assert!(l.hosts.is_empty(), "no loopback names off loopback");
        let open = ServeOptions {
            allow_unauthenticated: true,
            allow_hosts: vec!["mcp.example.com".into(), "[::1]:8080".into()],
            allow_origins: vec!["https://App.example.com:443".into()],
            ..ServeOptions::default()
        };
        let l = listen_settings(&open, "0.0.0.0:0", &none).unwrap();
        assert_eq!(l.hosts, vec!["mcp.example.com", "[::1]:8080"]);
        assert_eq!(l.origins, vec!["https://app.example.com"]);
        assert!(listen_settings(&args, "no-port", &none).is_err());
        let bad = ServeOptions {
            allow_hosts: vec!["a b".into()],
            ..ServeOptions::default()
        };
        assert!(listen_settings(&bad, "127.0.0.1:0", &none).is_err());
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            absolute_url("http://127.0.0.1:8/v1/", "--base-url").unwrap(),
            "http://127.0.0.1:8/v1"
        );
        assert!(absolute_url("/v1", "--base-url").is_err());
        assert!(absolute_url("ftp://x", "--base-url").is_err());
        assert!(absolute_url("http:///x", "--base-url").is_err());
        assert!(absolute_url("http://h/?q=1", "--base-url").is_err());
    }
}
