//! Regular expressions: whether a `pattern` (or a `patternProperties` key) is one JSON Schema
//! validators accept, checked once per document.

use super::Converter;

/// Build what checking a first regular expression needs: `jsonschema`'s draft 2020-12
/// meta-schema validator, about a millisecond and a half of work done once per process. The
/// command line starts it on the thread pool while it reads the document, so that the first
/// `pattern` a conversion meets does not wait for it.
pub fn prepare() {
    let _ = jsonschema::draft202012::meta::is_valid(&serde_json::json!({}));
}

impl Converter<'_> {
    /// Whether `pattern` is a regular expression JSON Schema validators accept (checked with the
    /// same engine the `jsonschema` crate uses; cached per document, in the registry the
    /// converters of a document share, since compiling one is costly).
    pub(super) fn valid_regex(&mut self, pattern: &str) -> bool {
        if let Some(&ok) = self.regexes.get(pattern) {
            return ok;
        }
        let known = self.registry().regexes.get(pattern).copied();
        let ok = known.unwrap_or_else(|| {
            let schema = serde_json::json!({ "pattern": pattern });
            let ok = jsonschema::draft202012::meta::is_valid(&schema)
                && jsonschema::draft202012::new(&schema).is_ok();
            self.registry().regexes.insert(pattern.to_string(), ok);
            ok
        });
        self.regexes.insert(pattern.to_string(), ok);
        ok
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Direction;
    use crate::schema::tests::conv;
    use serde_json::json;

    #[test]
    fn invalid_patterns_are_left_out_with_a_comment() {
        let doc = json!({});
        let v = conv(
            &doc,
            json!({"type": "string", "pattern": "^[\\w-.]+$"}),
            Direction::Input,
        );
        assert_eq!(v["type"], "string");
        assert!(v.get("pattern").is_none());
        assert!(
            v["$comment"]
                .as_str()
                .unwrap()
                .contains("not a valid regular expression")
        );
        let ok = conv(
            &doc,
            json!({"type": "string", "pattern": "^\\p{L}+$"}),
            Direction::Input,
        );
        assert_eq!(ok["pattern"], "^\\p{L}+$");
    }
}
