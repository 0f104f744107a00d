//! File: reading a document's bytes. A large file is read as two halves at once, the second on
//! another thread, each checked for UTF-8 a piece at a time as it arrives (while the piece is
//! still in the core's cache), so that a large JSON document becomes text without a further
//! pass over all of it on one thread. Reading a cached file is the kernel's copy into this
//! process's memory and the first touch of each of its pages, which two cores do side by side.

use std::path::Path;

/// From this size on, [`read`] reads a file in two halves at once.
pub(crate) const MIN_SPLIT_READ: u64 = 4 << 20;

/// Bytes read at a time, then checked for UTF-8.
const PIECE: usize = 1 << 20;

/// A file's bytes, as `std::fs::read` gives them. The bytes are private and never changed once
/// read, so that `utf8` stays true of them.
pub(crate) struct Bytes {
    bytes: Vec<u8>,
    /// Whether the bytes are known to be UTF-8 (`false`: not known either way).
    utf8: bool,
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Self {
        Bytes { bytes, utf8: false }
    }
}

impl Bytes {
    /// The bytes, owned.
    pub(crate) fn into_vec(self) -> Vec<u8> {
        self.bytes
    }

    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes as text, if they are UTF-8; else the bytes back.
    pub(crate) fn into_text(self) -> Result<String, Vec<u8>> {
        if self.utf8 {
            // SAFETY: `utf8` is set only by `read_halves`, once every byte has been checked by
            // `std::str::from_utf8`, in runs that meet at character boundaries (see there).
            return Ok(unsafe { String::from_utf8_unchecked(self.bytes) });
        }
        String::from_utf8(self.bytes).map_err(|e| e.into_bytes())
    }
}

/// The largest document read, 512 MiB (the largest public OpenAPI documents are about 50 MB;
/// a tree of this one would take about 4 GiB).
pub(crate) const MAX_DOCUMENT: u64 = 512 << 20;

/// The error for a document over [`MAX_DOCUMENT`].
pub(crate) fn too_large() -> std::io::Error {
    std::io::Error::other("larger than 512 MiB, the most a document may be")
}

/// The bytes of the file at `path` (see the module doc), at most [`MAX_DOCUMENT`] of them.
pub(crate) fn read(path: &Path) -> std::io::Result<Bytes> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > MAX_DOCUMENT {
        return Err(too_large());
    }
    #[cfg(unix)]
    {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if len >= MIN_SPLIT_READ
            && cores > 1
            && let Ok(size) = usize::try_from(len)
            && let Some(read) = read_halves(&file, size)?
        {
            return Ok(read);
        }
    }
    // From the file already open (reads in halves leave its position at the start): a named
    // pipe gives its bytes to one opening only, and a device such as /dev/zero never ends.
    read_capped(file, usize::try_from(len).unwrap_or(0)).map(Bytes::from)
}

/// All of `from`, or [`too_large`] past [`MAX_DOCUMENT`] bytes; `hint`: the size expected.
pub(crate) fn read_capped(from: impl std::io::Read, hint: usize) -> std::io::Result<Vec<u8>> {
    read_at_most(from, hint, MAX_DOCUMENT)
}

fn read_at_most(from: impl std::io::Read, hint: usize, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(hint);
    from.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The `size` bytes of `file` read as two halves at once, checked for UTF-8 on the way; `None`
/// if the file shrank meanwhile (what was added is read on, unchecked).
#[cfg(unix)]
fn read_halves(file: &std::fs::File, size: usize) -> std::io::Result<Option<Bytes>> {
    use std::io::{Read, Seek};
    let mut bytes = vec![0u8; size];
    let mid = size / 2;
    let (first, second) = bytes.split_at_mut(mid);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(move || read_checking(file, second, mid as u64));
        let first = read_checking(file, first, 0);
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    });
    let (Ok(first), Ok(second)) = (first, second) else {
        return Ok(None);
    };
    // Checked: the first half up to `first.up_to` (short of its end by a character that goes on
    // into the second half), the second from `second.skipped` (past that character's end) to
    // its end; the bytes between are checked here.
    let seam = mid + second.skipped;
    let utf8 = match (first.up_to, second.up_to) {
        (Some(up_to), Some(end)) => {
            mid + end == size && std::str::from_utf8(&bytes[up_to..seam]).is_ok()
        }
        _ => false,
    };
    let mut rest = file;
    rest.seek(std::io::SeekFrom::Start(size as u64))?;
    let added = rest.read_to_end(&mut bytes)?;
    Ok(Some(Bytes {
        bytes,
        utf8: utf8 && added == 0,
    }))
}

/// How far [`read_checking`] found a part to be UTF-8.
#[cfg(unix)]
struct Checked {
    /// Bytes at its start that continue a character begun before it (not checked).
    skipped: usize,
    /// The part from `skipped` up to here is UTF-8 (`None`: it has an error); short of the
    /// part's end by the start of a character cut off there.
    up_to: Option<usize>,
}

/// Fill `buf` from `file` at `offset`, a piece at a time, checking each for UTF-8 as it
/// arrives (a part after the first starts past the bytes continuing a character, at most
/// three: four are an error).
#[cfg(unix)]
fn read_checking(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<Checked> {
    use std::os::unix::fs::FileExt;
    let (mut done, mut skipped) = (0, 0);
    let mut up_to = Some(0);
    while done < buf.len() {
        let end = (done + PIECE).min(buf.len());
        file.read_exact_at(&mut buf[done..end], offset + done as u64)?;
        if done == 0 && offset > 0 {
            skipped = buf[..end]
                .iter()
                .take(4)
                .take_while(|&&b| b & 0xC0 == 0x80)
                .count();
            up_to = (skipped < 4).then_some(skipped);
        }
        done = end;
        if let Some(from) = up_to {
            up_to = match std::str::from_utf8(&buf[from..done]) {
                Ok(_) => Some(done),
                // A character cut off at the end of the piece: checked again with the next.
                Err(e) if e.error_len().is_none() => Some(from + e.valid_up_to()),
                Err(_) => None,
            };
        }
    }
    Ok(Checked { skipped, up_to })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_stops_past_the_most_a_document_may_be() {
        let endless = std::io::repeat(b'x');
        let e = read_at_most(endless, 0, 1000).unwrap_err();
        assert!(e.to_string().contains("the most a document may be"), "{e}");
        assert_eq!(read_at_most(&[7u8; 1000][..], 0, 1000).unwrap().len(), 1000);
    }

    fn read_bytes(content: &[u8]) -> Bytes {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, content).unwrap();
        read(&path).unwrap()
    }

    /// A file read in two halves is the file, byte for byte (an odd length, so the halves
    /// differ); one below the size is read plainly.
    #[test]
    fn a_large_file_reads_whole() {
        for len in [MIN_SPLIT_READ as usize + 3, 1000] {
            let content: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let read = read_bytes(&content);
            assert!(read.bytes == content, "{len}");
            assert!(!read.utf8);
        }
        assert!(read(Path::new("/nonexistent/f")).is_err());
    }

    /// Text with characters of every length cut at the middle, at piece boundaries and
    /// anywhere: known to be UTF-8 exactly when it is.
    #[test]
    fn utf8_is_checked_across_the_cuts() {
        let size = MIN_SPLIT_READ as usize + 5;
        for ch in ["é", "日", "😀"] {
            for shift in 0..4 {
                let mut text = "a".repeat(shift);
                while text.len() < size {
                    text.push_str(ch);
                    text.push('b');
                }
                let read = read_bytes(text.as_bytes());
                assert!(read.utf8, "{ch} {shift}");
                assert_eq!(read.into_text().unwrap(), text);
                // One byte changed anywhere (around the cut, a piece boundary, the ends): known
                // to be UTF-8 exactly when it is (a letter in place of a character's last
                // byte, cut in two at the middle, is checked only where the halves meet).
                let n = text.len();
                for at in [
                    0,
                    n / 2 - 2,
                    n / 2 - 1,
                    n / 2,
                    n / 2 + 1,
                    PIECE,
                    n / 2 + PIECE,
                    n - 1,
                ] {
                    for byte in [0xFF, 0x80, b'a'] {
                        let mut changed = text.clone().into_bytes();
                        changed[at] = byte;
                        let read = read_bytes(&changed);
                        let is_utf8 = std::str::from_utf8(&changed).is_ok();
                        assert_eq!(read.utf8, is_utf8, "{ch} {shift} {at} {byte:#x}");
                        assert_eq!(read.into_text().is_ok(), is_utf8);
                    }
                }
            }
        }
    }
}
