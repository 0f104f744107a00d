//! Errors: every failure a user can cause, each rendered as one line naming the file and,
//! where known, the line/column or the JSON pointer inside the document.

use std::fmt;
use std::path::PathBuf;

/// Where in the input a problem sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// Nothing more precise than the file.
    None,
    /// 1-based line and column in the source text.
    LineCol { line: usize, column: usize },
    /// A JSON pointer (RFC 6901) into the parsed document, e.g. `/paths/~1pets/get`.
    Pointer(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::None => Ok(()),
            Location::LineCol { line, column } => write!(f, ":{line}:{column}"),
            Location::Pointer(p) => write!(f, " at #{p}"),
        }
    }
}

/// Every error the library returns. `Display` gives one line suitable for standard error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The input is unusable: not parseable, not OpenAPI, or structurally broken.
    #[error("{file}{location}: {message}")]
    Input {
        file: String,
        location: Location,
        message: String,
    },
    /// Command-line or option misuse detected by the library (bad glob, bad option value).
    #[error("{0}")]
    Usage(String),
    /// Output could not be rendered or written (`what`: JSON, YAML, standard output, ...).
    #[error("cannot write {what}: {message}")]
    Write { what: &'static str, message: String },
    /// A failure that no input should cause: a bug, reported rather than a panic.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub(crate) fn at(file: &str, pointer: &str, message: impl Into<String>) -> Self {
        Error::Input {
            file: file.to_string(),
            location: Location::Pointer(pointer.to_string()),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
