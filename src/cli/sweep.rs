//! `drivebench sweep --target PATH ...`: an ad-hoc synthetic I/O sweep without a scenario.
//! The flags become one `[[sweep]]` entry resolved by the same code as scenario files, which
//! `protocol::entry::sweep` runs: the target opened and every profile checked against it
//! before anything is written, then the sweep as the scenario step runs it, leaving a run
//! directory (result.json with `sweeps[]`, sweeps.csv, summary.md, report.html).

use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;

use super::{CliError, EXIT_INTERRUPTED};
use crate::protocol::entry::{self, EntryError, SweepOptions, SweepRefused};
use crate::protocol::start_state::{RawStart, check_purge};
use crate::scenario::start_state::{Purge, check_levels};
use crate::scenario::sweep::{DEFAULT_FILE, PlanSweep, SweepSection, resolve};
use drivebench_core::config::{Invalid, KeyPath};
use drivebench_system::io::{Arrivals, EngineChoice, PROFILES};

fn profile_list() -> String {
    let mut s = String::from("Profiles:\n");
    for p in PROFILES {
        s.push_str(&format!("  {:<22} {}\n", p.name, p.definition()));
    }
    s
}

#[derive(Debug, clap::Args)]
#[command(after_help = profile_list())]
pub struct Args {
    /// File to sweep (created and fully allocated when absent, and removed at the end unless
    /// --keep-file; an existing file's contents are overwritten), a directory (the file
    /// drivebench-sweep.dat inside it), or a block device (with --destroy-data).
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// Size of the file, e.g. 4GiB [default: the size of an existing file; required to create one].
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Built-in profile to sweep (repeatable; listed below). Or give --bs, --read-pct and --random-pct.
    #[arg(long = "profile", value_name = "NAME")]
    pub profiles: Vec<String>,
    /// Block size, e.g. 4k, or a size mix with shares of the I/O count, e.g. 4k/60:64k/40.
    #[arg(long, value_name = "SIZE[/PCT:...]")]
    pub bs: Option<String>,
    /// Share of reads in percent (0..100); the rest are writes.
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub read_pct: Option<i64>,
    /// Share of I/Os at a random offset in percent (0..100); the rest continue sequentially.
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub random_pct: Option<i64>,
    /// Worker threads [default: the profile's; 1 with --bs]. Changing a profile's load adds
    /// "@THREADSxDEPTH" to its name.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub threads: Option<i64>,
    /// Outstanding I/Os per thread [default: the profile's; 1 with --bs].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub depth: Option<i64>,
    /// Part of the target touched, from its start, e.g. 25% [default: 100%].
    #[arg(long, value_name = "PCT")]
    pub region: Option<String>,
    /// Recorded length of each point, e.g. 30s [default: 30s].
    #[arg(long, value_name = "D")]
    pub duration: Option<String>,
    /// Warm-up before each point's recorded window [default: 5s].
    #[arg(long, value_name = "D")]
    pub warmup: Option<String>,
    /// Curve points in % of the measured maximum, e.g. 10,50,90,100,110, or "max" for the
    /// uncontrolled max run only [default: 10,50,70,80,90,100].
    #[arg(long, value_name = "LIST")]
    pub curve: Option<String>,
    /// Run one point at this many IOPS instead of the max run and the curve.
    #[arg(long, value_name = "IOPS", allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Spacing of I/O start times at a target rate.
    #[arg(long, value_name = "KIND", value_parser = ["uniform", "poisson"])]
    pub arrivals: Option<String>,
    /// Sequential 128 KiB write passes over the whole target before sweeping (0..4)
    /// [default: 1 for a file, 0 for a device]. 0 is refused when a profile reads a file with
    /// blocks never written (one created now, or allocated and not written since): the
    /// filesystem answers those reads without the drive.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub fill: Option<i64>,
    /// SNIA-style steady state before each max run: rounds of --duration until IOPS over 5
    /// rounds stays within 20 % (range) and 10 % (slope) of its mean, at most 25 rounds.
    #[arg(long)]
    pub steady: bool,
    /// Stop a curve after a point whose mean latency passes this many milliseconds.
    #[arg(long, value_name = "MS", allow_negative_numbers = true)]
    pub stop_curve_ms: Option<f64>,
    /// Submission path [default: auto, io_uring with a psync fallback].
    #[arg(long, value_name = "ENGINE", value_parser = ["auto", "io_uring", "psync"])]
    pub io_engine: Option<String>,
    /// io_uring: submit once N I/Os are queued [default: 1, each at once as fio does; the depth
    /// or more submits each refill in one call, which costs less CPU on some drives].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub submit_batch: Option<i64>,
    /// Allow writing to a block device (destroys its data). The device must also be unused:
    /// not mounted, not swap, no holders, and exclusively openable.
    #[arg(long)]
    pub destroy_data: bool,
    /// Purge a block device target before sweeping (with --destroy-data): "discard" (every
    /// block, BLKDISCARD: the drive holds no data), "format" (NVMe Format NVM, user data
    /// erase, of the namespace), "sanitize" (NVMe Sanitize of the whole controller, which
    /// must have no other namespace) or "none" [default: none; discard with --fullness].
    /// Refused with a profile that reads and no --fill passes (the drive would answer reads
    /// of purged blocks without its media), and "format"/"sanitize" off an NVMe namespace.
    #[arg(long, value_name = "HOW", value_parser = ["discard", "format", "sanitize", "none"])]
    pub purge: Option<String>,
    /// Sweep a block device (with --destroy-data) once per fill level, in percent of the
    /// device, e.g. --fullness 25,50,75,90: before each level the device is purged (--purge)
    /// and its first share written once with incompressible data, and the sweep touches only
    /// that part. One run directory per level under --out (fill-<level>pct) and a table of the
    /// levels (fullness.md, fullness.html, fullness.json) beside them. Not with --region or
    /// --fill.
    #[arg(long, value_name = "PCT,PCT...", value_delimiter = ',')]
    pub fullness: Option<Vec<f64>>,
    /// Keep the file this sweep creates (removed at the end otherwise, as a [[sweep]] in a
    /// scenario removes its own), filled, for later sweeps with --fill 0; `drivebench clean`
    /// lists and removes kept files.
    #[arg(long)]
    pub keep_file: bool,
    /// Run directory to write [default: runs/sweep-<UTC timestamp>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// No progress bar and no point lines; only the final summary and errors.
    #[arg(long)]
    pub quiet: bool,
}

/// The flag a key of the `[[sweep]]` entry came from.
fn flag_of(err: &Invalid) -> String {
    let first = err.key.0.first().map(|s| match s {
        drivebench_core::config::Seg::Key(k) => k.as_str(),
        drivebench_core::config::Seg::Index(_) => "",
    });
    let name = match first.unwrap_or_default() {
        "profiles" => "profile",
        "destroy" => "destroy-data",
        other => other,
    };
    format!("--{}", name.replace('_', "-"))
}

/// The flags as a `[[sweep]]` entry, with the target settled: a device, an existing file
/// (its size by default) or a file to create.
fn section(a: &Args) -> Result<SweepSection, CliError> {
    settle_target(a, flags(a)?)
}

/// The sweep's settings from the flags, the target not yet settled.
fn flags(a: &Args) -> Result<SweepSection, CliError> {
    let curve = match &a.curve {
        None => None,
        Some(text) if text.trim() == "max" => Some(Vec::new()),
        Some(text) => Some(
            text.split(',')
                .map(|p| p.trim().trim_end_matches('%').parse::<f64>())
                .collect::<Result<Vec<f64>, _>>()
                .map_err(|_| {
                    CliError::Invalid(format!(
                        "--curve: expected percentages separated by commas, e.g. 10,50,100, got {text:?}"
                    ))
                })?,
        ),
    };
    Ok(SweepSection {
        profiles: (!a.profiles.is_empty()).then(|| a.profiles.clone()),
        bs: a.bs.clone(),
        read_pct: a.read_pct,
        random_pct: a.random_pct,
        threads: a.threads,
        depth: a.depth,
        region: a.region.clone(),
        warmup: a.warmup.clone(),
        duration: a.duration.clone(),
        curve,
        rate: a.rate,
        arrivals: a.arrivals.as_deref().map(|k| match k {
            "poisson" => Arrivals::Poisson,
            _ => Arrivals::Uniform,
        }),
        stop_curve_ms: a.stop_curve_ms,
        fill: a.fill,
        steady: a.steady.then_some(true),
        io_engine: a.io_engine.as_deref().map(|e| match e {
            "io_uring" => EngineChoice::IoUring,
            "psync" => EngineChoice::Psync,
            _ => EngineChoice::Auto,
        }),
        submit_batch: a.submit_batch,
        ..SweepSection::default()
    })
}

/// `s` with its target settled from --target, --size and --destroy-data: a device (whole),
/// an existing file (its size by default), or a file to create (in a directory that exists).
fn settle_target(a: &Args, mut s: SweepSection) -> Result<SweepSection, CliError> {
    let invalid = |m: String| Err(CliError::Invalid(m));
    if a.target.as_os_str().is_empty() {
        return invalid("--target: must not be empty".into());
    }
    let path = std::path::absolute(&a.target).unwrap_or_else(|_| a.target.clone());
    let meta = std::fs::metadata(&path).ok();
    let file = match &meta {
        Some(m) if m.file_type().is_block_device() => {
            if !a.destroy_data {
                return invalid(format!(
                    "--target {}: a block device; writing to it destroys its data: refusing without --destroy-data",
                    path.display()
                ));
            }
            if a.size.is_some() {
                return invalid("--size: only for a file target; a device is used whole".into());
            }
            s.device = Some(path.display().to_string());
            s.destroy = Some(true);
            return Ok(s);
        }
        Some(m) if m.is_dir() => path.join(DEFAULT_FILE),
        Some(m) if !m.is_file() => {
            return invalid(format!(
                "--target {}: neither a regular file, a directory nor a block device",
                path.display()
            ));
        }
        _ => path,
    };
    if a.destroy_data {
        return invalid("--destroy-data: only for a block device target".into());
    }
    if let Some(parent) = file.parent()
        && !parent.is_dir()
    {
        return invalid(format!(
            "--target {}: directory {} does not exist",
            file.display(),
            parent.display()
        ));
    }
    s.size = match (&a.size, std::fs::metadata(&file)) {
        (Some(size), _) => Some(size.clone()),
        (None, Ok(m)) => Some(m.len().to_string()),
        (None, Err(_)) => {
            return invalid(format!(
                "--size: needed to create {}, e.g. --size 4GiB",
                file.display()
            ));
        }
    };
    s.file = Some(file.display().to_string());
    Ok(s)
}

/// What a device is brought to before it is swept, from --purge and --fullness.
enum Start {
    AsFound,
    Purged(Purge),
    Levels { purge: Purge, levels: Vec<f64> },
}

/// --purge and --fullness checked against the target and the other flags.
fn start(a: &Args, s: &SweepSection, sweep: &PlanSweep) -> Result<Start, CliError> {
    let invalid = |m: String| Err(CliError::Invalid(m));
    let purge = a.purge.as_deref().map(|p| match p {
        "discard" => Purge::Discard,
        "format" => Purge::Format,
        "sanitize" => Purge::Sanitize,
        _ => Purge::None,
    });
    let flag = match (&a.fullness, purge) {
        (None, None) => return Ok(Start::AsFound),
        (Some(_), _) => "--fullness",
        (None, Some(_)) => "--purge",
    };
    if s.device.is_none() {
        return invalid(format!(
            "{flag}: only for a block device target (--target /dev/... --destroy-data)"
        ));
    }
    if let (Some(device), Some(purge)) = (&s.device, purge) {
        check_purge(std::path::Path::new(device), purge).map_err(|e| {
            CliError::Invalid(format!("--purge {}: {e}", a.purge.as_deref().unwrap_or("")))
        })?;
    }
    let Some(levels) = &a.fullness else {
        return purged(purge.unwrap_or(Purge::None), sweep);
    };
    for (set, other) in [
        (a.region.is_some(), "--region"),
        (a.fill.is_some(), "--fill"),
    ] {
        if set {
            return invalid(format!(
                "--fullness: not with {other}: each level writes and sweeps the device's first share"
            ));
        }
    }
    let levels = check_levels(levels).map_err(|e| CliError::Invalid(format!("--fullness: {e}")))?;
    Ok(Start::Levels {
        purge: purge.unwrap_or(Purge::Discard),
        levels,
    })
}

/// `--purge` alone: refused when a profile would read discarded blocks.
fn purged(purge: Purge, sweep: &PlanSweep) -> Result<Start, CliError> {
    let reader = sweep.profiles.iter().find(|p| p.read_pct > 0);
    match (purge, reader) {
        (Purge::None, _) | (_, None) => Ok(Start::Purged(purge)),
        (_, Some(_)) if sweep.fill_passes > 0 => Ok(Start::Purged(purge)),
        (_, Some(p)) => Err(CliError::Invalid(format!(
            "--purge {}: profile {} reads, and the drive answers reads of purged blocks \
             without its media; add --fill 1 (a write pass after the purge) or use --fullness",
            serde_json::to_value(purge)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            p.name
        ))),
    }
}

pub async fn sweep(args: Args) -> Result<i32, CliError> {
    let section = section(&args)?;
    let sweep = resolve(&section, &KeyPath::root(), 1.0)
        .map_err(|e| CliError::Invalid(format!("{}: {}", flag_of(&e), e.message)))?;
    let start = start(&args, &section, &sweep)?;
    let options = |raw: Option<RawStart>| SweepOptions {
        out: args.out.clone(),
        quiet: args.quiet,
        keep_file: args.keep_file,
        abort_exit: EXIT_INTERRUPTED,
        log_to: super::logging::set_log_file,
        start: raw,
    };
    let ran = match start {
        Start::AsFound => entry::sweep(sweep, options(None)).await,
        Start::Purged(purge) => {
            let raw = RawStart {
                purge,
                fill_pct: None,
            };
            entry::sweep(sweep, options(Some(raw))).await
        }
        Start::Levels { purge, levels } => {
            let device = section.device.clone().unwrap_or_default();
            return crate::protocol::fullness::sweep(sweep, device, &levels, purge, || {
                options(None)
            })
            .await
            .map(super::run::exit_code)
            .map_err(super::run::fullness_error);
        }
    };
    match ran {
        Ok(outcome) => Ok(super::run::exit_code(outcome)),
        Err(EntryError::Sweep(SweepRefused::Unwritten(e))) => {
            Err(CliError::Invalid(format!("--target {e}")))
        }
        Err(EntryError::Sweep(SweepRefused::Open(e))) => {
            Err(CliError::Invalid(format!("--target: {e}")))
        }
        Err(e) => Err(super::run::entry_error(e)),
    }
}
