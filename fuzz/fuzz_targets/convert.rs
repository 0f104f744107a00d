//! Fuzz the loader and converter: any bytes must give tools or an error, never a panic, and
//! successful output must be deterministic and render.
#![no_main]

use libfuzzer_sys::fuzz_target;
use openapi_mcp::{Options, emit};

fuzz_target!(|data: &[u8]| {
    for inline_refs in [false, true] {
        let options = Options { inline_refs, ..Options::default() };
        if let Ok(c) = openapi_mcp::convert_bytes("fuzz", data, &options) {
            let a = emit::render(&c.tools, emit::Format::Json).expect("renders");
            let again = openapi_mcp::convert_bytes("fuzz", data, &options).expect("converts twice");
            let b = emit::render(&again.tools, emit::Format::Json).expect("renders");
            assert_eq!(a, b, "deterministic");
            let _ = openapi_mcp::lint::lint(&c.tools, Default::default());
        }
    }
});
