//! Output: where results go — files written atomically (a temporary file in the same folder,
//! renamed into place, so a failed run never leaves a partial file), and standard output, where a
//! closed pipe (`| head`) is a normal end.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Print `text` on standard output.
pub fn print(text: &str) -> Result<()> {
    to_stdout(|w| {
        w.write_all(text.as_bytes()).map_err(|source| Error::Io {
            path: PathBuf::from("<stdout>"),
            source,
        })
    })
}

/// Stream to standard output through a buffer. A closed pipe ends the output without an error.
/// When `fill` fails, what is still buffered is thrown away (whatever was already flushed, for
/// long output, stays written).
pub fn to_stdout(fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let result = fill(&mut out).and_then(|_| {
        out.flush().map_err(|source| Error::Io {
            path: PathBuf::from("<stdout>"),
            source,
        })
    });
    if result.is_err() {
        // Dropping a `BufWriter` would flush it.
        let _ = out.into_parts();
    }
    match result {
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(Error::Io { source, .. }) => Err(Error::Io {
            path: PathBuf::from("<stdout>"),
            source,
        }),
        other => other,
    }
}

/// Write `bytes` to `path` through a temporary file in the same folder, renamed into place, so a
/// failed run never leaves a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |w| {
        w.write_all(bytes).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Like [`write_atomically`], with the content streamed by `fill` into a buffered writer. Nothing
/// is left behind when `fill` fails.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    AtomicFile::create(path)?.fill(fill)
}

/// A file being written: a temporary file in the target's folder until [`AtomicFile::fill`]
/// succeeds and renames it into place; dropped, it is deleted.
pub struct AtomicFile {
    path: PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl AtomicFile {
    /// Create the temporary file (this is where a missing folder or a permission problem shows).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".openapi-mcp-");
        // Like `fs::write`: a new file gets 0666 minus the umask (a temporary file would be
        // 0600); a file being replaced keeps its permissions.
        #[cfg(unix)]
        let fresh = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::Permissions::from_mode(0o666)
        };
        #[cfg(unix)]
        builder.permissions(fresh);
        let tmp = builder.tempfile_in(dir).map_err(io)?;
        if let Ok(meta) = std::fs::metadata(path) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(io)?;
        }
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// Write the content with `fill` through a buffer, then rename the file into place.
    pub fn fill(mut self, fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
        let path = self.path;
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, self.tmp.as_file_mut());
            fill(&mut w).map_err(|e| match e {
                Error::Io { source, .. } => io(source),
                other => other,
            })?;
            w.flush().map_err(io)?;
        }
        // No `fsync`: the rename keeps readers from ever seeing a partial file, and output that a
        // run can regenerate is not worth flushing to disk (seconds for 200 MB on a slow disk).
        self.tmp.persist(&path).map_err(|e| io(e.error))?;
        Ok(())
    }
}
