//! Validate: checks a call's arguments against the tool's `inputSchema` (and a response against
//! its `outputSchema`) with `jsonschema`, giving messages that name the argument.
//!
//! Unknown arguments are rejected: the input schemas allow extra properties, but an argument the
//! mapping does not know would be silently dropped, and a misspelt optional argument (`petID` for
//! `petId`) is better reported to the model than ignored.

use jsonschema::Validator;
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// Longest validation message kept, in characters (values in messages can be large).
const MESSAGE: usize = 300;

/// A schema and its validator, compiled on first use.
pub struct Schema {
    schema: Option<Value>,
    compiled: OnceLock<Option<Validator>>,
}

impl Schema {
    pub fn new(schema: Option<Value>) -> Self {
        Schema {
            schema,
            compiled: OnceLock::new(),
        }
    }

    /// The validator, or `None` when there is no schema or it cannot be compiled (then
    /// nothing is checked; a warning is printed once).
    fn validator(&self, tool: &str, what: &str) -> Option<&Validator> {
        self.compiled
            .get_or_init(|| {
                let schema = self.schema.as_ref()?;
                match jsonschema::draft202012::new(schema) {
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
        let e = v.iter_errors(value).next()?;
        Some(clip(&format!(
            "{e} at {}",
            display_path(&e.instance_path().to_string())
        )))
    }
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
) -> Result<(), String> {
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
        return Err(format!(
            "unknown argument{} {} for tool `{tool}` (it takes: {})",
            if unknown.len() == 1 { "" } else { "s" },
            list.join(", "),
            if names.is_empty() {
                "no arguments".to_string()
            } else {
                names.join(", ")
            }
        ));
    }
    let Some(v) = schema.validator(tool, "inputSchema") else {
        return required_only(input_schema, args);
    };
    let instance = Value::Object(args.clone());
    let problems: Vec<String> = v
        .iter_errors(&instance)
        .take(5)
        .map(|e| {
            let path = e.instance_path().to_string();
            let argument = path
                .strip_prefix('/')
                .map(|p| crate::read::pointer::unescape_token(p.split('/').next().unwrap_or(p)));
            match (e.kind(), argument) {
                (jsonschema::error::ValidationErrorKind::Required { property }, None) => {
                    let name = property
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| property.to_string());
                    format!("missing required argument `{name}`")
                }
                (_, Some(arg)) if path.matches('/').count() > 1 => {
                    clip(&format!("argument `{arg}`: {e} (at {path})"))
                }
                (_, Some(arg)) => clip(&format!("argument `{arg}`: {e}")),
                (_, None) => clip(&format!("arguments: {e}")),
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("invalid arguments: {}", problems.join("; ")))
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
        let schema = Schema::new(Some(input.clone()));
        arguments("t", &input, &schema, args.as_object().unwrap())
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
            json!({"type": "object", "properties": {"a": {"pattern": "("}}, "required": ["a"]});
        let schema = Schema::new(Some(input.clone()));
        let e = arguments("t", &input, &schema, &Map::new()).unwrap_err();
        assert!(e.contains("`a`"), "{e}");
    }
}
