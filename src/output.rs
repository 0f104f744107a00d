//! Output: where results go. Files are written atomically (a temporary file in the same folder,
//! renamed into place, so a failed run never leaves a partial file); standard output treats a
//! closed pipe (`| head`) as a normal end. [`convert_to`] converts and writes at once, on two
//! threads: one builds tools in document order, the other writes each and frees it, so the
//! list is never held whole and writing overlaps converting. Output bytes are the same as
//! [`crate::emit::write_as`] with `--format json`.

use crate::emit::{JsonLines, Shape};
use crate::error::{Error, Result};
use crate::review::HintsFile;
use crate::{Options, Summary, Tool};
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

/// What the converting thread sends the writing one.
enum Message {
    Tool(Box<Tool>),
    /// Every tool was sent: close the list. Without it (the conversion failed) nothing is kept.
    Done,
}

/// Why the writing thread stopped before `Done`: the conversion failed, and reports why itself.
fn aborted() -> Error {
    Error::Usage("conversion failed before the end of the list".into())
}

/// Convert `doc` and write the tools as `--format json` in `shape` to `output` (standard output
/// when `None`), tool by tool as they are built. Nothing is written before the first tool, so an
/// early failure leaves standard output empty; a failure after some tools leaves a file untouched
/// but standard output truncated (with the error reported). `Ok(None)`: the reader closed
/// standard output (`| head`) before the end, which is not an error.
pub fn convert_to(
    doc: &crate::load::Document,
    options: &Options,
    hints: Option<&HintsFile>,
    shape: Shape,
    output: Option<&Path>,
) -> Result<Option<Summary>> {
    // Created here, so that an unwritable output fails before any work, whatever the document.
    let file = output.map(AtomicFile::create).transpose()?;
    let (send, receive) = std::sync::mpsc::sync_channel::<Message>(64);
    // Written tools go back to be freed by the thread that allocated them: freeing across threads
    // contends for the allocator's locks (Microsoft Graph beta: 3.6 s when the writing thread
    // frees them, 2.5 s this way).
    let (recycle, written_tools) = std::sync::mpsc::channel::<Box<Tool>>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let pump = |w: &mut dyn Write| -> Result<()> {
                let mut next = receive.recv().map_err(|_| aborted())?;
                // The list opens with its first tool (or its end), not before.
                let mut lines = JsonLines::start(w, shape)?;
                loop {
                    match next {
                        Message::Tool(tool) => {
                            lines.push(&tool)?;
                            // The receiving end lives until this thread is joined.
                            let _ = recycle.send(tool);
                        }
                        Message::Done => return lines.finish().map(|_| ()),
                    }
                    next = receive.recv().map_err(|_| aborted())?;
                }
            };
            match file {
                Some(file) => file.fill(pump),
                None => to_stdout(pump),
            }
        });
        let mut writer_gone = false;
        let converted = crate::convert_each(doc, options, hints, |tool| {
            written_tools.try_iter().for_each(drop);
            send.send(Message::Tool(Box::new(tool))).map_err(|_| {
                writer_gone = true;
                Error::Usage("output closed".into())
            })
        });
        if converted.is_ok() {
            writer_gone |= send.send(Message::Done).is_err();
        }
        drop(send);
        let written = match writer.join() {
            Ok(written) => written,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match (converted, written) {
            // The writer stopped first: its error (or a closed pipe, which is no error) explains.
            (_, Err(e)) if writer_gone => Err(e),
            (Err(_), Ok(())) if writer_gone => Ok(None),
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) => Err(e),
            (Ok(summary), Ok(())) => Ok(Some(summary)),
        }
    })
}
