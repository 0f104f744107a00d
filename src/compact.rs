//! Compact JSON text of a `serde_json::Value`: byte for byte what `serde_json::to_writer` gives,
//! written straight into a byte buffer. Strings are checked 32 and 8 bytes at a time for what
//! needs escaping and copied in runs; `serde_json` looks up every byte in a table, which was a
//! tenth of a conversion's instructions (Kubernetes: 61 of 583 million), since most of a tools
//! list is long descriptions.

use serde_json::Value;

/// Append `v` as compact JSON.
pub(crate) fn write_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // `Number`'s `Display` is `serde_json`'s own number formatting (integers and finite
        // floats only: a `Number` never holds anything else).
        Value::Number(n) => {
            use std::io::Write;
            // Writing into a `Vec` cannot fail.
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(out, x);
            }
            out.push(b']');
        }
        Value::Object(m) => write_object(out, m.iter()),
    }
}

/// Append an object of these members as compact JSON.
pub(crate) fn write_object<'a>(
    out: &mut Vec<u8>,
    members: impl IntoIterator<Item = (&'a String, &'a Value)>,
) {
    out.push(b'{');
    for (i, (k, x)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, k);
        out.push(b':');
        write_value(out, x);
    }
    out.push(b'}');
}

/// Append `s` as a JSON string: `"` and `\` escaped, control characters as `\b \t \n \f \r`
/// or `\u00xx` (lowercase hex), everything else as it is, as `serde_json` writes it.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    // `run`: where the bytes not yet copied start.
    let (mut i, mut run) = (0, 0);
    loop {
        i += clean_prefix(&b[i..]);
        let Some(&c) = b.get(i) else {
            break;
        };
        let short = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0a => b'n',
            0x0c => b'f',
            0x0d => b'r',
            _ => b'u',
        };
        out.extend_from_slice(&b[run..i]);
        out.extend_from_slice(&[b'\\', short]);
        if short == b'u' {
            out.extend_from_slice(&[
                b'0',
                b'0',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]);
        }
        i += 1;
        run = i;
    }
    out.extend_from_slice(&b[run..]);
    out.push(b'"');
}

/// How many bytes `b` starts with that JSON writes as they are (none is a control character,
/// `"` or `\`): 32 bytes at a time, then 8, then one by one.
pub(crate) fn clean_prefix(b: &[u8]) -> usize {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or_default());
    let mut i = 0;
    while let Some(block) = b.get(i..i + 32) {
        let any = block
            .chunks_exact(8)
            .fold(0, |any, w| any | escape_bits(word(w)));
        if any != 0 {
            break;
        }
        i += 32;
    }
    while let Some(w) = b.get(i..i + 8) {
        let bits = escape_bits(word(w));
        if bits != 0 {
            // The lowest flagged byte is exact (only bytes after a flagged one can be flagged
            // wrongly, by a borrow), and the lowest is the first in memory.
            return i + bits.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    while b
        .get(i)
        .is_some_and(|&c| c >= 0x20 && c != b'"' && c != b'\\')
    {
        i += 1;
    }
    i
}

/// The high bit of each byte of `word` (little-endian) that may need escaping: a control
/// character (below 0x20), `"` or `\`. Each test is the classic "some byte is zero" (or below
/// n) bit trick: exact for "any", and for the lowest flagged byte.
fn escape_bits(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    let is_quote = quote.wrapping_sub(ONES) & !quote;
    let is_backslash = backslash.wrapping_sub(ONES) & !backslash;
    (below_space | is_quote | is_backslash) & HIGH
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ours(v: &Value) -> String {
        let mut out = Vec::new();
        write_value(&mut out, v);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        // Every ASCII byte, alone and at every position of a word, and some Unicode.
        let mut strings: Vec<String> = (0u8..128).map(|c| (c as char).to_string()).collect();
        for c in 0u8..128 {
            for at in 0..71 {
                let mut s =
                    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01234567"
                        .to_string();
                s.insert(at, c as char);
                strings.push(s);
            }
        }
        strings.extend(
            [
                "",
                "héllo wörld ✓ 𝄞 \u{7f} \u{80} \u{2028}",
                "\"\\\"\\",
                "tab\there\r\nand\u{1}\u{1f} end",
            ]
            .map(String::from),
        );
        for s in strings {
            let v = Value::String(s);
            assert_eq!(ours(&v), serde_json::to_string(&v).unwrap(), "{v:?}");
        }
    }

    /// Every byte at every position of texts up to 80 bytes long (through the 32-byte, 8-byte
    /// and single-byte steps), then pairs of bytes next to each other, one of which may borrow
    /// in the word test.
    #[test]
    fn clean_prefix_stops_at_the_first_byte_to_escape() {
        let escapes = |c: u8| c < 0x20 || c == b'"' || c == b'\\';
        let mut b = Vec::new();
        for len in 0..80 {
            for at in 0..len {
                for c in 0u8..=255 {
                    b.clear();
                    b.resize(len, b'a');
                    b[at] = c;
                    let want = if escapes(c) { at } else { len };
                    assert_eq!(clean_prefix(&b), want, "{c:#x} at {at} of {len}");
                }
            }
        }
        let tricky = [
            0x00, 0x1f, 0x20, 0x21, b'"', b'#', b'\\', b']', 0x7f, 0x80, 0xff,
        ];
        for len in 2..42 {
            for at in 0..len - 1 {
                for c in tricky {
                    for d in tricky {
                        b.clear();
                        b.resize(len, b'a');
                        b[at] = c;
                        b[at + 1] = d;
                        let want = [at, at + 1]
                            .into_iter()
                            .find(|&i| escapes(b[i]))
                            .unwrap_or(len);
                        assert_eq!(clean_prefix(&b), want, "{c:#x} {d:#x} at {at} of {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_word_test_finds_exactly_the_bytes_that_need_escaping() {
        for c in 0u8..=255 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = c;
                let expected = c < 0x20 || c == b'"' || c == b'\\';
                assert_eq!(
                    escape_bits(u64::from_le_bytes(word)) != 0,
                    expected,
                    "{c} at {at}"
                );
            }
        }
        // Bytes just around the limits, all at once.
        let word = u64::from_le_bytes([0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff]);
        assert_eq!(escape_bits(word), 0);
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let v = json!({
            "n": null, "t": true, "f": false, "i": -12, "u": 18446744073709551615u64,
            "x": [1.5, -0.0, 1e300, 2.5e-8, 0.1, 100.0], "e": {}, "a": [], "nested": {"k": [{"z": "v"}]},
            "key \"q\"\n": "v"
        });
        assert_eq!(ours(&v), serde_json::to_string(&v).unwrap());
    }

    /// Every document in `specs/`, as parsed (descriptions, examples, Unicode), writes the
    /// same bytes.
    #[test]
    fn every_spec_is_written_as_serde_json_writes_it() {
        for (path, v) in crate::test_support::spec_trees() {
            let serde = serde_json::to_string(&v).unwrap();
            assert_eq!(ours(&v), serde, "{}", path.display());
        }
    }
}
