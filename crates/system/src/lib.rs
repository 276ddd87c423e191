//! drivebench's view of the machine it runs on, read from `/proc` and `/sys`: below every
//! module that runs a database or an I/O load, above only the pure leaves of `drivebench-core`.
//!
//! # Layout
//!
//! - [`sysfs`]: one model of a block device as sysfs shows it (its directory, partition and
//!   whole disk, members, attributes), which the two modules below read devices through.
//! - [`target`]: the drive under test: identity, filesystem, free space, the destructive-write
//!   guard for block devices, and the markers on what drivebench leaves there.
//! - [`telemetry`]: device counters at the physical members under the target, host CPU, page
//!   cache, pressure and named processes, sampled at instants, turned into interval and phase
//!   figures, and the bottleneck verdict.

pub mod sysfs;
pub mod target;
pub mod telemetry;
