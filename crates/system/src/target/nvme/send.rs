//! The purge sent to the drive: Identify to learn what Format NVM keeps or which sanitize
//! the drive supports, then Format NVM on the namespace or Sanitize of the controller, whose
//! progress is polled on the Sanitize Status log every second. Afterwards the kernel is asked
//! to read the device again (its partitions, its size).
//!
//! Untested against a physical drive: what is sent here is checked through
//! [`super::command`]'s byte layout and the refusals, and Identify and Format NVM on QEMU's
//! emulated controller (bench/nvme-qemu.sh); Sanitize not (that controller has none).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::command::{
    self, CNS_CONTROLLER, CNS_NAMESPACE, IDENTIFY_BYTES, IdentifyData, NamespaceFormat,
    SanitizeAction, SanitizeCaps, SanitizeState, SanitizeStatus, SecureErase, UnknownSanitizeState,
};
use super::namespace::Namespace;
use crate::health::passthru::{self, AdminCommand, PassthruError};
use crate::target::guard::ClaimedDevice;

/// How long Identify and Sanitize (which only starts the sanitize) may take, ms.
const SHORT_TIMEOUT_MS: u32 = 60_000;
/// How long Format NVM with a user data erase may take, ms: it returns when done.
const FORMAT_TIMEOUT_MS: u32 = 4 * 3_600_000;
/// How often the Sanitize Status log is read.
const POLL: Duration = Duration::from_secs(1);

/// Why the drive did not purge the namespace.
#[derive(Debug, thiserror::Error)]
pub enum NvmeError {
    #[error(transparent)]
    Passthru(#[from] PassthruError),
    #[error("{controller}: the drive supports no block or crypto erase sanitize")]
    NoSanitize { controller: PathBuf },
    #[error("{controller}: the sanitize failed (Sanitize Status log)")]
    SanitizeFailed { controller: PathBuf },
    #[error("{controller}: the Sanitize Status log shows no sanitize after the drive accepted one")]
    SanitizeNotStarted { controller: PathBuf },
    #[error("{controller}: {source}")]
    SanitizeStatus {
        controller: PathBuf,
        #[source]
        source: UnknownSanitizeState,
    },
    #[error(
        "stopped waiting for the sanitize of {controller} at {progress_pct:.1} %; the drive finishes it on its own (its Sanitize Status log shows when)"
    )]
    SanitizeWaitStopped {
        controller: PathBuf,
        progress_pct: f64,
    },
}

/// A Format NVM done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Formatted {
    pub secure_erase: SecureErase,
    /// The LBA format index kept.
    pub lba_format: u8,
    pub seconds: f64,
}

/// A sanitize done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sanitized {
    pub action: SanitizeAction,
    pub seconds: f64,
}

/// Identify data structure `cns` (of namespace `nsid`, 0 for the controller's).
fn identify(controller: &Path, cns: u32, nsid: u32) -> Result<Box<IdentifyData>, PassthruError> {
    let mut data: Box<IdentifyData> = Box::new([0u8; IDENTIFY_BYTES]);
    let identify = AdminCommand {
        opcode: command::IDENTIFY,
        nsid,
        cdw10: cns,
        cdw11: 0,
        timeout_ms: SHORT_TIMEOUT_MS,
    };
    passthru::admin(controller, &identify, &mut data[..])?;
    Ok(data)
}

/// The sanitize the drive would do (block erase, else crypto erase), from Identify
/// Controller; refused when it has neither. Sends nothing that changes the drive.
pub fn sanitize_action(ns: &Namespace) -> Result<SanitizeAction, NvmeError> {
    let data = identify(&ns.controller, CNS_CONTROLLER, 0)?;
    SanitizeCaps::parse(&data)
        .choose()
        .ok_or_else(|| NvmeError::NoSanitize {
            controller: ns.controller.clone(),
        })
}

/// Format NVM of `ns` (the namespace `device` is) with a user data erase, keeping its LBA
/// format and protection settings; then the kernel reads the device again.
pub fn format(device: &ClaimedDevice, ns: &Namespace) -> Result<Formatted, NvmeError> {
    let current = NamespaceFormat::parse(&*identify(&ns.controller, CNS_NAMESPACE, ns.nsid)?);
    let secure_erase = SecureErase::UserData;
    let format = AdminCommand {
        opcode: command::FORMAT_NVM,
        nsid: ns.nsid,
        cdw10: command::format_cdw10(&current, secure_erase),
        cdw11: 0,
        timeout_ms: FORMAT_TIMEOUT_MS,
    };
    let started = Instant::now();
    passthru::admin(&ns.controller, &format, &mut [])?;
    let seconds = started.elapsed().as_secs_f64();
    reread(device);
    Ok(Formatted {
        secure_erase,
        lba_format: current.lba_format(),
        seconds,
    })
}

/// Sanitize of `ns`'s controller with the action the drive supports, waited for on its status
/// log every second, `progress` told the share done (0 to 1); the wait (not the sanitize)
/// stopped when `stop` is set. Then the kernel reads the device again.
pub fn sanitize(
    device: &ClaimedDevice,
    ns: &Namespace,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(f64),
) -> Result<Sanitized, NvmeError> {
    let action = sanitize_action(ns)?;
    let sanitize = AdminCommand {
        opcode: command::SANITIZE,
        nsid: 0,
        cdw10: command::sanitize_cdw10(action),
        cdw11: 0,
        timeout_ms: SHORT_TIMEOUT_MS,
    };
    let started = Instant::now();
    passthru::admin(&ns.controller, &sanitize, &mut [])?;
    wait_sanitized(&ns.controller, stop, progress)?;
    let seconds = started.elapsed().as_secs_f64();
    reread(device);
    Ok(Sanitized { action, seconds })
}

/// Read the Sanitize Status log every [`POLL`] until the sanitize is done or failed.
fn wait_sanitized(
    controller: &Path,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(f64),
) -> Result<(), NvmeError> {
    let controller_path = || controller.to_path_buf();
    loop {
        let page = passthru::log_page(controller, command::SANITIZE_STATUS_LOG)?;
        let status = SanitizeStatus::parse(&page).map_err(|source| NvmeError::SanitizeStatus {
            controller: controller_path(),
            source,
        })?;
        match status.state {
            SanitizeState::Completed | SanitizeState::CompletedWithoutDeallocate => return Ok(()),
            SanitizeState::Failed => {
                return Err(NvmeError::SanitizeFailed {
                    controller: controller_path(),
                });
            }
            SanitizeState::Never => {
                return Err(NvmeError::SanitizeNotStarted {
                    controller: controller_path(),
                });
            }
            SanitizeState::InProgress => progress(status.progress),
        }
        if sleep_unless_stopped(POLL, stop) {
            return Err(NvmeError::SanitizeWaitStopped {
                controller: controller_path(),
                progress_pct: status.progress * 100.0,
            });
        }
    }
}

/// Sleep `total` in short steps; true as soon as `stop` is set.
fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) -> bool {
    let step = Duration::from_millis(100);
    let started = Instant::now();
    while started.elapsed() < total {
        if stop.load(Ordering::Relaxed) {
            return true;
        }
        std::thread::sleep(step);
    }
    stop.load(Ordering::Relaxed)
}

/// `BLKRRPART` (`_IO(0x12, 95)`): the kernel reads the disk's partition table again.
const BLKRRPART: libc::c_ulong = 0x125F;

/// Ask the kernel to read the device again after the drive erased it. The NVMe driver
/// revalidates the namespace (its size) after a Format NVM or Sanitize of its own accord;
/// the partition table is re-read here. A device without partitions refuses that, which is
/// only logged.
fn reread(device: &ClaimedDevice) {
    // SAFETY: BLKRRPART takes no argument; the descriptor is open for the call.
    let rc = unsafe { libc::ioctl(device.file.as_raw_fd(), BLKRRPART as _) };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        tracing::info!("{}: re-reading its partitions: {e}", device.path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_ends_the_wait_at_once() {
        let stop = AtomicBool::new(true);
        let started = Instant::now();
        assert!(sleep_unless_stopped(Duration::from_secs(5), &stop));
        assert!(started.elapsed() < Duration::from_secs(1));
        stop.store(false, Ordering::Relaxed);
        assert!(!sleep_unless_stopped(Duration::from_millis(150), &stop));
    }

    #[test]
    fn a_controller_that_is_not_nvme_refuses_identify() {
        let ns = Namespace {
            name: "nvme0n1".into(),
            controller: "/dev/null".into(),
            nsid: 1,
        };
        match sanitize_action(&ns) {
            Err(NvmeError::Passthru(PassthruError::Refused {
                opcode: command::IDENTIFY,
                cdw10: CNS_CONTROLLER,
                ..
            })) => {}
            other => panic!("expected Identify refused, got {other:?}"),
        }
    }
}
