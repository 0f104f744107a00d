//! The `openapi-mcp` binary: parses the command line and hands over to the library.

use clap::Parser;

/// mimalloc instead of the system allocator: a conversion allocates and frees millions of small
/// nodes on several threads, and with glibc's allocator a third of its time went to `malloc` and
/// `free` (Microsoft Graph v1: 271 ms with glibc, 195 ms with mimalloc, same output).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = openapi_mcp::cli::Cli::parse();
    std::process::exit(openapi_mcp::cli::run(cli));
}
