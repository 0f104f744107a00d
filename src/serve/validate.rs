//! Validate: checks a call's arguments against the tool's `inputSchema` (and a response against
//! its `outputSchema`) with `jsonschema`, giving messages that name the argument.
//!
//! Unknown arguments are rejected: the input schemas allow extra properties, but an argument the
//! mapping does not know would be silently dropped, and a misspelt optional argument (`petID` for
//! `petId`) is better reported to the model than ignored.
//!
//! An integer beyond 64 bits is refused where the input schema says `integer`: JSON reading holds
//! it as the nearest floating-point number, so it could not be sent as written (`2^70 + 1` would
//! go out as `1.1805916207174113e+21`). A `number` keeps any value.
//!
//! A validation's work is bounded: each `pattern` match by [`BACKTRACK_LIMIT`], all of one
//! validation's matches by [`WORK_TIME`]; past either, the rest of its matches fail at once and
//! the call is refused.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{PatternOptions, ValidationError, Validator};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Longest validation message kept, in characters (values in messages can be large).
const MESSAGE: usize = 300;

/// The keyword added to every subschema of an input schema whose `type` is `integer` (and not
/// `number` too): it refuses an integer that cannot be sent exactly.
const EXACT_INTEGER: &str = "x-openapi-mcp-exact-integer";

/// The keyword every `pattern` is moved to: it matches within the validation's work budget.
const BUDGETED_PATTERN: &str = "x-openapi-mcp-pattern";

/// Backtracking steps one `pattern` match may take (fancy-regex's default is 1,000,000; patterns
/// without backreferences or look-around run on the linear `regex` engine and take none).
pub const BACKTRACK_LIMIT: usize = 100_000;

/// Time all the `pattern` matches of one validation may take together.
pub const WORK_TIME: Duration = Duration::from_secs(1);

/// A schema and its validator, compiled on first use.
pub struct Schema {
    schema: Option<Value>,
    /// An input schema: its integers are checked with [`EXACT_INTEGER`].
    input: bool,
    compiled: OnceLock<Option<Validator>>,
}

/// Why a call's arguments are not sent: the message for the model, and whether it is a refusal
/// of input the server cannot handle (an integer beyond 64 bits, validation past its work
/// budget) rather than a schema violation. Refusals are logged under `--verbose`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub message: String,
    pub refused: bool,
}

impl Rejection {
    fn invalid(message: String) -> Self {
        Rejection {
            message,
            refused: false,
        }
    }
}

impl Schema {
    /// A tool's `inputSchema`.
    pub fn input(schema: Option<Value>) -> Self {
        Schema {
            schema,
            input: true,
            compiled: OnceLock::new(),
        }
    }

    /// A tool's `outputSchema`.
    pub fn output(schema: Option<Value>) -> Self {
        Schema {
            schema,
            input: false,
            compiled: OnceLock::new(),
        }
    }

    /// The validator, or `None` when there is no schema or it cannot be compiled (then
    /// nothing is checked; a warning is printed once).
    fn validator(&self, tool: &str, what: &str) -> Option<&Validator> {
        self.compiled
            .get_or_init(|| {
                let mut schema = self.schema.clone()?;
                let mut skipped = Vec::new();
                rewrite(&mut schema, self.input, &mut skipped);
                if !skipped.is_empty() {
                    eprintln!(
                        "openapi-mcp: warning: {tool}: cannot compile the pattern{} {} of the {what}; {} not checked",
                        if skipped.len() == 1 { "" } else { "s" },
                        skipped.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>().join(", "),
                        if skipped.len() == 1 { "it is" } else { "they are" },
                    );
                }
                let built = jsonschema::draft202012::options()
                    .with_keyword(EXACT_INTEGER, |_, _, _| Ok(Box::new(ExactInteger)))
                    .with_keyword(BUDGETED_PATTERN, |_, pattern, _| {
                        BudgetedPattern::new(pattern).map(|k| Box::new(k) as _)
                    })
                    .with_pattern_options(patterns())
                    .build(&schema);
                match built {
                    Ok(v) => Some(v),
                    Err(e) => {
                        eprintln!(
                            "openapi-mcp: warning: {tool}: cannot compile the {what} ({e}); it is not checked"
                        );
                        None
                    }
                }
            })
            .as_ref()
    }

    /// The first problem of `value` against the schema, if any.
    pub fn problem(&self, tool: &str, what: &str, value: &Value) -> Option<String> {
        let v = self.validator(tool, what)?;
        let (found, spent) = metered(WORK_TIME, || {
            v.iter_errors(value)
                .next()
                .map(|e| format!("{e} at {}", display_path(&e.instance_path().to_string())))
        });
        if spent.is_some() {
            return Some(format!(
                "its validation exceeded its work budget ({})",
                budget_terms()
            ));
        }
        found.map(|f| clip(&f))
    }
}

/// How patterns are compiled: with fancy-regex, each match bounded by [`BACKTRACK_LIMIT`].
fn patterns() -> PatternOptions<jsonschema::FancyRegex> {
    PatternOptions::fancy_regex().backtrack_limit(BACKTRACK_LIMIT)
}

/// The work budget in words, for messages.
fn budget_terms() -> String {
    format!(
        "{BACKTRACK_LIMIT} backtracking steps per pattern match, {} s for all of them",
        WORK_TIME.as_secs_f64()
    )
}

/// The running validation's budget: when its patterns must be done, and the value at which it
/// ran out (compared by address, to name the argument holding it).
#[derive(Clone, Copy)]
struct Meter {
    deadline: Instant,
    spent: Option<*const Value>,
}

thread_local! {
    /// The budget of the validation running on this thread (validation is synchronous).
    static METER: Cell<Option<Meter>> = const { Cell::new(None) };
}

/// Run `validate` with a budget of `time` for its pattern matches; also returns the value at
/// which the budget ran out, if it did.
fn metered<T>(time: Duration, validate: impl FnOnce() -> T) -> (T, Option<*const Value>) {
    let meter = Meter {
        deadline: Instant::now() + time,
        spent: None,
    };
    let before = METER.replace(Some(meter));
    let out = validate();
    let spent = METER.replace(before).and_then(|m| m.spent);
    (out, spent)
}

/// Whether a pattern may be matched against `value` now; past the deadline the budget is spent.
fn may_match(value: &Value) -> bool {
    METER.with(|cell| {
        let Some(mut meter) = cell.get() else {
            return true;
        };
        if meter.spent.is_some() {
            return false;
        }
        if Instant::now() < meter.deadline {
            return true;
        }
        meter.spent = Some(std::ptr::from_ref(value));
        cell.set(Some(meter));
        false
    })
}

/// Mark the budget spent at `value` (a match ran past [`BACKTRACK_LIMIT`]).
fn spend(value: &Value) {
    METER.with(|cell| {
        if let Some(mut meter) = cell.get()
            && meter.spent.is_none()
        {
            meter.spent = Some(std::ptr::from_ref(value));
            cell.set(Some(meter));
        }
    });
}

/// The [`BUDGETED_PATTERN`] keyword: `jsonschema`'s own `pattern`, matched only while the budget
/// lasts. Once spent, every further match fails at once, so a call's remaining strings cost
/// nothing.
struct BudgetedPattern(Validator);

/// The message of a match refused for the budget (the call's message replaces it).
const OVER_BUDGET: &str = "over the work budget";

impl BudgetedPattern {
    fn new(pattern: &Value) -> Result<Self, ValidationError<'static>> {
        let mut inner = Map::new();
        inner.insert("pattern".into(), pattern.clone());
        jsonschema::draft202012::options()
            .with_pattern_options(patterns())
            .build(&Value::Object(inner))
            .map(BudgetedPattern)
            .map_err(|e| ValidationError::schema(e.to_string()))
    }

    fn check(&self, instance: &Value) -> Result<(), String> {
        if !instance.is_string() {
            return Ok(());
        }
        if !may_match(instance) {
            return Err(OVER_BUDGET.into());
        }
        match self.0.validate(instance) {
            Ok(()) => Ok(()),
            Err(e) if matches!(e.kind(), ValidationErrorKind::BacktrackLimitExceeded { .. }) => {
                spend(instance);
                Err(OVER_BUDGET.into())
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

impl<'i> jsonschema::Keyword<'i> for BudgetedPattern {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        self.check(instance).map_err(ValidationError::custom)
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.check(instance).is_ok()
    }
}

/// Whether `at` is `value` or inside it.
fn holds(value: &Value, at: *const Value) -> bool {
    std::ptr::eq(value, at)
        || match value {
            Value::Array(items) => items.iter().any(|v| holds(v, at)),
            Value::Object(map) => map.values().any(|v| holds(v, at)),
            _ => false,
        }
}

/// Keywords whose value is a map of subschemas, a subschema or a list of them (2020-12, with the
/// older `definitions` and `additionalItems`).
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];
const SUBSCHEMAS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
];

/// Prepare `schema` for validation: every `pattern` becomes [`BUDGETED_PATTERN`] and, in an
/// input schema, every subschema whose type is `integer` and not `number` gets [`EXACT_INTEGER`].
/// A pattern (or `patternProperties` key) the validator cannot compile is left out and added to
/// `skipped`, so the rest of the schema is still checked (the converter keeps only patterns its
/// tests find this validator compiles; a hand-written tools file may have others). Each kept
/// pattern is compiled twice, here and in the build, on the schema's first use. Only subschemas
/// are visited, never values (`enum`, `const`, `default`, `examples`).
fn rewrite(schema: &mut Value, input: bool, skipped: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(pattern) = map.remove("pattern") {
        if BudgetedPattern::new(&pattern).is_ok() {
            map.insert(BUDGETED_PATTERN.into(), pattern);
        } else {
            skipped.push(
                pattern
                    .as_str()
                    .map_or_else(|| pattern.to_string(), String::from),
            );
        }
    }
    if let Some(Value::Object(props)) = map.get_mut("patternProperties") {
        props.retain(|key, _| {
            let ok = BudgetedPattern::new(&Value::String(key.clone())).is_ok();
            if !ok {
                skipped.push(key.clone());
            }
            ok
        });
    }
    let names = |t: &str| match map.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(list)) => list.iter().any(|v| v.as_str() == Some(t)),
        _ => false,
    };
    if input && names("integer") && !names("number") {
        map.insert(EXACT_INTEGER.into(), Value::Bool(true));
    }
    for (key, value) in map.iter_mut() {
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(subs) = value {
                subs.values_mut().for_each(|v| rewrite(v, input, skipped));
            }
        } else if SUBSCHEMAS.contains(&key.as_str()) {
            match value {
                Value::Array(list) => list.iter_mut().for_each(|v| rewrite(v, input, skipped)),
                other => rewrite(other, input, skipped),
            }
        }
    }
}

/// The [`EXACT_INTEGER`] keyword.
struct ExactInteger;

impl<'i> jsonschema::Keyword<'i> for ExactInteger {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match beyond_64_bits(instance) {
            Some(n) => Err(ValidationError::custom(format!(
                "integer {n} is beyond 64 bits and cannot be sent exactly (JSON reading keeps \
                 only the nearest floating-point number)"
            ))),
            None => Ok(()),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        beyond_64_bits(instance).is_none()
    }
}

/// `value` as read when it is a whole number outside the 64-bit integers (below -2^63, or 2^64
/// and above). Every integer inside them is read exactly (as `i64` or `u64`); one outside is held
/// as a float, rounded (`-2^63 - 1` reads as `-2^63`, hence `<=`).
fn beyond_64_bits(value: &Value) -> Option<&serde_json::Number> {
    let Value::Number(n) = value else {
        return None;
    };
    if n.is_i64() || n.is_u64() {
        return None;
    }
    let f = n.as_f64()?;
    let outside = f >= 18_446_744_073_709_551_616.0 || f <= -9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && outside).then_some(n)
}

fn display_path(pointer: &str) -> String {
    if pointer.is_empty() {
        "the root".into()
    } else {
        pointer.to_string()
    }
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(MESSAGE).collect();
    if out.len() < s.len() {
        out.push_str(" [...]");
    }
    out
}

/// Check `args` for `tool`: unknown arguments first, then the input schema. The message names
/// the argument (`missing required argument `petId``, `argument `limit`: ...`).
pub fn arguments(
    tool: &str,
    input_schema: &Value,
    schema: &Schema,
    args: &Map<String, Value>,
) -> Result<(), Rejection> {
    arguments_within(tool, input_schema, schema, args, WORK_TIME)
}

/// [`arguments`] with `time` for the pattern matches.
fn arguments_within(
    tool: &str,
    input_schema: &Value,
    schema: &Schema,
    args: &Map<String, Value>,
    time: Duration,
) -> Result<(), Rejection> {
    let known = input_schema.get("properties").and_then(Value::as_object);
    let unknown: Vec<&str> = args
        .keys()
        .filter(|k| !known.is_some_and(|p| p.contains_key(k.as_str())))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let names: Vec<String> = known
            .map(|p| p.keys().map(|k| format!("`{k}`")).collect())
            .unwrap_or_default();
        let list: Vec<String> = unknown.iter().map(|k| format!("`{k}`")).collect();
        return Err(Rejection::invalid(format!(
            "unknown argument{} {} for tool `{tool}` (it takes: {})",
            if unknown.len() == 1 { "" } else { "s" },
            list.join(", "),
            if names.is_empty() {
                "no arguments".to_string()
            } else {
                names.join(", ")
            }
        )));
    }
    let Some(v) = schema.validator(tool, "inputSchema") else {
        return required_only(input_schema, args).map_err(Rejection::invalid);
    };
    let instance = Value::Object(args.clone());
    let mut refused = false;
    let (problems, spent) = metered(time, || {
        v.iter_errors(&instance)
            .take(5)
            .map(|e| {
                // A refusal inside `anyOf`/`oneOf` is told as itself, not as "valid under none".
                let (path, text) = match refusal(&e) {
                    Some(found) => {
                        refused = true;
                        found
                    }
                    None => (e.instance_path().to_string(), e.to_string()),
                };
                let argument = path.strip_prefix('/').map(|p| {
                    crate::read::pointer::unescape_token(p.split('/').next().unwrap_or(p))
                });
                match (e.kind(), argument) {
                    (ValidationErrorKind::Required { property }, None) => {
                        let name = property
                            .as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| property.to_string());
                        format!("missing required argument `{name}`")
                    }
                    (_, Some(arg)) if path.matches('/').count() > 1 => {
                        clip(&format!("argument `{arg}`: {text} (at {path})"))
                    }
                    (_, Some(arg)) => clip(&format!("argument `{arg}`: {text}")),
                    (_, None) => clip(&format!("arguments: {text}")),
                }
            })
            .collect::<Vec<String>>()
    });
    if let Some(at) = spent {
        // Named by the argument holding the string (a property name is held by none).
        let what = instance
            .as_object()
            .and_then(|m| m.iter().find(|(_, v)| holds(v, at)))
            .map_or("the arguments".to_string(), |(name, _)| {
                format!("argument `{name}`")
            });
        return Err(Rejection {
            message: format!(
                "validation of {what} exceeded its work budget ({}); nothing was sent",
                budget_terms()
            ),
            refused: true,
        });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Rejection {
            message: format!("invalid arguments: {}", problems.join("; ")),
            refused,
        })
    }
}

/// The instance path and message of an [`EXACT_INTEGER`] refusal: `e` itself, or one among the
/// branches of the `anyOf`/`oneOf` that `e` reports.
fn refusal(e: &ValidationError<'_>) -> Option<(String, String)> {
    match e.kind() {
        ValidationErrorKind::Custom { keyword, .. } if keyword == EXACT_INTEGER => {
            Some((e.instance_path().to_string(), e.to_string()))
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context.iter().flatten().find_map(|inner| refusal(inner))
        }
        _ => None,
    }
}

/// Without a validator: at least the required arguments must be present.
fn required_only(input_schema: &Value, args: &Map<String, Value>) -> Result<(), String> {
    let missing: Vec<String> = input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| !args.contains_key(*r))
        .map(|r| format!("missing required argument `{r}`"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("invalid arguments: {}", missing.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(args: Value) -> Result<(), String> {
        let input = json!({
            "type": "object",
            "properties": {"petId": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["petId"]
        });
        let schema = Schema::input(Some(input.clone()));
        arguments("t", &input, &schema, args.as_object().unwrap()).map_err(|r| r.message)
    }

    #[test]
    fn messages_name_the_argument() {
        assert_eq!(check(json!({"petId": "1", "limit": 3})), Ok(()));
        let e = check(json!({"limit": 3})).unwrap_err();
        assert_eq!(e, "invalid arguments: missing required argument `petId`");
        let e = check(json!({"petId": "1", "limit": "many"})).unwrap_err();
        assert!(
            e.starts_with("invalid arguments: argument `limit`: "),
            "{e}"
        );
        let e = check(json!({"petId": "1", "petID": "2"})).unwrap_err();
        assert_eq!(
            e,
            "unknown argument `petID` for tool `t` (it takes: `petId`, `limit`)"
        );
    }

    #[test]
    fn uncompilable_schema_still_checks_required() {
        let input =
            json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["a"]});
        let schema = Schema::input(Some(input.clone()));
        let e = arguments("t", &input, &schema, &Map::new()).unwrap_err();
        assert!(e.message.contains("`a`"), "{e:?}");
    }

    /// A pattern the validator cannot compile (`\\k<y>`: a named back-reference) is not checked;
    /// the rest of the schema is.
    #[test]
    fn uncompilable_patterns_are_left_out_of_validation() {
        let input = json!({
            "type": "object",
            "properties": {
                "a": {"type": "string", "pattern": "(?<y>a)\\k<y>", "maxLength": 3},
                "b": {"type": "object", "patternProperties": {"(": {"type": "integer"}, "^x": {"type": "integer"}}}
            }
        });
        let schema = Schema::input(Some(input.clone()));
        let args = |v: Value| v.as_object().unwrap().clone();
        let ok = |v: Value| arguments("t", &input, &schema, &args(v)).map_err(|r| r.message);
        assert_eq!(ok(json!({"a": "bb", "b": {"(": "s"}})), Ok(()));
        assert!(ok(json!({"a": "bbbb"})).unwrap_err().contains("`a`"));
        assert!(ok(json!({"b": {"xy": "s"}})).unwrap_err().contains("`b`"));
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_where_the_schema_says_integer() {
        let input = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "scale": {"type": "number"},
                "either": {"type": ["integer", "null"]},
                "body": {"$ref": "#/$defs/Body"},
                "ids": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
                "choice": {"enum": [{"type": "integer"}]}
            },
            "$defs": {"Body": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        });
        let schema = Schema::input(Some(input.clone()));
        let run = |text: &str| {
            let args: Value = serde_json::from_str(text).unwrap();
            arguments("t", &input, &schema, args.as_object().unwrap())
        };
        let e = run(r#"{"id": 1180591620717411303424}"#).unwrap_err();
        assert!(e.refused, "{e:?}");
        assert_eq!(
            e.message,
            "invalid arguments: argument `id`: integer 1.1805916207174113e+21 is beyond 64 bits \
             and cannot be sent exactly (JSON reading keeps only the nearest floating-point \
             number)"
        );
        for (text, argument) in [
            (r#"{"id": -9223372036854775809}"#, "id"),
            (r#"{"id": 18446744073709551616}"#, "id"),
            (r#"{"id": 1e300}"#, "id"),
            (r#"{"either": 1e20}"#, "either"),
            (r#"{"body": {"n": 1e20}}"#, "body"),
            (r#"{"ids": [1, 1e25]}"#, "ids"),
        ] {
            let e = run(text).unwrap_err();
            assert!(e.refused, "{text}: {e:?}");
            assert!(
                e.message.contains(&format!("argument `{argument}`")),
                "{e:?}"
            );
            assert!(e.message.contains("beyond 64 bits"), "{e:?}");
        }
        // Within 64 bits, a `number`, and values that are not schemas: accepted.
        for text in [
            r#"{"id": 18446744073709551615, "scale": 1.5e300}"#,
            r#"{"id": -9223372036854775808, "either": null}"#,
            r#"{"scale": 1180591620717411303424, "body": {"n": 3}}"#,
            r#"{"choice": {"type": "integer"}}"#,
        ] {
            assert_eq!(run(text), Ok(()), "{text}");
        }
        // A wrong type is a schema violation, not a refusal.
        let e = run(r#"{"id": 1.5}"#).unwrap_err();
        assert!(!e.refused, "{e:?}");
    }

    #[test]
    fn pattern_matching_is_bounded_per_match_and_per_call() {
        // A backreference runs on fancy-regex's backtracking engine: against 100 `a`s and a `!`,
        // this one passes the backtracking limit.
        let slow = "^(a|aa)+\\1$";
        let input = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "string", "pattern": slow}},
                "code": {"type": "string", "pattern": "^[a-z]+$"},
                "never": {"not": {"type": "string", "pattern": slow}},
                "map": {"type": "object", "propertyNames": {"pattern": slow}}
            }
        });
        let schema = Schema::input(Some(input.clone()));
        let run = |args: Value, time: Duration| {
            arguments_within("t", &input, &schema, args.as_object().unwrap(), time)
        };
        let hostile = format!("{}!", "a".repeat(100));
        let e = run(json!({"tags": vec![hostile.clone(); 1000]}), WORK_TIME).unwrap_err();
        assert!(e.refused, "{e:?}");
        assert_eq!(
            e.message,
            "validation of argument `tags` exceeded its work budget (100000 backtracking steps \
             per pattern match, 1 s for all of them); nothing was sent"
        );
        // Inside `not` a failed match would pass: the call is refused all the same.
        let e = run(json!({"never": hostile.clone()}), WORK_TIME).unwrap_err();
        assert!(
            e.message
                .starts_with("validation of argument `never` exceeded"),
            "{e:?}"
        );
        // A property name is held by no argument.
        let e = run(json!({"map": {hostile.clone(): 1}}), WORK_TIME).unwrap_err();
        assert!(
            e.message
                .starts_with("validation of the arguments exceeded"),
            "{e:?}"
        );
        // Past the time, even cheap matches stop.
        let e = run(json!({"code": "abc"}), Duration::ZERO).unwrap_err();
        assert!(
            e.message
                .starts_with("validation of argument `code` exceeded"),
            "{e:?}"
        );
        // Within the budget, patterns check as before.
        assert_eq!(
            run(json!({"code": "abc", "tags": ["aa"]}), WORK_TIME),
            Ok(())
        );
        let e = run(json!({"code": "ABC"}), WORK_TIME).unwrap_err();
        assert!(!e.refused);
        assert_eq!(
            e.message,
            r#"invalid arguments: argument `code`: "ABC" does not match "^[a-z]+$""#
        );
        // An outputSchema's validation has the same budget.
        let output = Schema::output(Some(input["properties"]["tags"].clone()));
        let problem = output.problem("t", "outputSchema", &json!([hostile]));
        assert!(problem.is_some_and(|p| p.starts_with("its validation exceeded its work budget")),);
    }
}
