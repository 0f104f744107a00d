//! One snapshot per scenario in `specs/`: the exact `convert` output, reviewed in `snapshots/`.

use crate::common;

use openapi_mcp::{NameStyle, Options};

#[test]
fn every_spec_matches_its_snapshot() {
    let specs = common::specs();
    assert!(
        specs.len() >= 8,
        "expected the scenario specs, found {}",
        specs.len()
    );
    for path in specs {
        let name = common::scenario_name(&path);
        snapshot!(&name, common::convert_json(&path, &Options::default()));
    }
}

#[test]
fn inline_refs_snapshot() {
    let options = Options {
        inline_refs: true,
        ..Options::default()
    };
    snapshot!(
        "recursive.yaml.inline-refs",
        common::convert_json(&common::root().join("specs/recursive.yaml"), &options),
    );
}

/// `--suggest method` writes what the method table alone gave before evidence was weighed: this
/// snapshot is the default output of the earlier version, unchanged.
#[test]
fn suggest_method_snapshot() {
    let options = Options {
        suggest: openapi_mcp::Suggest::Method,
        ..Options::default()
    };
    snapshot!(
        "review-traps.yaml.suggest-method",
        common::convert_json(&common::root().join("specs/review-traps.yaml"), &options),
    );
}

#[test]
fn output_is_deterministic() {
    for path in common::specs() {
        let a = common::convert_json(&path, &Options::default());
        let b = common::convert_json(&path, &Options::default());
        assert_eq!(a, b, "{}", path.display());
    }
}

#[test]
fn name_styles() {
    let path = common::root().join("specs/petstore.yaml");
    let names = |style| {
        let c = openapi_mcp::convert_file(
            &path,
            &Options {
                name_style: style,
                ..Options::default()
            },
        )
        .unwrap();
        c.tools.into_iter().map(|t| t.name).collect::<Vec<_>>()
    };
    assert_eq!(
        names(NameStyle::Snake),
        ["list_pets", "create_pet", "show_pet_by_id", "delete_pet"]
    );
    assert_eq!(
        names(NameStyle::Camel),
        ["listPets", "createPet", "showPetById", "deletePet"]
    );
    assert_eq!(
        names(NameStyle::Kebab),
        ["list-pets", "create-pet", "show-pet-by-id", "delete-pet"]
    );
    assert_eq!(
        names(NameStyle::Original),
        ["listPets", "createPet", "showPetById", "deletePet"]
    );
}
