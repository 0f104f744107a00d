//! JSON text -> tree with `serde_json`. A large document is parsed in parts on the thread pool:
//! its top-level members, and the members of any member that holds much of the text (`paths`,
//! `components.schemas`), are first found as raw text (`serde_json::value::RawValue`), then
//! parsed side by side and put together in document order. The tree is the one a plain parse
//! gives (key order, repeated keys: the last value at the first key's place); a text that fails
//! anywhere is parsed plainly, for the plain parse's error.

use rayon::prelude::*;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Texts shorter than this are parsed in one piece.
const PARALLEL_FROM: usize = 1 << 20;

/// Parse JSON text into a tree.
pub(super) fn parse(bytes: &[u8]) -> serde_json::Result<Value> {
    if bytes.len() >= PARALLEL_FROM
        && let Some(tree) = parse_in_parts(bytes)
    {
        return Ok(tree);
    }
    serde_json::from_slice(bytes)
}

/// A member of an object, parsed or to be split further.
enum Part<'t> {
    Raw(&'t RawValue),
    Split(Vec<(String, Part<'t>)>),
}

pub(super) fn parse_in_parts(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let big = text.len() / 8;
    let top = split(text, big, 0)?;
    // Every raw part, in order, parsed on the pool.
    let mut raws = Vec::new();
    collect(&top, &mut raws);
    let parsed: Vec<Value> = raws
        .par_iter()
        .map(|raw| serde_json::from_str(raw.get()))
        .collect::<serde_json::Result<_>>()
        .ok()?;
    let mut parsed = parsed.into_iter();
    Some(Value::Object(assemble(top, &mut parsed)))
}

/// The members of the object `text`, those over `big` bytes split again (two levels at most).
fn split(text: &str, big: usize, depth: usize) -> Option<Vec<(String, Part<'_>)>> {
    let members: indexmap::IndexMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    Some(
        members
            .into_iter()
            .map(|(key, raw)| {
                let inner = raw.get();
                let part = match (depth < 2 && inner.len() > big && inner.starts_with('{'))
                    .then(|| split(inner, big, depth + 1))
                    .flatten()
                {
                    Some(members) => Part::Split(members),
                    None => Part::Raw(raw),
                };
                (key, part)
            })
            .collect(),
    )
}

fn collect<'t>(members: &[(String, Part<'t>)], out: &mut Vec<&'t RawValue>) {
    for (_, part) in members {
        match part {
            Part::Raw(raw) => out.push(raw),
            Part::Split(inner) => collect(inner, out),
        }
    }
}

fn assemble(
    members: Vec<(String, Part<'_>)>,
    parsed: &mut impl Iterator<Item = Value>,
) -> Map<String, Value> {
    let mut map = Map::with_capacity(members.len());
    for (key, part) in members {
        let value = match part {
            Part::Raw(_) => parsed.next().unwrap_or(Value::Null),
            Part::Split(inner) => Value::Object(assemble(inner, parsed)),
        };
        map.insert(key, value);
    }
    map
}
