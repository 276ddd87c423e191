//! `drivebench up SCENARIO --out DIR [--listen ADDR]` and `drivebench down DIR`: a scenario's
//! private servers started, loaded and left running for clients on other hosts, then stopped.

use std::net::IpAddr;
use std::path::PathBuf;

use super::{CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, ScenarioArgs};
use crate::protocol::entry::{self, UpOptions};
use crate::protocol::up::{DownOutcome, PASSWORD_FILE, UP_FILE, UpRecord, down as stop_all};

#[derive(Debug, clap::Args)]
pub struct UpArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Directory for what is left running: up.json (instances, URLs, pids; never a password)
    /// and, with --listen, the password file (mode 0600).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also listen on ADDR (an address of this host other hosts reach), with a generated
    /// password for every login from the network (MariaDB/MySQL).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<IpAddr>,
    /// No progress lines; only the URLs and errors.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, clap::Args)]
pub struct DownArgs {
    /// The directory `drivebench up --out` wrote.
    pub dir: PathBuf,
}

pub async fn up(args: UpArgs) -> Result<i32, CliError> {
    let plan = args.scenario.resolve()?;
    let options = UpOptions {
        out: args.out,
        listen: args.listen,
        quiet: args.quiet,
        abort_exit: EXIT_INTERRUPTED,
    };
    entry::up(plan, options)
        .await
        .map(super::run::exit_code)
        .map_err(super::run::entry_error)
}

pub fn down(args: DownArgs) -> Result<i32, CliError> {
    let file = args.dir.join(UP_FILE);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", file.display())))?;
    let record: UpRecord = serde_json::from_str(&text).map_err(|e| {
        CliError::Invalid(format!(
            "{}: not drivebench up's record: {e}",
            file.display()
        ))
    })?;
    let mut killed = false;
    for (name, outcome) in stop_all(&record) {
        let line = match outcome {
            DownOutcome::Stopped { pid, killed: k } => {
                killed |= k;
                format!(
                    "{name}: stopped (pid {pid}{})",
                    if k {
                        ", killed: it did not stop in time"
                    } else {
                        ""
                    }
                )
            }
            DownOutcome::NotRunning => format!("{name}: not running"),
        };
        crate::console::stdout_text(&format!("{line}\n"));
    }
    for f in [UP_FILE, PASSWORD_FILE] {
        let _ = std::fs::remove_file(args.dir.join(f));
    }
    Ok(if killed { EXIT_FAILED } else { EXIT_OK })
}
