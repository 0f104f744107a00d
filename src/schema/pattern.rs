//! Regular expressions: whether a `pattern` (or a `patternProperties` key) is kept, decided once
//! per pattern of a document.

use super::Converter;
use regex_syntax::ast::parse::Parser;
use regex_syntax::hir::translate::Translator;
use regex_syntax::hir::{Class, Hir, HirKind, Look};
use regex_syntax::utf8::Utf8Sequences;

/// Whether `pattern` is kept: an ECMA-262 regular expression (as `regress` reads it, with the
/// Annex B syntax of web browsers) that `serve`'s validator also compiles. That validator
/// (`jsonschema`, with `fancy-regex`) reads patterns in Rust's `regex` syntax, so the pattern is
/// also rewritten as it rewrites them ([`validator_reading`]) and must parse with `regex-syntax`.
pub fn is_valid_regex(pattern: &str) -> bool {
    let parses = |rust: &str| {
        Parser::new()
            .parse(rust)
            .ok()
            .and_then(|ast| Translator::new().translate(rust, &ast).ok())
    };
    let Some(plain) = validator_reading(pattern, false) else {
        return false;
    };
    let Some(hir) = parses(&plain.rust) else {
        return false;
    };
    // The validator takes Python's `(?P<name>` for ECMA-262's `(?<name>`.
    if regress::Regex::with_flags(&pattern.replace("(?P<", "(?<"), "").is_err() {
        return false;
    }
    // With a look-around or back-reference, the validator compiles the pattern untranslated.
    if plain.fancy {
        return size(&hir, false) <= SIZE_LIMIT;
    }
    // jsonschema-regex's shortcuts need a pattern valid with the `u` flag, which Rust's parser
    // reads after translation.
    let edges = !plain.own_property && regress::Regex::with_flags(pattern, "u").is_ok();
    validator_reading(pattern, true)
        .and_then(|ecma| parses(&ecma.rust))
        .is_some_and(|hir| size(&hir, edges) <= SIZE_LIMIT)
}

/// The largest [`size`] kept. The validator's engine refuses a pattern whose automaton passes
/// its size limit: among `x` then one item repeated, from `x\S{5000}` (130,000 here) and
/// `x.{10000}` (150,000); the corpus's largest pattern is 55,800.
const SIZE_LIMIT: u64 = 100_000;

/// An estimate of the automaton the validator's engine builds for `hir`: a class costs one plus
/// a third of its UTF-8 sequences' bytes, a literal its bytes, and a count multiplies its item.
/// With `edges`, the validator's own shortcuts apply: `^X{m,n}$` over one class is not built, and
/// a bounded count first or last in the pattern is built at its minimum.
fn size(hir: &Hir, edges: bool) -> u64 {
    if edges && repeated_class(hir) {
        return 0;
    }
    weight(hir, edges, edges)
}

/// Whether `hir` is `^X{m,n}$` for one class `X`.
fn repeated_class(hir: &Hir) -> bool {
    let HirKind::Concat(items) = hir.kind() else {
        return false;
    };
    let [start, repeated, end] = items.as_slice() else {
        return false;
    };
    let HirKind::Repetition(rep) = uncaptured(repeated).kind() else {
        return false;
    };
    matches!(start.kind(), HirKind::Look(Look::Start))
        && matches!(end.kind(), HirKind::Look(Look::End))
        && matches!(uncaptured(&rep.sub).kind(), HirKind::Class(_))
}

fn uncaptured(hir: &Hir) -> &Hir {
    match hir.kind() {
        HirKind::Capture(capture) => uncaptured(&capture.sub),
        _ => hir,
    }
}

/// [`size`] of `hir`, whose bounded count is built at its minimum when it is the first item of
/// the pattern (`head`) or the last (`tail`).
fn weight(hir: &Hir, head: bool, tail: bool) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => literal.0.len() as u64,
        HirKind::Class(Class::Bytes(class)) => class.ranges().len() as u64,
        HirKind::Class(Class::Unicode(class)) => {
            let bytes: usize = class
                .ranges()
                .iter()
                .flat_map(|r| Utf8Sequences::new(r.start(), r.end()))
                .map(|s| s.len())
                .sum();
            1 + bytes.div_ceil(3) as u64
        }
        HirKind::Repetition(rep) => {
            let count = match rep.max {
                Some(max) if (head || tail) && max > rep.min => rep.min,
                Some(max) => max,
                None => rep.min.saturating_add(1),
            };
            weight(&rep.sub, false, false).saturating_mul(u64::from(count.max(1)))
        }
        HirKind::Capture(capture) => weight(&capture.sub, head, tail),
        HirKind::Concat(items) => {
            let last = items.len().saturating_sub(1);
            items
                .iter()
                .enumerate()
                .map(|(i, item)| weight(item, head && i == 0, tail && i == last))
                .fold(0, u64::saturating_add)
        }
        HirKind::Alternation(branches) => branches
            .iter()
            .map(|branch| weight(branch, head, tail))
            .fold(0, u64::saturating_add),
    }
}

/// A property `fancy-regex` defines itself (POSIX classes and surrogates), as it rewrites it.
fn own_property(name: &str, negated: bool) -> Option<&'static str> {
    let (class, complement) = match name {
        "alnum" => (r"[\p{alpha}\p{digit}]", r"[^\p{alpha}\p{digit}]"),
        "blank" => (r"[\p{Zs}\t]", r"[^\p{Zs}\t]"),
        "cntrl" => (r"[\x00-\x1F\x7F-\x9F]", r"[^\x00-\x1F\x7F-\x9F]"),
        "word" => (r"\w", r"\W"),
        "graph" => (r"[^\p{White_Space}\p{C}]", r"[\p{White_Space}\p{C}]"),
        "print" => (r"[^\p{C}\t\n\v\f\r]", r"[\p{C}\t\n\v\f\r]"),
        "cs" => (r"\P{any}", r"\p{any}"),
        _ => return None,
    };
    Some(if negated { complement } else { class })
}

/// A pattern as `serve`'s validator hands it to Rust's parser.
struct Reading {
    rust: String,
    /// It has a look-around or a back-reference (`fancy-regex` compiles it untranslated).
    fancy: bool,
    /// It names a property only `fancy-regex` defines (jsonschema-regex cannot read it).
    own_property: bool,
}

/// The openings of look-arounds, after their `(`.
const LOOKS: [&[char]; 4] = [&['?', '='], &['?', '!'], &['?', '<', '='], &['?', '<', '!']];

/// Where a class's parser is, for its hyphens (after a range's start, ECMA-262 reads `-` as a
/// range; elsewhere as a literal, which Rust's `--` would read as set difference).
#[derive(Clone, Copy, PartialEq)]
enum Item {
    Start,
    AfterAtom,
    RangeEnd,
}

/// `pattern` as `serve`'s validator hands it to Rust's parser, or `None` when the validator
/// refuses it before parsing. As `jsonschema-regex` and `fancy-regex` do: `\cX` becomes its
/// control character, `[`, `&&`, `~~` and literal hyphens inside a class are escaped, the
/// properties `fancy-regex` defines become their classes and, with `ecma_classes`, `.` and the
/// class escapes get ECMA-262's meaning ([`ecma_class`]). A bell (`\a`), a named back-reference,
/// a reference to a group that does not exist and a quantified look-around are refused.
/// Look-arounds become plain groups and back-references empty ones, which Rust's syntax has no
/// words for.
fn validator_reading(pattern: &str, ecma_classes: bool) -> Option<Reading> {
    let chars: Vec<char> = pattern.chars().collect();
    let groups = capture_groups(&chars);
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut fancy = false;
    let mut own = false;
    // Per open group: whether it is a look-around.
    let mut open: Vec<bool> = Vec::new();
    let mut class: Option<Item> = None;
    let mut class_start = false;
    let mut after_class_escape = false;
    let mut after_look = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let quantifiable = !std::mem::take(&mut after_look);
        if c == '\\' {
            let next = *chars.get(i + 1)?;
            let mut class_escape = false;
            match next {
                'a' | 'k' => return None,
                'c' => {
                    let letter = chars.get(i + 2).filter(|l| l.is_ascii_alphabetic())?;
                    out.push_str(&format!("\\x{{{:x}}}", *letter as u32 % 32));
                    i += 3;
                }
                '1'..='9' if class.is_none() => {
                    let digits = chars[i + 1..].iter().take_while(|d| d.is_ascii_digit());
                    let len = digits.clone().count();
                    let number = digits.fold(0usize, |n, d| {
                        n.saturating_mul(10)
                            .saturating_add(d.to_digit(10).map_or(0, |d| d as usize))
                    });
                    if number > groups {
                        return None;
                    }
                    fancy = true;
                    out.push_str("(?:)");
                    i += 1 + len;
                }
                'p' | 'P' if chars.get(i + 2) == Some(&'{') => {
                    let end = i + 3 + chars[i + 3..].iter().position(|&c| c == '}')?;
                    let name: String = chars[i + 3..end].iter().collect();
                    let negated = (next == 'P') != name.starts_with('^');
                    let name = name.trim_start_matches('^').to_lowercase();
                    if let Some(class) = own_property(&name, negated) {
                        out.push_str(class);
                        own = true;
                    } else {
                        out.push_str(&format!("\\{}{{{name}}}", if negated { 'P' } else { 'p' }));
                    }
                    i = end + 1;
                }
                'd' | 'D' | 'w' | 'W' | 's' | 'S' if ecma_classes => {
                    out.push_str(ecma_class(next));
                    class_escape = true;
                    i += 2;
                }
                _ => {
                    out.push(c);
                    out.push(next);
                    class_escape = matches!(next, 'd' | 'D' | 's' | 'S' | 'w' | 'W');
                    i += 2;
                }
            }
            if let Some(item) = class.as_mut() {
                *item = next_item(*item);
                after_class_escape = class_escape;
                class_start = false;
            }
            continue;
        }
        let next = chars.get(i + 1).copied();
        i += 1;
        let Some(item) = class else {
            match c {
                '[' => {
                    class = Some(Item::Start);
                    class_start = true;
                    after_class_escape = false;
                    out.push(c);
                }
                '(' => {
                    let rest = chars.get(i..).unwrap_or_default();
                    let look = LOOKS.into_iter().find(|look| rest.starts_with(look));
                    open.push(look.is_some());
                    match look {
                        Some(look) => {
                            fancy = true;
                            out.push_str("(?:");
                            i += look.len();
                        }
                        None => out.push(c),
                    }
                }
                ')' => {
                    after_look = open.pop() == Some(true);
                    out.push(c);
                }
                '*' | '+' | '?' | '{' if !quantifiable => return None,
                '.' if ecma_classes => out.push_str(ecma_class('.')),
                _ => out.push(c),
            }
            continue;
        };
        match c {
            ']' => {
                class = None;
                out.push(c);
                continue;
            }
            '^' if class_start => {
                class_start = false;
                out.push(c);
                continue;
            }
            '-' if after_class_escape && next == Some('-') => {
                out.push_str("\\-\\-");
                i += 1;
            }
            '-' if item == Item::AfterAtom && next.is_some_and(|n| n != ']') => {
                class = Some(Item::RangeEnd);
                after_class_escape = false;
                out.push(c);
                continue;
            }
            '&' | '~' if next == Some(c) => {
                out.extend(['\\', c, '\\', c]);
                i += 1;
            }
            '[' => out.push_str("\\["),
            '-' if next == Some('-')
                || i.checked_sub(2).and_then(|j| chars.get(j)) == Some(&'-') =>
            {
                out.push_str("\\-");
            }
            _ => out.push(c),
        }
        class = Some(next_item(item));
        after_class_escape = false;
        class_start = false;
    }
    Some(Reading {
        rust: out,
        fancy,
        own_property: own,
    })
}

/// ECMA-262's reading of `.` or of a class escape (`d`, `w`, `s` and their negations), in Rust's
/// syntax: `\\d` and `\\w` are ASCII, `\\s` has Unicode's spaces, `.` refuses every line terminator.
fn ecma_class(escape: char) -> &'static str {
    match escape {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        'w' => "[A-Za-z0-9_]",
        'W' => "[^A-Za-z0-9_]",
        's' => {
            r"[\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]"
        }
        'S' => {
            r"[^\t-\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}]"
        }
        _ => r"[^\n\r\x{2028}\x{2029}]",
    }
}

/// The class item state after one atom.
fn next_item(item: Item) -> Item {
    match item {
        Item::RangeEnd => Item::Start,
        Item::Start | Item::AfterAtom => Item::AfterAtom,
    }
}

/// How many capturing groups `chars` opens: `(` not followed by `?`, and named groups.
fn capture_groups(chars: &[char]) -> usize {
    let mut groups = 0;
    let mut in_class = false;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                let rest: String = chars[i + 1..].iter().take(3).collect();
                let named = (rest.starts_with("?<")
                    && !rest.starts_with("?<=")
                    && !rest.starts_with("?<!"))
                    || rest.starts_with("?P<");
                if !rest.starts_with('?') || named {
                    groups += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    groups
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

    /// The verdict is `jsonschema`'s (what `serve` validates with) on every ECMA-262 pattern
    /// (as `regress` reads it): on patterns that ECMA-262, Rust and Python read differently, on
    /// each rewrite the validator makes, on counts near its engine's size limit, and on every
    /// string of up to three characters from regular-expression syntax. A pattern ECMA-262 refuses is left out even where the
    /// validator takes it (`^*`).
    #[test]
    fn the_verdict_is_the_validators() {
        let jsonschema = |pattern: &str| {
            let schema = json!({ "pattern": pattern });
            jsonschema::draft202012::meta::is_valid(&schema)
                && jsonschema::draft202012::new(&schema).is_ok()
        };
        let ecma =
            |pattern: &str| regress::Regex::with_flags(&pattern.replace("(?P<", "(?<"), "").is_ok();
        let mut patterns: Vec<String> = [
            "^[a-z]+$",
            "[A-Za-z0-9\\_\\-]+",
            "^[\\w-.]+$",
            "[\\w--z]",
            "[\\d-_/]",
            "[a-z--b]",
            "(?!\\s*$).+",
            "^(\\/(?!\\.)+[^/]+)$",
            "(?<=a)b(?<!c)",
            "(?<year>\\d{4})-\\k<year>",
            "(a)(b)\\2",
            "(a)\\2",
            "\\000",
            "[^/:|\\000-\\037]+",
            "(?P<name>.*)",
            "[\\uD800-\\uDFFF]",
            "\\p{IsLetter}+",
            "\\p{XDigit}{8}",
            "\\p{Print}+",
            "[\\p{Graph}\\x20]*",
            "\\P{Alnum}",
            "\\p{^L}",
            "\\p{Script=Greek}",
            "[\\p{Print}&&[^|:/]]+",
            "[[A-Z0-9]{1,18}",
            "[a~~b]",
            "[a-zA-Z0-9]{1-20}",
            "who's {Name}?",
            "^.{0,262144}$",
            "\\S{1,8192}",
            "\\A\\w+\\Z",
            "\\A\\w+\\z",
            "a{2,1}",
            "a{,2}",
            "\\cJ",
            "[\\cJ]",
            "\\c1",
            "\\a",
            "(?i)abc",
            "^*",
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
            let kept = is_valid_regex(pattern);
            assert_eq!(kept, jsonschema(pattern) && ecma(pattern), "{pattern:?}");
        }
        assert!(!is_valid_regex("^*") && jsonschema("^*"));
        // Large counts: kept within the engine's size limit, left out past it.
        let large = [
            ("x.{3000}", true),
            ("^.{1,2097152}", true),
            ("[\\P{M}\\p{M}]{0,20000}", true),
            ("^[\\s\\S]{0,262144}$", true),
            ("x\\p{L}{1000}", false),
            ("x.{10000}", false),
            ("x[a-z]{150000}", false),
            ("(?!q)x\\w{300}", false),
            ("x\\p{Print}{300}", false),
            ("^\\p{Print}{0,300}$", false),
        ];
        for (pattern, kept) in large {
            assert_eq!(is_valid_regex(pattern), kept, "{pattern:?}");
            assert_eq!(jsonschema(pattern), kept, "{pattern:?}");
        }
    }
}
