//! `drivebench schema scenario|result`: the JSON Schema of scenario files or of result.json,
//! generated from the same types the program reads and writes.

use super::{CliError, EXIT_OK};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Kind {
    /// Scenario files (TOML, described as JSON).
    Scenario,
    /// result.json.
    Result,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which schema to print.
    pub kind: Kind,
}

/// The schema text, exactly as committed under `schemas/json/`.
pub fn schema_text(kind: Kind) -> String {
    let schema = match kind {
        Kind::Scenario => schemars::schema_for!(crate::scenario::ScenarioFile),
        Kind::Result => schemars::schema_for!(crate::results::RunReport),
    };
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

pub fn schema(args: Args) -> Result<i32, CliError> {
    crate::console::stdout_text(&schema_text(args.kind));
    Ok(EXIT_OK)
}
