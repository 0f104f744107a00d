//! The `openapi-mcp` binary: parses the command line and hands over to the library.

mod cli;

use clap::Parser;

/// mimalloc instead of the system allocator: a conversion allocates and frees millions of small
/// nodes on several threads, and with glibc's allocator 30% of its time went to `malloc` and
/// `free` (Microsoft Graph v1: 264-278 ms with glibc, 206-209 ms with mimalloc, the same output).
/// Transparent huge pages are off (the `no_thp` feature): they raised Graph beta's peak memory
/// from 164 to 227 MiB. See README, "Speed".
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(cli::run(cli::Cli::parse()));
}
