//! Naming: tool names from `operationId` (or method + path), in the chosen style, restricted to
//! `[A-Za-z0-9_-]`, shortened to a length limit with a stable hash, and made unique.
//!
//! Uniqueness never depends on the order of unrelated operations: when several operations want the
//! same name, each of them gets a suffix hashed from its own `METHOD path`, so adding or removing an
//! operation elsewhere in the document never renames a tool.

use crate::model::{Identity, Method};
pub(crate) use crate::schema::{key_safe, stable_hash};
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
pub(crate) const HASH_SUFFIX_LEN: usize = 7;
/// The shortest `--max-name-len` we accept (room for a few letters plus the hash).
pub(crate) const MIN_NAME_LEN: usize = 16;

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
pub(crate) fn wanted_name(op: &Identity<'_>, style: NameStyle) -> String {
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
pub(crate) fn method_path_words(method: Method, path: &str) -> String {
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
pub(crate) fn snake_case(s: &str) -> String {
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
pub(crate) fn ascii_words(s: &str) -> Option<Vec<&str>> {
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
pub(crate) fn sanitize(s: &str, sep: char) -> String {
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

/// The pieces of `name` that start a word: at the start, after `_` or `-` (the separator kept
/// at the piece's front) and at a capital that follows a lower-case letter or a digit.
fn pieces(name: &str) -> Vec<&str> {
    let is_separator = |c: u8| c == b'_' || c == b'-';
    let b = name.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..b.len() {
        let separator = is_separator(b[i]) && !is_separator(b[i - 1]);
        let camel = b[i].is_ascii_uppercase()
            && (b[i - 1].is_ascii_lowercase() || b[i - 1].is_ascii_digit());
        if separator || camel {
            out.push(&name[start..i]);
            start = i;
        }
    }
    out.push(&name[start..]);
    out
}

/// `name` in at most `room` characters, in whole words, for the operation `METHOD path`.
///
/// The first and the last word stay (the namespace or verb, and what the operation acts on or
/// for whom: `..._organization` against `..._repository`). Words in between are dropped until
/// the name fits: first a word the name repeats, then a word of the path's scope (its literal
/// segments before the last one, which the operation's siblings share), then any other word,
/// longest first; words with a digit (versions) stay. Only if that is not enough is the name cut
/// at a word boundary from its end, and only a first word longer than the room is cut inside.
/// Everything here comes from the operation itself, so adding an operation never renames one.
fn fit_words(name: &str, room: usize, key: &str) -> String {
    let pieces = pieces(name);
    let words: Vec<String> = pieces
        .iter()
        .map(|p| p.trim_start_matches(['_', '-']).to_ascii_lowercase())
        .collect();
    let path = key.split_once(' ').map_or(key, |(_, p)| p);
    let literal: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .collect();
    let words_of = |segments: &[&str]| -> Vec<String> {
        let joined = segments.iter().map(|s| snake_case(s)).collect::<Vec<_>>();
        joined
            .iter()
            .flat_map(|s| s.split('_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (scope, last) = match literal.split_last() {
        Some((last, scope)) => (words_of(scope), words_of(&[last])),
        None => (Vec::new(), Vec::new()),
    };
    let middle = 1..pieces.len().saturating_sub(1);
    let has_digit = |i: usize| words[i].bytes().any(|b| b.is_ascii_digit());
    let longest_first = |mut v: Vec<usize>| {
        v.sort_by_key(|&i| (std::cmp::Reverse(pieces[i].len()), std::cmp::Reverse(i)));
        v
    };
    let mut order: Vec<usize> = middle
        .clone()
        .filter(|&i| words[..i].contains(&words[i]))
        .collect();
    let in_scope = middle
        .clone()
        .filter(|&i| !order.contains(&i) && !has_digit(i))
        .filter(|&i| scope.contains(&words[i]) && !last.contains(&words[i]))
        .collect();
    order.extend(longest_first(in_scope));
    let rest = middle
        .filter(|&i| !order.contains(&i) && !has_digit(i))
        .collect();
    order.extend(longest_first(rest));
    let mut keep = vec![true; pieces.len()];
    let mut len = name.len();
    for i in order {
        if len <= room {
            break;
        }
        keep[i] = false;
        len -= pieces[i].len();
    }
    let kept: Vec<&str> = pieces
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(p, _)| *p)
        .collect();
    let mut out = String::with_capacity(room);
    for (i, p) in kept.iter().enumerate() {
        if out.len() + p.len() > room {
            if i == 0 {
                out.push_str(&p[..room]);
            }
            break;
        }
        out.push_str(p);
    }
    out.trim_end_matches(['_', '-']).to_string()
}

/// Fit `name`, the name of the operation `METHOD path` (`key`), into `max` characters, in whole
/// words and with a hash of the full name when it must be cut.
pub(crate) fn shorten(name: &str, key: &str, max: usize, style: NameStyle) -> (String, bool) {
    if name.len() <= max {
        return (name.to_string(), false);
    }
    let room = max.saturating_sub(HASH_SUFFIX_LEN);
    (
        format!(
            "{}{}{}",
            fit_words(name, room, key),
            separator(style),
            hash6(name)
        ),
        true,
    )
}

/// Give every operation a final, unique name. `ops[i]` is (wanted name, `METHOD path` key).
pub(crate) fn assign(wanted: &[(String, String)], max: usize, style: NameStyle) -> Vec<Named> {
    let mut count: FxHashMap<&str, usize> = FxHashMap::default();
    for (w, _) in wanted {
        *count.entry(w.as_str()).or_default() += 1;
    }
    let mut out: Vec<Named> = wanted
        .iter()
        .map(|(w, key)| {
            if count[w.as_str()] > 1 {
                let room = max.saturating_sub(HASH_SUFFIX_LEN);
                let base = fit_words(w, room, key);
                Named {
                    name: format!("{base}{}{}", separator(style), hash6(key)),
                    wanted: w.clone(),
                    truncated: w.len() > room,
                    collided: true,
                }
            } else {
                let (name, truncated) = shorten(w, key, max, style);
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
                fit_words(&out[i].wanted, room, &wanted[i].1),
                separator(style),
                suffix
            );
            out[i].collided = true;
        }
    }
    out
}

/// `get_pets_by_pet_id` -> `Get pets by pet id`: a readable title from a name.
pub(crate) fn readable(name: &str) -> String {
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
    /// characters from a mix of cases, digits and separators, every string of up to three with a
    /// non-ASCII letter among them, and every operationId and path in `specs/`. Text that is not
    /// ASCII goes through `heck` itself on both sides (`ascii_words` is `None`), so longer strings
    /// with the non-ASCII letter (468,559 of the six-character ones alone: more than half of
    /// this test's time) only compared `heck` with `heck`.
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
        let ascii = ['a', 'B', 'c', 'D', '1', '_', '-', '.', ' '];
        let mut strings = vec![String::new()];
        for len in 1..=6 {
            let alphabet: Vec<char> = ascii.into_iter().chain((len <= 3).then_some('é')).collect();
            strings = strings
                .iter()
                .filter(|s| s.is_ascii())
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
        let (s, cut) = shorten(long, "GET /long", 64, NameStyle::Snake);
        assert!(cut);
        assert!(s.len() <= 64, "{s}");
        assert_eq!(s, shorten(long, "GET /long", 64, NameStyle::Snake).0);
        assert!(
            s.starts_with("a_very_long_name") && s.contains("_sixty_four_"),
            "{s}"
        );
    }

    /// A long name keeps its first and last words, whole, and drops words in between: repeats,
    /// then the path's scope, then the longest; names that share a long prefix stay apart by
    /// more than their hash. Only a first word longer than the room is cut inside.
    #[test]
    fn shortened_names_keep_whole_words_that_tell_them_apart() {
        let strip = |s: String| s[..s.len() - HASH_SUFFIX_LEN].to_string();
        let snake = |name: &str, key: &str| strip(shorten(name, key, 64, NameStyle::Snake).0);
        assert_eq!(
            snake(
                "actions_get_github_actions_default_workflow_permissions_organization",
                "GET /orgs/{org}/actions/permissions/workflow"
            ),
            "actions_get_github_default_workflow_organization"
        );
        assert_eq!(
            snake(
                "actions_get_github_actions_default_workflow_permissions_repository",
                "GET /repos/{owner}/{repo}/actions/permissions/workflow"
            ),
            "actions_get_github_default_workflow_repository"
        );
        // The version stays; the API group (scope) goes first.
        assert_eq!(
            snake(
                "delete_flowcontrol_apiserver_v1beta3_collection_priority_level_configuration",
                "DELETE /apis/flowcontrol.apiserver.k8s.io/v1beta3/prioritylevelconfigurations"
            ),
            "delete_v1beta3_collection_priority_level_configuration"
        );
        let camel = shorten(
            "getGithubActionsDefaultWorkflowPermissionsOrganization",
            "GET /orgs/{org}/actions/permissions/workflow",
            40,
            NameStyle::Camel,
        );
        assert_eq!(strip(camel.0), "getGithubDefaultOrganization");
        let kebab = shorten(
            "delete-admissionregistration-v1-collection-validating-admission-policy",
            "DELETE /apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
            64,
            NameStyle::Kebab,
        );
        assert_eq!(
            strip(kebab.0),
            "delete-v1-collection-validating-admission-policy"
        );
        let long = "x".repeat(80);
        let (w, _) = shorten(&long, "GET /x", 20, NameStyle::Snake);
        assert_eq!(w, format!("{}_{}", "x".repeat(13), hash6(&long)));
        assert_eq!(
            pieces("getV2Pets_by-id"),
            ["get", "V2", "Pets", "_by", "-id"]
        );
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
