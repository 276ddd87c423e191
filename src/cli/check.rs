//! `drivebench check RUN_DIR`: run the TPC-C consistency checks again on the instances of a
//! finished run that are still reachable, print each, and put them into the run's result.json
//! (replacing that instance's previous checks, same atomic write as the run) before rebuilding
//! summary.md and report.html. Exit 0 when all pass, 1 when one fails, 2 when the run is not a
//! TPC-C run or an instance cannot be reached.

use std::path::PathBuf;

use super::{CliError, EXIT_FAILED, EXIT_OK};
use crate::protocol::recheck::recheck;
use crate::report::{self, RESULT_FILE};
use crate::results::status::RunStatus;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A run directory holding the result.json of a TPC-C run.
    pub run_dir: PathBuf,
    /// Check only this instance, e.g. sqlite-1 (repeatable; default: every instance).
    #[arg(long = "instance", value_name = "NAME")]
    pub instances: Vec<String>,
}

pub async fn check(args: Args) -> Result<i32, CliError> {
    let path = args.run_dir.join(RESULT_FILE);
    let mut r = crate::results::read_result(&path).map_err(|e| CliError::Invalid(e.to_string()))?;
    if r.status == RunStatus::Running {
        return Err(CliError::Invalid(format!(
            "{}: the run is still running (or was killed before it finished); check it once it has ended",
            path.display()
        )));
    }
    let checks = recheck(&r, &args.instances).await.map_err(|e| {
        let text = format!("{}: {e}", args.run_dir.display());
        if e.is_input() {
            CliError::Invalid(text)
        } else {
            CliError::Failed(text)
        }
    })?;
    for c in &checks {
        let verdict = if c.passed { "pass" } else { "FAIL" };
        crate::console::stdout_text(&format!(
            "{verdict} {} {}: {}\n",
            c.instance, c.name, c.detail
        ));
    }
    let failed = checks.iter().filter(|c| !c.passed).count();
    crate::console::stdout_text(&format!(
        "{} of {} checks passed{}\n",
        checks.len() - failed,
        checks.len(),
        if failed > 0 { "; see above" } else { "" }
    ));
    let checked: Vec<&str> = checks.iter().map(|c| c.instance.as_str()).collect();
    r.checks.retain(|c| !checked.contains(&c.instance.as_str()));
    r.checks.extend(checks);
    let order = |name: &str| r.plan.instances().iter().position(|i| i.name == name);
    let mut all = std::mem::take(&mut r.checks);
    all.sort_by_key(|c| order(&c.instance));
    r.checks = all;
    r.checked_at = Some(drivebench_core::config::units::utc_now());
    if r.status.is_complete() {
        r.status = RunStatus::Complete {
            failed_checks: crate::workload::tpcc::figures::checks_error(&r.checks),
        };
    }
    let write_err = |e: String| CliError::Failed(format!("writing results: {e}"));
    report::write_json(&path, &r).map_err(|e| write_err(e.to_string()))?;
    report::regenerate(&args.run_dir).map_err(|e| write_err(e.to_string()))?;
    eprintln!("written: {}", path.display());
    Ok(if failed == 0 { EXIT_OK } else { EXIT_FAILED })
}
