//! `drivebench clean TARGET`: list what drivebench left in a target directory (instance
//! directories, pre-built databases, sweep files kept), with the space each takes, and remove
//! it with `--yes`. Only what carries drivebench's marker (written when drivebench created it)
//! is listed or removed; directories that merely look like an instance's are named and left
//! alone. Nothing is removed while a server of ours (its pid file names a live process) or any
//! other process has files open there: exit 2.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{CliError, EXIT_OK};
use crate::config::units::format_bytes;
use crate::console::stdout_text;
use crate::engines::EngineKind;
use crate::engines::server::owner::running_server;
use crate::scenario::sweep::DEFAULT_FILE;
use crate::target::leftovers::{self, Found, Leftover};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Target directory (as given to run, sweep or prebuilt_dir), or one directory or file of
    /// drivebench's in it.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,
    /// Remove what is listed (without it, only list).
    #[arg(long)]
    pub yes: bool,
}

/// What is in a target, as far as drivebench is concerned.
#[derive(Debug, Default)]
struct Survey {
    ours: Vec<Leftover>,
    /// Markers of files that are gone (or replaced).
    stale: Vec<PathBuf>,
    /// Named like something of ours, without a marker.
    lookalikes: Vec<PathBuf>,
}

pub fn clean(args: Args) -> Result<i32, CliError> {
    let target = &args.target;
    let survey = survey(target)?;
    stdout_text(&listing(target, &survey, args.yes));
    let busy: Vec<String> = survey.ours.iter().filter_map(in_use).collect();
    if !busy.is_empty() {
        return Err(CliError::Invalid(format!(
            "{}; stop it first, then clean again (nothing was removed)",
            busy.join("; ")
        )));
    }
    if !args.yes {
        return Ok(EXIT_OK);
    }
    let mut freed = 0;
    for l in &survey.ours {
        leftovers::remove(l)
            .map_err(|e| CliError::Failed(format!("removing {}: {e}", l.path.display())))?;
        freed += l.bytes;
        stdout_text(&format!(
            "removed {} ({})\n",
            l.path.display(),
            format_bytes(l.bytes)
        ));
    }
    for m in &survey.stale {
        std::fs::remove_file(m)
            .map_err(|e| CliError::Failed(format!("removing {}: {e}", m.display())))?;
    }
    if !survey.ours.is_empty() {
        stdout_text(&format!("freed {}\n", format_bytes(freed)));
    }
    Ok(EXIT_OK)
}

/// The target itself when it is ours, else what of ours is directly inside it.
fn survey(target: &Path) -> Result<Survey, CliError> {
    let invalid = |why: String| CliError::Invalid(format!("{}: {why}", target.display()));
    let meta = std::fs::metadata(target).map_err(|e| invalid(e.to_string()))?;
    let mut s = Survey::default();
    match leftovers::examine(target) {
        Found::Ours(l) => s.ours.push(l),
        Found::StaleMarker(m) => s.stale.push(m),
        Found::NotOurs if !meta.is_dir() => {
            return Err(invalid(
                "not drivebench's (no marker beside it); left alone".into(),
            ));
        }
        Found::NotOurs => {
            let entries = std::fs::read_dir(target).map_err(|e| invalid(e.to_string()))?;
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for path in paths {
                match leftovers::examine(&path) {
                    Found::Ours(l) => s.ours.push(l),
                    Found::StaleMarker(m) => s.stale.push(m),
                    Found::NotOurs if looks_ours(&path) => s.lookalikes.push(path),
                    Found::NotOurs => {}
                }
            }
        }
    }
    Ok(s)
}

/// Named like an instance's directory (`mariadb-1`), a pre-built database being built, or
/// a sweep's default file.
fn looks_ours(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let instance = EngineKind::ALL.iter().any(|k| {
        name.strip_prefix(k.as_str())
            .and_then(|n| n.strip_prefix('-'))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    instance || name.ends_with(".building") || name == DEFAULT_FILE
}

/// The listing: what is ours with its size, stale markers, look-alikes left alone, and what
/// `--yes` would do.
fn listing(target: &Path, s: &Survey, removing: bool) -> String {
    let mut out = String::new();
    if s.ours.is_empty() && s.stale.is_empty() {
        let _ = writeln!(out, "nothing of drivebench's in {}", target.display());
    } else {
        let _ = writeln!(out, "drivebench left in {}:", target.display());
    }
    for l in &s.ours {
        let _ = writeln!(
            out,
            "  {:<11} {:>10}  {}",
            l.kind.as_str(),
            format_bytes(l.bytes),
            l.path.display()
        );
    }
    for m in &s.stale {
        let _ = writeln!(
            out,
            "  {:<11} {:>10}  {} (its file is gone)",
            "marker",
            "",
            m.display()
        );
    }
    if s.ours.len() > 1 {
        let total: u64 = s.ours.iter().map(|l| l.bytes).sum();
        let _ = writeln!(out, "  {:<11} {:>10}", "total", format_bytes(total));
    }
    if !s.lookalikes.is_empty() {
        let _ = writeln!(
            out,
            "left alone, named like drivebench's but without its marker (older than markers, or not drivebench's):"
        );
        for p in &s.lookalikes {
            let _ = writeln!(out, "  {}", p.display());
        }
    }
    let nothing = s.ours.is_empty() && s.stale.is_empty();
    if !removing && !nothing {
        let _ = writeln!(
            out,
            "remove it with: drivebench clean {} --yes",
            target.display()
        );
    }
    out
}

/// Why `l` cannot be removed now: a server of ours whose pid file names a live process, or
/// any process with a file open (or its working directory) in there.
fn in_use(l: &Leftover) -> Option<String> {
    let pid_files = EngineKind::ALL.iter().filter_map(|k| k.ops().pid_file);
    for rel in pid_files {
        if let Some(pid) = running_server(&l.path, rel) {
            return Some(format!(
                "{}: a server runs there (pid {pid}, from {rel})",
                l.path.display()
            ));
        }
    }
    let users = leftovers::busy(&l.path);
    let each: Vec<String> = users
        .iter()
        .map(|u| format!("pid {} ({})", u.pid, u.command))
        .collect();
    (!each.is_empty()).then(|| format!("{}: in use by {}", l.path.display(), each.join(", ")))
}
