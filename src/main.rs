//! The `openapi-mcp` binary: parses the command line and hands over to the library.

use clap::Parser;

fn main() {
    let cli = openapi_mcp::cli::Cli::parse();
    std::process::exit(openapi_mcp::cli::run(cli));
}
