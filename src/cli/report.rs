//! `drivebench report RUN_DIR`: rebuild summary.md, report.html and series.csv from result.json.

use std::path::PathBuf;

use super::{CliError, EXIT_OK};
use crate::report::RegenerateError;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A run directory holding result.json.
    pub run_dir: PathBuf,
}

pub fn report(args: Args) -> Result<i32, CliError> {
    let r = crate::report::regenerate(&args.run_dir).map_err(|e| match e {
        RegenerateError::Read(e) => CliError::Invalid(e.to_string()),
        RegenerateError::Write(e) => CliError::Failed(e.to_string()),
    })?;
    crate::console::stdout_text(&crate::report::markdown::summary(&r));
    for why in crate::report::unreadable_histograms(&r) {
        crate::console::stderr_line(&format!("warning: {why}"));
    }
    Ok(EXIT_OK)
}
