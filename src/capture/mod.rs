//! Block I/O capture: every request the drive under a run's target saw during the captured
//! phases, from the kernel's block tracepoints in a private tracefs instance, tagged with the
//! file class it belonged to (log, data, temp, filesystem, unknown) by mapping the instances'
//! files to device extents, and written as a compact trace with a summary and an export fio
//! replays. `remap` packs a capture's touched areas onto a smaller replay target.

pub mod classify;
pub mod error;
pub mod fiemap;
pub mod fio;
pub mod format;
pub mod model;
pub mod remap;
pub mod shape;
pub mod summary;
pub mod switch;
pub mod trace;

pub use classify::{MappedFile, MappedFiles, classify, file_class};
pub use error::{CaptureError, Unavailable};
pub use fiemap::FileMap;
pub use format::{Capture, CaptureManifest, read, write, write_capture};
pub use model::{
    CaptureMeta, CapturedDevice, CapturedPhase, FileClass, Flags, NO_COMPLETION, Op, Request,
};
pub use remap::{DEFAULT_CHUNK_BYTES, Remap};
pub use shape::{Shape, ShapeItem, shape_of};
pub use summary::{CaptureSummary, SecondRow, per_second, summarize};
pub use trace::{Tracer, available, clean_orphans, device, switch_off_own, traceable, whole_disk};
