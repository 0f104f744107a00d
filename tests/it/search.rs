//! `openapi-mcp search`: ranking the operations of the scenario specs for free-text requests.

use crate::common;

use assert_cmd::Command;
use serde_json::Value;

fn search(args: &[&str]) -> Value {
    let out = Command::cargo_bin("openapi-mcp")
        .unwrap()
        .current_dir(common::root())
        .arg("search")
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("a JSON array")
}

fn names(args: &[&str]) -> Vec<String> {
    search(args)
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_string())
        .collect()
}

/// The JSON of each request on the scenario specs, as reviewed in `snapshots/`.
#[test]
fn search_snapshots() {
    let cases: &[(&str, &[&str])] = &[
        (
            "petstore.yaml",
            &[
                "List all the pets in the store",
                "Remove a pet",
                "Get the details of one specific pet by its ID",
                "Register a new pet. It takes a name and a tag.",
            ],
        ),
        (
            "review-traps.yaml",
            &[
                "Give a customer their money back for an order",
                "Cancel an order",
                "Find orders matching some fields",
                "List the refunds",
                "Log the current user out",
            ],
        ),
        (
            "bodies.yaml",
            &[
                "Upload a file with its metadata",
                "Add a note as plain text",
            ],
        ),
        (
            "swagger2-features.json",
            &["Show me every animal", "Put a new picture up"],
        ),
    ];
    for (spec, queries) in cases {
        let mut text = String::new();
        for q in *queries {
            let hits = search(&[&format!("specs/{spec}"), q, "--limit", "3"]);
            text.push_str(&format!(
                "# {q}\n{}\n",
                serde_json::to_string_pretty(&hits).unwrap()
            ));
        }
        snapshot!(format!("search.{spec}"), text);
    }
}

#[test]
fn no_hit_is_an_empty_list_and_success() {
    assert_eq!(
        search(&["specs/petstore.yaml", "zebra quantum"]),
        Value::Array(vec![])
    );
    // Only stop words and numbers: nothing to match.
    assert_eq!(
        search(&["specs/petstore.yaml", "the of 42"]),
        Value::Array(vec![])
    );
}

#[test]
fn verb_and_method_agree() {
    // Every pet operation says "pet"; the verb picks the method.
    assert_eq!(
        names(&["specs/petstore.yaml", "delete the pet"])[0],
        "delete_pet"
    );
    assert_eq!(
        names(&["specs/petstore.yaml", "create a pet"])[0],
        "create_pet"
    );
    // "list" wants the collection, "get ... specific" the item.
    assert_eq!(names(&["specs/petstore.yaml", "list pets"])[0], "list_pets");
}

#[test]
fn filters_and_limit_apply() {
    let all = names(&["specs/petstore.yaml", "pet"]);
    assert_eq!(all.len(), 4);
    let gets = names(&["specs/petstore.yaml", "pet", "--methods", "get"]);
    assert_eq!(gets.len(), 2, "{gets:?}");
    assert!(
        gets.iter()
            .all(|n| n == "list_pets" || n == "show_pet_by_id"),
        "{gets:?}"
    );
    assert_eq!(
        names(&["specs/petstore.yaml", "pet", "--limit", "1"]).len(),
        1
    );
    // Naming options name the hits as convert names the tools.
    let camel = names(&[
        "specs/petstore.yaml",
        "delete the pet",
        "--name-style",
        "camel",
    ]);
    assert_eq!(camel[0], "deletePet");
}

#[test]
fn text_format_is_one_hit_a_line() {
    let out = Command::cargo_bin("openapi-mcp")
        .unwrap()
        .current_dir(common::root())
        .args([
            "search",
            "specs/petstore.yaml",
            "delete a pet",
            "--limit",
            "2",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].contains("delete_pet\tDELETE /pets/{petId}\tDelete a pet"),
        "{text}"
    );
}
