//! `drivebench up SCENARIO --out DIR [--listen ADDR]` and `drivebench down DIR`: a scenario's
//! private servers started, loaded and left running for clients on other hosts, then stopped.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use super::{CliError, EXIT_FAILED, EXIT_OK, ScenarioArgs};
use crate::console::Console;
use crate::engines::server::secret::{random_hex, save_password};
use crate::protocol::preflight;
use crate::protocol::up::{DownOutcome, UpRecord, UpRequest, down as stop_all, up as start_all};

/// The record of what `up` left running, in its directory.
pub const UP_FILE: &str = "up.json";
/// The password of network logins (`--listen`), mode 0600.
pub const PASSWORD_FILE: &str = "password";

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
    let Some(db) = plan.database() else {
        return Err(CliError::Invalid(
            "the scenario has no database instances".into(),
        ));
    };
    let findings = preflight::check(&plan);
    if let Some(f) = findings
        .iter()
        .find(|f| f.level == crate::results::finding::Level::Error)
    {
        return Err(CliError::Invalid(format!("preflight: {}", f.message)));
    }
    let record_file = args.out.join(UP_FILE);
    if record_file.exists() {
        return Err(CliError::Invalid(format!(
            "{} exists: its servers may still run; `drivebench down {}` first",
            record_file.display(),
            args.out.display()
        )));
    }
    crate::target::prepare(Path::new(&plan.target_path), preflight::needed_bytes(&plan))
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", args.out.display())))?;
    let password = args.listen.map(|_| generate_password()).transpose()?;
    let console = Console::new(args.quiet);
    let cancel = CancellationToken::new();
    let req = UpRequest {
        plan: db,
        listen: args.listen.zip(password.as_deref()),
        console: &console,
        cancel: &cancel,
    };
    let instances = start_all(req).await.map_err(|e| match e.is_invalid() {
        true => CliError::Invalid(e.to_string()),
        false => CliError::Failed(e.to_string()),
    })?;
    if let Some(p) = &password {
        write_private(&args.out.join(PASSWORD_FILE), p)?;
    }
    let record = UpRecord {
        scenario: plan.scenario_file.clone(),
        started_at: crate::config::units::utc_now(),
        listen: args.listen,
        instances,
    };
    let text = serde_json::to_vec_pretty(&record).map_err(|e| CliError::Failed(e.to_string()))?;
    crate::report::write_atomic(&record_file, &text)
        .map_err(|e| CliError::Failed(e.to_string()))?;
    for i in &record.instances {
        crate::console::stdout_text(&format!("{}: {} (pid {})\n", i.name, i.url, i.pid));
    }
    Ok(EXIT_OK)
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

/// 24 hex digits from the kernel's random source.
fn generate_password() -> Result<String, CliError> {
    random_hex(12)
        .map_err(|e| CliError::Failed(format!("cannot read /dev/urandom for a password: {e}")))
}

/// Write `text` to a new file only its owner can read.
fn write_private(path: &Path, text: &str) -> Result<(), CliError> {
    save_password(path, text).map_err(|e| CliError::Failed(format!("{}: {e}", path.display())))
}
