//! Command line: argument definitions (clap) and the commands they run. `main` only calls [`run`].

use crate::emit::{self, Format};
use crate::error::{Error, Result};
use crate::model::Method;
use crate::{Filter, NameStyle, Options};
use clap::{Args, Parser, Subcommand};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Turn an OpenAPI document (3.0, 3.1, 3.2; JSON or YAML) into MCP tool definitions.
///
/// Exit codes: 0 success, 1 check failed (drift), 2 unusable input or usage.
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
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The OpenAPI document: a path, or `-` for standard input. JSON or YAML, detected from content.
    pub spec: String,
    /// Write to FILE (atomically: a temporary file in the same folder, then renamed) instead of
    /// standard output.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    #[command(flatten)]
    pub select: SelectArgs,
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
    /// Longest tool name; longer ones are cut and get a 6-character stable hash.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_name_len: usize,
    /// Inline every non-recursive `$ref` instead of emitting `$defs` (for clients that cannot
    /// follow `$ref`). Recursive schemas keep `$defs`.
    #[arg(long)]
    pub inline_refs: bool,
}

fn parse_method(s: &str) -> std::result::Result<Method, String> {
    Method::parse(s).ok_or_else(|| {
        format!("unknown HTTP method {s:?} (expected get, put, post, delete, options, head, patch, trace, query)")
    })
}

impl SelectArgs {
    pub fn options(&self) -> Options {
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
            max_name_len: self.max_name_len,
            inline_refs: self.inline_refs,
        }
    }
}

/// Run the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Convert(args) => convert(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("openapi-mcp: error: {e}");
            2
        }
    }
}

/// Read SPEC (`-` is standard input) and convert it.
pub fn load(spec: &str, options: &Options) -> Result<crate::Conversion> {
    if spec == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|source| Error::Io {
                path: PathBuf::from("<stdin>"),
                source,
            })?;
        crate::convert_bytes("<stdin>", &bytes, options)
    } else {
        crate::convert_file(spec, options)
    }
}

fn convert(args: &ConvertArgs) -> Result<i32> {
    let conversion = load(&args.spec, &args.select.options())?;
    for n in &conversion.notices {
        eprintln!("openapi-mcp: note: {n}");
    }
    let text = emit::render(&conversion.tools, args.format)?;
    match &args.output {
        Some(path) => write_atomically(path, text.as_bytes())?,
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`| head`) is not an error worth a message.
            if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                return Err(Error::Io {
                    path: PathBuf::from("<stdout>"),
                    source: e,
                });
            }
        }
    }
    Ok(0)
}

/// Write `bytes` to `path` through a temporary file in the same folder, renamed into place, so a
/// failed run never leaves a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".openapi-mcp-")
        .tempfile_in(dir)
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}
