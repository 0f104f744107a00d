//! Where an array or object ends in JSON text, found 64 bytes at a time: each block's quotes,
//! backslashes and brackets as bit masks (SSE2 on x86-64), the bytes inside strings from the
//! quotes (a running XOR), and the brackets outside strings counted, one by one only in a
//! block where the depth could reach zero or a new deepest level. Microsoft Graph v1 (20 MB
//! of minified JSON, a million strings) whole, in turns: 3.9-4.2 ms, against 8.3-8.8 ms stepping
//! over each string with `memchr`, which [`bytewise`] still does on other targets and in the
//! tests as the reference. In a conversion, where the text was just read, the scan took 7-8 ms.
//!
//! Outside a string, a backslash still hides a quote or backslash just after it from the quote
//! mask (a bracket after it is counted), where [`bytewise`] takes a backslash as an escape only
//! inside a string. Outside a string a backslash is not JSON, so the two differ only in a text
//! that the parse of each part refuses anyway (see `scan.rs`): the scan checks no member's
//! inside.

/// Bytes taken at a time.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
const BLOCK: usize = 64;

/// Index just past the array or object that starts at `start` (its `{` or `[`), and how
/// deeply arrays and objects nest in it; `None` if the text ends before it closes. Brackets
/// are counted, not matched (`{]` closes): the parse of the part refuses what they miss.
pub(super) fn container_end(b: &[u8], start: usize) -> Option<(usize, usize)> {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: this is compiled only where the target enables SSE2 (x86-64's baseline), which
        // is all that `blockwise` requires; its body is safe code.
        unsafe { blockwise(b, start) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        bytewise(b, start)
    }
}

/// [`container_end`] a byte at a time, strings stepped over with `memchr`.
pub(super) fn bytewise(b: &[u8], start: usize) -> Option<(usize, usize)> {
    let (mut i, mut depth, mut deepest) = (start, 0usize, 0);
    loop {
        match b.get(i)? {
            b'"' => {
                i = string_end(b, i)?;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some((i + 1, deepest));
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The index just past the string starting at `start` (a `"`).
pub(super) fn string_end(b: &[u8], start: usize) -> Option<usize> {
    let mut j = start + 1;
    loop {
        let k = memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[j + k] == b'\\' {
            j += k + 2;
        } else {
            return Some(j + k + 1);
        }
    }
}

/// One block's bytes of each kind, bit `i` for byte `i`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[derive(Debug, PartialEq)]
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{` and `[`.
    open: u64,
    /// `}` and `]`.
    close: u64,
}

/// [`container_end`] a block at a time (SSE2 instructions inlined throughout).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
fn blockwise(b: &[u8], start: usize) -> Option<(usize, usize)> {
    if !matches!(b.get(start), Some(b'{' | b'[')) {
        return bytewise(b, start);
    }
    let (mut depth, mut deepest) = (0usize, 0usize);
    // Whether the block starts inside a string (all ones) and with an escaped byte.
    let (mut inside_before, mut escaped_first) = (0u64, false);
    let mut at = start;
    while at < b.len() {
        let block = block_at(b, at);
        let m = masks(&block);
        let escaped = escapes(m.backslash, &mut escaped_first);
        // Bit `i` set when byte `i` is inside a string, its opening quote included.
        let inside = prefix_xor(m.quote & !escaped) ^ inside_before;
        inside_before = ((inside as i64) >> 63) as u64;
        let (open, close) = (m.open & !inside, m.close & !inside);
        let (opens, closes) = (open.count_ones() as usize, close.count_ones() as usize);
        if closes < depth && depth + opens <= deepest {
            // Neither zero nor a new deepest level in this block.
            depth = depth + opens - closes;
        } else {
            let mut brackets = open | close;
            while brackets != 0 {
                let i = brackets.trailing_zeros() as usize;
                if open & (1 << i) != 0 {
                    depth += 1;
                    deepest = deepest.max(depth);
                } else {
                    depth -= 1;
                    if depth == 0 {
                        return Some((at + i + 1, deepest));
                    }
                }
                brackets &= brackets - 1;
            }
        }
        at += BLOCK;
    }
    None
}

/// The 64 bytes from `at`, padded with spaces past the end of `b`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn block_at(b: &[u8], at: usize) -> [u8; BLOCK] {
    match b.get(at..at + BLOCK) {
        Some(full) => full.try_into().unwrap_or([b' '; BLOCK]),
        None => {
            let mut block = [b' '; BLOCK];
            let rest = &b[at.min(b.len())..];
            block[..rest.len()].copy_from_slice(rest);
            block
        }
    }
}

/// The bytes a backslash escapes among a block's `backslash` bytes, `carry` saying whether the
/// block's first byte is escaped (by a backslash ending the block before), set for the next.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn escapes(backslash: u64, carry: &mut bool) -> u64 {
    let mut escaped = u64::from(*carry);
    *carry = false;
    // An escaped backslash escapes nothing.
    let mut left = backslash & !escaped;
    while left != 0 {
        let i = left.trailing_zeros();
        if i == 63 {
            *carry = true;
            break;
        }
        escaped |= 1 << (i + 1);
        left &= !(1 << i) & !(1 << (i + 1));
    }
    escaped
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// The masks of a block, 16 bytes at a time with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn masks(block: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_movemask_epi8, _mm_or_si128, _mm_set_epi64x, _mm_set1_epi8,
    };
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
    };
    for (k, part) in block.chunks_exact(16).enumerate() {
        let lo: [u8; 8] = part[..8].try_into().unwrap_or_default();
        let hi: [u8; 8] = part[8..].try_into().unwrap_or_default();
        let v = _mm_set_epi64x(i64::from_le_bytes(hi), i64::from_le_bytes(lo));
        // `{` and `[` (and `}` and `]`) differ only in the bit 0x20.
        let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        let quote = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)));
        let backslash = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)));
        let open = _mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8)));
        let close = _mm_movemask_epi8(_mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8)));
        let shift = 16 * k;
        m.quote |= u64::from(quote as u16) << shift;
        m.backslash |= u64::from(backslash as u16) << shift;
        m.open |= u64::from(open as u16) << shift;
        m.close |= u64::from(close as u16) << shift;
    }
    m
}

/// The masks of a block, a byte at a time.
#[cfg(all(test, target_arch = "x86_64", target_feature = "sse2"))]
fn masks_bytewise(block: &[u8; BLOCK]) -> Masks {
    let mut m = Masks {
        quote: 0,
        backslash: 0,
        open: 0,
        close: 0,
    };
    for (i, c) in block.iter().enumerate() {
        let bit = 1u64 << i;
        match c {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            _ => {}
        }
    }
    m
}

#[cfg(all(test, target_arch = "x86_64", target_feature = "sse2"))]
mod tests {
    use super::*;

    /// Texts with strings, escapes and brackets at every offset of a block: each container's
    /// end and nesting as [`bytewise`] finds them.
    #[test]
    fn blockwise_finds_what_bytewise_finds() {
        let pieces = [
            r#"{"a": [1, "]}\"", {"y": "}"}]}"#,
            r#"["\\", "\\\"", "x\\\\\"]", [[[]]], {"k": "\u00e9{"}]"#,
            r#"{"long": "................................................................\"}"}"#,
            r#"[{"a":[{"b":[{"c":[]}]}]}, "\\\\\\\\", "{[", [], {}]"#,
            "[\"é日本\", {\"\\\"\": \"\\\\\"}]",
        ];
        for piece in pieces {
            for pad in 0..70 {
                for tail in ["", " ", "]]] ", "\"x\""] {
                    let text = format!("{}{piece}{tail}", " ".repeat(pad));
                    let b = text.as_bytes();
                    assert_eq!(container_end(b, pad), bytewise(b, pad), "{text:?}");
                    assert!(container_end(b, pad).is_some(), "{text:?}");
                }
                // Cut short: not closed.
                let text = format!("{}{}", " ".repeat(pad), &piece[..piece.len() - 1]);
                assert_eq!(container_end(text.as_bytes(), pad), None, "{text:?}");
            }
        }
    }

    /// Long runs of backslashes across block boundaries: a quote after an even run ends the
    /// string, after an odd run it does not.
    #[test]
    fn runs_of_backslashes_across_blocks() {
        for pad in 0..66 {
            for run in 0..70 {
                let text = format!(
                    "{}[\"{}\"{}, 1]",
                    " ".repeat(pad),
                    "\\".repeat(run),
                    if run % 2 == 1 { "\"" } else { "" }
                );
                let b = text.as_bytes();
                assert_eq!(container_end(b, pad), bytewise(b, pad), "{text:?}");
                assert_eq!(
                    container_end(b, pad).map(|e| e.0),
                    Some(b.len()),
                    "{text:?}"
                );
            }
        }
    }

    /// Random texts of brackets, spaces and strings (holding brackets, quotes and backslashes,
    /// escaped, and multi-byte characters), whole and cut short anywhere: the same ends and
    /// nesting as [`bytewise`]. A fixed seed, so that a failure is repeated.
    #[test]
    fn random_texts_agree_with_bytewise() {
        let mut next = crate::test_support::xorshift(0x9E37_79B9_7F4A_7C15);
        let inside = [
            "a", "é", "日", "{", "}", "[", "]", " ", "\\\"", "\\\\", "\\u00e9",
        ];
        // Opening more often than closing, so that texts nest deeply.
        let outside = ["{", "[", "{", "[", "}", "]", " ", ",", ":"];
        for case in 0..4000 {
            let mut text = String::from("[");
            for _ in 0..next(120) {
                if next(4) == 0 {
                    text.push('"');
                    // Long strings now and then, to cross blocks inside one.
                    let len = if next(8) == 0 { next(90) } else { next(6) };
                    for _ in 0..len {
                        text.push_str(inside[next(inside.len())]);
                    }
                    text.push('"');
                } else {
                    text.push_str(outside[next(outside.len())]);
                }
            }
            // Closed, or not, or closed early.
            for _ in 0..next(40) {
                text.push(']');
            }
            let b = text.as_bytes();
            assert_eq!(container_end(b, 0), bytewise(b, 0), "case {case}: {text:?}");
            let cut = next(b.len() + 1);
            assert_eq!(
                container_end(&b[..cut], 0),
                bytewise(&b[..cut], 0),
                "case {case}, cut at {cut}: {text:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_is_counted() {
        for depth in [1, 2, 63, 64, 65, 130, 300] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(container_end(text.as_bytes(), 0), Some((2 * depth, depth)));
            // Deepest twice, falling back between: counted once.
            let text = format!(
                "[{0}{1}, {0}{1}]",
                "{\"a\":[".repeat(depth),
                "]}".repeat(depth)
            );
            let expected = bytewise(text.as_bytes(), 0);
            assert_eq!(expected.map(|e| e.1), Some(2 * depth + 1));
            assert_eq!(container_end(text.as_bytes(), 0), expected);
        }
    }

    #[test]
    fn masks_agree_with_bytes() {
        let text: Vec<u8> = (0..=255u8).chain(b"\"\\{}[]".iter().copied()).collect();
        for at in 0..text.len() {
            let block = block_at(&text, at);
            // SAFETY: compiled only where the target enables SSE2.
            let sse2 = unsafe { masks(&block) };
            assert_eq!(sse2, masks_bytewise(&block));
        }
    }

    #[test]
    fn escapes_carry_across_blocks() {
        let mut carry = false;
        // Backslashes at 62 and 63: the second is escaped, nothing carries.
        assert_eq!(escapes(3 << 62, &mut carry), 1 << 63);
        assert!(!carry);
        // One at 63: the next block's first byte is escaped.
        assert_eq!(escapes(1 << 63, &mut carry), 0);
        assert!(carry);
        // That escaped first byte is a backslash: it escapes nothing.
        assert_eq!(escapes(0b11, &mut carry), 0b101);
        assert!(!carry);
        assert_eq!(prefix_xor(0b1001), 0b0111);
    }
}
