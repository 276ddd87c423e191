//! What the drive and the host did while a benchmark ran, and what held the run back.
//!
//! # What is measured, and from where
//!
//! A [`Sampler`] takes [`Snapshot`]s of cumulative kernel counters at instants the caller
//! chooses; the difference between two snapshots is an [`IntervalTelemetry`], and
//! [`Totals`] adds intervals up over a phase.
//!
//! - **The drive**: `/proc/diskstats`, at the *physical members* under the target directory
//!   ([`devices`]: `stat` → `/sys/dev/block` → partition to disk → device-mapper and md
//!   members through `slaves/`). Per direction: operations/s, MiB/s, average request size and
//!   await; aqu-sz (average I/Os in flight), %util, flushes/s and discards/s, with iostat's
//!   formulas, and the raw counts beside them. Several members are summed (util is their
//!   average) and also listed one by one.
//! - **The CPUs**: `/proc/stat`, as shares of all CPUs' time: user (with nice), system (with
//!   irq and softirq), iowait, steal, idle, and busy = 100 − idle − iowait.
//! - **Processes**: `/proc/PID/stat` for each named process (the database servers) and for
//!   drivebench itself: CPU as % of one core and as a share of the host, resident memory.
//! - **The page cache**: `/proc/meminfo` Cached, Dirty, Writeback.
//! - **Pressure**: `/proc/pressure/{cpu,io}`: the share of the interval some task was stalled
//!   on a CPU or on I/O, and the share all non-idle tasks were stalled on I/O at once.
//!
//! [`verdict::judge`] turns these figures (and the client's lateness) into a [`Bound`]:
//! drive, host CPU, client or unclear, with the deciding figures and named thresholds.
//!
//! # Limits
//!
//! - **Virtual devices** (virtio, emulated NVMe or SCSI): the host may serve reads from its
//!   own cache and absorb writes, which the guest still counts as device I/O; latencies and
//!   rates then describe the hypervisor's storage stack as much as a drive. The resolved stack
//!   says so ([`DeviceKind::Virtual`] and its evidence).
//! - **Loop devices**: their I/O goes to a file on another filesystem, usually through its
//!   page cache; the counters describe the loop device, not the drive under that file
//!   ([`DeviceKind::Loop`]).
//! - **%util on parallel devices**: one outstanding request keeps %util at 100 on an NVMe, SSD,
//!   RAID set or virtio disk that could serve many at once, so %util is never taken as
//!   saturation on its own; aqu-sz, await and pressure are.
//! - **No block device** (tmpfs, overlay; btrfs, whose device number is anonymous): no device
//!   figures, host figures only.
//! - iowait is a hint (idle CPU while some task waits for I/O), not a measure; CPU figures
//!   have the resolution of a clock tick (10 ms, usually), coarse over short intervals.
//! - Pressure figures need kernel 4.20+ with pressure accounting on; without them they are
//!   absent and the verdict judges from the other figures.

pub mod clock;
pub mod devices;
pub mod diskstats;
pub mod error;
pub mod host;
pub mod host_info;
pub mod interval;
pub mod sampler;
pub mod totals;
pub mod verdict;

mod csv;

pub use devices::{DeviceKind, DeviceLevel, DeviceNode, DeviceStack, Devices, resolve};
pub use diskstats::{DeviceFigures, DiskCounts};
pub use error::TelemetryError;
pub use host::MemoryFigures;
pub use interval::{
    CpuFigures, DeviceTelemetry, IntervalTelemetry, PressureFigures, ProcessFigures,
};
pub use sampler::{OWN_PROCESS_NAME, Sampler, Snapshot};
pub use totals::Totals;
pub use verdict::{Bound, Figure, Verdict, VerdictInput, judge};
