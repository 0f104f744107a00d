//! Command-line contract of `openapi-mcp convert`: options, exit codes, errors, atomic output.

use crate::common;

use common::cmd;
use predicates::prelude::*;
use serde_json::Value;

fn tools(args: &[&str]) -> Vec<Value> {
    let out = cmd()
        .arg("convert")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).expect("JSON output");
    v["tools"].as_array().unwrap().clone()
}

fn names(args: &[&str]) -> Vec<String> {
    tools(args)
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn stdout_of(args: &[&str]) -> String {
    let out = cmd()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn converts_to_stdout_compact_one_tool_a_line() {
    let text = stdout_of(&["convert", "specs/petstore.yaml"]);
    let lines: Vec<&str> = text.lines().collect();
    let tools = serde_json::from_str::<serde_json::Value>(&text).unwrap()["tools"]
        .as_array()
        .unwrap()
        .len();
    // `{"tools":[`, one line per tool, `]}`.
    assert_eq!(lines.len(), tools + 2, "{text}");
    assert_eq!(lines[0], r#"{"tools":["#);
    assert!(lines[1].starts_with(r#"{"name":"list_pets","#));
    assert!(
        lines[1..=tools]
            .iter()
            .all(|l| l.starts_with(r#"{"name":""#))
    );
    assert_eq!(lines[tools + 1], "]}");
    assert!(text.ends_with("]}\n"));
}

#[test]
fn json_pretty_indents_by_two_spaces_with_the_same_content() {
    let pretty = stdout_of(&["convert", "specs/petstore.yaml", "--format", "json-pretty"]);
    assert!(pretty.starts_with("{\n  \"tools\": [\n    {\n      \"name\": \"list_pets\""));
    assert!(pretty.ends_with("}\n"));
    let compact = stdout_of(&["convert", "specs/petstore.yaml"]);
    let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
    assert_eq!(parse(&pretty), parse(&compact));
    assert!(
        compact.len() * 3 < pretty.len() * 2,
        "compact is much smaller"
    );
}

#[test]
fn two_runs_are_byte_identical() {
    let a = cmd()
        .args(["convert", "specs/keywords-3.1.json"])
        .output()
        .unwrap();
    let b = cmd()
        .args(["convert", "specs/keywords-3.1.json"])
        .output()
        .unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn format_is_detected_from_content_and_stdin_works() {
    let yaml = std::fs::read(common::root().join("specs/petstore.yaml")).unwrap();
    let from_stdin = cmd()
        .args(["convert", "-"])
        .write_stdin(yaml.clone())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let from_file = cmd()
        .args(["convert", "specs/petstore.yaml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(from_stdin, from_file);
    // YAML content behind a .json name still parses as YAML.
    let dir = tempfile::tempdir().unwrap();
    let misnamed = dir.path().join("petstore.json");
    std::fs::write(&misnamed, &yaml).unwrap();
    let out = cmd()
        .arg("convert")
        .arg(&misnamed)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(out, from_file);
}

#[test]
fn yaml_output_holds_the_same_tools() {
    let out = cmd()
        .args(["convert", "specs/petstore.yaml", "--format", "yaml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let yaml: Value = yaml_serde::from_slice(&out).unwrap();
    let json: Value = serde_json::from_slice(
        &cmd()
            .args(["convert", "specs/petstore.yaml"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    )
    .unwrap();
    assert_eq!(yaml, json);
}

#[test]
fn output_file_is_written_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    std::fs::write(&out, "old").unwrap();
    cmd()
        .args(["convert", "specs/petstore.yaml", "-o"])
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("\"list_pets\""));
}

/// The atomic write goes through a temporary file (mode 0600); the result must not inherit that.
#[cfg(unix)]
#[test]
fn output_file_permissions_are_those_of_a_plain_write() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // A new file gets what `fs::write` gives under the same umask.
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "x").unwrap();
    let fresh = dir.path().join("fresh.json");
    cmd()
        .args(["convert", "specs/petstore.yaml", "-o"])
        .arg(&fresh)
        .assert()
        .success();
    assert_eq!(mode(&fresh), mode(&plain));
    // A replaced file keeps its own mode.
    let kept = dir.path().join("kept.json");
    std::fs::write(&kept, "old").unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    cmd()
        .args(["convert", "specs/petstore.yaml", "-o"])
        .arg(&kept)
        .assert()
        .success();
    assert_eq!(mode(&kept), 0o640);
}

/// Regenerating the same output leaves the file as it is (a build tool sees no change); other
/// output replaces it.
#[test]
fn unchanged_output_leaves_the_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    // The modification time, and on Unix the inode (a rename into place gives a new one).
    let convert = |spec: &str| {
        cmd()
            .args(["convert", spec, "-o"])
            .arg(&out)
            .assert()
            .success();
        let meta = std::fs::metadata(&out).unwrap();
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        (meta.modified().unwrap(), inode)
    };
    let first = convert("specs/petstore.yaml");
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_eq!(convert("specs/petstore.yaml"), first);
    let content = std::fs::read(&out).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert_ne!(convert("specs/collisions.yaml"), first);
    assert_ne!(std::fs::read(&out).unwrap(), content);
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "no temporary file left: {files:?}");
}

#[test]
fn failed_run_keeps_the_old_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"openapi\": \"3.0.0\", \"paths\": ").unwrap();
    let out = dir.path().join("tools.json");
    std::fs::write(&out, "previous").unwrap();
    cmd()
        .arg("convert")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
}

#[test]
fn missing_file_is_exit_2() {
    cmd()
        .args(["convert", "specs/does-not-exist.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("specs/does-not-exist.yaml"));
}

#[test]
fn webhooks_only_is_zero_tools_with_a_note() {
    cmd()
        .args(["convert", "specs/webhooks-only.json"])
        .assert()
        .success()
        .stdout("{\"tools\":[]}\n")
        .stderr(predicate::str::contains("webhook"));
}

#[test]
fn tag_filters() {
    let spec = "specs/petstore.yaml";
    assert_eq!(names(&[spec, "--include-tag", "pets"]).len(), 4);
    assert!(names(&[spec, "--include-tag", "nope"]).is_empty());
    assert!(names(&[spec, "--exclude-tag", "pets"]).is_empty());
}

#[test]
fn path_method_and_operation_filters() {
    let spec = "specs/petstore.yaml";
    assert_eq!(
        names(&[spec, "--include-path", "/pets/*"]),
        ["show_pet_by_id", "delete_pet"]
    );
    assert_eq!(
        names(&[spec, "--include-path", "/pets"]),
        ["list_pets", "create_pet"]
    );
    assert_eq!(names(&[spec, "--include-path", "/**"]).len(), 4);
    assert_eq!(
        names(&[spec, "--methods", "get"]),
        ["list_pets", "show_pet_by_id"]
    );
    assert_eq!(
        names(&[spec, "--methods", "POST,delete"]),
        ["create_pet", "delete_pet"]
    );
    assert_eq!(
        names(&[spec, "--include-op", "listPets,deletePet"]),
        ["list_pets", "delete_pet"]
    );
    assert_eq!(
        names(&[spec, "--exclude-op", "listPets"]),
        ["create_pet", "show_pet_by_id", "delete_pet"]
    );
    assert_eq!(
        names(&[spec, "--skip-deprecated"]),
        ["list_pets", "create_pet", "show_pet_by_id"]
    );
}

#[test]
fn bad_option_values_are_exit_2() {
    cmd()
        .args(["convert", "specs/petstore.yaml", "--methods", "fetch"])
        .assert()
        .code(2);
    cmd()
        .args(["convert", "specs/petstore.yaml", "--name-style", "shouty"])
        .assert()
        .code(2);
    cmd()
        .args(["convert", "specs/petstore.yaml", "--max-name-len", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-name-len"));
    cmd()
        .args(["convert", "specs/petstore.yaml", "--include-path", "/a/{b"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--include-path"));
}

#[test]
fn name_style_and_length() {
    assert_eq!(
        names(&["specs/petstore.yaml", "--name-style", "kebab"])[2],
        "show-pet-by-id"
    );
    let short = names(&["specs/long-names.yaml", "--max-name-len", "24"]);
    for n in &short {
        assert!(n.len() <= 24, "{n}");
        assert!(
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{n}"
        );
    }
    assert_ne!(short[0], short[1]);
    // The same limit gives the same names every time.
    assert_eq!(
        short,
        names(&["specs/long-names.yaml", "--max-name-len", "24"])
    );
}

#[test]
fn inline_refs_leaves_only_recursive_defs() {
    let t = tools(&["specs/petstore.yaml", "--inline-refs"]);
    let text = serde_json::to_string(&t).unwrap();
    assert!(!text.contains("$ref"), "petstore has no recursion: {text}");
    let t = tools(&["specs/recursive.yaml", "--inline-refs"]);
    assert_eq!(t[0]["outputSchema"]["$defs"].as_object().unwrap().len(), 1);
}

/// Every option `--help` lists for a command is in the README, and the ones the README's option
/// table promises are in `--help`.
#[test]
fn help_and_readme_document_every_option() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let commands: &[&str] = if cfg!(feature = "serve") {
        &["convert", "hints", "lint", "review", "search", "serve"]
    } else {
        &["convert", "hints", "lint", "review", "search"]
    };
    for &command in commands {
        let help = stdout_of(&[command, "--help"]);
        let options: Vec<&str> = help
            .lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let l = l.strip_prefix("-o, ").unwrap_or(l);
                l.starts_with("--")
                    .then(|| l.split([' ', '<', ',']).next().unwrap())
            })
            .filter(|o| !["--help", "--version"].contains(o))
            .collect();
        assert!(options.len() >= 2, "{command}: {options:?}");
        for opt in options {
            // The whole option, not a prefix of a longer one.
            let documented = readme.match_indices(opt).any(|(i, _)| {
                !readme[i + opt.len()..].starts_with(|c: char| c.is_ascii_lowercase() || c == '-')
            });
            assert!(documented, "{command} {opt} is not in the README");
        }
    }
    let help = stdout_of(&["convert", "--help"]);
    for opt in [
        "--output",
        "--format",
        "--shape",
        "--target",
        "--max-name-len",
        "--schema-budget",
        "--check",
    ] {
        assert!(help.contains(opt), "{opt} missing from --help");
    }
}

#[test]
fn target_and_shape_options() {
    let spec = "specs/targets.yaml";
    assert_eq!(names(&[spec])[0], "2fa_enable");
    assert_eq!(names(&[spec, "--target", "gemini"])[0], "_2fa_enable");
    let whole = &names(&[spec])[2];
    assert_eq!(whole.len(), 64);
    let cut = &names(&[spec, "--target", "cursor"])[2];
    assert!(cut.len() <= 60 && cut != whole, "{cut}");
    // An explicit length wins over the target's.
    assert_eq!(
        names(&[spec, "--target", "cursor", "--max-name-len", "64"])[2],
        *whole
    );
    assert!(names(&[spec, "--target", "cursor", "--max-name-len", "30"])[1].len() <= 30);
    // The Gemini shape brings Gemini's name rule with it.
    let gemini: Value =
        serde_json::from_str(&stdout_of(&["convert", spec, "--shape", "gemini"])).unwrap();
    assert_eq!(gemini["functionDeclarations"][0]["name"], "_2fa_enable");
    let text = stdout_of(&["convert", spec, "--shape", "anthropic"]);
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc[0]["name"], "2fa_enable");
    assert!(doc[0]["input_schema"].is_object());
    // `--check` works on every shape and names what changed.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tools.json");
    std::fs::write(&out, &text).unwrap();
    cmd()
        .args(["convert", spec, "--shape", "anthropic", "--check", "-o"])
        .arg(&out)
        .assert()
        .code(0);
    cmd()
        .args([
            "convert",
            spec,
            "--shape",
            "anthropic",
            "--target",
            "gemini",
            "--check",
            "-o",
        ])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("added   _2fa_enable"))
        .stderr(predicate::str::contains("removed 2fa_enable"));
}

/// `convert` writes tools while it converts (two threads); the bytes must be those of the
/// library's `emit::render`, to standard output and to a file, for every scenario and shape.
#[test]
fn streamed_output_is_the_rendered_list() {
    let dir = tempfile::tempdir().unwrap();
    for path in common::specs() {
        let c = openapi_mcp::convert_file(&path, &openapi_mcp::Options::default()).unwrap();
        for (shape, name) in [
            (openapi_mcp::emit::Shape::Mcp, "mcp"),
            (openapi_mcp::emit::Shape::Openai, "openai"),
        ] {
            let expected =
                openapi_mcp::emit::render_as(&c.tools, shape, openapi_mcp::emit::Format::Json)
                    .unwrap();
            let spec = path.to_str().unwrap();
            assert_eq!(
                stdout_of(&["convert", spec, "--shape", name]),
                expected,
                "{spec}"
            );
            let out = dir.path().join("tools.json");
            cmd()
                .args(["convert", spec, "--shape", name, "-o"])
                .arg(&out)
                .assert()
                .success();
            assert_eq!(std::fs::read_to_string(&out).unwrap(), expected, "{spec}");
        }
    }
}

/// A spec whose first operations convert and whose last one fails while its tool is built (a
/// schema `$ref` to nothing).
fn failing_late_spec(good: usize) -> String {
    let mut paths = serde_json::Map::new();
    for i in 0..good {
        paths.insert(
            format!("/ok{i}"),
            serde_json::json!({"get": {"operationId": format!("ok{i}"), "responses": {"200": {"description": "ok"}}}}),
        );
    }
    paths.insert(
        "/broken".into(),
        serde_json::json!({"get": {"parameters": [{"name": "q", "in": "query",
            "schema": {"$ref": "#/components/schemas/Nope"}}],
            "responses": {"200": {"description": "ok"}}}}),
    );
    serde_json::json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths})
        .to_string()
}

#[test]
fn failing_after_some_tools_leaves_the_old_file_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("late.json");
    std::fs::write(&spec, failing_late_spec(500)).unwrap();
    // The failure comes after 500 tools were handed out (and, by `convert`, written).
    let doc = openapi_mcp::read::load_file(&spec).unwrap();
    let mut handed = 0;
    let result = openapi_mcp::convert_each(&doc, &openapi_mcp::Options::default(), None, |_| {
        handed += 1;
        Ok(())
    });
    assert!(result.is_err());
    assert_eq!(handed, 500);
    let out = dir.path().join("tools.json");
    std::fs::write(&out, "previous").unwrap();
    cmd()
        .arg("convert")
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Nope"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no temporary file left: {leftovers:?}");
}

/// A spec of 3,000 operations: far more output than a pipe buffers, so that a writer meets a
/// pipe its reader has closed.
fn big_spec(dir: &std::path::Path) -> std::path::PathBuf {
    let spec = dir.join("big.json");
    let mut paths = serde_json::Map::new();
    for i in 0..3000 {
        paths.insert(
            format!("/items{i}/{{id}}"),
            serde_json::json!({"get": {"operationId": format!("getItem{i}"), "summary": "Get an item",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}}),
        );
    }
    let doc = serde_json::json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths});
    std::fs::write(&spec, doc.to_string()).unwrap();
    spec
}

/// Run the binary with `args`, read the first `N` bytes of its output, close the pipe, and
/// return them with how the process ended.
fn read_then_close<const N: usize>(args: &[&std::ffi::OsStr]) -> ([u8; N], std::process::Output) {
    use std::io::Read;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_openapi-mcp"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; N];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap();
    // The read end is closed here.
    (head, child.wait_with_output().unwrap())
}

/// `convert big.json | head -c 100` ends quietly with exit 0.
#[test]
fn a_closed_pipe_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = big_spec(dir.path());
    let (head, out) = read_then_close::<100>(&["convert".as_ref(), spec.as_os_str()]);
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(head.starts_with(b"{\"tools\":[\n{\"name\":\"get_item0\""));
}

/// A run that fails before its first tool writes nothing to standard output.
#[test]
fn early_failures_leave_stdout_empty() {
    let dir = tempfile::tempdir().unwrap();
    let hints = dir.path().join("hints.yaml");
    std::fs::write(&hints, "tools:\n  no_such_tool:\n    reviewed: true\n").unwrap();
    let hints = hints.to_str().unwrap();
    for (args, why) in [
        (
            vec!["convert", "specs/petstore.yaml", "--max-name-len", "10"],
            "at least",
        ),
        (
            vec![
                "convert",
                "specs/petstore.yaml",
                "--include-path",
                "/pets/[x",
            ],
            "[x",
        ),
        (
            vec!["convert", "specs/petstore.yaml", "--hints", hints],
            "no_such_tool",
        ),
    ] {
        cmd()
            .args(&args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(why));
    }
    // Also when the failure comes from a tool: the list is not opened before the first one.
    let spec = dir.path().join("late.json");
    std::fs::write(&spec, failing_late_spec(0)).unwrap();
    cmd().arg("convert").arg(&spec).assert().code(2).stdout("");
}

/// `--format yaml` and `json-pretty` end quietly on a closed pipe too.
#[test]
fn a_closed_pipe_is_quiet_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let spec = big_spec(dir.path());
    for format in ["yaml", "json-pretty"] {
        let args = [
            "convert".as_ref(),
            spec.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
        ];
        let (_, out) = read_then_close::<10>(&args);
        assert!(out.status.success(), "{format}: {:?}", out.status);
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{format}");
    }
}

/// `-o` naming the document (or the hints file) the run reads is refused, whatever the path
/// (here a symbolic link), and the file is left as it was; `--check` only reads it.
#[test]
fn output_over_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("p.yaml");
    let original = std::fs::read(common::root().join("specs/petstore.yaml")).unwrap();
    std::fs::write(&spec, &original).unwrap();
    let link = dir.path().join("link.yaml");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&spec, &link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(&spec, &link).unwrap();
    let targets: &[&std::path::Path] = if cfg!(unix) {
        &[&spec, &link]
    } else {
        &[&spec]
    };
    for out in targets {
        for sub in ["convert", "hints"] {
            cmd()
                .arg(sub)
                .arg(&spec)
                .arg("-o")
                .arg(out)
                .assert()
                .code(2)
                .stderr(predicate::str::contains("is the file the run reads"));
            assert_eq!(std::fs::read(&spec).unwrap(), original, "{sub} -o {out:?}");
        }
    }
    let hints = dir.path().join("hints.yaml");
    std::fs::write(&hints, "tools: {}\n").unwrap();
    cmd()
        .args(["convert", "specs/petstore.yaml", "--hints"])
        .arg(&hints)
        .arg("-o")
        .arg(&hints)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is the file the run reads"));
    assert_eq!(std::fs::read_to_string(&hints).unwrap(), "tools: {}\n");
    // `--check` writes nothing: it reports the document as out of date.
    cmd()
        .arg("convert")
        .arg(&spec)
        .arg("-o")
        .arg(&spec)
        .arg("--check")
        .assert()
        .code(1);
}

/// Filters that keep no operation give an empty list (not an error) and say so on standard
/// error, streamed or not; filters that keep some say nothing.
#[test]
fn filters_keeping_nothing_are_noted() {
    for format in ["json", "yaml"] {
        cmd()
            .args(["convert", "specs/petstore.yaml", "--include-tag", "nosuch"])
            .args(["--format", format])
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "the filters keep none of the document's 4 operations",
            ));
    }
    cmd()
        .args(["convert", "specs/petstore.yaml", "--include-path", "/pets"])
        .assert()
        .success()
        .stderr(predicate::str::contains("filters").not());
}

/// A named pipe is read once, from the one opening (it was opened a second time and waited
/// for a writer that never came); a device that never ends is refused past the most a
/// document may be.
#[cfg(target_os = "linux")]
#[test]
fn a_named_pipe_is_read_and_an_endless_device_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("spec.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let spec = std::fs::read(common::root().join("specs/petstore.yaml")).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, spec))
    };
    cmd()
        .arg("convert")
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success()
        .stdout(predicate::str::contains("list_pets"));
    writer.join().unwrap().unwrap();
    cmd()
        .args(["convert", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the most a document may be"));
}

/// `-o` into a folder that does not exist names the folder, not the temporary file that could
/// not be made there.
#[test]
fn output_into_a_missing_folder_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing").join("tools.json");
    cmd()
        .args(["convert", "specs/petstore.yaml", "-o"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "no folder {}",
            dir.path().join("missing").display()
        )))
        .stderr(predicate::str::contains(".openapi-mcp-").not());
}

/// The README's layout names every source file (by its path under `src/`, by its name under its
/// folder's line, or in a nested folder by its stem), and every `.rs` name it lists is a file.
#[test]
fn readme_layout_names_every_source_file() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let layout = readme
        .split("## Layout\n")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("a layout block");
    let src = common::root().join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path.strip_prefix(&src).unwrap().to_path_buf());
            }
        }
    }
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let folder = file.parent().unwrap().to_str().unwrap();
        let named = if folder.is_empty() {
            layout.contains(&format!("src/{name}"))
        } else {
            // Under its folder's line: by name, or in a nested folder's list by stem.
            let top = folder.split('/').next().unwrap();
            let stem = name.trim_end_matches(".rs");
            let nested = folder.contains('/') && layout.contains(stem);
            layout.contains(&format!("src/{top}/")) && (layout.contains(name) || nested)
        };
        assert!(named, "README layout does not name src/{}", file.display());
    }
    for word in layout.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')') {
        if let Some(name) = word.strip_suffix(".rs") {
            let name = format!("{}.rs", name.trim_start_matches("src/"));
            assert!(
                files
                    .iter()
                    .any(|f| f.ends_with(&name) || f.to_str() == Some(&name)),
                "README layout names {name}, which is not in src/"
            );
        }
    }
}

#[test]
fn file_refs_stay_in_the_documents_folder_unless_ref_root_widens_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("api")).unwrap();
    std::fs::create_dir_all(dir.path().join("common")).unwrap();
    std::fs::write(
        dir.path().join("common/secret.yaml"),
        "type: string\ndescription: LOCAL-FILE-CONTENT\n",
    )
    .unwrap();
    let spec = |r: &str| {
        format!(
            "openapi: 3.1.0\ninfo: {{title: t, version: '1'}}\npaths:\n  /a:\n    get:\n      operationId: a\n      parameters:\n        - {{name: q, in: query, schema: {{$ref: '{r}'}}}}\n      responses: {{'200': {{description: ok}}}}\n"
        )
    };
    let root = dir.path().join("api/openapi.yaml");
    std::fs::write(&root, spec("../common/secret.yaml")).unwrap();
    let root_arg = root.to_str().unwrap();
    let serve: &[&str] = if cfg!(feature = "serve") {
        &["serve", "--base-url", "http://127.0.0.1:9"]
    } else {
        &[]
    };
    let commands: Vec<&[&str]> = vec![&["convert"], &["hints"], &["lint"], &["review"], serve];
    for command in commands.into_iter().filter(|c| !c.is_empty()) {
        cmd()
            .args(&command[..1])
            .arg(root_arg)
            .args(&command[1..])
            .write_stdin("")
            .assert()
            .code(2)
            .stdout(predicate::str::contains("LOCAL-FILE-CONTENT").not())
            .stderr(
                predicate::str::contains("outside").and(predicate::str::contains("--ref-root")),
            );
    }
    let out = stdout_of(&[
        "convert",
        root_arg,
        "--ref-root",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.contains("LOCAL-FILE-CONTENT"));
    // Absolute references are refused even inside the allowed folder.
    let absolute = dir.path().join("common/secret.yaml");
    std::fs::write(&root, spec(absolute.to_str().unwrap())).unwrap();
    cmd()
        .args(["convert", root_arg, "--ref-root"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "absolute file `$ref`s are refused",
        ));
}

/// `-o` naming a device or a named pipe writes into it: renaming a file over it (as a regular
/// file is replaced) would turn `/dev/null` into a file for every program on the machine.
#[cfg(unix)]
#[test]
fn output_into_a_named_pipe_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("tools.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (send, got) = std::sync::mpsc::channel();
    let reading = fifo.clone();
    // Left running if the pipe is never opened for writing (the test then fails on the timeout).
    std::thread::spawn(move || {
        let _ = send.send(std::fs::read_to_string(reading));
    });
    cmd()
        .args(["convert", "specs/petstore.yaml", "-o"])
        .arg(&fifo)
        .assert()
        .success();
    let text = got
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the pipe was written")
        .unwrap();
    assert!(text.starts_with("{\"tools\":["), "{text}");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}
