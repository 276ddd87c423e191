//! The docs stay true to the program: the generated references under docs/reference/ are the
//! ones the program prints.

use std::path::PathBuf;

use drivebench::cli::docs::{cli_reference, scenario_reference};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_references_are_current() {
    for (page, file, text) in [
        ("cli", "docs/reference/cli.md", cli_reference()),
        (
            "scenario",
            "docs/reference/scenario.md",
            scenario_reference(),
        ),
    ] {
        let committed = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| {
            panic!("{file}: {e}; generate it with `cargo run -- docs {page} > {file}`")
        });
        assert!(
            committed == text,
            "{file} is stale: regenerate with `cargo run -- docs {page} > {file}`"
        );
    }
}
