//! Counting the JSON values of an answer before a tree of it is built.
//!
//! A `serde_json::Value` is 80 bytes (with `preserve_order`, an object is an `IndexMap`), so a
//! 10 MB body of small values (`[1,1,…]`: 4.9 million values) becomes a tree of about 400 MB,
//! and shaping it (validation, the text copy, the budget's cut) took about 1 GB. An answer with
//! more than [`MAX_VALUES`] values is not parsed into a tree: the call gets a text saying its
//! size and value count and to ask for a smaller page.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Most JSON values (each scalar, array and object; object keys not counted) an answer may
/// hold to be shaped as structured content: a tree of at most about 80 MB. A 10 MB answer of
/// objects of about 100 bytes with a few members each (some 500,000 values) stays under it.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// The number of JSON values in `text` when it is more than `cap` (counting stops there, so
/// the count is `cap + 1`); `None` when it is at most `cap` or `text` is not JSON read so far.
/// Nothing is allocated per value.
pub(crate) fn over(text: &str, cap: usize) -> Option<usize> {
    let mut n = 0usize;
    let mut de = serde_json::Deserializer::from_str(text);
    match (Counter { n: &mut n, cap }).deserialize(&mut de) {
        Err(_) if n > cap => Some(n),
        _ => None,
    }
}

/// Counts the value it reads and every value inside it into `n`, failing once past `cap`.
struct Counter<'a> {
    n: &'a mut usize,
    cap: usize,
}

impl Counter<'_> {
    fn one<E: serde::de::Error>(self) -> Result<(), E> {
        *self.n += 1;
        if *self.n > self.cap {
            return Err(E::custom("too many values"));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Counter<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counter<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.one()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.one()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.one()
    }
    fn visit_i128<E: serde::de::Error>(self, _: i128) -> Result<(), E> {
        self.one()
    }
    fn visit_u128<E: serde::de::Error>(self, _: u128) -> Result<(), E> {
        self.one()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.one()
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.one()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.one()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.one()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Counter { n, cap } = self;
        Counter { n, cap }.one()?;
        while seq.next_element_seed(Counter { n, cap })?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Counter { n, cap } = self;
        Counter { n, cap }.one()?;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(Counter { n, cap })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_value_and_stops_past_the_cap() {
        // 1 object + 1 array + 3 numbers + 1 string + 1 null + 1 empty object + 1 bool = 9.
        let text = r#"{"a":[1,2,3],"b":"x","c":null,"d":{},"e":true}"#;
        assert_eq!(over(text, 9), None);
        assert_eq!(over(text, 8), Some(9));
        assert_eq!(over("[[],[],[]]", 3), Some(4));
        assert_eq!(over("[[],[],[]]", 4), None);
        let ints = format!("[{}]", vec!["1"; 100_000].join(","));
        assert_eq!(over(&ints, 1000), Some(1001));
        assert_eq!(over(&ints, 100_001), None);
        // Not JSON before the cap: no count (the caller treats it as text).
        assert_eq!(over("[1,2,", 10), None);
        assert_eq!(over("not json", 0), None);
        // Escaped strings and big numbers count as one value each (the array is the fourth).
        let mixed = r#"["a\"b", 1.5e300, 123456789012345678901234567890]"#;
        assert_eq!(over(mixed, 4), None);
        assert_eq!(over(mixed, 3), Some(4));
        assert_eq!(over(r#"["a\"b", 1.5, -7]"#, 4), None);
        assert_eq!(over(r#"["a\"b", 1.5, -7]"#, 2), Some(3));
    }
}
