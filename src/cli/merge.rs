//! `drivebench merge RUN_DIR... --out DIR`: one run directory from several hosts' runs of the
//! same scenario (see `report::merge` for how figures combine).

use std::path::PathBuf;

use super::{CliError, EXIT_OK};
use crate::report::merge::{HostRun, labels, merge as merge_runs};
use crate::report::{self, RESULT_FILE};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run directories of the hosts (each holding result.json), two or more.
    #[arg(required = true, value_name = "RUN_DIR")]
    pub run_dirs: Vec<PathBuf>,
    /// The merged run directory to write (must not hold results yet).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Name a host's rows NAME instead of its host name (repeatable), e.g. --label db1=runs/db1.
    #[arg(long = "label", value_name = "NAME=RUN_DIR")]
    pub labels: Vec<String>,
    /// Merge runs of different workloads (another benchmark, options, clients or phases)
    /// instead of refusing; the differences become warnings.
    #[arg(long)]
    pub force: bool,
}

pub fn merge(args: Args) -> Result<i32, CliError> {
    let given = given_labels(&args)?;
    let mut reports = Vec::new();
    for dir in &args.run_dirs {
        let r = crate::results::read_result(&dir.join(RESULT_FILE))
            .map_err(|e| CliError::Invalid(e.to_string()))?;
        reports.push(r);
    }
    let keys: Vec<(Option<String>, String, String)> = args
        .run_dirs
        .iter()
        .zip(&given)
        .zip(&reports)
        .map(|((d, l), r)| {
            (
                l.clone(),
                d.display().to_string(),
                r.environment.host.hostname.clone(),
            )
        })
        .collect();
    let hosts: Vec<HostRun> = labels(&keys)
        .into_iter()
        .zip(reports)
        .zip(&args.run_dirs)
        .map(|((label, report), dir)| HostRun {
            label,
            run_dir: dir.display().to_string(),
            report,
        })
        .collect();
    let merged = merge_runs(&hosts, args.force).map_err(|e| CliError::Invalid(e.to_string()))?;
    let dir = report::RunDir::create(&args.out).map_err(|e| CliError::Invalid(e.to_string()))?;
    dir.finish(&merged)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    report::regenerate(&args.out).map_err(|e| CliError::Failed(e.to_string()))?;
    crate::console::stdout_text(&crate::report::markdown::summary(&merged));
    for w in &merged.warnings {
        crate::console::closing_line(&format!("warning: {w}"));
    }
    Ok(EXIT_OK)
}

/// Each run directory's `--label`, if it has one; a label naming no run directory, a label
/// given twice for one, or a label that cannot prefix an instance name is refused.
fn given_labels(args: &Args) -> Result<Vec<Option<String>>, CliError> {
    let mut out = vec![None; args.run_dirs.len()];
    for l in &args.labels {
        let bad = |why: &str| CliError::Invalid(format!("--label {l:?}: {why}"));
        let (name, dir) = l
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=RUN_DIR"))?;
        if name.is_empty() || name.contains(['/', ' ', ',']) {
            return Err(bad(
                "the name must be non-empty, without '/', ',' or spaces",
            ));
        }
        let i = args
            .run_dirs
            .iter()
            .position(|d| same_dir(d, std::path::Path::new(dir)))
            .ok_or_else(|| bad("not one of the run directories given"))?;
        if out[i].replace(name.to_string()).is_some() {
            return Err(bad("that run directory has a label already"));
        }
    }
    Ok(out)
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    a == b || matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}
