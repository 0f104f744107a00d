//! Finding the members of a JSON object in its text without building anything: brackets are
//! counted outside strings (a block of 64 bytes at a time, see `brackets.rs`), keys unescaped. Only the object's own syntax is checked (braces, keys, colons, commas); the
//! members' text is not, which is what makes the scan cheap: it is left to the parse of each
//! member, so every member found must still be parsed by the caller (the split parse and the
//! lazy open do) for a broken text to be refused. The scan is several times faster than asking
//! `serde_json` for raw values, which checks every byte (Kubernetes: 33 million instructions
//! through `serde_json`), and it runs on one thread: the split parse hands each part it finds
//! to a second thread at once, the lazy open reads path items once the scan is done.

/// A value's text (without whitespace around it), and how deeply arrays and objects nest in it
/// (0 for a string, a number or a literal), counted on the way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Raw<'a> {
    pub(crate) text: &'a str,
    pub(crate) nesting: usize,
}

/// The members of the object `text` (whitespace around it allowed), in order, repeated keys
/// kept; `None` if `text` is not one object.
pub(crate) fn members(text: &str) -> Option<Vec<(String, Raw<'_>)>> {
    let mut s = Scan { text, i: 0 };
    let mut out = Vec::new();
    s.object(|key, s| {
        out.push((key, s.value()?));
        Some(())
    })?;
    s.end()?;
    Some(out)
}

/// A position in JSON text.
pub(crate) struct Scan<'a> {
    text: &'a str,
    i: usize,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Scan { text, i: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn skip_whitespace(&mut self) {
        let b = self.bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(self.i) {
            self.i += 1;
        }
    }

    /// Step over `c` (after whitespace).
    fn expect(&mut self, c: u8) -> Option<()> {
        self.skip_whitespace();
        (self.bytes().get(self.i) == Some(&c)).then(|| self.i += 1)
    }

    /// Nothing but whitespace is left.
    pub(crate) fn end(&mut self) -> Option<()> {
        self.skip_whitespace();
        (self.i == self.text.len()).then_some(())
    }

    /// Whether the next value (after whitespace) is an object.
    pub(crate) fn at_object(&mut self) -> bool {
        self.skip_whitespace();
        self.bytes().get(self.i) == Some(&b'{')
    }

    /// The object here: `each` is called with each key, the scan standing before its value,
    /// which `each` must step over ([`Scan::value`] or [`Scan::object`]).
    pub(crate) fn object(
        &mut self,
        mut each: impl FnMut(String, &mut Self) -> Option<()>,
    ) -> Option<()> {
        self.expect(b'{')?;
        if self.expect(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = self.key()?;
            self.expect(b':')?;
            each(key, self)?;
            self.skip_whitespace();
            match self.bytes().get(self.i)? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The object here, as [`Scan::object`] steps over it, `each` giving how deeply arrays and
    /// objects nest in the member it stepped over: the object's text.
    pub(crate) fn object_text(
        &mut self,
        mut each: impl FnMut(String, &mut Self) -> Option<usize>,
    ) -> Option<Raw<'a>> {
        self.skip_whitespace();
        let start = self.i;
        let mut deepest = 0;
        self.object(|key, s| {
            deepest = deepest.max(each(key, s)?);
            Some(())
        })?;
        Some(Raw {
            text: &self.text[start..self.i],
            nesting: deepest + 1,
        })
    }

    /// A key: a string, unescaped.
    fn key(&mut self) -> Option<String> {
        self.skip_whitespace();
        if self.bytes().get(self.i) != Some(&b'"') {
            return None;
        }
        let end = super::brackets::string_end(self.bytes(), self.i)?;
        let raw = &self.text[self.i..end];
        self.i = end;
        let inner = &raw[1..raw.len() - 1];
        if inner.bytes().any(|c| c == b'\\' || c < 0x20) {
            // Escapes, or a control character (refused): as `serde_json` reads it.
            return serde_json::from_str(raw).ok();
        }
        Some(inner.to_string())
    }

    /// Step over the value here, giving its text (unchecked inside, see the module doc).
    pub(crate) fn value(&mut self) -> Option<Raw<'a>> {
        self.skip_whitespace();
        let b = self.bytes();
        let start = self.i;
        let mut deepest = 0;
        match b.get(start)? {
            b'"' => self.i = super::brackets::string_end(b, start)?,
            b'{' | b'[' => (self.i, deepest) = super::brackets::container_end(b, start)?,
            _ => {
                // A number or a literal: up to what ends a value.
                while let Some(c) = b.get(self.i) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
            }
        }
        Some(Raw {
            text: &self.text[start..self.i],
            nesting: deepest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The members `serde_json` finds, as raw text.
    fn serde_members(text: &str) -> Option<Vec<(String, String)>> {
        let m: serde_json::Map<String, Value> = serde_json::from_str(text).ok()?;
        Some(m.into_iter().map(|(k, v)| (k, v.to_string())).collect())
    }

    #[test]
    fn members_are_those_serde_json_finds() {
        let text = r#" { "a" : {"x": [1, "]}\"", {"y": "}"}]} ,"b\"q":"s\\","c\u00e9\n":-1.5e3,
            "d": true, "e" : null , "f": [], "g": {}, "h": "{[" } "#;
        let ours: Vec<(String, String)> = members(text)
            .unwrap()
            .into_iter()
            .map(|(k, v)| {
                let v: Value = serde_json::from_str(v.text).unwrap();
                (k, v.to_string())
            })
            .collect();
        assert_eq!(Some(ours), serde_members(text));
        // Each value's text is exactly the value, without the whitespace around it.
        let m = members(text).unwrap();
        assert_eq!(m[0].1.text, r#"{"x": [1, "]}\"", {"y": "}"}]}"#);
        assert_eq!(m[2].1.text, "-1.5e3");
        assert_eq!(m[4].1.text, "null");
        // Nesting: brackets inside strings do not count.
        let nesting: Vec<usize> = m.iter().map(|(_, v)| v.nesting).collect();
        assert_eq!(nesting, [3, 0, 0, 0, 0, 1, 1, 0]);
    }

    /// An object stepped over member by member has the text and nesting of the same object
    /// stepped over whole.
    #[test]
    fn object_text_is_the_value() {
        for text in [
            "{}",
            r#" {"a": 1} "#,
            r#"{"a": [[{}]], "b": "}]", "c": {"d": {"e": []}}}"#,
            r#"{"k\"": {"x": [1, {"y": "\\"}]}, "z": null}"#,
        ] {
            let whole = Scan::new(text).value();
            let mut s = Scan::new(text);
            let opened = s.object_text(|_, s| s.value().map(|v| v.nesting));
            assert_eq!(opened, whole, "{text}");
            assert!(s.end().is_some());
        }
        assert_eq!(Scan::new("[1]").object_text(|_, _| Some(0)), None);
    }

    #[test]
    fn a_broken_skeleton_is_refused() {
        for text in [
            "",
            "[]",
            "{",
            r#"{"a" 1}"#,
            r#"{"a": 1,}"#,
            r#"{"a": 1 "b": 2}"#,
            r#"{a: 1}"#,
            r#"{"a": }"#,
            r#"{"a": 1} x"#,
            r#"{"a": "unterminated}"#,
            r#"{"a": {"b": 1}"#,
            "{\"a\u{1}\": 1}",
            r#"{"\q": 1}"#,
        ] {
            assert_eq!(members(text), None, "{text:?}");
        }
        assert_eq!(members(" {} ").unwrap(), vec![]);
    }

    /// Inside a member nothing is checked: the caller's parse of it refuses it.
    #[test]
    fn members_are_not_checked_inside() {
        let m = members(r#"{"a": [1 2], "b": tru}"#).unwrap();
        let texts: Vec<(&str, &str)> = m.iter().map(|(k, v)| (k.as_str(), v.text)).collect();
        assert_eq!(texts, [("a", "[1 2]"), ("b", "tru")]);
        assert!(serde_json::from_str::<Value>(m[0].1.text).is_err());
    }
}
