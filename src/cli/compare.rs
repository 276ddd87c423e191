//! `drivebench compare RUN ...`: rank runs of the same workload (TPS, average and p99 latency;
//! load curves by their SLO figure, I/O sweeps point by point), print the ranking and write
//! compare.md, compare.html and compare.json.

use std::path::{Path, PathBuf};

use super::{CliError, EXIT_OK};
use crate::report::{self, compare};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run directories or result.json files (at least two).
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Name a run in the tables instead of its drive's model and capacity (runs on the same
    /// drive are told apart by their scenario, the settings that differ or their start time):
    /// NAME=RUN, RUN being one of the paths given (repeatable).
    #[arg(long = "label", value_name = "NAME=RUN")]
    pub labels: Vec<String>,
    /// Directory for compare.md, compare.html and compare.json.
    #[arg(long, value_name = "DIR", default_value = "compare")]
    pub out: PathBuf,
    /// Compare runs of different workloads (benchmark, test or data scale) anyway, with a warning.
    #[arg(long)]
    pub force: bool,
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

pub fn compare(args: Args) -> Result<i32, CliError> {
    let mut labels: Vec<Option<String>> = vec![None; args.runs.len()];
    for l in &args.labels {
        let (name, run) = l
            .split_once('=')
            .ok_or_else(|| CliError::Invalid(format!("--label {l}: expected NAME=RUN")))?;
        let i = args
            .runs
            .iter()
            .position(|r| same_path(r, Path::new(run)))
            .ok_or_else(|| {
                CliError::Invalid(format!("--label {l}: {run} is not one of the runs given"))
            })?;
        labels[i] = Some(name.to_string());
    }
    let mut runs = Vec::new();
    for (path, label) in args.runs.iter().zip(labels) {
        let r = compare::load(path).map_err(|e| CliError::Invalid(e.to_string()))?;
        runs.push((label, path.display().to_string(), r));
    }
    // Too few runs, different workloads, a run with nothing measured: all invalid input.
    let c = compare::compare(runs, args.force).map_err(|e| CliError::Invalid(e.to_string()))?;
    for why in &c.incomparable {
        eprintln!("warning: {why}");
    }
    let md = compare::markdown(&c);
    crate::console::stdout_text(&md);
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::Failed(format!("{}: {e}", args.out.display())))?;
    let fail = |e: report::OutputError| CliError::Failed(e.to_string());
    report::write_atomic(&args.out.join("compare.md"), md.as_bytes()).map_err(fail)?;
    report::write_atomic(&args.out.join("compare.html"), compare::html(&c).as_bytes())
        .map_err(fail)?;
    report::write_json(&args.out.join("compare.json"), &c).map_err(fail)?;
    eprintln!("written: {}/compare.{{md,html,json}}", args.out.display());
    Ok(EXIT_OK)
}
