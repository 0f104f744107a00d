//! Naming: tool names from `operationId` (or method + path), in the chosen style, restricted to
//! `[A-Za-z0-9_-]`, shortened to a length limit with a stable hash, and made unique.
//!
//! Uniqueness never depends on the order of unrelated operations: when several operations want the
//! same name, each of them gets a suffix hashed from its own `METHOD path`, so adding or removing an
//! operation elsewhere in the document never renames a tool.

use crate::model::{Identity, Method};
pub use crate::schema::{key_safe, stable_hash};
use heck::{ToKebabCase, ToLowerCamelCase, ToSnakeCase};
use rustc_hash::FxHashMap;

/// How tool names are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum NameStyle {
    /// `list_pets` (default)
    #[default]
    Snake,
    /// `listPets`
    Camel,
    /// `list-pets`
    Kebab,
    /// The `operationId` as written (unsafe characters replaced by `_`).
    Original,
}

/// Length of the hash suffix added when a name is cut or disambiguated, separator included.
pub const HASH_SUFFIX_LEN: usize = 7;
/// The shortest `--max-name-len` we accept (room for a few letters plus the hash).
pub const MIN_NAME_LEN: usize = 16;

/// A tool's final name and how it came to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    /// The name before shortening and de-duplication.
    pub wanted: String,
    /// Cut to fit the length limit.
    pub truncated: bool,
    /// Shared its wanted name with another operation and got a hash suffix.
    pub collided: bool,
}

/// The name an operation asks for, before length limits and de-duplication.
pub fn wanted_name(op: &Identity<'_>, style: NameStyle) -> String {
    let from_id = op
        .operation_id
        .map(|id| styled(id, style))
        .filter(|n| !n.is_empty());
    from_id.unwrap_or_else(|| {
        let style = if style == NameStyle::Original {
            NameStyle::Snake
        } else {
            style
        };
        let name = styled(&method_path_words(op.method, op.path), style);
        if name.is_empty() {
            op.method.key().to_string()
        } else {
            name
        }
    })
}

/// `get /pets/{petId}` -> `get pets by petId` (words for the style functions).
pub fn method_path_words(method: Method, path: &str) -> String {
    let mut words = vec![method.key().to_string()];
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if let Some(param) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            words.push("by".into());
            words.push(param.to_string());
        } else {
            words.push(segment.to_string());
        }
    }
    if words.len() == 1 {
        words.push("root".into());
    }
    words.join(" ")
}

pub(crate) fn styled(raw: &str, style: NameStyle) -> String {
    let separator = separator(style);
    let converted = match style {
        NameStyle::Snake => snake_case(raw),
        NameStyle::Camel => raw.to_lower_camel_case(),
        NameStyle::Kebab => raw.to_kebab_case(),
        NameStyle::Original => raw.to_string(),
    };
    sanitize(&converted, separator)
}

/// `heck`'s snake case (`listPets` -> `list_pets`), worked out directly for ASCII text (names
/// nearly always are): `heck` writes each character through a formatter, a large share of
/// naming a large API's tools.
pub fn snake_case(s: &str) -> String {
    let Some(words) = ascii_words(s) else {
        return s.to_snake_case();
    };
    let mut out = String::with_capacity(s.len() + words.len());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push('_');
        }
        out.extend(w.chars().map(|c| c.to_ascii_lowercase()));
    }
    out
}

/// The words `heck` 0.5 splits ASCII text `s` into (`None` for other text): the runs of letters
/// and digits, each split where a lower-case letter is followed by a capital (`listPets`) and
/// before the last capital of a run that a lower-case letter follows (`HTTPServer`: `HTTP`,
/// `Server`); a digit continues whatever came before it.
pub fn ascii_words(s: &str) -> Option<Vec<&str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lower,
        Upper,
    }
    if !s.is_ascii() {
        return None;
    }
    let mut words = Vec::new();
    for word in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = word.as_bytes();
        let (mut init, mut mode) = (0, Mode::Boundary);
        for i in 0..b.len() {
            let c = b[i];
            let Some(&next) = b.get(i + 1) else {
                words.push(&word[init..]);
                break;
            };
            let next_mode = if c.is_ascii_lowercase() {
                Mode::Lower
            } else if c.is_ascii_uppercase() {
                Mode::Upper
            } else {
                mode
            };
            if next_mode == Mode::Lower && next.is_ascii_uppercase() {
                words.push(&word[init..=i]);
                (init, mode) = (i + 1, Mode::Boundary);
            } else if mode == Mode::Upper && c.is_ascii_uppercase() && next.is_ascii_lowercase() {
                words.push(&word[init..i]);
                (init, mode) = (i, Mode::Boundary);
            } else {
                mode = next_mode;
            }
        }
    }
    Some(words)
}

fn separator(style: NameStyle) -> char {
    if style == NameStyle::Kebab { '-' } else { '_' }
}

/// Replace characters outside `[A-Za-z0-9_-]` by `sep`, collapse repeats, trim the ends.
pub fn sanitize(s: &str, sep: char) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            sep
        };
        if c == sep && out.ends_with(sep) {
            continue;
        }
        out.push(c);
    }
    out.trim_matches(|c| c == '_' || c == '-').to_string()
}

fn hash6(s: &str) -> String {
    format!("{:06x}", stable_hash(s) >> 40)
}

/// Cut `name` to `room` characters at a word boundary when one is near, without a trailing separator.
fn cut(name: &str, room: usize) -> &str {
    let head = &name[..room.min(name.len())];
    let boundary = head.rfind(['_', '-']).filter(|&i| i + 8 >= room && i > 0);
    let head = match boundary {
        Some(i) => &head[..i],
        None => head,
    };
    head.trim_end_matches(['_', '-'])
}

/// Fit `name` into `max` characters, adding a hash of the full name when it must be cut.
pub fn shorten(name: &str, max: usize, style: NameStyle) -> (String, bool) {
    if name.len() <= max {
        return (name.to_string(), false);
    }
    let room = max.saturating_sub(HASH_SUFFIX_LEN);
    (
        format!("{}{}{}", cut(name, room), separator(style), hash6(name)),
        true,
    )
}

/// Give every operation a final, unique name. `ops[i]` is (wanted name, `METHOD path` key).
pub fn assign(wanted: &[(String, String)], max: usize, style: NameStyle) -> Vec<Named> {
    let mut count: FxHashMap<&str, usize> = FxHashMap::default();
    for (w, _) in wanted {
        *count.entry(w.as_str()).or_default() += 1;
    }
    let mut out: Vec<Named> = wanted
        .iter()
        .map(|(w, key)| {
            if count[w.as_str()] > 1 {
                let room = max.saturating_sub(HASH_SUFFIX_LEN);
                let base = cut(w, room);
                Named {
                    name: format!("{base}{}{}", separator(style), hash6(key)),
                    wanted: w.clone(),
                    truncated: w.len() > room,
                    collided: true,
                }
            } else {
                let (name, truncated) = shorten(w, max, style);
                Named {
                    name,
                    wanted: w.clone(),
                    truncated,
                    collided: false,
                }
            }
        })
        .collect();
    // A shortened or suffixed name may still meet another (astronomically rare): fall back to
    // suffixes from the operation key, made longer until every name is unique.
    for round in 0..4 {
        let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
        let mut clash = Vec::new();
        for (i, n) in out.iter().enumerate() {
            if let Some(&j) = seen.get(n.name.as_str()) {
                clash.push(i);
                clash.push(j);
            } else {
                seen.insert(&n.name, i);
            }
        }
        if clash.is_empty() {
            break;
        }
        for i in clash {
            let hex = format!("{:016x}", stable_hash(&format!("{round}{}", wanted[i].1)));
            let suffix = &hex[..8 + 2 * round];
            let room = max.saturating_sub(suffix.len() + 1);
            out[i].name = format!(
                "{}{}{}",
                cut(&out[i].wanted, room),
                separator(style),
                suffix
            );
            out[i].collided = true;
        }
    }
    out
}

/// `get_pets_by_pet_id` -> `Get pets by pet id`: a readable title from a name.
pub fn readable(name: &str) -> String {
    let words = snake_case(name).replace('_', " ");
    let mut chars = words.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `snake_case` is `heck`'s, and `vocab::words` its words: for every string of up to six
    /// characters from a mix of cases, digits and separators, and for every operationId and path
    /// in `specs/`.
    #[test]
    fn snake_case_is_hecks() {
        let check = |s: &str| {
            let heck = s.to_snake_case();
            assert_eq!(snake_case(s), heck, "{s:?}");
            let words: Vec<String> = heck
                .split('_')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            assert_eq!(super::super::vocab::words(s), words, "{s:?}");
        };
        let alphabet = ['a', 'B', 'c', 'D', '1', '_', '-', '.', ' ', 'é'];
        let mut strings = vec![String::new()];
        for _ in 0..6 {
            strings = strings
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            strings.iter().for_each(|s| check(s));
        }
        for (_, tree) in crate::test_support::spec_trees() {
            let Some(paths) = tree.get("paths").and_then(|p| p.as_object()) else {
                continue;
            };
            for (path, item) in paths {
                check(path);
                for op in item.as_object().into_iter().flat_map(|m| m.values()) {
                    if let Some(id) = op.get("operationId").and_then(|v| v.as_str()) {
                        check(id);
                    }
                }
            }
        }
    }

    /// The ASCII path gives `heck`'s words: random names over letters, digits and separators,
    /// and names `heck` splits in its own ways (acronyms, digits, repeated separators).
    #[test]
    fn styles() {
        assert_eq!(styled("listPets", NameStyle::Snake), "list_pets");
        assert_eq!(styled("list_pets", NameStyle::Camel), "listPets");
        assert_eq!(styled("listPets", NameStyle::Kebab), "list-pets");
        assert_eq!(styled("pets.list/v2", NameStyle::Original), "pets_list_v2");
        assert_eq!(styled("Ünïcode op", NameStyle::Snake), "n_code_op");
    }

    #[test]
    fn method_path_fallback() {
        assert_eq!(
            styled(
                &method_path_words(Method::Get, "/pets/{petId}"),
                NameStyle::Snake
            ),
            "get_pets_by_pet_id"
        );
        assert_eq!(
            styled(&method_path_words(Method::Delete, "/"), NameStyle::Snake),
            "delete_root"
        );
    }

    #[test]
    fn shorten_adds_stable_hash() {
        let long =
            "a_very_long_operation_name_that_goes_on_and_on_and_on_beyond_the_limit_of_sixty_four";
        let (s, cut) = shorten(long, 64, NameStyle::Snake);
        assert!(cut);
        assert!(s.len() <= 64, "{s}");
        assert_eq!(s, shorten(long, 64, NameStyle::Snake).0);
        assert!(s.starts_with("a_very_long_operation"));
    }

    #[test]
    fn collisions_do_not_depend_on_unrelated_order() {
        let a = ("get_pets".to_string(), "GET /pets".to_string());
        let b = ("get_pets".to_string(), "GET /v2/pets".to_string());
        let c = ("other".to_string(), "GET /other".to_string());
        let one = assign(&[a.clone(), b.clone()], 64, NameStyle::Snake);
        let two = assign(&[c, b, a], 64, NameStyle::Snake);
        assert_eq!(one[0].name, two[2].name);
        assert_eq!(one[1].name, two[1].name);
        assert_ne!(one[0].name, one[1].name);
        assert!(one[0].collided && one[0].name.starts_with("get_pets_"));
        assert_eq!(two[0].name, "other");
    }

    #[test]
    fn readable_titles() {
        assert_eq!(readable("get_pets_by_pet_id"), "Get pets by pet id");
        assert_eq!(readable("listPets"), "List pets");
    }
}
