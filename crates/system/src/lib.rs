//! drivebench's view of the machine it runs on, with no database in sight: the block devices
//! as `/sys` shows them, the drive under test and its guard, direct I/O on it, and the device
//! and host counters of `/proc` and `/sys`. Below every module that runs a database, above
//! only the pure leaves of `drivebench-core`.
//!
//! # Layout
//!
//! - [`health`]: what the drive itself counted: its health log (NVMe SMART and the OCP
//!   extended SMART log through the admin passthrough ioctl, an ATA disk's SMART table through the SCSI generic ATA pass-through),
//!   read through the interface sysfs shows, or why there is none; the difference between
//!   two readings.
//! - [`io`]: the synthetic direct-I/O engine shaped like fio's: workload points on dedicated
//!   threads (io_uring or pread/pwrite), profiles, fill, sweep points, O_DIRECT targets (files,
//!   block devices behind `target`'s guard), latency and rate results.
//! - [`sysfs`]: one model of a block device as sysfs shows it (its directory, partition and
//!   whole disk, members, attributes), which the two modules below read devices through.
//! - [`target`]: the drive under test: identity, filesystem, free space, the destructive-write
//!   guard for block devices, the markers on what drivebench leaves there, and a whole
//!   device's known starting state (discard, or an NVMe Format NVM or Sanitize sent through
//!   `health`'s admin passthrough; a filesystem made without discard, its mount).
//! - [`telemetry`]: device counters at the physical members under the target, host CPU, page
//!   cache, pressure and named processes, sampled at instants, turned into interval and phase
//!   figures, and the bottleneck verdict.

pub mod health;
pub mod io;
pub mod sysfs;
pub mod target;
pub mod telemetry;
