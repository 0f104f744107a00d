//! The parse floor of the benchmark: read a file and parse it into a `serde_json::Value` (a YAML
//! file into a `yaml_serde::Value`), nothing else, with the system allocator, as a plain program
//! would. The tree is not freed before the process ends. See `examples/bench.rs`.

fn main() {
    let path = std::env::args_os().nth(1).expect("usage: floor FILE");
    let bytes = std::fs::read(&path).expect("readable");
    if path.to_string_lossy().ends_with(".yaml") {
        let v: yaml_serde::Value = yaml_serde::from_slice(&bytes).expect("YAML");
        std::mem::forget(v);
    } else {
        let v: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        std::mem::forget(v);
    }
}
