//! YAML parity sweep: the YAML reader's fast paths give the tree of its slow path, on a corpus.
//!
//! ```sh
//! cargo run --release --example yaml_parity -- "$(../shared/corpus/fetch)" [--every K]
//! ```
//!
//! Every (K-th) JSON document of the folder is written as YAML by `yaml_serde`, and in three
//! variants a hand-written file may have (CRLF line ends; keys in double quotes; a `---` line and
//! a comment before every line at the left margin). For each text, the production parse
//! (`load::parse_tree`: straight into the JSON tree, cut and parsed on two threads from 512 KiB)
//! and the parse with every entry cut (`None` where it falls back) must give the same tree as the
//! slow path (`yaml_serde::Value`, merge keys, conversion), key order included. Exits 1 on any
//! difference or panic.

#[path = "common/corpus.rs"]
mod corpus;

fn variants(yaml: String) -> Vec<(&'static str, String)> {
    let crlf = yaml.replace('\n', "\r\n");
    let quoted: String = yaml.split_inclusive('\n').map(quote_key).collect();
    let mut commented = String::from("---\n");
    for line in yaml.split_inclusive('\n') {
        if !line.starts_with(' ') {
            commented.push_str("# a comment: here\n");
        }
        commented.push_str(line);
    }
    vec![
        ("yaml", yaml),
        ("crlf", crlf),
        ("quoted", quoted),
        ("commented", commented),
    ]
}

/// `  key: value` as `  "key": value` (keys without quotes, backslashes, `#` or `:`).
fn quote_key(line: &str) -> String {
    let body = line.trim_start_matches([' ', '-']);
    let indent = &line[..line.len() - body.len()];
    let end = body
        .find(": ")
        .or_else(|| body.trim_end().strip_suffix(':').map(str::len));
    match end {
        Some(end)
            if end > 0
                && !body[..end].contains(['"', '\\', '#', '\'', ':'])
                && body.as_bytes()[0].is_ascii_alphanumeric() =>
        {
            format!("{indent}\"{}\"{}", &body[..end], &body[end..])
        }
        _ => line.to_string(),
    }
}

fn main() {
    let (root, every) = corpus::args("yaml_parity");
    let paths = corpus::documents(&root);
    let started = std::time::Instant::now();
    let (mut texts, mut parsed, mut split, mut failures) = (0, 0, 0, Vec::new());
    for path in paths.iter().step_by(every) {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            continue;
        };
        let Ok(yaml) = yaml_serde::to_string(&value) else {
            continue;
        };
        for (kind, text) in variants(yaml) {
            texts += 1;
            let name = format!("{} ({kind})", path.display());
            let checked = std::panic::catch_unwind(|| {
                let (slow, cut) = openapi_mcp::yaml::parity_trees(&text);
                let production = openapi_mcp::load::parse_tree("t.yaml", text.as_bytes()).ok();
                let json = |v: &Option<serde_json::Value>| v.as_ref().map(|v| v.to_string());
                let (slow, production, cut) = (json(&slow), json(&production), json(&cut));
                let same = (production == slow, cut.is_none() || cut == slow);
                (same, slow.is_some(), cut.is_some())
            });
            match checked {
                Ok(((true, true), ok, was_cut)) => {
                    parsed += usize::from(ok);
                    split += usize::from(was_cut);
                }
                Ok(((production, _), _, _)) => failures.push(format!(
                    "{name}: the {} tree differs from the slow path's",
                    if production { "cut" } else { "production" }
                )),
                Err(_) => failures.push(format!("{name}: panicked")),
            }
        }
    }
    println!(
        "yaml_parity: {texts} texts from {} documents, {parsed} valid YAML, {split} cut into runs, {} differences, {:.0} s",
        paths.len().div_ceil(every),
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    corpus::exit_on(&failures);
}
