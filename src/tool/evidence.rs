//! Evidence: what an operation says of itself (its name, summary, path, request body,
//! parameters, description, responses, and the API's style), weighed against the HTTP method
//! table into suggested hints with reasons ([`from_evidence`]).

use super::suggest::{Confidence, Hint, HintSource, Hints, from_method};
use crate::model::{Method, RequestBody};
use crate::read::pointer::Tree;
use crate::tool::vocab::{self, Effect, Verdict};
use serde_json::Value;

/// What the request body says about a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyShape {
    /// No request body.
    None,
    /// An object of a few optional fields, each a value or a list of values (the first few
    /// names kept for the reason): an edit of those fields.
    FieldEdit(Vec<String>),
    /// An object of a few plain fields, some required (the first few names kept): a record.
    Record(Vec<String>),
    /// An object with nested or many fields, or a list: a document.
    Document,
    /// No schema, or one that does not say what changes (a JSON Patch, a free-form object).
    Opaque,
}

/// Most fields a body may have to count as an edit of a few fields.
const FEW_FIELDS: usize = 15;

/// What the arguments say beyond the body's shape: a query language a string carries, and the
/// actions an argument chooses between.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Arguments {
    /// The query language the body carries (`sql`, `jql`), and whether it can write.
    pub language: Option<(String, bool)>,
    /// The verbs an enum argument chooses between, when they differ in effect (`start`,
    /// `delete`): what the call does depends on its arguments.
    pub dispatch: Vec<String>,
    /// A boolean body field that asks to overwrite (`overwrite`, `force`, `replace`).
    pub overwrite_flag: Option<String>,
}

/// Languages a request may carry as a string, and whether they can write: SQL, GraphQL (a
/// mutation) and Cypher can; JQL, ES|QL, PromQL, LogQL, KQL, TraceQL, Lucene and search DSLs
/// only read. Matched on the words of a field's name, its description, the body's media type
/// or the operation's summary.
fn language_in(words: &[String]) -> Option<(String, bool)> {
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).map(String::as_str);
        let found = match w.as_str() {
            "sql" | "graphql" | "cypher" | "mutation" => Some((w.clone(), true)),
            "es" | "esql" if w == "esql" || next == Some("ql") => Some(("es|ql".into(), false)),
            "jql" | "promql" | "logql" | "kql" | "traceql" | "lucene" => Some((w.clone(), false)),
            "query" | "search" if next == Some("dsl") => Some((format!("{w} dsl"), false)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// How a language of [`language_in`] is written.
fn language_name(l: &str) -> String {
    match l {
        "sql" | "jql" | "kql" => l.to_uppercase(),
        "es|ql" => "ES|QL".into(),
        "graphql" => "GraphQL".into(),
        "mutation" => "a GraphQL mutation".into(),
        "promql" => "PromQL".into(),
        "logql" => "LogQL".into(),
        "traceql" => "TraceQL".into(),
        "cypher" => "Cypher".into(),
        "lucene" => "Lucene".into(),
        _ => format!("a {l}"),
    }
}

/// Field names that carry a query as a string.
const QUERY_FIELDS: &[&str] = &[
    "sql",
    "query",
    "statement",
    "q",
    "expr",
    "expression",
    "jql",
    "esql",
    "promql",
    "logql",
    "kql",
    "cypher",
    "graphql",
];

/// What the arguments of an operation say ([`Arguments`]); `$ref`s followed in `root`.
pub(crate) fn arguments(
    body: Option<&RequestBody<'_>>,
    parameters: &[crate::model::Parameter<'_>],
    summary: Option<&str>,
    root: &dyn Tree,
) -> Arguments {
    let mut out = Arguments::default();
    let mut props = indexmap::IndexMap::new();
    if let Some(b) = body {
        if let Some(schema) = b.schema {
            let mut required = false;
            gather(root, schema, &mut props, &mut required, 0);
        }
        let media = vocab::words(&b.content_type);
        if media.iter().any(|w| w == "sql" || w == "graphql") {
            out.language = language_in(&media);
        }
    }
    for (name, p) in &props {
        let p = resolve(root, p);
        let key = name.to_ascii_lowercase();
        if out.language.is_none()
            && QUERY_FIELDS.contains(&key.as_str())
            && p.get("type").is_none_or(|t| t == "string")
        {
            let mut w = vocab::words(name);
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                w.extend(vocab::words(&d.chars().take(300).collect::<String>()));
            }
            if let Some(s) = summary {
                w.extend(vocab::words(s));
            }
            out.language = language_in(&w);
        }
        if out.dispatch.is_empty() {
            out.dispatch = dispatch(p.get("enum"));
        }
        if out.language.is_none() {
            out.language = example_language(p.get("example").or_else(|| p.get("examples")));
        }
        if out.overwrite_flag.is_none() && p.get("type").is_some_and(|t| t == "boolean") {
            let w = vocab::words(name);
            if w.iter().any(|x| x == "overwrite")
                || matches!(w.first().map(String::as_str), Some("force" | "replace"))
            {
                out.overwrite_flag = Some(name.to_string());
            }
        }
    }
    for p in parameters {
        if out.dispatch.is_empty() {
            out.dispatch = dispatch(
                p.schema
                    .map(|s| resolve(root, s))
                    .and_then(|s| s.get("enum")),
            );
        }
    }
    out
}

/// SQL in a field's example: a key that names it (`rawSql`, `sql`) or a string that starts with
/// a statement keyword (`SELECT ...`), a few levels deep.
fn example_language(example: Option<&Value>) -> Option<(String, bool)> {
    fn walk(v: &Value, depth: usize) -> bool {
        match v {
            Value::String(s) => {
                let first = s.split_whitespace().next().unwrap_or("");
                s.contains(' ')
                    && matches!(
                        first.to_ascii_uppercase().as_str(),
                        "SELECT"
                            | "INSERT"
                            | "UPDATE"
                            | "DELETE"
                            | "CREATE"
                            | "DROP"
                            | "ALTER"
                            | "WITH"
                    )
            }
            Value::Array(a) if depth < 4 => a.iter().take(8).any(|x| walk(x, depth + 1)),
            Value::Object(m) if depth < 4 => m
                .iter()
                .take(32)
                .any(|(k, x)| vocab::words(k).iter().any(|w| w == "sql") || walk(x, depth + 1)),
            _ => false,
        }
    }
    example
        .filter(|e| walk(e, 0))
        .map(|_| ("sql".to_string(), true))
}

/// The verbs of an enum that chooses between actions of different effect (`[start, stop,
/// delete]`); empty when its values are not verbs or all say the same.
fn dispatch(values: Option<&Value>) -> Vec<String> {
    let Some(Value::Array(values)) = values else {
        return Vec::new();
    };
    let verbs: Vec<(String, Verdict)> = values
        .iter()
        .filter_map(Value::as_str)
        .take(50)
        .filter_map(|v| {
            if !v.bytes().all(|b| b.is_ascii_alphabetic()) {
                return None;
            }
            let one = v.to_ascii_lowercase();
            let e = vocab::effect_of(&one)?;
            let verdict = vocab::verdict(&one, e).0;
            Some((one, verdict))
        })
        .collect();
    let destroys = verbs.iter().any(|(_, v)| *v == Verdict::Destroys);
    let other = verbs.iter().any(|(_, v)| *v != Verdict::Destroys);
    if destroys && other {
        verbs.into_iter().map(|(v, _)| v).take(4).collect()
    } else {
        Vec::new()
    }
}

/// The shape of a request body, `$ref`s followed in `root`.
pub(crate) fn body_shape(body: Option<&RequestBody<'_>>, root: &dyn Tree) -> BodyShape {
    let Some(b) = body else {
        return BodyShape::None;
    };
    if b.content_type.contains("json-patch") {
        return BodyShape::Opaque;
    }
    let Some(schema) = b.schema.map(|s| resolve(root, s)) else {
        return BodyShape::Opaque;
    };
    if schema.get("type").and_then(Value::as_str) == Some("array") {
        // A list replaces or edits many records at once.
        return BodyShape::Document;
    }
    let mut props = indexmap::IndexMap::new();
    let mut required = false;
    if !gather(root, schema, &mut props, &mut required, 0) || props.is_empty() {
        return BodyShape::Opaque;
    }
    if props.len() > FEW_FIELDS || !props.values().all(|p| is_field(root, p, true)) {
        return BodyShape::Document;
    }
    let names = props.keys().take(4).map(|k| k.to_string()).collect();
    if required {
        BodyShape::Record(names)
    } else {
        BodyShape::FieldEdit(names)
    }
}

/// Gather the properties of an object schema and of its `allOf` parts into `props`, noting
/// whether any is required; false when a part is a choice (`oneOf`, `anyOf`) or not an object.
/// A name met again keeps its first place and takes the later schema, as in a JSON object.
fn gather<'a>(
    root: &'a dyn Tree,
    schema: &'a Value,
    props: &mut indexmap::IndexMap<&'a str, &'a Value>,
    required: &mut bool,
    depth: usize,
) -> bool {
    let schema = resolve(root, schema);
    if depth > 4 || schema.get("oneOf").is_some() || schema.get("anyOf").is_some() {
        return false;
    }
    if schema
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "object")
    {
        return false;
    }
    if let Some(p) = schema.get("properties").and_then(Value::as_object) {
        props.extend(p.iter().map(|(k, v)| (k.as_str(), v)));
    }
    *required |= schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    match schema.get("allOf").and_then(Value::as_array) {
        Some(parts) => parts
            .iter()
            .all(|part| gather(root, part, props, required, depth + 1)),
        None => true,
    }
}

/// `schema` with `$ref`s followed (at most a few hops; a dangling one stays as it is).
fn resolve<'a>(root: &'a dyn Tree, mut schema: &'a Value) -> &'a Value {
    for _ in 0..8 {
        match crate::read::pointer::ref_of(schema)
            .and_then(|r| crate::read::pointer::lookup(root, r))
        {
            Some(next) => schema = next,
            None => break,
        }
    }
    schema
}

/// Whether a property is a plain value (a string, number, boolean, enum, one of those) or, when
/// `list` is allowed, a list of them: not a nested object.
fn is_field(root: &dyn Tree, schema: &Value, list: bool) -> bool {
    let s = resolve(root, schema);
    if s.get("enum").is_some() || s.get("const").is_some() {
        return true;
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = s.get(key).and_then(Value::as_array) {
            return alts.iter().any(|a| is_field(root, a, false));
        }
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        return s.get("properties").is_none() && s.get("allOf").is_none();
    }
    types.iter().all(|t| match *t {
        "string" | "integer" | "number" | "boolean" | "null" => true,
        "array" if list => s.get("items").is_none_or(|i| is_field(root, i, false)),
        _ => false,
    })
}

/// What an operation says of itself besides its method.
#[derive(Debug, Clone)]
pub(crate) struct Evidence<'a> {
    pub method: Method,
    pub operation_id: Option<&'a str>,
    pub summary: Option<&'a str>,
    pub path: &'a str,
    /// Set when the API is RPC-style.
    pub rpc: Option<RpcStyle>,
    /// The words the document uses as nouns.
    pub nouns: &'a vocab::Nouns,
    pub description: Option<&'a str>,
    /// The request body's shape (weighed for PUT and PATCH).
    pub body: BodyShape,
    /// Every 2xx response the operation declares is 202 Accepted.
    pub accepted: bool,
    /// The operation requires an `Idempotency-Key` header.
    pub idempotency_key: bool,
    /// What the arguments say (a query language, a choice of actions).
    pub arguments: Arguments,
}

/// An RPC-style API: nearly every operation uses one method (POST, as AWS's JSON protocol) or
/// names its action in the path's query or fragment (`/#Action=AttachInstances`, as AWS's query
/// protocol), so the method says nothing and the name says what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RpcStyle {
    /// The method nearly every operation uses; `None` when the paths name the actions.
    pub method: Option<Method>,
    /// Operations of that style.
    pub count: usize,
    /// All operations.
    pub all: usize,
}

impl RpcStyle {
    /// Whether an operation with `method` is of the API's style.
    pub(crate) fn covers(&self, method: Method) -> bool {
        self.method.is_none_or(|m| m == method)
    }
}

/// Whether an API with these operations (method, path) is RPC-style: at least 5 operations, 90%
/// of them POST, or 90% of them with the action in the path's query or fragment.
pub(crate) fn rpc_style<'p>(ops: impl Iterator<Item = (Method, &'p str)>) -> Option<RpcStyle> {
    let (mut post, mut action, mut all) = (0, 0, 0);
    for (m, path) in ops {
        all += 1;
        post += usize::from(m == Method::Post);
        action += usize::from(path.contains(['#', '?']) && path.contains('='));
    }
    let style = |method, count: usize| {
        (all >= 5 && count * 10 >= all * 9).then_some(RpcStyle { method, count, all })
    };
    style(Some(Method::Post), post).or_else(|| style(None, action))
}

/// One thing the operation says about its effect.
#[derive(Debug, Clone)]
struct Signal {
    source: HintSource,
    verb: String,
    effect: Effect,
    verdict: Verdict,
    /// The word alone settles it.
    strong: bool,
    /// Another verb of the same name or summary that says less (`get` of "Get or update").
    also: Option<String>,
}

impl Signal {
    /// What said it: "the name", "the summary".
    fn whose(&self) -> &'static str {
        match self.source {
            HintSource::Summary => "the summary",
            HintSource::Path => "the path",
            _ => "the name",
        }
    }

    fn phrase(&self, rpc: Option<RpcStyle>) -> String {
        match (&self.source, rpc) {
            (HintSource::ApiStyle, Some(r)) => format!(
                "the API is RPC-style ({} of {} operations {}) and the name says `{}`",
                r.count,
                r.all,
                match r.method {
                    Some(m) => format!("are {}", m.as_str()),
                    None => "name their action in the path".into(),
                },
                self.verb
            ),
            (HintSource::Summary, _) => format!("the summary says `{}`", self.verb),
            (HintSource::Description, _) => format!("the description says `{}`", self.verb),
            (HintSource::Body, _) => format!(
                "the body carries {} (a query language that only reads)",
                language_name(&self.verb)
            ),
            (HintSource::Path, _) => format!("the path ends in the action `{}`", self.verb),
            _ => format!("the name says `{}`", self.verb),
        }
    }
}

/// The verbs update-like names use: normal on PUT and PATCH, an overwrite on POST.
const UPDATES: &[&str] = &[
    "update", "set", "save", "edit", "modify", "patch", "put", "upsert", "change",
];

/// The verb of an operationId, at a sure place, the document's nouns not read as verbs.
fn id_verb(id: &str, method: Method, nouns: &vocab::Nouns) -> Option<(String, Effect)> {
    vocab::operation_verb_in(id, method, nouns)
        .filter(|(_, _, c)| *c == Confidence::Sure)
        .map(|(v, e, _)| (v, e))
}

/// The verb of a name or summary that says the most of `first` and the verbs joined to it
/// (`Get or update`: `update`), and the first of the others that says less. "Create or
/// update" is one upsert: its first verb stands.
fn most_said(
    first: (String, Effect),
    joined: Vec<(String, Effect)>,
) -> ((String, Effect), Option<String>) {
    let rank = |(v, e): &(String, Effect)| vocab::verdict(v, *e).0 as u8;
    let upsert = |(v, e): &(String, Effect)| *e == Effect::Creates || UPDATES.contains(&v.as_str());
    let mut all = vec![first];
    all.extend(joined);
    if all.iter().all(upsert) {
        all.truncate(1);
    }
    let top = all.iter().map(rank).max().unwrap_or(0);
    let also = all.iter().find(|x| rank(x) < top).map(|(v, _)| v.clone());
    let most = all
        .into_iter()
        .find(|x| rank(x) == top)
        .expect("one verb at least");
    (most, also)
}

fn signals(ev: &Evidence<'_>) -> Vec<Signal> {
    let mut out = Vec::new();
    let safe = !matches!(
        ev.method,
        Method::Post | Method::Put | Method::Patch | Method::Delete
    );
    // In an RPC-style API the method says nothing: the name decides a read (on any method) or a
    // destroying or writing verb (on a GET).
    let rpc = ev.rpc.filter(|r| r.covers(ev.method));
    let mut name_reads = false;
    if let Some((id, first)) = ev
        .operation_id
        .and_then(|id| Some((id, id_verb(id, ev.method, ev.nouns)?)))
    {
        let ((verb, effect), also) = most_said(first, vocab::joined_verbs(vocab::action_part(id)));
        let (verdict, strong) = vocab::verdict(&verb, effect);
        let strong = strong && also.is_none();
        name_reads = verdict == Verdict::Reads;
        let boosted =
            rpc.is_some() && (name_reads || safe || effect == Effect::Destroys) && !strong;
        out.push(Signal {
            source: if boosted {
                HintSource::ApiStyle
            } else {
                HintSource::Name
            },
            strong: also.is_none() && (strong || boosted || UPDATES.contains(&verb.as_str())),
            verb,
            effect,
            verdict,
            also,
        });
    }
    let name_said = !out.is_empty();
    // On a safe method whose name reads, nothing else matters: the method and the name agree.
    if safe && name_reads {
        return out;
    }
    if let Some((summary, first)) = ev
        .summary
        .and_then(|s| Some((s, vocab::summary_verb_in(s, safe, ev.nouns)?)))
    {
        let ((verb, effect), also) = most_said(first, vocab::joined_verbs(summary));
        // A summary's unambiguous verb (`Cancels`, `Searches`) settles it as a name's does.
        let (verdict, strong) = vocab::verdict(&verb, effect);
        out.push(Signal {
            source: HintSource::Summary,
            verb,
            effect,
            verdict,
            strong: strong && also.is_none(),
            also,
        });
    }
    // The last segment of a POST's path is an action (`/orders/{id}/cancel`); on PUT, PATCH and
    // DELETE it is the resource (`DELETE /vault/lock`), and on a safe method it only backs a
    // name that writes (`/users/{id}/logout-history` is a noun).
    let path_counts = ev.method == Method::Post || (safe && name_said);
    if let Some((verb, effect)) = vocab::path_verb(ev.path).filter(|_| path_counts) {
        let (verdict, strong) = vocab::verdict(&verb, effect);
        out.push(Signal {
            source: HintSource::Path,
            verb,
            effect,
            verdict,
            strong,
            also: None,
        });
    }
    // A body in a read-only query language reads, unless a word says the call writes (a saved
    // filter is created with its JQL).
    if let Some((language, false)) = &ev.arguments.language
        && out.iter().all(|s| s.verdict == Verdict::Reads)
    {
        out.push(Signal {
            source: HintSource::Body,
            verb: language.clone(),
            effect: Effect::Reads,
            verdict: Verdict::Reads,
            strong: true,
            also: None,
        });
    }
    out
}

/// "the name says `x` and the path ends in the action `y`".
fn phrases(signals: &[&Signal], rpc: Option<RpcStyle>) -> String {
    let all: Vec<String> = signals.iter().map(|s| s.phrase(rpc)).collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn hint(value: bool, source: &HintSource, reason: String, confidence: Confidence) -> Hint {
    Hint {
        value,
        source: source.clone(),
        reason,
        confidence,
    }
}

/// Mark each hint of `hints` but openWorld that is still sure unsure, adding `why` to its reason.
fn unsettle_sure(hints: &mut Hints, why: &str) {
    for h in [
        &mut hints.read_only,
        &mut hints.destructive,
        &mut hints.idempotent,
    ] {
        if h.confidence == Confidence::Sure {
            h.confidence = Confidence::Unsure;
            h.reason = format!("{}; unsure: {why}", h.reason);
        }
    }
}

/// Mark every hint of `hints` but openWorld unsure, adding `why` to each reason.
fn unsettle(hints: &mut Hints, why: &str) {
    for h in [
        &mut hints.read_only,
        &mut hints.destructive,
        &mut hints.idempotent,
    ] {
        h.confidence = Confidence::Unsure;
        h.reason = format!("{}; unsure: {why}", h.reason);
    }
}

/// Suggested hints from the method table and the evidence (extensions not applied).
pub(crate) fn from_evidence(ev: &Evidence<'_>) -> Hints {
    let all = signals(ev);
    let mut hints = from_signals(ev, &all);
    let safe = !matches!(
        ev.method,
        Method::Post | Method::Put | Method::Patch | Method::Delete
    );
    if let Some(s) = all.iter().find(|s| s.also.is_some())
        && !(safe && hints.read_only.value)
    {
        // "Get or update": the write is taken, and a reviewer sees both.
        let also = s.also.as_deref().unwrap_or_default();
        unsettle_sure(
            &mut hints,
            &format!(
                "{} also says `{also}`; the verb that changes more is taken",
                s.whose()
            ),
        );
    }
    if !safe {
        description_rule(ev, &mut hints);
        arguments_rule(ev, &mut hints);
        overwrite_rule(ev, &mut hints);
        if ev.accepted && hints.read_only.value {
            let mut table = from_method(ev.method);
            unsettle(
                &mut table,
                &format!(
                    "the words say it reads ({}), but every success response is 202 Accepted: it starts an action",
                    hints.read_only.reason.split(':').next().unwrap_or_default()
                ),
            );
            table.read_only.source = HintSource::Response;
            hints = table;
        }
        let upsert = [ev.summary, ev.description]
            .into_iter()
            .flatten()
            .any(vocab::says_upsert);
        if upsert && !hints.read_only.value && !hints.idempotent.value {
            hints.idempotent = hint(
                true,
                &HintSource::Description,
                "it creates or updates (an upsert): it sets the values it is given, so a repeat changes nothing more (departs from the method table)".into(),
                hints.idempotent.confidence,
            );
        }
        if ev.idempotency_key && !hints.read_only.value && !hints.idempotent.value {
            hints.idempotent = hint(
                true,
                &HintSource::Parameter,
                format!(
                    "{} requires an `Idempotency-Key` header: a repeat with the same key is not applied twice (departs from the method table)",
                    ev.method.as_str()
                ),
                Confidence::Sure,
            );
        }
    }
    hints
}

/// A write whose body has a flag that asks to overwrite (`overwrite: true`): it can overwrite
/// what is there; a reviewer checks.
fn overwrite_rule(ev: &Evidence<'_>, hints: &mut Hints) {
    let Some(flag) = &ev.arguments.overwrite_flag else {
        return;
    };
    if hints.read_only.value || hints.destructive.value {
        return;
    }
    hints.destructive = hint(
        true,
        &HintSource::Body,
        format!(
            "the body's `{flag}` flag asks to overwrite what is there (departs from the method table); unsure: check what it overwrites"
        ),
        Confidence::Unsure,
    );
}

/// Arguments that decide what the call does: a language that can write (SQL), or an enum that
/// chooses between actions. Not a sure read, and possibly destructive: a reviewer decides.
fn arguments_rule(ev: &Evidence<'_>, hints: &mut Hints) {
    let why = match &ev.arguments {
        Arguments {
            language: Some((l, true)),
            ..
        } => format!(
            "the body carries {}, a language that can write: what it does depends on the statement",
            language_name(l)
        ),
        Arguments { dispatch, .. } if !dispatch.is_empty() => format!(
            "an argument chooses the action ({}): what it does depends on its arguments",
            dispatch.join(", ")
        ),
        _ => return,
    };
    let mut table = from_method(ev.method);
    table.destructive = hint(true, &HintSource::Body, why.clone(), Confidence::Unsure);
    table.read_only.source = HintSource::Body;
    unsettle_sure(&mut table, &why);
    *hints = table;
}

/// What the description says of an effect that cannot be taken back: destructive, whatever the
/// name and the body said; against a read, unsure.
fn description_rule(ev: &Evidence<'_>, hints: &mut Hints) {
    let Some((phrase, irreversible)) = ev.description.and_then(vocab::description_says) else {
        return;
    };
    let (what, unsure) = if irreversible {
        ("changes data for good", "")
    } else {
        (
            "may overwrite what is there",
            "; unsure: check what it overwrites",
        )
    };
    if hints.read_only.value {
        unsettle(
            hints,
            &format!("the description says `{phrase}`, so it may not only read"),
        );
    } else if !hints.destructive.value
        || (irreversible && hints.destructive.confidence == Confidence::Unsure)
    {
        let departs = if from_method(ev.method).destructive.value {
            ""
        } else {
            " (departs from the method table)"
        };
        hints.destructive = hint(
            true,
            &HintSource::Description,
            format!("the description says `{phrase}`: {what}{departs}{unsure}"),
            if irreversible {
                Confidence::Sure
            } else {
                Confidence::Unsure
            },
        );
    }
}

/// The hints the name, summary and path say (`all`), over the method table.
fn from_signals(ev: &Evidence<'_>, all: &[Signal]) -> Hints {
    let method = ev.method;
    let mut hints = from_method(method);
    let m = method.as_str();
    let safe = hints.read_only.value;
    // On PUT and PATCH an update verb is what the method says; it does not count against a read.
    let relevant: Vec<&Signal> = all
        .iter()
        .filter(|s| safe || method == Method::Post || !UPDATES.contains(&s.verb.as_str()))
        .collect();
    let mut kinds: Vec<Verdict> = relevant.iter().map(|s| s.verdict).collect();
    kinds.sort_by_key(|v| *v as u8);
    kinds.dedup();
    // Signals that disagree leave the method table standing, unless one side alone has a word
    // that settles it: that side wins, unsure.
    let mut against = String::new();
    let mut lost_said = String::new();
    let mut relevant = relevant;
    if kinds.len() > 1 {
        let mut strong_kinds: Vec<Verdict> = relevant
            .iter()
            .filter(|s| s.strong)
            .map(|s| s.verdict)
            .collect();
        strong_kinds.sort_by_key(|v| *v as u8);
        strong_kinds.dedup();
        let [winner] = strong_kinds[..] else {
            let why = format!(
                "{} disagree; the method table stands",
                phrases(&relevant, ev.rpc)
            );
            unsettle(&mut hints, &why);
            return hints;
        };
        let (won, lost): (Vec<&Signal>, Vec<&Signal>) =
            relevant.into_iter().partition(|s| s.verdict == winner);
        lost_said = phrases(&lost, ev.rpc);
        against = format!("; unsure: yet {lost_said}");
        relevant = won;
    }
    let verdict = relevant.first().map(|s| s.verdict);
    let strong = (relevant.iter().any(|s| s.strong) || relevant.len() > 1) && against.is_empty();
    let first_source = relevant
        .first()
        .map(|s| s.source.clone())
        .unwrap_or(HintSource::Method);
    let said = phrases(&relevant, ev.rpc);
    let departs = &format!(" (departs from the method table){against}");
    let sure = if strong {
        Confidence::Sure
    } else {
        Confidence::Unsure
    };
    match (verdict, method) {
        (Some(Verdict::Reads), _) if safe => {}
        (Some(Verdict::Reads), Method::Delete | Method::Put | Method::Patch) => {
            unsettle(&mut hints, &format!("{said}, but {m} writes"));
        }
        (Some(Verdict::Reads), _) => {
            let src = &first_source;
            hints.read_only = hint(
                true,
                src,
                format!("{m}, but {said}: reads only{departs}"),
                sure,
            );
            hints.destructive = hint(
                false,
                src,
                format!("{m}, but {said}: reads only, so changes nothing{departs}"),
                sure,
            );
            hints.idempotent = hint(
                true,
                src,
                format!("{m}, but {said}: reads only, so repeating it is safe{departs}"),
                sure,
            );
        }
        (Some(v @ (Verdict::Destroys | Verdict::Adds)), _) if safe => {
            // A safe method whose name writes: follow a destroying name, or a name the path or
            // summary agrees with; a reviewer checks either way.
            let destroys_by_name = relevant
                .iter()
                .any(|s| s.source == HintSource::Name && s.effect == Effect::Destroys);
            // In an RPC-style API over GET, the name is all there is: sure.
            let rpc_named = ev.rpc.is_some_and(|r| r.covers(method))
                && against.is_empty()
                && relevant
                    .iter()
                    .any(|s| s.source == HintSource::ApiStyle || s.strong);
            let confidence = if rpc_named {
                Confidence::Sure
            } else {
                Confidence::Unsure
            };
            if destroys_by_name || relevant.len() > 1 || rpc_named {
                let destroys = v == Verdict::Destroys;
                let src = &first_source;
                hints.read_only = hint(
                    false,
                    src,
                    format!("{m}, but {said}: changes state{departs}"),
                    confidence,
                );
                hints.destructive = hint(
                    destroys,
                    src,
                    format!(
                        "{m}, but {said}: {}{departs}",
                        if destroys {
                            "removes or overwrites data"
                        } else {
                            "adds, removes nothing"
                        }
                    ),
                    confidence,
                );
                if rpc_named {
                    hints.idempotent = hint(
                        false,
                        &first_source,
                        format!(
                            "{m}, but {said}: changes state, so repeating it may not be safe{departs}"
                        ),
                        confidence,
                    );
                } else {
                    hints.idempotent.confidence = Confidence::Unsure;
                    hints.idempotent.reason = format!(
                        "{}; unsure: {said}, so it may not be safe to repeat",
                        hints.idempotent.reason
                    );
                }
            } else {
                unsettle(&mut hints, &format!("{said}, yet {m} should only read"));
            }
        }
        (Some(Verdict::Destroys), Method::Post) => {
            hints.destructive = hint(
                true,
                &first_source,
                format!("POST, but {said}: removes, overwrites or cannot be undone{departs}"),
                sure,
            );
        }
        (Some(Verdict::Destroys), Method::Patch)
            if relevant.iter().any(|s| s.effect == Effect::Destroys) =>
        {
            hints.destructive.reason = format!("{}; {said}", hints.destructive.reason);
        }
        (Some(Verdict::Adds), Method::Patch) if ev.body == BodyShape::None => {
            hints.destructive = hint(
                false,
                &first_source,
                format!(
                    "PATCH with no body, and {said}: changes a state, removes nothing{departs}"
                ),
                if against.is_empty() {
                    Confidence::Sure
                } else {
                    Confidence::Unsure
                },
            );
        }
        (_, Method::Patch) => patch_body(&mut hints, &ev.body),
        (Some(Verdict::Destroys), Method::Put) => {}
        (_, Method::Put) => put_body(&mut hints, &ev.body, &said),
        _ => {}
    }
    if !against.is_empty() && hints.confidence() == Confidence::Sure {
        unsettle(&mut hints, &format!("{said}, yet {lost_said}"));
    }
    hints
}

/// A PATCH the name does not call destroying: its body says whether it edits a few fields.
fn patch_body(hints: &mut Hints, body: &BodyShape) {
    match body {
        BodyShape::FieldEdit(names) => {
            hints.destructive = hint(
                false,
                &HintSource::Body,
                format!(
                    "PATCH of optional fields ({}) edits them in place; nothing is removed (departs from the method table)",
                    names.join(", ")
                ),
                Confidence::Sure,
            );
        }
        BodyShape::Record(_) | BodyShape::Document => {}
        BodyShape::None | BodyShape::Opaque => {
            hints.destructive.confidence = Confidence::Unsure;
            hints.destructive.reason = format!(
                "{}; unsure: the document does not say which fields the patch changes",
                hints.destructive.reason
            );
        }
    }
}

/// A PUT the name does not call destroying: with no body, or a body of plain fields, it sets
/// values and overwrites nothing of worth.
fn put_body(hints: &mut Hints, body: &BodyShape, said: &str) {
    let said = if said.is_empty() {
        String::new()
    } else {
        format!(", and {said}")
    };
    let why = match body {
        BodyShape::None => {
            format!("PUT with no body{said}: sets a flag or a relation, nothing is overwritten")
        }
        BodyShape::FieldEdit(names) | BodyShape::Record(names) => format!(
            "PUT of plain fields ({}){said}: edits a record; nothing else is removed",
            names.join(", ")
        ),
        BodyShape::Document | BodyShape::Opaque => return,
    };
    hints.destructive = hint(
        false,
        &HintSource::Body,
        format!("{why} (departs from the method table)"),
        hints.destructive.confidence,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    static NONE: std::sync::LazyLock<vocab::Nouns> = std::sync::LazyLock::new(Default::default);

    fn ev(method: Method, id: Option<&'static str>, path: &'static str) -> Evidence<'static> {
        Evidence {
            method,
            operation_id: id,
            summary: None,
            path,
            rpc: None,
            nouns: &NONE,
            description: None,
            body: BodyShape::None,
            accepted: false,
            idempotency_key: false,
            arguments: Arguments::default(),
        }
    }

    fn suggested(e: &Evidence<'_>) -> ([bool; 3], Confidence, String) {
        let h = from_evidence(e);
        (
            [h.read_only.value, h.destructive.value, h.idempotent.value],
            h.confidence(),
            h.destructive.source.label().to_string(),
        )
    }

    #[test]
    fn reads_rule() {
        use Confidence::*;
        // Must fire: a strong verb in the name, a strong action in the path, two weak signals.
        let (v, c, _) = suggested(&ev(Method::Post, Some("searchOrders"), "/orders/search"));
        assert_eq!((v, c), ([true, false, true], Sure));
        let (v, c, src) = suggested(&ev(Method::Post, None, "/{index}/_search"));
        assert_eq!((v, c, src.as_str()), ([true, false, true], Sure, "path"));
        let mut e = ev(Method::Post, Some("getToken"), "/token");
        e.summary = Some("Get a token");
        assert_eq!(suggested(&e).1, Sure);
        // One weak word alone: read-only, unsure.
        let (v, c, _) = suggested(&ev(Method::Post, Some("getToken"), "/token"));
        assert_eq!((v, c), ([true, false, true], Unsure));
        // Must not fire: a name that creates; a read name on a DELETE; a conflict.
        let (v, c, _) = suggested(&ev(
            Method::Post,
            Some("createSavedSearch"),
            "/saved-searches",
        ));
        assert_eq!((v, c), ([false, false, false], Sure));
        let (v, c, _) = suggested(&ev(Method::Delete, Some("getEntry"), "/entries/{id}"));
        assert_eq!((v, c), ([false, true, true], Unsure));
        // Two strong words that disagree: the table stands, unsure.
        let mut e = ev(Method::Post, Some("cancelOrder"), "/orders");
        e.summary = Some("Search orders");
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([false, false, false], Unsure));
        // One strong word against a weak one: the strong one wins, unsure.
        let mut e = ev(Method::Post, Some("createReport"), "/reports");
        e.summary = Some("Search reports");
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([true, false, true], Unsure));
    }

    #[test]
    fn rpc_style_rule() {
        let rpc = rpc_style((0..10).map(|_| (Method::Post, "/"))).unwrap();
        assert_eq!((rpc.count, rpc.all), (10, 10));
        let mut e = ev(Method::Post, Some("GetThing"), "/#X-Amz-Target=T.GetThing");
        e.rpc = Some(rpc);
        let (v, c, src) = suggested(&e);
        assert_eq!(
            (v, c, src.as_str()),
            ([true, false, true], Confidence::Sure, "api-style")
        );
        // Must not fire: a weak `get` in an API that is not RPC-style stays unsure.
        e.rpc = None;
        assert_eq!(suggested(&e).1, Confidence::Unsure);
        // Thresholds: 90% of at least 5 operations.
        let mixed = (0..10).map(|i| (if i < 8 { Method::Post } else { Method::Get }, "/"));
        assert_eq!(rpc_style(mixed), None);
        assert_eq!(rpc_style((0..4).map(|_| (Method::Post, "/"))), None);
        // Any method, with the action in the query or fragment.
        assert!(
            rpc_style((0..6).map(|i| (
                if i % 2 == 0 {
                    Method::Get
                } else {
                    Method::Post
                },
                "/#Action=X"
            )))
            .is_some()
        );
        assert_eq!(rpc_style((0..6).map(|_| (Method::Get, "/pets"))), None);
        // A GET whose name writes, in a GET RPC-style API: follow the name, sure.
        let mut e = ev(
            Method::Get,
            Some("GET_AttachInstances"),
            "/#Action=AttachInstances",
        );
        e.rpc = rpc_style((0..6).map(|_| (Method::Get, "/#Action=X")));
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([false, false, false], Confidence::Sure));
    }

    #[test]
    fn destroys_rule() {
        use Confidence::*;
        // Must fire: a strong verb (sure), a weak one backed by the path (sure), a weak one
        // alone (unsure), an update on a POST (sure), a force- action (unsure).
        let (v, c, src) = suggested(&ev(Method::Post, Some("cancelOrder"), "/orders/{id}"));
        assert_eq!((v, c, src.as_str()), ([false, true, false], Sure, "name"));
        let (v, c, _) = suggested(&ev(Method::Post, Some("pulls/merge"), "/pulls/{n}/merge"));
        assert_eq!((v, c), ([false, true, false], Sure));
        let (v, c, _) = suggested(&ev(Method::Post, Some("archiveProject"), "/projects/{id}"));
        assert_eq!((v, c), ([false, true, false], Unsure));
        let (v, c, _) = suggested(&ev(Method::Post, Some("updateSettings"), "/settings"));
        assert_eq!((v, c), ([false, true, false], Sure));
        let (v, c, src) = suggested(&ev(Method::Post, None, "/locks/{id}/force-unlock"));
        assert_eq!((v, c, src.as_str()), ([false, true, false], Unsure, "path"));
        // Must not fire: creating, sending; a method word is the transport, not the verb.
        for (id, path) in [
            ("createOrder", "/orders"),
            ("sendEmail", "/emails"),
            ("postComment", "/comments"),
        ] {
            let (v, c, _) = suggested(&ev(Method::Post, Some(id), path));
            assert_eq!((v, c), ([false, false, false], Sure), "{id}");
        }
        // The path of a DELETE is the resource, not an action.
        let (_, c, _) = suggested(&ev(Method::Delete, Some("deleteLock"), "/vault/lock"));
        assert_eq!(c, Sure);
    }

    #[test]
    fn patch_body_rule() {
        use Confidence::*;
        let mut e = ev(Method::Patch, Some("issues/update"), "/issues/{id}");
        e.body = BodyShape::FieldEdit(vec!["title".into()]);
        let (v, c, src) = suggested(&e);
        assert_eq!((v, c, src.as_str()), ([false, false, false], Sure, "body"));
        e.body = BodyShape::Document;
        assert_eq!(suggested(&e).0, [false, true, false]);
        assert_eq!(suggested(&e).1, Sure);
        e.body = BodyShape::Opaque;
        assert_eq!(suggested(&e).1, Unsure);
        // A PATCH named as destroying stays destructive whatever its body.
        let mut e = ev(Method::Patch, Some("archiveBoard"), "/boards/{id}");
        e.body = BodyShape::FieldEdit(vec!["reason".into()]);
        assert_eq!(suggested(&e).0, [false, true, false]);
        // No body and a name that changes a state: not destructive.
        let e = ev(Method::Patch, Some("markThreadAsRead"), "/threads/{id}");
        assert_eq!(suggested(&e).0, [false, false, false]);
    }

    #[test]
    fn safe_method_rule() {
        use Confidence::*;
        // Must fire: a destroying name; a name and path that agree.
        let (v, c, _) = suggested(&ev(Method::Get, Some("deleteUser"), "/users/{id}/delete"));
        assert_eq!((v, c), ([false, true, true], Unsure));
        let (v, c, _) = suggested(&ev(Method::Get, Some("logout"), "/logout"));
        assert_eq!((v, c), ([false, false, true], Unsure));
        // A single write word on a GET: the table stands, unsure.
        let (v, c, _) = suggested(&ev(Method::Get, Some("runReport"), "/reports/{id}"));
        assert_eq!((v, c), ([true, false, true], Unsure));
        // Must not fire: a read name (whatever the path), a verb inside a noun phrase.
        for (id, path) in [
            ("getLoginPage", "/login"),
            ("listOrders", "/orders"),
            ("userLogoutHistory", "/users/{id}/logout-history"),
        ] {
            let (v, c, _) = suggested(&ev(Method::Get, Some(id), path));
            assert_eq!((v, c), ([true, false, true], Sure), "{id}");
        }
    }

    fn shape(body: serde_json::Value, content_type: &str) -> BodyShape {
        let root = serde_json::json!({"components": {"schemas": {
            "Edit": {"type": "object", "properties": {"title": {"type": "string"}}},
            "Meta": {"type": "object", "properties": {"state": {"enum": ["a", "b"]}}}}}});
        let b = RequestBody {
            required: false,
            description: None,
            content_type: content_type.into(),
            kind: crate::model::BodyKind::Json,
            schema: Some(&body),
            encoding: None,
        };
        body_shape(Some(&b), &root)
    }

    #[test]
    fn body_shapes() {
        let json = "application/json";
        let edit =
            |names: &[&str]| BodyShape::FieldEdit(names.iter().map(|n| n.to_string()).collect());
        assert_eq!(
            shape(
                serde_json::json!({"$ref": "#/components/schemas/Edit"}),
                json
            ),
            edit(&["title"])
        );
        assert_eq!(
            shape(
                serde_json::json!({"allOf": [{"$ref": "#/components/schemas/Edit"}, {"$ref": "#/components/schemas/Meta"}]}),
                json
            ),
            edit(&["title", "state"])
        );
        let labels = serde_json::json!({"properties": {"labels": {"type": "array", "items": {"type": "string"}}, "n": {"type": ["integer", "null"]}}});
        assert_eq!(shape(labels, json), edit(&["labels", "n"]));
        let required = serde_json::json!({"type": "object", "required": ["sha"], "properties": {"sha": {"type": "string"}}});
        assert_eq!(shape(required, json), BodyShape::Record(vec!["sha".into()]));
        let nested = serde_json::json!({"properties": {"content": {"type": "object", "properties": {"a": {}}}}});
        assert_eq!(shape(nested, json), BodyShape::Document);
        assert_eq!(
            shape(serde_json::json!({"type": "array", "items": {}}), json),
            BodyShape::Document
        );
        assert_eq!(
            shape(
                serde_json::json!({"type": "array"}),
                "application/json-patch+json"
            ),
            BodyShape::Opaque
        );
        assert_eq!(
            shape(serde_json::json!({"type": "object"}), json),
            BodyShape::Opaque
        );
        assert_eq!(
            shape(serde_json::json!({"oneOf": [{"type": "object"}]}), json),
            BodyShape::Opaque
        );
        assert_eq!(body_shape(None, &serde_json::json!({})), BodyShape::None);
    }

    #[test]
    fn departures_say_so() {
        let h = from_evidence(&ev(Method::Post, Some("searchOrders"), "/orders/search"));
        assert!(
            h.read_only.reason.contains("departs from the method table"),
            "{}",
            h.read_only.reason
        );
        assert!(
            h.read_only.reason.contains("`search`"),
            "{}",
            h.read_only.reason
        );
        let h = from_evidence(&ev(Method::Post, Some("createOrder"), "/orders"));
        assert_eq!(h, from_method(Method::Post));
    }

    #[test]
    fn description_rule() {
        use Confidence::*;
        let with = |id, text| {
            let mut e = ev(Method::Post, Some(id), "/things");
            e.description = Some(text);
            suggested(&e)
        };
        // Must fire: irreversible (sure), an overwrite (unsure).
        let (v, c, src) = with("createReversal", "A reversal cannot be undone.");
        assert_eq!(
            (v, c, src.as_str()),
            ([false, true, false], Sure, "description")
        );
        let (v, c, _) = with("uploadFile", "An existing file is overwritten.");
        assert_eq!((v, c), ([false, true, false], Unsure));
        // Must not fire: negated, about another API, on a GET.
        let (v, c, _) = with("trashItem", "This does not permanently delete it.");
        assert_eq!((v, c), ([false, false, false], Sure));
        let (v, _, _) = with("createPlan", "Prices replace the Plans API.");
        assert_eq!(v, [false, false, false]);
        let mut e = ev(Method::Get, Some("listEvents"), "/events");
        e.description = Some("Events that cannot be undone.");
        assert_eq!(suggested(&e), ([true, false, true], Sure, "method".into()));
    }

    #[test]
    fn two_verbs_rule() {
        use Confidence::*;
        // The write wins, unsure.
        let mut e = ev(Method::Post, None, "/core/bwlimit");
        e.summary = Some("Get or update bandwidth limits");
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([false, true, false], Unsure));
        let (v, c, _) = suggested(&ev(Method::Post, Some("getOrSetInterval"), "/interval"));
        assert_eq!((v, c), ([false, true, false], Unsure));
        // An upsert is one write; a plural after `and` is a noun.
        let (v, c, _) = suggested(&ev(Method::Post, Some("createOrUpdateLink"), "/links"));
        assert_eq!((v, c), ([false, false, false], Sure));
        let mut e = ev(Method::Post, Some("fetchBuilds"), "/builds");
        e.summary = Some("Gets builds and runs");
        assert_eq!(suggested(&e).0, [true, false, true]);
    }

    #[test]
    fn put_body_rule() {
        use Confidence::*;
        let mut e = ev(Method::Put, Some("starGist"), "/gists/{id}/star");
        let (v, c, src) = suggested(&e);
        assert_eq!((v, c, src.as_str()), ([false, false, true], Sure, "body"));
        e.body = BodyShape::Record(vec!["value".into()]);
        assert_eq!(suggested(&e).0, [false, false, true]);
        e.body = BodyShape::Document;
        assert_eq!(suggested(&e).0, [false, true, true]);
        // Named as destroying: the table stands.
        let e = ev(Method::Put, Some("mergePull"), "/pulls/{n}/merge");
        assert_eq!(suggested(&e).0, [false, true, true]);
    }

    #[test]
    fn response_and_parameter_rules() {
        use Confidence::*;
        let mut e = ev(Method::Post, Some("searchOrders"), "/orders/search");
        e.accepted = true;
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([false, false, false], Unsure));
        let mut e = ev(Method::Post, Some("createCharge"), "/charges");
        e.idempotency_key = true;
        let (v, c, _) = suggested(&e);
        assert_eq!((v, c), ([false, false, true], Sure));
    }

    #[test]
    fn sql_in_examples() {
        let sql = Some(("sql".to_string(), true));
        let ex = serde_json::json!([{"refId": "A", "rawSql": "x"}]);
        assert_eq!(example_language(Some(&ex)), sql);
        let ex = serde_json::json!({"q": "select * from t"});
        assert_eq!(example_language(Some(&ex)), sql);
        for ex in [
            serde_json::json!({"name": "Update"}),
            serde_json::json!("SELECT"),
            serde_json::json!({"refId": "A"}),
        ] {
            assert_eq!(example_language(Some(&ex)), None, "{ex}");
        }
    }
}
