//! The JSON Schemas committed under schemas/json/ are the ones the program generates.

use drivebench::cli::schema::{Kind, schema_text};

#[test]
fn committed_schemas_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (kind, file) in [
        (Kind::Result, "schemas/json/result.schema.json"),
        (Kind::Scenario, "schemas/json/scenario.schema.json"),
    ] {
        let committed = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            committed == schema_text(kind),
            "{file} is stale: regenerate with `cargo run -- schema {} > {file}`",
            file.split('/')
                .next_back()
                .unwrap()
                .split('.')
                .next()
                .unwrap()
        );
    }
}
