//! Fuzz reading and converting: any bytes must give tools or an error, never a panic, and
//! successful output must be deterministic and render. The bytes are tried three ways: as one
//! document (JSON or YAML, whichever they are), as several files joined by relative `$ref`s
//! (the bytes cut at each line `#--`; the first piece is `root.yaml`, the others `a.yaml`,
//! `b.json`, `c.yaml`), and, for JSON, parsed in parts as a large document is, which must give
//! the tree of a plain parse; read as a document (path items kept as text), an OpenAPI 3.x
//! document must give that tree again, and the references a walk of it finds; the operations
//! listed from its path items' members must be those read whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use openapi_mcp::{Options, emit};

const FILES: [&str; 4] = ["root.yaml", "a.yaml", "b.json", "c.yaml"];

fuzz_target!(|data: &[u8]| {
    for inline_refs in [false, true] {
        let options = Options {
            inline_refs,
            ..Options::default()
        };
        check(openapi_mcp::convert_bytes("fuzz", data, &options), || {
            openapi_mcp::convert_bytes("fuzz", data, &options)
        });
    }
    if let Ok(plain) = serde_json::from_slice::<serde_json::Value>(data) {
        let parts = openapi_mcp::read::parse_json_in_parts(data);
        // As text: trees that are equal may still differ in key order.
        assert!(
            parts.is_none_or(|parts| parts.to_string() == plain.to_string()),
            "parts differ"
        );
        if let Ok(doc) = openapi_mcp::read::parse("fuzz", data)
            && doc.version != openapi_mcp::read::SpecVersion::Swagger2
        {
            assert_eq!(
                doc.tree().to_string(),
                plain.to_string(),
                "document differs"
            );
            let walked: std::collections::BTreeSet<&str> =
                openapi_mcp::read::references::distinct_references(&plain)
                    .into_iter()
                    .collect();
            let found: std::collections::BTreeSet<&str> =
                doc.references().iter().map(String::as_str).collect();
            assert_eq!(found, walked, "references differ");
        }
    }
    // The operations listed from the path items' members are those read whole.
    if let Ok(doc) = openapi_mcp::read::parse("fuzz", data)
        && let Ok(api) = openapi_mcp::model::read(&doc)
    {
        let (outline, _) = openapi_mcp::model::outline(&doc, |_| ()).expect("lists what reads");
        let read: Vec<String> = api
            .operations
            .iter()
            .map(|o| format!("{:?}", o.identity()))
            .collect();
        let listed: Vec<String> = outline
            .entries
            .iter()
            .map(|e| format!("{:?}", e.identity()))
            .collect();
        assert_eq!(read, listed, "listing differs");
    }
    let pieces: Vec<&[u8]> = data.split_str_lines();
    if pieces.len() > 1 {
        let dir = tempfile::tempdir().expect("temporary folder");
        for (name, piece) in FILES.iter().zip(&pieces) {
            std::fs::write(dir.path().join(name), piece).expect("writes");
        }
        let root = dir.path().join(FILES[0]);
        let options = Options::default();
        check(openapi_mcp::convert_file(&root, &options), || {
            openapi_mcp::convert_file(&root, &options)
        });
    }
});

/// A conversion that succeeded renders, converts again to the same bytes, and lints.
fn check(
    first: openapi_mcp::Result<openapi_mcp::Conversion>,
    again: impl Fn() -> openapi_mcp::Result<openapi_mcp::Conversion>,
) {
    let Ok(c) = first else {
        return;
    };
    let a = emit::render(&c.tools, emit::Format::Json).expect("renders");
    let b =
        emit::render(&again().expect("converts twice").tools, emit::Format::Json).expect("renders");
    assert_eq!(a, b, "deterministic");
    let _ = openapi_mcp::review::lint::lint(&c.tools, Default::default());
}

/// The bytes cut at each line `#--` (at most four pieces).
trait SplitLines {
    fn split_str_lines(&self) -> Vec<&[u8]>;
}

impl SplitLines for [u8] {
    fn split_str_lines(&self) -> Vec<&[u8]> {
        let mut pieces = Vec::new();
        let mut rest = self;
        while pieces.len() < FILES.len() - 1 {
            match rest.windows(5).position(|w| w == b"\n#--\n") {
                Some(i) => {
                    pieces.push(&rest[..i]);
                    rest = &rest[i + 5..];
                }
                None => break,
            }
        }
        pieces.push(rest);
        pieces
    }
}
