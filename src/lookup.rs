//! Lookup: a member of a JSON object, found in order in a small object rather than through the
//! map's hash.

use serde_json::{Map, Value};

/// Member `key` of `obj`. An object of a few members, nearly every object of an OpenAPI
/// document, is searched in order: comparing a few short keys is faster than hashing the key,
/// which `serde_json`'s map does with SipHash (Microsoft Graph: reading operations, which looks
/// up a dozen keys per parameter, was a sixth of a conversion).
pub(crate) fn get<'v>(obj: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    const SMALL: usize = 8;
    if obj.len() <= SMALL {
        obj.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        obj.get(key)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    /// The same member as the map's own lookup, for small and large objects, present or not.
    #[test]
    fn get_is_the_maps_lookup() {
        for n in [0, 1, 7, 8, 9, 40] {
            let m: Map<String, Value> = (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
            for key in ["k0", "k7", "k8", "k39", "missing", ""] {
                assert_eq!(super::get(&m, key), m.get(key), "{n} members, {key}");
            }
        }
    }
}
