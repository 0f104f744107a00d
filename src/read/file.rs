//! File: a document's bytes, read from a file or a stream and refused past [`MAX_DOCUMENT`].

use std::io::Read;
use std::path::Path;

/// The largest document read, 512 MiB (the largest public OpenAPI documents are about 50 MB;
/// a tree of this one would take about 4 GiB).
pub const MAX_DOCUMENT: u64 = 512 << 20;

/// The error for a document over [`MAX_DOCUMENT`].
fn too_large() -> std::io::Error {
    std::io::Error::other("larger than 512 MiB, the most a document may be")
}

/// The bytes of the file at `path`, at most [`MAX_DOCUMENT`] of them. The file is opened once:
/// a named pipe gives its bytes to one opening only, and a device such as /dev/zero never ends.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > MAX_DOCUMENT {
        return Err(too_large());
    }
    read_capped(file, usize::try_from(len).unwrap_or(0))
}

/// All of `from`, or an error past [`MAX_DOCUMENT`] bytes; `hint`: the size expected.
pub fn read_capped(from: impl Read, hint: usize) -> std::io::Result<Vec<u8>> {
    read_at_most(from, hint, MAX_DOCUMENT)
}

fn read_at_most(from: impl Read, hint: usize, max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(hint);
    from.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
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
        assert!(read(Path::new("/nonexistent/f")).is_err());
    }
}
