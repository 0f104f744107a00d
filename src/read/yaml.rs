//! YAML text -> JSON tree (key order kept): `yaml_serde` parses, merge keys (`<<`) are applied and
//! scalar keys such as response codes become strings; nesting is bounded (128 collections by
//! the parser, flow nesting refused early past `MAX_FLOW_DEPTH`), and so is what aliases expand to
//! against the text's size.

use crate::error::{Error, Location, Result};
use serde_json::{Map, Value};
use yaml_serde::Value as Y;

/// The YAML parser's time grows with the square of flow nesting (20,000 levels: 3 s), before its
/// own depth limit is reached; deeper flow nesting than this is refused up front.
const MAX_FLOW_DEPTH: usize = 1000;

/// Parse YAML text into a JSON tree; errors are named after `file`.
pub fn parse(file: &str, text: &str) -> Result<Value> {
    if let Some((line, column)) = deep_flow_nesting(text, MAX_FLOW_DEPTH) {
        return Err(input(
            file,
            Location::LineCol { line, column },
            format!(
                "invalid YAML: recursion limit exceeded (more than {MAX_FLOW_DEPTH} nested `[`/`{{`)"
            ),
        ));
    }
    // Aliases repeat a tree wherever they appear: a small file can expand to gigabytes. Where the
    // text has anchors, the expanded size is counted first, without building anything.
    if text.contains('&') {
        let budget = expansion_budget(text.len());
        let left = std::cell::Cell::new(budget);
        let de = yaml_serde::Deserializer::from_str(text);
        if serde::de::DeserializeSeed::deserialize(Count(&left), de).is_err() && left.get() == 0 {
            return Err(input(
                file,
                Location::None,
                format!(
                    "invalid YAML: its aliases expand to more than {} MB (the limit for a {} KB \
                     file); a document should not need that",
                    budget / 1_000_000,
                    text.len().div_ceil(1000)
                ),
            ));
        }
    }
    let mut value: Y = yaml_serde::from_str(text).map_err(|e| {
        let location = match e.location() {
            Some(l) => Location::LineCol {
                line: l.line(),
                column: l.column(),
            },
            None => Location::None,
        };
        input(
            file,
            location,
            format!("invalid YAML: {}", super::strip_position(&e.to_string())),
        )
    })?;
    value
        .apply_merge()
        .map_err(|e| input(file, Location::None, format!("invalid YAML merge key: {e}")))?;
    to_json(value).map_err(|e| input(file, Location::Pointer(e.pointer()), e.message))
}

/// Bytes a YAML text of `len` bytes may expand to through aliases, counted as about their JSON
/// text (each node a few bytes, each string its length).
fn expansion_budget(len: usize) -> usize {
    16_000_000 + 64 * len
}

/// Counts what a YAML text expands to, failing once `.0` reaches zero.
struct Count<'a>(&'a std::cell::Cell<usize>);

impl Count<'_> {
    fn spend<E: serde::de::Error>(&self, bytes: usize) -> Result<(), E> {
        let left = self.0.get();
        if bytes >= left {
            self.0.set(0);
            return Err(E::custom("expands past the budget"));
        }
        self.0.set(left - bytes);
        Ok(())
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Count<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Count<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        self.spend(s.len() + 8)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.spend(8)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.spend(8)?;
        while seq.next_element_seed(Count(self.0))?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.spend(8)?;
        while map.next_key_seed(Count(self.0))?.is_some() {
            map.next_value_seed(Count(self.0))?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess;
        let (_, variant) = data.variant_seed(Count(self.0))?;
        variant.newtype_variant_seed(Count(self.0))
    }
}

fn input(file: &str, location: Location, message: impl Into<String>) -> Error {
    Error::Input {
        file: file.to_string(),
        location,
        message: message.into(),
    }
}

/// Where flow collections (`[`, `{`) first nest deeper than `limit`, if they do (line and
/// byte column). A cheap scan: quoted scalars and comments are skipped, and outside flow context a
/// bracket only opens a collection where a value can start (after `:`, `-`, `?`, `,` or at the
/// start of a line), so brackets inside plain text are not counted. Only the bytes that matter
/// are visited; what came before one on its line is looked up when needed.
fn deep_flow_nesting(text: &str, limit: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // Nesting cannot go deeper than the number of brackets that open.
    if bytes.iter().filter(|&&b| b == b'[' || b == b'{').count() <= limit {
        return None;
    }
    const SPECIAL: [bool; 256] = {
        let mut table = [false; 256];
        let mut k = 0;
        while k < 8 {
            table[b"\n#\"'[{]}"[k] as usize] = true;
            k += 1;
        }
        table
    };
    let (mut depth, mut line_start, mut i) = (0usize, 0usize, 0usize);
    while let Some(k) = bytes.get(i..)?.iter().position(|&b| SPECIAL[b as usize]) {
        i += k;
        let b = bytes[i];
        // The last byte before this one on its line that is not a space.
        let prev = bytes[line_start..i]
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
            .copied();
        let at_value_start = depth > 0 || matches!(prev, None | Some(b':' | b'-' | b'?' | b','));
        match b {
            b'\n' => line_start = i + 1,
            b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |k| i + k);
                continue;
            }
            b'"' | b'\'' if at_value_start || matches!(prev, Some(b'[' | b'{')) => {
                // To the closing quote (in double quotes, stepping over escapes).
                i += 1;
                while i < bytes.len() && bytes[i] != b {
                    i += if b == b'"' && bytes[i] == b'\\' { 2 } else { 1 };
                }
                line_start = bytes[..i.min(bytes.len())]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |k| k + 1);
            }
            b'[' | b'{' if at_value_start => {
                depth += 1;
                if depth > limit {
                    let line = 1 + bytes[..i].iter().filter(|&&b| b == b'\n').count();
                    return Some((line, i - line_start + 1));
                }
            }
            b']' | b'}' if depth > 0 => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A conversion error and where it happened: the path is collected innermost segment first while
/// the error travels up, so converting a document that has no error copies no keys.
struct PathErr {
    reversed: Vec<String>,
    message: String,
}

impl PathErr {
    fn new(message: String) -> Self {
        PathErr {
            reversed: Vec::new(),
            message,
        }
    }

    fn within(mut self, segment: String) -> Self {
        self.reversed.push(segment);
        self
    }

    fn pointer(&self) -> String {
        let mut out = String::new();
        for segment in self.reversed.iter().rev() {
            out.push('/');
            out.push_str(&super::pointer::escape_token(segment));
        }
        out
    }
}

/// A mapping key as a JSON object key (`200` -> `"200"`, `!tag text` -> `"text"`); `None` for a
/// collection or a tagged non-string.
fn json_key(key: Y) -> Option<String> {
    Some(match key {
        Y::String(s) => s,
        Y::Number(n) => n.to_string(),
        Y::Bool(b) => b.to_string(),
        Y::Null => "null".to_string(),
        Y::Tagged(t) => match t.value {
            Y::String(s) => s,
            _ => return None,
        },
        Y::Sequence(_) | Y::Mapping(_) => return None,
    })
}

/// Convert a YAML tree to JSON. Recursion is bounded by the parser's depth limit.
fn to_json(value: Y) -> Result<Value, PathErr> {
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::from(i)
            } else if let Some(u) = n.as_u64() {
                Value::from(u)
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                match serde_json::Number::from_f64(f) {
                    Some(num) => Value::Number(num),
                    None => {
                        return Err(PathErr::new(format!(
                            "the number {n} (infinite or NaN) cannot be represented in JSON"
                        )));
                    }
                }
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(to_json(item).map_err(|e| e.within(i.to_string()))?);
            }
            Value::Array(out)
        }
        Y::Mapping(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                let Some(key) = json_key(k) else {
                    return Err(PathErr::new("a mapping key must be a scalar".into()));
                };
                match to_json(v) {
                    Ok(v) => {
                        out.insert(key, v);
                    }
                    Err(e) => return Err(e.within(key)),
                }
            }
            Value::Object(out)
        }
        Y::Tagged(t) => to_json(t.value)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_expansion_is_bounded_by_the_texts_size() {
        let big = "x".repeat(100_000);
        let mut text = format!("s: &s \"{big}\"\nl:\n");
        for _ in 0..500 {
            text.push_str("  - *s\n");
        }
        let e = parse("a.yaml", &text).unwrap_err().to_string();
        assert!(e.contains("aliases expand to more than"), "{e}");
        // A few aliases of a shared tree are ordinary.
        let shared = format!("s: &s {{a: \"{big}\"}}\nl: [*s, *s, *s]\n");
        assert_eq!(
            parse("a.yaml", &shared).unwrap()["l"][2]["a"],
            Value::String(big)
        );
    }

    #[test]
    fn deep_flow_nesting_is_found_cheaply() {
        let deep = format!("x: {}1{}", "[".repeat(2000), "]".repeat(2000));
        assert_eq!(deep_flow_nesting(&deep, 1000), Some((1, 1004)));
        let text =
            "a: see [docs] and {this} [[[[[ unbalanced\nb: '[[[[' # [[[[\nc: [1, [2, {d: 3}]]\n";
        assert_eq!(deep_flow_nesting(text, 3), None);
        assert_eq!(deep_flow_nesting(text, 2), Some((3, 12)));
        // An escape at the very end of an unterminated quote.
        assert_eq!(deep_flow_nesting("b: '[['\na: \"x\\", 1), None);
    }
}
