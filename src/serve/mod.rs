//! Serve: runs the converted tools as a live MCP server over stdio that calls the real API.

use crate::cli::SelectArgs;
use crate::error::{Error, Result};
use clap::Args;
use std::path::PathBuf;

/// `openapi-mcp serve` arguments.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The OpenAPI document.
    pub spec: String,
    /// Apply this reviewed hints file.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<PathBuf>,
    #[command(flatten)]
    pub select: SelectArgs,
}

/// Run the server until standard input closes; returns the exit code.
pub fn run(_args: &ServeArgs) -> Result<i32> {
    Err(Error::Usage("serve is not implemented yet".into()))
}
