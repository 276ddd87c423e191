//! The synthetic direct-I/O engine: workload points (block size or size mix, read and random
//! shares, threads × depth, a region of the target, warm-up, duration, uncontrolled or paced at
//! a target rate) run on dedicated OS threads through io_uring (registered buffers and files,
//! batched submissions) or, when io_uring cannot be set up, pread/pwrite. Always O_DIRECT on a
//! file allocated up front or a block device that passed the destructive-write guard.
//!
//! Entry points: [`open_target`] then [`run_point`], which returns a [`PointResult`];
//! [`PROFILES`] are the built-in access patterns, [`fill::fill`] the sequential-write
//! precondition, and [`sweep::run_sweep`] draws a profile's latency-vs-IOPS curve.

mod direct;
mod error;
pub mod fill;
mod profiles;
mod psync;
mod recorder;
mod result;
mod run;
mod schedule;
mod spec;
mod stream;
pub mod sweep;
mod target;
mod uring;
mod worker;

pub use direct::{AlignedBuf, AlignmentSource, DirectAlignment};
pub use error::IoError;
pub use profiles::{PROFILES, Profile, profile};
pub use result::{LatencySummaryUs, PointResult};
pub use run::{check_point, run_point};
pub use spec::{
    Arrivals, BlockSizes, EngineChoice, IoEngineKind, MAX_DEPTH, MAX_OS_THREADS, Pacing, PointSpec,
    Region, SizeShare,
};
pub use stream::IoOp;
pub use target::{DirectTarget, TargetKind, TargetSpec, first_unwritten, open_target};
pub use uring::fill_bytes;
