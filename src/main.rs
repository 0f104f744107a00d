//! The `openapi-mcp` binary: parses the command line and hands over to the library.

mod cli;
mod commands;

use clap::Parser;

/// mimalloc instead of the system allocator: a conversion allocates and frees millions of small
/// nodes on several threads, which glibc's allocator does markedly slower. Transparent huge pages
/// are off (the `no_thp` feature), which raised peak memory. See README, "Speed".
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(commands::run(cli::Cli::parse()));
}
