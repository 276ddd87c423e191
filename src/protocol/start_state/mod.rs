//! A plan's known starting state reached before the load: the device claimed through the
//! destructive-write guard, purged (discard, or by an NVMe drive itself: Format NVM of the
//! namespace, Sanitize of its controller with its progress shown), a filesystem made on it
//! without discard, mounted on the target directory (a [`Mounted`] guard that unmounts on
//! drop; an abort detaches it), then filled. The engines' data directories are then on that
//! filesystem. [`check`] refuses what can be known before anything is touched.

mod fill;
mod raw;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio_util::sync::CancellationToken;

use crate::results::start_state::{
    FilesystemReport, FillReport, Layout, PurgeReport, StartStateReport,
};
use crate::scenario::Plan;
use crate::scenario::start_state::{Fill, Purge, StartState};
use drivebench_core::config::units::format_bytes;
use drivebench_system::io::IoError;
use drivebench_system::target::device_state::{self, DeviceStateError, Mounted};
use drivebench_system::target::guard::{ClaimedDevice, GuardError, claim_block_device};
use drivebench_system::target::nvme::namespace::{self, Namespace, NvmePurge, NvmeRefused};
use drivebench_system::target::nvme::send::{self, NvmeError};

pub use fill::FILL_FILE;
pub use raw::{RawStart, reach_raw};

/// A start state refused before anything is touched (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StartStateRefused {
    #[error("target.device: {0}")]
    Device(#[from] GuardError),
    #[error("target.purge: {0}")]
    NotPurgeable(#[from] NvmeRefused),
    #[error("target.purge: \"sanitize\": {0}")]
    NoSanitize(#[source] NvmeError),
    #[error("target.path {path}: {why}; the device's filesystem is mounted there")]
    MountPoint { path: String, why: String },
}

/// Why the device did not reach its start state.
#[derive(Debug, thiserror::Error)]
pub enum StartStateError {
    #[error("target.device: {0}")]
    Device(#[from] GuardError),
    #[error(transparent)]
    State(#[from] DeviceStateError),
    #[error("target.purge: {0}")]
    NotPurgeable(#[from] NvmeRefused),
    #[error("target.purge: {0}")]
    Nvme(#[from] NvmeError),
    #[error("{path}: cannot create the mount point: {source}")]
    MountPoint {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the fill: {0}")]
    Fill(#[from] IoError),
    #[error(transparent)]
    Space(#[from] drivebench_system::target::TargetError),
    #[error(
        "the fill of {share_pct} % ({}) does not fit on the new filesystem ({} free); choose a lower share",
        format_bytes(*bytes),
        format_bytes(*free)
    )]
    FillTooLarge {
        share_pct: f64,
        bytes: u64,
        free: u64,
    },
    #[error("interrupted while reaching the start state")]
    Interrupted,
}

impl StartStateError {
    /// The stop signal ended the wait for a sanitize the drive goes on with by itself.
    pub fn stopped_a_sanitize_wait(&self) -> bool {
        matches!(
            self,
            StartStateError::Nvme(NvmeError::SanitizeWaitStopped { .. })
        )
    }
}

/// Refuse, touching nothing, a plan whose device is not a block device, is in use (mounted,
/// swap, held) or cannot be opened exclusively, whose purge by the drive does not fit it (not
/// an NVMe namespace; for a sanitize, a controller with other namespaces or without a block or
/// crypto erase), or whose target directory holds anything or is itself a mount point.
pub fn check(plan: &Plan) -> Result<(), StartStateRefused> {
    let Some(state) = &plan.start_state else {
        return Ok(());
    };
    let claimed = claim(&state.device)?;
    if let Some(ns) = check_purge(&claimed.path, state.purge)?
        && state.purge == Purge::Sanitize
    {
        send::sanitize_action(&ns).map_err(StartStateRefused::NoSanitize)?;
    }
    drop(claimed);
    let target = Path::new(&plan.target_path);
    let refuse = |why: String| StartStateRefused::MountPoint {
        path: plan.target_path.clone(),
        why,
    };
    let point = std::fs::canonicalize(target)
        .or_else(|_| std::path::absolute(target))
        .unwrap_or_default();
    if device_state::mount_options(&point).is_some() {
        return Err(refuse("already a mount point".into()));
    }
    match std::fs::read_dir(target) {
        Ok(entries) => match entries.count() {
            0 => Ok(()),
            _ => Err(refuse("not empty".into())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(refuse(e.to_string())),
    }
}

/// How long a device found busy is tried again: the previous level's filesystem (or sweep)
/// can hold it for a moment after its unmount (or close) returned.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The device claimed through the guard (confirmed by `destroy_data` at resolution), tried
/// again while only its exclusive open fails.
pub(super) fn claim(device: &str) -> Result<ClaimedDevice, GuardError> {
    let started = std::time::Instant::now();
    loop {
        match claim_block_device(Path::new(device), true) {
            Err(GuardError::Busy { .. }) if started.elapsed() < BUSY_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// The device in its start state, mounted; dropping it unmounts.
pub struct Reached {
    pub mounted: Mounted,
    pub report: StartStateReport,
}

/// Bring `state`'s device to it, mounted on `target`: on a blocking thread, stopped between
/// fill writes when `cancel` fires.
pub async fn reach(
    state: &StartState,
    target: &Path,
    seed: u64,
    cancel: &CancellationToken,
) -> Result<Reached, StartStateError> {
    let (stop, watcher) = stop_flag(cancel);
    let (state, target) = (state.clone(), target.to_path_buf());
    let work = tokio::task::spawn_blocking(move || reach_blocking(&state, &target, seed, &stop));
    let reached = work.await.unwrap_or(Err(StartStateError::Interrupted));
    watcher.abort();
    reached
}

/// A flag set when `cancel` fires, for work on a blocking thread; abort the task when done.
fn stop_flag(cancel: &CancellationToken) -> (Arc<AtomicBool>, tokio::task::JoinHandle<()>) {
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stop, cancel) = (stop.clone(), cancel.clone());
        tokio::spawn(async move {
            cancel.cancelled().await;
            stop.store(true, Ordering::Relaxed);
        })
    };
    (stop, watcher)
}

fn reach_blocking(
    state: &StartState,
    target: &Path,
    seed: u64,
    stop: &AtomicBool,
) -> Result<Reached, StartStateError> {
    let claimed = claim(&state.device)?;
    let purge = purge(&claimed, state.purge, stop)?;
    // After the purge: a drive's own purge has the kernel read the device again.
    let device_bytes = device_state::device_bytes(&claimed)?;
    let device: PathBuf = claimed.path.clone();
    // The exclusive descriptor is let go for mkfs, which opens the device exclusively too.
    drop(claimed);
    let mkfs = device_state::make_filesystem(&device, state.filesystem)?;
    std::fs::create_dir_all(target).map_err(|source| StartStateError::MountPoint {
        path: target.display().to_string(),
        source,
    })?;
    let mount_point = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    let mounted = device_state::mount(&device, &mount_point, state.filesystem)?;
    let fill = match state.fill {
        Fill::SharePct(share) => Some(fill_to(&mount_point, device_bytes, share, seed, stop)?),
        Fill::None | Fill::LevelsPct(_) => None,
    };
    let report = StartStateReport {
        device: device.display().to_string(),
        device_bytes,
        purge,
        layout: Layout::Filesystem(FilesystemReport {
            filesystem: state.filesystem,
            mkfs,
            mount_point: mount_point.display().to_string(),
            mount_options: mounted.options.clone(),
        }),
        fill,
    };
    Ok(Reached { mounted, report })
}

/// For a purge by the drive, the NVMe namespace `device` (canonical) is, or the refusal sysfs
/// alone gives (not an NVMe namespace, a partition, a controller with other namespaces);
/// `None` for the other purges. Reads sysfs only: `drivebench plan` asks it too.
pub fn check_purge(device: &Path, purge: Purge) -> Result<Option<Namespace>, NvmeRefused> {
    by_the_drive(purge)
        .map(|by| namespace::check(device, by))
        .transpose()
}

/// The purge a drive does itself, for the purges that are one.
fn by_the_drive(purge: Purge) -> Option<NvmePurge> {
    match purge {
        Purge::Format => Some(NvmePurge::Format),
        Purge::Sanitize => Some(NvmePurge::Sanitize),
        Purge::Discard | Purge::None => None,
    }
}

/// Purge the claimed device as `purge` says; a sanitize's wait (not the sanitize itself)
/// stopped when `stop` is set, its progress shown on stderr at each whole percent.
pub(super) fn purge(
    claimed: &ClaimedDevice,
    purge: Purge,
    stop: &AtomicBool,
) -> Result<PurgeReport, StartStateError> {
    let report = match purge {
        Purge::Discard => {
            let done = device_state::discard_all(claimed)?;
            PurgeReport::Discard {
                bytes_discarded: done.bytes,
                seconds: done.seconds,
            }
        }
        Purge::None => PurgeReport::None,
        Purge::Format => {
            let ns = namespace::check(&claimed.path, NvmePurge::Format)?;
            let done = send::format(claimed, &ns)?;
            PurgeReport::Format {
                secure_erase: done.secure_erase,
                lba_format: done.lba_format,
                seconds: done.seconds,
            }
        }
        Purge::Sanitize => {
            let ns = namespace::check(&claimed.path, NvmePurge::Sanitize)?;
            let mut shown = None;
            let mut progress = |share: f64| {
                let pct = (share * 100.0).floor() as u32;
                if shown.replace(pct) != Some(pct) {
                    crate::console::stderr_line(&format!(
                        "sanitize of {}: {pct} %",
                        ns.controller.display()
                    ));
                }
            };
            let done = send::sanitize(claimed, &ns, stop, &mut progress)?;
            PurgeReport::Sanitize {
                action: done.action,
                seconds: done.seconds,
            }
        }
    };
    Ok(report)
}

/// A fill of `share` % of a device of `device_bytes` on the filesystem mounted at
/// `mount_point`, refused when it does not fit there.
fn fill_to(
    mount_point: &Path,
    device_bytes: u64,
    share: f64,
    seed: u64,
    stop: &AtomicBool,
) -> Result<FillReport, StartStateError> {
    let bytes = fill::fill_bytes(device_bytes, share);
    let free = drivebench_system::target::free_space_bytes(mount_point)?;
    if bytes > free {
        return Err(StartStateError::FillTooLarge {
            share_pct: share,
            bytes,
            free,
        });
    }
    let report = fill::write(mount_point, bytes, share, seed, stop)?;
    match stop.load(Ordering::Relaxed) {
        true => Err(StartStateError::Interrupted),
        false => Ok(report),
    }
}
