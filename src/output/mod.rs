//! Output: the tools written out — rendered as JSON or YAML ([`emit`], with `line` writing one
//! `--format json` line), built and written in order on the thread pool ([`stream`]), into files
//! replaced atomically or standard output ([`file`]), or compared with a file for `--check`
//! ([`check`]).

pub mod check;
pub mod emit;
pub mod file;
pub(crate) mod line;
pub mod stream;

pub use file::{AtomicFile, Output, print, to_stdout, write_atomically, write_atomically_with};
