//! Files and standard output: files written atomically (a temporary file in the same folder,
//! renamed into place, so a failed run never leaves a partial file; a file that already holds the
//! output is left untouched), and standard output, where a closed pipe (`| head`) is a normal
//! end.

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
    Output::create(path)?.fill(fill).map(|_| ())
}

/// A file being written: a temporary file in the target's folder until [`AtomicFile::fill`]
/// succeeds and renames it into place; dropped, it is deleted. A target that exists and is
/// neither a regular file nor a folder (`/dev/null`, a named pipe) is written straight into:
/// renaming over it would replace the device or pipe with a file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: TempFile,
}

/// A new file beside the target, deleted when dropped unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    file: std::fs::File,
    kept: bool,
}

impl TempFile {
    /// A file of a name no other file in `dir` has (`.openapi-mcp-PID-N`, created exclusively),
    /// with `mode` on Unix (less the umask), as `fs::write` would create it.
    fn create_in(dir: &Path) -> std::io::Result<TempFile> {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).read(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o666);
        loop {
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let path = dir.join(format!(".openapi-mcp-{}-{n}", std::process::id()));
            match options.open(&path) {
                Ok(file) => {
                    return Ok(TempFile {
                        path,
                        file,
                        kept: false,
                    });
                }
                // Left by an earlier process of the same id: try the next name.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1_000_000 => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Rename the file to `to`, replacing what is there.
    fn persist(mut self, to: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where `-o` writes.
pub enum Output {
    /// A regular file (or none yet), replaced atomically.
    File(AtomicFile),
    /// A device or a pipe, written straight into.
    Special(PathBuf, std::fs::File),
}

impl Output {
    /// Open `path` for writing: see [`AtomicFile`].
    pub fn create(path: &Path) -> Result<Output> {
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if !special {
            return AtomicFile::create(path).map(Output::File);
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(Output::Special(path.to_path_buf(), file))
    }

    /// Write the content with `fill` (see [`AtomicFile::fill`]).
    pub fn fill(self, fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<Written> {
        match self {
            Output::File(file) => file.fill(fill),
            Output::Special(path, file) => {
                let io = |source| Error::Io {
                    path: path.clone(),
                    source,
                };
                let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
                fill(&mut w).map_err(|e| match e {
                    Error::Io { source, .. } => io(source),
                    other => other,
                })?;
                w.flush().map_err(io)?;
                Ok(Written::Replaced)
            }
        }
    }
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
        if !dir.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no folder {}", dir.display()),
            )));
        }
        // Like `fs::write`: a new file gets 0666 minus the umask; a file being replaced keeps
        // its permissions.
        let tmp = TempFile::create_in(dir).map_err(io)?;
        if let Ok(meta) = std::fs::metadata(path) {
            tmp.file.set_permissions(meta.permissions()).map_err(io)?;
        }
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
        })
    }

    /// Write the content with `fill` through a buffer, then rename the file into place. A file
    /// that already holds exactly this content is left as it is, modification time included (a
    /// build tool sees no change), and nothing is written: the content is compared with it as it
    /// is produced, and written out from the first difference on.
    pub fn fill(mut self, fill: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<Written> {
        let path = self.path;
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        // Only a regular file is compared (not a pipe or a device given as `-o`).
        let old = std::fs::metadata(&path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .and_then(|_| std::fs::File::open(&path).ok());
        let unchanged = {
            let mut same = SameAs::new(old, &mut self.tmp.file);
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut same);
            fill(&mut w).map_err(|e| match e {
                Error::Io { source, .. } => io(source),
                other => other,
            })?;
            w.flush().map_err(io)?;
            drop(w);
            same.finish().map_err(io)?
        };
        if unchanged {
            // Dropping the temporary file deletes it.
            return Ok(Written::Unchanged);
        }
        // No `fsync`: the rename keeps readers from ever seeing a partial file, and output that a
        // run can regenerate is not worth flushing to disk. A rename (not an exchange of the two
        // files) also gets ext4's writeback on replace, which keeps the old or the new content,
        // not an empty file, across a power loss.
        self.tmp.persist(&path).map_err(io)?;
        Ok(Written::Replaced)
    }
}

/// What [`AtomicFile::fill`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// The file was created or replaced.
    Replaced,
    /// The file already held exactly this content and was left untouched.
    Unchanged,
}

/// A writer into `tmp` that first compares what it is given with `old` (the file about to be
/// replaced) and writes nothing while the two agree. At the first difference it copies the
/// agreed part from `old` into `tmp` and writes through from then on. Replacing a file costs
/// more than writing it on ext4 (the rename starts the new file's writeback and frees the old
/// one's pages), and regenerating unchanged output is the common case in a build.
struct SameAs<'f> {
    /// The old file, read along while the content still agrees with it.
    old: Option<std::io::BufReader<std::fs::File>>,
    /// Bytes agreed so far (not written to `tmp`).
    agreed: u64,
    tmp: &'f mut std::fs::File,
}

impl<'f> SameAs<'f> {
    fn new(old: Option<std::fs::File>, tmp: &'f mut std::fs::File) -> Self {
        SameAs {
            old: old.map(|f| std::io::BufReader::with_capacity(1 << 16, f)),
            agreed: 0,
            tmp,
        }
    }

    /// Whether `buf` is what `old` holds next (consuming it when it is).
    fn agrees(
        old: &mut std::io::BufReader<std::fs::File>,
        mut buf: &[u8],
    ) -> std::io::Result<bool> {
        use std::io::BufRead;
        while !buf.is_empty() {
            let next = old.fill_buf()?;
            if next.is_empty() {
                return Ok(false);
            }
            let n = next.len().min(buf.len());
            if next[..n] != buf[..n] {
                return Ok(false);
            }
            old.consume(n);
            buf = &buf[n..];
        }
        Ok(true)
    }

    /// Stop comparing: copy the agreed part from the old file into `tmp`.
    fn diverge(&mut self) -> std::io::Result<()> {
        use std::io::{Read, Seek};
        if let Some(old) = self.old.take() {
            let mut old = old.into_inner();
            old.seek(std::io::SeekFrom::Start(0))?;
            let copied = std::io::copy(&mut old.take(self.agreed), self.tmp)?;
            if copied != self.agreed {
                // The old file shrank while being read: nothing sound to copy from.
                return Err(std::io::Error::other(
                    "the file changed while being replaced",
                ));
            }
        }
        Ok(())
    }

    /// True if the content was the old file's, whole: nothing was written. Otherwise the
    /// agreed part is copied into `tmp`, which then holds the whole content.
    fn finish(mut self) -> std::io::Result<bool> {
        use std::io::BufRead;
        if let Some(old) = &mut self.old
            && old.fill_buf()?.is_empty()
        {
            return Ok(true);
        }
        self.diverge()?;
        Ok(false)
    }
}

impl Write for SameAs<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(old) = &mut self.old {
            if Self::agrees(old, buf)? {
                self.agreed += buf.len() as u64;
                return Ok(buf.len());
            }
            self.diverge()?;
        }
        self.tmp.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.tmp.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::{AtomicFile, Written};

    fn fill(path: &std::path::Path, content: &[u8]) -> Written {
        AtomicFile::create(path)
            .unwrap()
            .fill(|w| {
                // In pieces of odd sizes, so that they straddle the buffers.
                for piece in content.chunks(7_777) {
                    w.write_all(piece).unwrap();
                }
                Ok(())
            })
            .unwrap()
    }

    /// Only the file itself in the folder: no temporary file left behind.
    fn alone(dir: &std::path::Path) {
        let names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.json"], "{names:?}");
    }

    #[test]
    fn a_file_holding_the_content_is_left_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let content: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(fill(&path, &content), Written::Replaced);
        let before = std::fs::metadata(&path).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(fill(&path, &content), Written::Unchanged);
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(after.modified().unwrap(), before.modified().unwrap());
        // The same file, not a new one renamed into place.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert_eq!(after.ino(), before.ino());
        }
        assert_eq!(std::fs::read(&path).unwrap(), content);
        alone(dir.path());
    }

    /// A difference anywhere (first byte, middle, last byte, a longer or shorter file) gives
    /// exactly the new content, the agreed part included.
    #[test]
    fn a_difference_anywhere_replaces_the_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let content: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
        let mut changed = Vec::new();
        for at in [0, 65_535, 65_536, 100_000, content.len() - 1] {
            let mut c = content.clone();
            c[at] ^= 1;
            changed.push(c);
        }
        changed.push(content[..150_000].to_vec());
        changed.push([&content[..], b"more"].concat());
        changed.push(Vec::new());
        for new in changed {
            std::fs::write(&path, &content).unwrap();
            #[cfg(unix)]
            let before = {
                use std::os::unix::fs::MetadataExt;
                std::fs::metadata(&path).unwrap().ino()
            };
            assert_eq!(fill(&path, &new), Written::Replaced);
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                assert_ne!(std::fs::metadata(&path).unwrap().ino(), before);
            }
            assert!(std::fs::read(&path).unwrap() == new, "{} bytes", new.len());
            alone(dir.path());
        }
        // An empty file and empty content agree.
        assert_eq!(fill(&path, b""), Written::Unchanged);
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        std::fs::write(&path, b"old content").unwrap();
        let failed = AtomicFile::create(&path).unwrap().fill(|w| {
            w.write_all(b"new").unwrap();
            Err(crate::error::Error::Internal("stop".into()))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old content");
        alone(dir.path());
    }

    /// Temporary names never clash: with each other, or with a file an earlier process of the
    /// same id left.
    #[test]
    fn temporary_files_take_a_free_name() {
        let dir = tempfile::tempdir().unwrap();
        let left = dir
            .path()
            .join(format!(".openapi-mcp-{}-0", std::process::id()));
        std::fs::write(&left, b"stale").unwrap();
        let (a, b) = (
            AtomicFile::create(&dir.path().join("a.json")).unwrap(),
            AtomicFile::create(&dir.path().join("b.json")).unwrap(),
        );
        assert_ne!(a.tmp.path, b.tmp.path);
        assert_ne!(a.tmp.path, left);
        a.fill(|w| {
            w.write_all(b"A").map_err(|e| crate::Error::Io {
                path: "a".into(),
                source: e,
            })
        })
        .unwrap();
        drop(b);
        assert_eq!(std::fs::read(dir.path().join("a.json")).unwrap(), b"A");
        assert!(!dir.path().join("b.json").exists());
        std::fs::remove_file(&left).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["a.json"], "{names:?}");
    }
}
