//! The integration tests, one binary: one module a subject, helpers in `common`. A module that
//! runs the `openapi-mcp` command needs the `cli` feature and one that serves also `serve`; without
//! them it compiles out (`cargo test --no-default-features --features cli` runs the rest).

#[macro_use]
mod common;

#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
mod fit;
#[cfg(feature = "cli")]
mod hint_evidence;
#[cfg(feature = "cli")]
mod invalid;
#[cfg(feature = "cli")]
mod large;
#[cfg(feature = "cli")]
mod review;
#[cfg(feature = "cli")]
mod search;
#[cfg(all(feature = "cli", feature = "serve"))]
mod serve;
#[cfg(all(feature = "cli", feature = "serve"))]
mod serve_http;
#[cfg(all(feature = "cli", feature = "serve"))]
mod serve_python;
#[cfg(feature = "cli")]
mod size;
mod snapshots;
mod swagger;
mod targets;
#[cfg(feature = "cli")]
mod threads;
#[cfg(feature = "cli")]
mod validate;
