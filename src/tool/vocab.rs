//! Vocabulary: what the words of a tool name, summary or path say it does — reads, writes or
//! destroys — for the hint suggestions and the name-versus-hints lint.
//!
//! Names are split into words whatever their style (`deleteUser`, `delete_user`, `delete-user`,
//! `Users.DeleteUser`). The verb is the first word when it is a known verb (`delete_user`), else the
//! last (`pets_list`, the resource-first style of Google and Microsoft APIs), else the first known
//! verb in between (`v1_get_users`). Two-word verbs (`log_out`, `sign_in`, `look_up`) count as one.
//! Ambiguous words (`check`, `validate`, `process`, `order`) are deliberately left out: no verdict
//! beats a wrong one.

use super::suggest::Confidence;
use heck::ToSnakeCase;

/// What a verb says about a tool's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Only reads (`get`, `list`, `search`).
    Reads,
    /// Changes state additively or in place (`create`, `update`, `send`, `logout`).
    Writes,
    /// Creates something new (`create`, `add`, `insert`): a kind of write.
    Creates,
    /// Removes or irreversibly changes something (`delete`, `cancel`, `refund`, `revoke`).
    Destroys,
}

const READS: &[&str] = &[
    "get", "list", "search", "find", "query", "fetch", "read", "show", "describe", "lookup",
    "retrieve", "view", "browse", "count", "download", "preview", "inspect", "lists", "gets",
    "exists", "peek", "poll", "batchget",
];

/// Destroying verbs that can often be undone (a closed issue reopens, an archived item comes
/// back); [`STRONG_DESTROYS`] are the others.
const WEAK_DESTROYS: &[&str] = &[
    "deactivate",
    "disable",
    "detach",
    "unlink",
    "unsubscribe",
    "ban",
    "archive",
    "reject",
    "decline",
    "suspend",
    "unpublish",
    "retract",
    "withdraw",
    "delist",
    "unassign",
    "unshare",
    "block",
    "close",
    "shutdown",
    "cleanup",
    "dismiss",
    "kick",
    "unfollow",
    "untag",
    "disassociate",
    "unset",
];

const CREATES: &[&str] = &[
    "create",
    "add",
    "insert",
    "post",
    "generate",
    "register",
    "issue",
    "upload",
    "clone",
    "copy",
    "import",
    "invite",
    "provision",
    "signup",
    "make",
    "build",
    "duplicate",
    "fork",
];

const WRITES: &[&str] = &[
    "update",
    "set",
    "patch",
    "put",
    "modify",
    "edit",
    "change",
    "save",
    "assign",
    "attach",
    "link",
    "subscribe",
    "login",
    "logout",
    "signin",
    "signout",
    "logoff",
    "authorize",
    "approve",
    "confirm",
    "accept",
    "activate",
    "enable",
    "complete",
    "move",
    "rename",
    "restore",
    "resume",
    "pause",
    "stop",
    "start",
    "restart",
    "sync",
    "upsert",
    "apply",
    "mark",
    "merge",
    "lock",
    "unlock",
    "follow",
    "like",
    "book",
    "reserve",
    "pay",
    "charge",
    "transfer",
    "capture",
    "notify",
    "schedule",
    "invoke",
    "send",
    "submit",
    "publish",
    "share",
    "vote",
    "reply",
    "redeem",
    "claim",
    "trigger",
    "run",
    "execute",
    "deploy",
    "install",
    "enroll",
    "increment",
    "decrement",
    "upgrade",
    "downgrade",
    "rotate",
    "refresh",
    "reboot",
    "retry",
    "transition",
    "emit",
    "push",
    "write",
    "store",
    "put",
    "replay",
    "enqueue",
    "exec",
    "rerun",
    "dispatch",
];

/// Split a name or sentence into lower-case words.
pub(crate) fn words(text: &str) -> Vec<String> {
    if let Some(words) = super::naming::ascii_words(text) {
        return words
            .into_iter()
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
    }
    text.to_snake_case()
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The first `n` of [`words`]`(text)`, splitting only as much of `text` as they need (no word
/// spans whitespace).
fn first_words(text: &str, n: usize) -> Vec<String> {
    let mut w = Vec::new();
    for token in text.split_whitespace() {
        w.extend(words(token));
        if w.len() >= n {
            w.truncate(n);
            break;
        }
    }
    w
}

/// The verb lists with their effects, first list first.
const EFFECT_LISTS: [(&[&str], Effect); 5] = [
    (STRONG_DESTROYS, Effect::Destroys),
    (WEAK_DESTROYS, Effect::Destroys),
    (CREATES, Effect::Creates),
    (WRITES, Effect::Writes),
    (READS, Effect::Reads),
];

/// The effect of a verb: that of the first of the lists (destroys, creates, writes, reads)
/// naming it.
pub(crate) fn effect_of(word: &str) -> Option<Effect> {
    // One table of the lists, looked up for every word of every name, summary and path.
    static EFFECTS: std::sync::LazyLock<rustc_hash::FxHashMap<&str, Effect>> =
        std::sync::LazyLock::new(|| {
            let mut table = rustc_hash::FxHashMap::default();
            for (words, effect) in EFFECT_LISTS.iter().rev() {
                table.extend(words.iter().map(|w| (*w, *effect)));
            }
            table
        });
    EFFECTS.get(word).copied()
}

/// The verb at `i` (joined with the next word when the pair is a two-word verb) and its effect.
fn verb_at(words: &[String], i: usize) -> Option<(String, Effect)> {
    if let Some(next) = words.get(i + 1) {
        let joined = format!("{}{}", words[i], next);
        if let Some(e) = effect_of(&joined) {
            return Some((joined, e));
        }
    }
    effect_of(&words[i]).map(|e| (words[i].clone(), e))
}

/// Version and namespace prefixes that are not part of the action (`v1_get_users`, `api_list`).
fn is_prefix(word: &str) -> bool {
    word == "api"
        || word.chars().all(|c| c.is_ascii_digit())
        || (word.starts_with('v')
            && word.len() > 1
            && word[1..].chars().all(|c| c.is_ascii_digit()))
}

/// An adverb that may lead a verb (`partially`, `fully`, `bulk`-less English `-ly` words).
fn is_adverb(word: &str) -> bool {
    word.len() > 4 && word.ends_with("ly") && effect_of(word).is_none()
}

/// Whether `name` has the method word `word` in capitals (`GET_Delete`, `v1_POSTCreate`).
fn method_in_capitals(name: &str, word: &str) -> bool {
    name.contains(&word.to_ascii_uppercase())
}

/// The verb a tool name leads with, and its effect.
pub(crate) fn name_verb(name: &str) -> Option<(String, Effect)> {
    name_verb_with_confidence(name).map(|(v, e, _)| (v, e))
}

/// [`name_verb`], also saying whether the verb stood at an end of the name.
pub(crate) fn name_verb_with_confidence(name: &str) -> Option<(String, Effect, Confidence)> {
    verb_of_words(name, &words(name))
}

/// The words a document uses as nouns: the names of its collections (a path segment followed by
/// a `{param}`: `/blocks/{hash}`), of its schemas (`DaemonSet`, `io.k8s.api.core.v1.Pod`) and
/// of its tags. A verb of a name that is the head of such a noun phrase (`daemon_set`,
/// `persistent_volume_claim`), or, past the name's first word, such a noun (`get_latest_block`),
/// is read as a noun. The first word of a name stays a verb (`block_user`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Nouns {
    /// Multi-word nouns, their last word singular, joined with spaces (`daemon set`).
    phrases: rustc_hash::FxHashSet<String>,
    /// One-word nouns, singular.
    singles: rustc_hash::FxHashSet<String>,
}

/// `word` without a plural ending (`blocks` -> `block`, `policies` -> `policy`).
fn singular(word: &str) -> std::borrow::Cow<'_, str> {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| s.len() > 1) {
        return format!("{stem}y").into();
    }
    word.strip_suffix("ses")
        .map(|_| &word[..word.len() - 2])
        .or_else(|| word.strip_suffix('s').filter(|w| !w.ends_with('s')))
        .unwrap_or(word)
        .into()
}

/// Most words of a noun phrase.
const PHRASE_WORDS: usize = 4;

impl Nouns {
    /// The nouns of a document with these paths, schema names and tags.
    pub(crate) fn from_document<'a>(
        paths: impl IntoIterator<Item = &'a str>,
        schemas: impl IntoIterator<Item = &'a str>,
        tags: impl IntoIterator<Item = &'a str>,
    ) -> Nouns {
        let mut n = Nouns::default();
        for path in paths {
            let segs: Vec<&str> = path.split('/').collect();
            for pair in segs.windows(2) {
                if pair[1].starts_with('{') && !pair[0].contains(['{', ':']) {
                    n.add(pair[0]);
                }
            }
        }
        for name in schemas {
            n.add(name.rsplit('.').next().unwrap_or(name));
        }
        for tag in tags {
            n.add(tag);
        }
        n
    }

    fn add(&mut self, name: &str) {
        let mut w = words(name);
        w.retain(|x| !x.chars().all(|c| c.is_ascii_digit()));
        match w.len() {
            0 => {}
            1 => {
                self.singles.insert(singular(&w[0]).into_owned());
            }
            n => {
                let start = n.saturating_sub(PHRASE_WORDS);
                for k in start..n - 1 {
                    self.phrases.insert(phrase(&w[k..]));
                }
            }
        }
    }

    /// Whether the document has no nouns.
    pub(crate) fn is_empty(&self) -> bool {
        self.phrases.is_empty() && self.singles.is_empty()
    }

    /// Whether `w[i]` is a noun of the document: the head of one of its noun phrases, or one of
    /// its one-word nouns when it is not the first word.
    pub(crate) fn at(&self, w: &[String], i: usize) -> bool {
        if self.is_empty() {
            return false;
        }
        if i > 0 && self.singles.contains(singular(&w[i]).as_ref()) {
            return true;
        }
        (i.saturating_sub(PHRASE_WORDS - 1)..i).any(|k| self.phrases.contains(&phrase(&w[k..=i])))
    }

    /// Whether `word`, a name's or summary's first word, is one of the document's one-word nouns.
    pub(crate) fn single(&self, word: &str) -> bool {
        self.singles.contains(singular(word).as_ref())
    }
}

/// Words joined with spaces, the last singular.
fn phrase(w: &[String]) -> String {
    let mut out = String::new();
    for (i, x) in w.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if i + 1 == w.len() {
            out.push_str(&singular(x));
        } else {
            out.push_str(x);
        }
    }
    out
}

/// An empty vocabulary: every known verb is a verb.
static NO_NOUNS: std::sync::LazyLock<Nouns> = std::sync::LazyLock::new(Nouns::default);

/// [`name_verb_with_confidence`] of `name` split into `all` ([`words`]).
fn verb_of_words(name: &str, all: &[String]) -> Option<(String, Effect, Confidence)> {
    verb_of_words_in(name, all, &NO_NOUNS)
}

/// [`verb_of_words`], the document's `nouns` not read as verbs.
fn verb_of_words_in(
    name: &str,
    all: &[String],
    nouns: &Nouns,
) -> Option<(String, Effect, Confidence)> {
    let mut start = all.iter().take_while(|w| is_prefix(w)).count();
    // `partiallyUpdateSprint`: an adverb before the verb.
    if all.get(start).is_some_and(|w| is_adverb(w))
        && all.get(start + 1).is_some_and(|w| effect_of(w).is_some())
    {
        start += 1;
    }
    // `GET_DeleteSnapshot`: a leading HTTP method word in capitals names the transport, not the
    // action (`get_link_sessions` is no transport: there `get` is the verb).
    if all
        .get(start)
        .is_some_and(|w| crate::model::Method::parse(w).is_some())
        && all.get(start + 1).is_some_and(|w| effect_of(w).is_some())
        && method_in_capitals(name, &all[start])
    {
        start += 1;
    }
    let w = &all[start..];
    if w.is_empty() {
        return None;
    }
    let verb_at = |w: &[String], i: usize| verb_at(w, i).filter(|_| !nouns.at(w, i));
    let sure = |v: Option<(String, Effect)>| v.map(|(v, e)| (v, e, Confidence::Sure));
    // `issue_delete_comment`, `run_cancel`: a first word that is as often a noun yields to a
    // verb right after it.
    if w.len() > 2
        && NOUN_VERBS.contains(&w[0].as_str())
        && let Some(v) = verb_at(w, 1)
    {
        return sure(Some(v));
    }
    // At the end of a longer name these are nouns (`acknowledge_notification_set`,
    // `get_data_view`), not the resource-first verb of `pets_list`.
    let last =
        verb_at(w, w.len() - 1).filter(|(v, _)| w.len() == 1 || !LAST_NOUNS.contains(&v.as_str()));
    sure(verb_at(w, 0)).or_else(|| sure(last)).or_else(|| {
        (1..w.len().saturating_sub(1))
            .find_map(|i| verb_at(w, i))
            .map(|(v, e)| (v, e, Confidence::Unsure))
    })
}

/// The verb a summary starts with ("Deletes a pet" -> delete), for names without one.
pub(crate) fn summary_verb(summary: &str) -> Option<(String, Effect)> {
    let mut w = first_words(summary, 3);
    // "Partially update a sprint": an adverb before the verb.
    if w.first().is_some_and(|a| is_adverb(a)) {
        w.remove(0);
    }
    w.truncate(2);
    let first = w.first()?;
    // Microsoft Graph: "Invoke function x" reads (functions are side-effect free; actions are not).
    if matches!(first.as_str(), "invoke" | "invokes") && w.get(1).is_some_and(|f| f == "function") {
        return Some(("invoke function".into(), Effect::Reads));
    }
    let candidates = [
        Some(first.as_str()),
        first.strip_suffix("es"),
        first.strip_suffix('s'),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|c| effect_of(c).map(|e| (c.to_string(), e)))
}

/// A verb as written: its bare form (`delete`) or its third person (`deletes`).
fn verb_form(word: &str) -> Option<(String, Effect, bool)> {
    [word.strip_suffix("es"), word.strip_suffix('s')]
        .into_iter()
        .flatten()
        .find_map(|c| effect_of(c).map(|e| (c.to_string(), e, true)))
        .or_else(|| effect_of(word).map(|e| (word.to_string(), e, false)))
}

/// The verbs joined to the first one by `or` or `and` (`Get or update`, `get/set`,
/// `listAndDelete`, `Lists and deletes`, `enable or disable`), in the first clause of `text`
/// (up to `.`, `;`, `:` or `(`): each right after the verb before it, in the first verb's form
/// (`Gets builds and runs`: the plural `runs` is a noun; `Get contexts and issue types`: not
/// joined). The first verb itself is not returned.
pub(crate) fn joined_verbs(text: &str) -> Vec<(String, Effect)> {
    let clause = text.split(['.', ';', ':', '(', '\n']).next().unwrap_or("");
    let clause: String = clause
        .chars()
        .take(200)
        .collect::<String>()
        .replace('/', " or ");
    let w = words(&clause);
    let Some((_, _, third)) = w.first().and_then(|f| verb_form(f)) else {
        return Vec::new();
    };
    let mut out: Vec<(String, Effect)> = Vec::new();
    let mut i = 1;
    while i + 1 < w.len() && matches!(w[i].as_str(), "or" | "and") {
        match verb_form(&w[i + 1]) {
            Some((v, e, t)) if t == third => {
                if !out.iter().any(|(o, _)| *o == v) {
                    out.push((v, e));
                }
            }
            _ => break,
        }
        i += 2;
    }
    out
}

/// What a description says of an effect that cannot be taken back: `irreversible` (or
/// "cannot be undone", "permanently deleted"), else that it overwrites ("overwrites",
/// "replaces"). The phrase found, and whether it is irreversible;
/// `None` when nothing is said or the phrase is negated ("does not permanently delete").
/// Reads English, and the first few thousand characters only.
pub(crate) fn description_says(text: &str) -> Option<(&'static str, bool)> {
    let mut end = text.len().min(4000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let w: Vec<String> = text[..end]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let negated = |i: usize| {
        (i.saturating_sub(3)..i)
            .any(|j| matches!(at(j), "not" | "never" | "no" | "without" | "t" | "nothing"))
    };
    let removes = |s: &str| {
        [
            "delet", "remov", "eras", "destroy", "purg", "lost", "wip", "revok",
        ]
        .iter()
        .any(|p| s.starts_with(p))
    };
    let mut overwrite = None;
    for i in 0..w.len() {
        let found = match at(i) {
            "irreversible" | "irreversibly" => Some(("irreversible", true)),
            "cannot" | "can"
                if {
                    let j = if at(i) == "can" { i + 1 } else { i };
                    (at(i) == "cannot" || matches!(at(j), "not" | "t"))
                        && at(j + 1) == "be"
                        && matches!(at(j + 2), "undone" | "reversed" | "recovered")
                } =>
            {
                Some(("cannot be undone", true))
            }
            "permanently" if (i.saturating_sub(3)..i + 4).any(|j| j != i && removes(at(j))) => {
                Some(("permanently", true))
            }
            "overwrite" | "overwrites" | "overwritten" | "overwriting" => {
                Some(("overwrites", false))
            }
            "replace" | "replaces"
                if (i + 1..i + 4).any(|j| {
                    matches!(
                        at(j),
                        "existing" | "current" | "entire" | "all" | "any" | "whole"
                    )
                }) =>
            {
                Some(("replaces", false))
            }
            _ => None,
        };
        match found {
            Some(_) if negated(i) => {}
            Some(f @ (_, true)) => return Some(f),
            Some(f) => {
                overwrite.get_or_insert(f);
            }
            None => {}
        }
    }
    overwrite
}

/// Whether a description says the operation creates or updates (an upsert: it sets the values
/// it is given, so a repeat changes nothing more). Reads English, the first sentence only.
pub(crate) fn says_upsert(text: &str) -> bool {
    let first = text.split(['.', '\n']).next().unwrap_or("");
    let w = words(&first.chars().take(200).collect::<String>());
    w.windows(3).any(|t| {
        matches!(t[0].as_str(), "create" | "creates")
            && t[1] == "or"
            && matches!(t[2].as_str(), "update" | "updates" | "replace" | "replaces")
    }) || w.iter().any(|x| x == "upsert" || x == "upserts")
}

/// [`summary_verb`], unless the summary of an operation with a safe method starts with one of the
/// document's nouns: then it is a title ("Block contents"), not an order.
pub(crate) fn summary_verb_in(
    summary: &str,
    safe: bool,
    nouns: &Nouns,
) -> Option<(String, Effect)> {
    let titled = safe
        && words(summary.split_whitespace().next().unwrap_or(""))
            .first()
            .is_some_and(|w| nouns.single(w));
    if titled { None } else { summary_verb(summary) }
}

/// Words that lead a name as a noun about as often as a verb (`issue`, `post`, `run`).
const NOUN_VERBS: &[&str] = &[
    "issue", "post", "book", "share", "link", "run", "like", "block", "mark", "set", "lock",
    "copy", "schedule", "transfer", "charge", "upload", "trigger", "lists", "view", "count",
];

/// Verbs that end a name as a noun (`NotificationSet`, `DataView`, `VaultLock`).
const LAST_NOUNS: &[&str] = &[
    "set", "view", "lock", "link", "block", "schedule", "post", "issue",
];

/// Read verbs that say "reads only" even on a POST (`search`, `query`, `list`); the others
/// (`get`, `fetch`, `download`) are often used for a POST that also creates something.
const STRONG_READS: &[&str] = &[
    "search", "query", "list", "find", "lookup", "count", "describe", "browse", "exists",
    "preview", "inspect", "batchget",
];

/// Destroying verbs that leave no doubt; the rest (`close`, `archive`, `disable`, `block`) can be
/// undone on many APIs.
const STRONG_DESTROYS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "purge",
    "erase",
    "wipe",
    "drop",
    "revoke",
    "cancel",
    "refund",
    "terminate",
    "kill",
    "void",
    "truncate",
    "clear",
    "reset",
    "overwrite",
    "replace",
    "rollback",
    "revert",
    "deprovision",
    "evict",
    "flush",
    "prune",
    "discard",
    "uninstall",
    "unregister",
    "deregister",
    "softdelete",
    "abort",
    "expire",
    "invalidate",
];

/// Writing verbs whose effect overwrites existing data or cannot be taken back: they run
/// arbitrary work (`run`, `exec`, `trigger`), join or move state (`merge`, `apply`,
/// `transition`, `restore`; a `move` deletes its source) or change a resource in place
/// (`update`, `set`, `save`).
const OVERWRITES: &[&str] = &[
    "merge",
    "move",
    "apply",
    "exec",
    "execute",
    "run",
    "rerun",
    "trigger",
    "dispatch",
    "deploy",
    "transition",
    "restore",
    "rotate",
    "sync",
    "update",
    "set",
    "save",
    "edit",
    "modify",
    "patch",
    "put",
    "upsert",
    "change",
];

/// What a verb says, finer than [`Effect`]: what the hint suggestion weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Only reads.
    Reads,
    /// Adds or changes state without destroying anything (`create`, `send`, `approve`).
    Adds,
    /// Removes, overwrites or runs something that cannot be taken back.
    Destroys,
}

/// A verb's [`Verdict`] and whether the word alone settles it.
pub(crate) fn verdict(verb: &str, effect: Effect) -> (Verdict, bool) {
    match effect {
        Effect::Reads => (Verdict::Reads, STRONG_READS.contains(&verb)),
        Effect::Destroys => (Verdict::Destroys, STRONG_DESTROYS.contains(&verb)),
        Effect::Writes if OVERWRITES.contains(&verb) => (Verdict::Destroys, false),
        Effect::Writes | Effect::Creates => (Verdict::Adds, false),
    }
}

/// The part of an operationId that names the action: after the last `/` or `.` of a namespaced
/// id (`actions/cancel-workflow-run`, `Users.DeleteUser`, `compute.instances.delete`), or after
/// the last `_` before a capital (`QueryPacks_Delete`), when that part has a verb; else the
/// whole id.
pub(crate) fn action_part(id: &str) -> &str {
    let tail = |i: usize| &id[i + 1..];
    // A tail that is only an HTTP method word (`UpdateGroups_Post`) is the transport.
    let acts = |t: &str| {
        name_verb(t).is_some()
            && !["post", "put", "patch"].contains(&t.to_ascii_lowercase().as_str())
    };
    if let Some(i) = id.rfind(['/', '.'])
        && i + 1 < id.len()
        && acts(tail(i))
    {
        return tail(i);
    }
    // Azure's `Group_Operation` (`QueryPacks_Delete`) and AWS's `GET_AttachInstances`: after the
    // last underscore when a capital follows it.
    if let Some(i) = id.rfind('_')
        && tail(i).starts_with(|c: char| c.is_ascii_uppercase())
        && id[..i].chars().any(|c| c.is_ascii_alphabetic())
        && acts(tail(i))
    {
        return tail(i);
    }
    id
}

/// The verb of an operationId (or a tool name) of an operation with `method`: read from its
/// action part ([`action_part`]), a leading `post` on a POST skipped (`postQuery`,
/// `post_orders_search`: the transport, not the action).
pub(crate) fn operation_verb(
    subject: &str,
    method: crate::model::Method,
) -> Option<(String, Effect, Confidence)> {
    operation_verb_in(subject, method, &NO_NOUNS)
}

/// [`operation_verb`], the document's `nouns` not read as verbs (`watch_daemon_set_list`).
pub(crate) fn operation_verb_in(
    subject: &str,
    method: crate::model::Method,
    nouns: &Nouns,
) -> Option<(String, Effect, Confidence)> {
    let part = action_part(subject);
    let w = words(part);
    if method == crate::model::Method::Post && w.len() > 1 && w[0] == "post" {
        let rest = w[1..].join("_");
        return verb_of_words_in(&rest, &words(&rest), nouns);
    }
    verb_of_words_in(part, &w, nouns)
}

/// The verb of a path's last segment when it names an action (`/orders/{id}/cancel`,
/// `/{index}/_search`, `/v1/{name}:batchGet`, `/actions/apply`, `/locks/force-unlock`); `None`
/// when the path ends in a parameter or a noun. Query strings and fragments are ignored. A
/// segment that starts with `force` overwrites.
pub(crate) fn path_verb(path: &str) -> Option<(String, Effect)> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let last = path.trim_end_matches('/').rsplit('/').next()?;
    // `{name}:cancel`: the custom method after the colon (Google's AIP-136).
    let action = match last.rsplit_once(':') {
        Some((_, verb)) if !verb.is_empty() && !verb.contains('}') => verb,
        _ if last.contains('{') => return None,
        _ => last,
    };
    let w = words(action);
    let first = w.first()?;
    if first == "force" && w.len() > 1 {
        return Some((w.join("-"), Effect::Destroys));
    }
    // A long segment names an action only when it starts with the verb (`get_clubs_for_topic`).
    verb_at(&w, 0)
        .or_else(|| {
            verb_at(&w, w.len() - 1).filter(|(v, _)| {
                w.len() == 1 || (w.len() <= 3 && !LAST_NOUNS.contains(&v.as_str()))
            })
        })
        .filter(|(v, _)| !PATH_NOUNS.contains(&v.as_str()))
}

/// Verbs that, as the last segment of a path, are more often a noun or mean something else:
/// `POST /lists` creates a list, `POST /threads/{id}/read` marks a thread read.
const PATH_NOUNS: &[&str] = &[
    "lists", "gets", "exists", "read", "poll", "view", "post", "show",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(name: &str) -> Option<Effect> {
        name_verb(name).map(|(_, e)| e)
    }

    #[test]
    fn first_words_are_those_of_the_whole_text() {
        for text in [
            "Invoke function getSchedule",
            "- Lists the users.",
            "  getUserById\tnow ",
            "HTTPServer: restart",
            "x",
            "",
            "\u{e9}t\u{e9} 2 fois",
        ] {
            let all = words(text);
            for n in 0..4 {
                assert_eq!(
                    first_words(text, n),
                    all[..n.min(all.len())],
                    "{text:?} {n}"
                );
            }
        }
    }

    /// Every listed verb has the effect of the first list naming it (destroys, creates,
    /// writes, reads); words in no list, or not in lower case, have none.
    #[test]
    fn a_verb_takes_its_first_list() {
        let lists = EFFECT_LISTS;
        for (words, _) in lists {
            for w in words {
                let first = lists.iter().find(|(l, _)| l.contains(w)).map(|(_, e)| *e);
                assert_eq!(effect_of(w), first, "{w}");
            }
        }
        assert_eq!(effect_of("delete"), Some(Effect::Destroys));
        for w in ["user", "", "Delete", "deletes_"] {
            assert_eq!(effect_of(w), None, "{w}");
        }
    }

    #[test]
    fn splits_every_style() {
        assert_eq!(words("deleteUser"), ["delete", "user"]);
        assert_eq!(words("Users.DeleteUser"), ["users", "delete", "user"]);
        assert_eq!(words("purge-cache"), ["purge", "cache"]);
        assert_eq!(words("getHTTPResponse"), ["get", "http", "response"]);
    }

    #[test]
    fn finds_the_verb() {
        assert_eq!(effect("delete_user"), Some(Effect::Destroys));
        assert_eq!(effect("pets_list"), Some(Effect::Reads));
        assert_eq!(effect("v1_get_users"), Some(Effect::Reads));
        assert_eq!(effect("user_login_history_get"), Some(Effect::Reads));
        assert_eq!(effect("log_out"), Some(Effect::Writes));
        assert_eq!(effect("logout"), Some(Effect::Writes));
        assert_eq!(effect("create_order"), Some(Effect::Creates));
        assert_eq!(effect("list_refunds"), Some(Effect::Reads));
        assert_eq!(effect("orders"), None);
        assert_eq!(effect("check_status"), None);
        let (_, _, c) = name_verb_with_confidence("user_logout_history").unwrap();
        assert_eq!(c, Confidence::Unsure);
        let (_, _, c) = name_verb_with_confidence("v2_delete_user").unwrap();
        assert_eq!(c, Confidence::Sure);
        assert_eq!(effect("GET_DeleteSnapshot"), Some(Effect::Destroys));
        assert_eq!(effect("GETDeleteSnapshot"), Some(Effect::Destroys));
        // Here `get` is the verb, not a transport.
        assert_eq!(effect("get_link_account_sessions"), Some(Effect::Reads));
        assert_eq!(effect("getLinkAccountSessions"), Some(Effect::Reads));
        assert_eq!(effect("post_comment"), Some(Effect::Creates));
        assert_eq!(effect("untag_resource"), Some(Effect::Destroys));
        // A leading noun-or-verb yields to a verb right after it.
        assert_eq!(effect("issue_delete_comment"), Some(Effect::Destroys));
        assert_eq!(effect("issue_token"), Some(Effect::Creates));
        assert_eq!(effect("run_report"), Some(Effect::Writes));
        // A noun-like verb at the end of a longer name is the noun.
        assert_eq!(effect("acknowledge_notification_set"), None);
        assert_eq!(effect("set"), Some(Effect::Writes));
        assert_eq!(effect("pets_update"), Some(Effect::Writes));
    }

    #[test]
    fn path_actions() {
        let verb = |p: &str| path_verb(p).map(|(v, _)| v);
        assert_eq!(verb("/orders/{id}/cancel").as_deref(), Some("cancel"));
        assert_eq!(verb("/{index}/_search").as_deref(), Some("search"));
        assert_eq!(verb("/v1/things:batchGet").as_deref(), Some("batchget"));
        assert_eq!(
            verb("/v1/{name=projects/*}:cancel").as_deref(),
            Some("cancel")
        );
        assert_eq!(verb("/actions/apply").as_deref(), Some("apply"));
        assert_eq!(verb("/runs/{id}/re-run").as_deref(), Some("rerun"));
        assert_eq!(
            path_verb("/locks/{id}/force-unlock").map(|(_, e)| e),
            Some(Effect::Destroys)
        );
        // Parameters, nouns, plurals that look like verbs, and the query or fragment say nothing.
        for p in [
            "/orders/{id}",
            "/orders",
            "/lists",
            "/threads/{id}/read",
            "/#X-Amz-Target=T.ListThings",
            "/a/very-long-noun-phrase-here",
        ] {
            assert_eq!(verb(p), None, "{p}");
        }
    }

    #[test]
    fn namespaced_ids() {
        assert_eq!(
            action_part("actions/cancel-workflow-run"),
            "cancel-workflow-run"
        );
        assert_eq!(action_part("Users.DeleteUser"), "DeleteUser");
        assert_eq!(action_part("QueryPacks_Delete"), "Delete");
        assert_eq!(action_part("GET_AttachInstances"), "AttachInstances");
        assert_eq!(action_part("delete_user"), "delete_user");
        assert_eq!(action_part("orders.history"), "orders.history");
        assert_eq!(action_part("UpdateGroups_Post"), "UpdateGroups_Post");
    }

    #[test]
    fn operation_verbs() {
        use crate::model::Method;
        let verb = |s: &str, m| operation_verb(s, m).map(|(v, _, _)| v);
        assert_eq!(verb("postQuery", Method::Post).as_deref(), Some("query"));
        assert_eq!(
            verb("post_orders_search", Method::Post).as_deref(),
            Some("search")
        );
        assert_eq!(verb("postComment", Method::Post), None);
        // Not on other methods: `get` on a GET and `patch` on a PATCH are the action.
        assert_eq!(verb("get_block", Method::Get).as_deref(), Some("get"));
        assert_eq!(
            verb("Model_PatchClosedList", Method::Patch).as_deref(),
            Some("patch")
        );
    }

    #[test]
    fn verdicts() {
        assert_eq!(verdict("search", Effect::Reads), (Verdict::Reads, true));
        assert_eq!(verdict("get", Effect::Reads), (Verdict::Reads, false));
        assert_eq!(
            verdict("delete", Effect::Destroys),
            (Verdict::Destroys, true)
        );
        assert_eq!(
            verdict("archive", Effect::Destroys),
            (Verdict::Destroys, false)
        );
        assert_eq!(verdict("merge", Effect::Writes), (Verdict::Destroys, false));
        assert_eq!(verdict("send", Effect::Writes), (Verdict::Adds, false));
        assert_eq!(verdict("create", Effect::Creates), (Verdict::Adds, false));
    }

    #[test]
    fn joined() {
        let verbs = |t: &str| -> Vec<String> { joined_verbs(t).into_iter().map(|v| v.0).collect() };
        assert_eq!(verbs("Get or update bandwidth limits"), ["update"]);
        assert_eq!(verbs("get/set poll interval"), ["set"]);
        assert_eq!(verbs("listAndDeleteFiles"), ["delete"]);
        assert_eq!(verbs("Lists and deletes files"), ["delete"]);
        // Not joined: a plural noun, a word away from the verb, another clause, no first verb.
        for t in [
            "Gets builds and runs",
            "Get contexts and issue types",
            "Get a user. Or delete it",
            "Users or delete",
        ] {
            assert!(verbs(t).is_empty(), "{t}");
        }
    }

    #[test]
    fn document_nouns() {
        use crate::model::Method;
        let nouns = Nouns::from_document(
            [
                "/blocks/{hash}",
                "/users/{name}/block",
                "/api/v1/policies/{id}",
            ],
            ["io.k8s.api.apps.v1.DaemonSet", "PersistentVolumeClaim"],
            ["claims"],
        );
        let verb = |id: &str| operation_verb_in(id, Method::Get, &nouns).map(|(v, _, _)| v);
        // The head of a noun phrase, or a one-word noun past the first word: a noun.
        assert_eq!(verb("watchDaemonSetList").as_deref(), Some("list"));
        assert_eq!(verb("watchPersistentVolumeClaim"), None);
        assert_eq!(verb("latestBlock"), None);
        // The first word stays a verb; a word the document does not use as a noun too.
        assert_eq!(verb("blockUser").as_deref(), Some("block"));
        assert_eq!(verb("claimTask").as_deref(), Some("claim"));
        assert_eq!(verb("latestBlocksDelete").as_deref(), Some("delete"));
        // Plurals of all kinds name the same noun.
        assert!(nouns.single("policy") && nouns.single("blocks") && nouns.single("claim"));
        assert!(nouns.single("users") && !nouns.single("hash"));
        // With no nouns, every known verb is one.
        assert_eq!(
            operation_verb_in("latestClaim", Method::Get, &Nouns::default()).map(|v| v.0),
            Some("claim".into())
        );
    }

    #[test]
    fn descriptions() {
        let said = description_says;
        assert_eq!(said("This is irreversible."), Some(("irreversible", true)));
        assert_eq!(said("It can't be undone"), Some(("cannot be undone", true)));
        assert_eq!(
            said("Data is permanently deleted"),
            Some(("permanently", true))
        );
        assert_eq!(said("A file is overwritten"), Some(("overwrites", false)));
        assert_eq!(
            said("Replaces the existing rules"),
            Some(("replaces", false))
        );
        // Irreversible wins over an earlier overwrite.
        assert_eq!(
            said("Overwrites the file. It cannot be undone"),
            Some(("cannot be undone", true))
        );
        for t in [
            "This does not permanently delete it",
            "It is not irreversible",
            "Prices replace the Plans API",
            "Stored permanently",
            "It can be undone",
        ] {
            assert_eq!(said(t), None, "{t}");
        }
        assert!(says_upsert("Creates or updates a link. More."));
        assert!(!says_upsert("Creates a link. Or updates it."));
    }

    #[test]
    fn summary_verbs_in_third_person() {
        assert_eq!(
            summary_verb("Deletes a pet").map(|v| v.1),
            Some(Effect::Destroys)
        );
        assert_eq!(
            summary_verb("Searches orders").map(|v| v.1),
            Some(Effect::Reads)
        );
        assert_eq!(summary_verb("Returns a pet").map(|v| v.1), None);
        assert_eq!(
            summary_verb("Partially update sprint").map(|v| v.0),
            Some("update".into())
        );
        assert_eq!(effect("partiallyUpdateSprint"), Some(Effect::Writes));
        assert_eq!(summary_verb("Weekly report").map(|v| v.1), None);
        assert_eq!(
            summary_verb("Invoke function getOrder").map(|v| v.1),
            Some(Effect::Reads)
        );
        assert_eq!(
            summary_verb("Invoke action restore").map(|v| v.1),
            Some(Effect::Writes)
        );
    }
}
