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

/// Escape one JSON-pointer reference token (RFC 6901).
pub fn escape_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len() + 4);
    // Writing into a `String` cannot fail.
    let _ = write_escaped_token(&mut out, token);
    out
}

/// Write `token` escaped as [`escape_token`] does, without building it first (an operation's
/// pointer is written for every operation: Microsoft Graph, twice for each of 11,422).
pub fn write_escaped_token(out: &mut impl std::fmt::Write, token: &str) -> std::fmt::Result {
    let mut rest = token;
    while let Some(i) = rest.find(['~', '/']) {
        out.write_str(&rest[..i])?;
        out.write_str(if rest.as_bytes()[i] == b'~' {
            "~0"
        } else {
            "~1"
        })?;
        rest = &rest[i + 1..];
    }
    out.write_str(rest)
}

/// Undo [`escape_token`].
pub fn unescape_token(token: &str) -> String {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~")
    } else {
        token.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_escape_and_unescape() {
        for (token, escaped) in [
            ("", ""),
            ("plain", "plain"),
            ("/users/{id}", "~1users~1{id}"),
            ("a~/b/~", "a~0~1b~1~0"),
            ("~1", "~01"),
            ("ü/ö~", "ü~1ö~0"),
        ] {
            assert_eq!(escape_token(token), escaped);
            assert_eq!(unescape_token(escaped), token);
        }
    }
}
