//! Regular expressions: whether a `pattern` (or a `patternProperties` key) is an ECMA-262
//! regular expression that validators can compile, checked once per document.

use super::Converter;
use jsonschema_regex::Search;

/// Whether `pattern` is a regular expression that `serve`'s validator compiles: the steps the
/// `jsonschema` crate takes, without the rest of that crate. `jsonschema-regex` translates the
/// ECMA-262 pattern to Rust's syntax and recognises a repeated character class (`^.{0,262144}$`),
/// which is matched without compiling; anything else must compile with `fancy-regex`.
pub fn is_valid_regex(pattern: &str) -> bool {
    let Ok(rust) = jsonschema_regex::to_rust_regex(pattern) else {
        return false;
    };
    match jsonschema_regex::search_form(pattern, &rust) {
        Some(Search::RepeatedClass(_)) => true,
        Some(Search::Collapsed(collapsed)) => fancy_regex::Regex::new(&collapsed).is_ok(),
        None => fancy_regex::Regex::new(&rust).is_ok(),
    }
}

impl Converter<'_> {
    /// [`is_valid_regex`], cached per document in the registry the converters of a document
    /// share, since a document repeats its patterns.
    pub(super) fn valid_regex(&mut self, pattern: &str) -> bool {
        if let Some(&ok) = self.regexes.get(pattern) {
            return ok;
        }
        let known = self.registry().regexes.get(pattern).copied();
        let ok = known.unwrap_or_else(|| {
            let ok = is_valid_regex(pattern);
            self.registry().regexes.insert(pattern.to_string(), ok);
            ok
        });
        self.regexes.insert(pattern.to_string(), ok);
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::is_valid_regex;
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

    /// The verdict is `jsonschema`'s (what `serve` validates with) on every pattern of the spec
    /// trees, on patterns that ECMA-262, Rust and Python read differently, and on every string of
    /// up to three characters from regular-expression syntax.
    #[test]
    fn the_verdict_is_the_validators() {
        let jsonschema = |pattern: &str| {
            let schema = json!({ "pattern": pattern });
            jsonschema::draft202012::meta::is_valid(&schema)
                && jsonschema::draft202012::new(&schema).is_ok()
        };
        let mut patterns: Vec<String> = [
            "^[a-z]+$",
            "[A-Za-z0-9\\_\\-]+",
            "^[\\w-.]+$",
            "(?!\\s*$).+",
            "(?<year>\\d{4})-\\k<year>",
            "(?P<name>.*)",
            "[\\uD800-\\uDFFF]",
            "\\p{IsLetter}+",
            "\\p{XDigit}{8}",
            "[a-zA-Z0-9]{1-20}",
            "^.{0,262144}$",
            "\\S{1,8192}",
            "\\A\\w+\\Z",
            "a{2,1}",
            "\\cJ",
        ]
        .map(String::from)
        .to_vec();
        let alphabet = [
            'a', '\\', '[', ']', '(', ')', '?', '{', '}', '-', 'p', '1', ',', '*', '^',
        ];
        for x in alphabet {
            patterns.push(x.to_string());
            for y in alphabet {
                patterns.push(format!("{x}{y}"));
                for z in alphabet {
                    patterns.push(format!("{x}{y}{z}"));
                }
            }
        }
        for pattern in &patterns {
            assert_eq!(is_valid_regex(pattern), jsonschema(pattern), "{pattern:?}");
        }
    }
}
