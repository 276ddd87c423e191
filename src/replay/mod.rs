//! Replay of a capture on another file or block device: the capture's requests, remapped onto
//! the target (`capture::remap`), put through one io_uring ring on a thread of its own with
//! O_DIRECT, at their recorded times (open loop, the default), scaled by a speed, or as fast as
//! the recorded concurrency allows (`schedule`). Before the target is touched, `checks` refuses
//! an empty capture, a bad speed, a span larger than the target and requests the target cannot
//! take with direct I/O. The loop (`engine`, `ring`) stamps each request's intended, submission
//! and completion times; `measure` turns them into latency from the intended time (no
//! coordinated omission) per operation and file class, service time, schedule lag and
//! per-second rows; `fidelity` compares the recorded and replayed shapes and gives a verdict;
//! `model` is the report result.json holds.
//!
//! Entry point: [`replay`], then [`ReplayOutcome::report`].

mod checks;
mod engine;
mod error;
pub mod fidelity;
mod measure;
pub mod model;
mod ring;
pub mod schedule;

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod fidelity_tests;

pub use checks::{TargetFit, check_capture, check_target};
pub use engine::{MAX_BATCH, Progress, ReplayOptions, SPIN_NS, replay};
pub use error::ReplayError;
pub use fidelity::{DeviationUnit, Fidelity, FigureCheck, LagFigures};
pub use measure::{LatencyRecord, ReplayOutcome};
pub use model::{LatencyUs, ReplayReport, ReplaySource, SecondRow};
pub use schedule::Timing;
