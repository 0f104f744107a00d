//! Vocabulary: what the words of a tool name (or summary) say it does — reads, writes or
//! destroys — for the name-versus-hints lint.
//!
//! Names are split into words whatever their style (`deleteUser`, `delete_user`, `delete-user`,
//! `Users.DeleteUser`). The verb is the first word when it is a known verb (`delete_user`), else the
//! last (`pets_list`, the resource-first style of Google and Microsoft APIs), else the first known
//! verb in between (`v1_get_users`). Two-word verbs (`log_out`, `sign_in`, `look_up`) count as one.
//! Ambiguous words (`check`, `validate`, `process`, `order`) are deliberately left out: no verdict
//! beats a wrong one.

use heck::ToSnakeCase;

/// What a verb says about a tool's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
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
    "exists", "peek", "poll",
];

const DESTROYS: &[&str] = &[
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
    "deactivate",
    "disable",
    "detach",
    "unlink",
    "uninstall",
    "unregister",
    "unsubscribe",
    "ban",
    "expire",
    "invalidate",
    "reset",
    "overwrite",
    "replace",
    "archive",
    "reject",
    "decline",
    "suspend",
    "abort",
    "rollback",
    "revert",
    "unpublish",
    "deprovision",
    "evict",
    "flush",
    "prune",
    "discard",
    "retract",
    "withdraw",
    "delist",
    "unassign",
    "unshare",
    "block",
    "close",
    "shutdown",
    "cleanup",
    "deregister",
    "dismiss",
    "kick",
    "unfollow",
    "untag",
    "disassociate",
    "unset",
    "softdelete",
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
];

/// Split a name or sentence into lower-case words.
pub fn words(text: &str) -> Vec<String> {
    text.to_snake_case()
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

pub(crate) fn effect_of(word: &str) -> Option<Effect> {
    if DESTROYS.contains(&word) {
        Some(Effect::Destroys)
    } else if CREATES.contains(&word) {
        Some(Effect::Creates)
    } else if WRITES.contains(&word) {
        Some(Effect::Writes)
    } else if READS.contains(&word) {
        Some(Effect::Reads)
    } else {
        None
    }
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

/// How sure we are of a verb: at either end of the name it names the action; in the middle it
/// may be part of a noun phrase (`user_logout_history`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    Sure,
    Possible,
}

/// Version and namespace prefixes that are not part of the action (`v1_get_users`, `api_list`).
fn is_prefix(word: &str) -> bool {
    word == "api"
        || word.chars().all(|c| c.is_ascii_digit())
        || (word.starts_with('v')
            && word.len() > 1
            && word[1..].chars().all(|c| c.is_ascii_digit()))
}

/// Whether `name` has the method word `word` in capitals (`GET_Delete`, `v1_POSTCreate`).
fn method_in_capitals(name: &str, word: &str) -> bool {
    name.contains(&word.to_ascii_uppercase())
}

/// The verb a tool name leads with, and its effect.
pub fn name_verb(name: &str) -> Option<(String, Effect)> {
    name_verb_with_confidence(name).map(|(v, e, _)| (v, e))
}

/// [`name_verb`], also saying whether the verb stood at an end of the name.
pub fn name_verb_with_confidence(name: &str) -> Option<(String, Effect, Confidence)> {
    let all = words(name);
    let mut start = all.iter().take_while(|w| is_prefix(w)).count();
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
    let sure = |v: Option<(String, Effect)>| v.map(|(v, e)| (v, e, Confidence::Sure));
    sure(verb_at(w, 0))
        .or_else(|| sure(verb_at(w, w.len() - 1)))
        .or_else(|| {
            (1..w.len().saturating_sub(1))
                .find_map(|i| verb_at(w, i))
                .map(|(v, e)| (v, e, Confidence::Possible))
        })
}

/// The verb a summary starts with ("Deletes a pet" -> delete), for names without one.
pub fn summary_verb(summary: &str) -> Option<(String, Effect)> {
    let w = words(summary);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn effect(name: &str) -> Option<Effect> {
        name_verb(name).map(|(_, e)| e)
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
        assert_eq!(c, Confidence::Possible);
        let (_, _, c) = name_verb_with_confidence("v2_delete_user").unwrap();
        assert_eq!(c, Confidence::Sure);
        assert_eq!(effect("GET_DeleteSnapshot"), Some(Effect::Destroys));
        assert_eq!(effect("GETDeleteSnapshot"), Some(Effect::Destroys));
        // Here `get` is the verb, not a transport.
        assert_eq!(effect("get_link_account_sessions"), Some(Effect::Reads));
        assert_eq!(effect("getLinkAccountSessions"), Some(Effect::Reads));
        assert_eq!(effect("post_comment"), Some(Effect::Creates));
        assert_eq!(effect("untag_resource"), Some(Effect::Destroys));
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
            summary_verb("Invoke function getOrder").map(|v| v.1),
            Some(Effect::Reads)
        );
        assert_eq!(
            summary_verb("Invoke action restore").map(|v| v.1),
            Some(Effect::Writes)
        );
    }
}
