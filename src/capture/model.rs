//! What a capture holds, in memory: one [`Request`] per block request the traced devices
//! saw, and the tables its small indices point into ([`CaptureMeta`]). The on-disk form is in
//! `format`; everything else (summary, replay, export) reads these types.

use serde::{Deserialize, Serialize};

/// The operation of a block request, from the first data letter of the kernel's `rwbs`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Op {
    /// `R`.
    Read = 0,
    /// `W`.
    Write = 1,
    /// A cache flush with no data (`FN`).
    Flush = 2,
    /// `D` (discard) or `E` (secure erase).
    Discard = 3,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Read, Op::Write, Op::Flush, Op::Discard];

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Discard => "discard",
        }
    }

    pub fn from_u8(v: u8) -> Option<Op> {
        Op::ALL.get(v as usize).copied()
    }
}

/// Modifier bits of a request, from `rwbs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u8);

impl Flags {
    /// A leading `F`: the device cache is flushed before the request.
    pub const PREFLUSH: u8 = 1;
    /// A trailing `F`: force unit access, written through the device cache.
    pub const FUA: u8 = 2;
    /// `S`: synchronous.
    pub const SYNC: u8 = 4;
    /// `M`: filesystem metadata.
    pub const META: u8 = 8;
    /// `A`: readahead.
    pub const READAHEAD: u8 = 16;
    /// Every defined bit.
    pub const ALL: u8 = 31;

    pub fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// What the bytes of a request belonged to, from the instance's files mapped to device
/// extents (FIEMAP) at the end of the capture.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum FileClass {
    /// The engine's log: InnoDB redo (`ib_logfile*`), `pg_wal/`, `.ldf`, SQLite `-wal`/`-journal`.
    Log = 0,
    /// Tables and indexes (every other file of an instance).
    Data = 1,
    /// Temporary files (`#sql*`, `ibtmp*`, `pgsql_tmp`, `tempdb`).
    Temp = 2,
    /// The filesystem's own: its journal (written by `jbd2`) and metadata (`M` requests).
    Filesystem = 3,
    /// Matched no file and no filesystem sign: reported, never hidden.
    Unknown = 4,
}

impl FileClass {
    pub const ALL: [FileClass; 5] = [
        FileClass::Log,
        FileClass::Data,
        FileClass::Temp,
        FileClass::Filesystem,
        FileClass::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FileClass::Log => "log",
            FileClass::Data => "data",
            FileClass::Temp => "temp",
            FileClass::Filesystem => "filesystem",
            FileClass::Unknown => "unknown",
        }
    }

    pub fn from_u8(v: u8) -> Option<FileClass> {
        FileClass::ALL.get(v as usize).copied()
    }
}

/// No completion was seen (tracing stopped first, or the event was lost).
pub const NO_COMPLETION: u64 = u64::MAX;

/// One block request as the device saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// When it was handed to the driver, in ns since the capture started.
    pub issue_ns: u64,
    /// When it completed, in ns since the capture started, or [`NO_COMPLETION`].
    pub complete_ns: u64,
    /// First sector (512-byte units) on the whole device; 0 for a flush.
    pub sector: u64,
    /// Length in bytes; 0 for a flush.
    pub bytes: u32,
    /// Index into [`CaptureMeta::devices`].
    pub device: u16,
    /// Index into [`CaptureMeta::tasks`]: the task that issued it.
    pub task: u16,
    pub op: Op,
    pub flags: Flags,
    pub class: FileClass,
    /// Index into [`CaptureMeta::phases`].
    pub phase: u8,
}

#[cfg(test)]
impl Request {
    /// For tests: a data request of the first device and task, issued at 0, not completed,
    /// with no flags; struct update syntax sets the rest.
    pub fn data(op: Op, sector: u64, bytes: u32) -> Request {
        Request {
            issue_ns: 0,
            complete_ns: NO_COMPLETION,
            sector,
            bytes,
            device: 0,
            task: 0,
            op,
            flags: Flags::default(),
            class: FileClass::Data,
            phase: 0,
        }
    }
}

impl Request {
    /// The request's byte offset on its device.
    pub fn offset_bytes(&self) -> u64 {
        self.sector * 512
    }

    /// Device latency, when its completion was seen.
    pub fn latency_ns(&self) -> Option<u64> {
        (self.complete_ns != NO_COMPLETION).then(|| self.complete_ns.saturating_sub(self.issue_ns))
    }
}

/// A traced device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CapturedDevice {
    /// Kernel name, e.g. "vda", "loop3".
    pub name: String,
    pub major: u32,
    pub minor: u32,
    /// Logical block size in bytes (`queue/logical_block_size`).
    pub logical_block_bytes: u32,
    /// Size in bytes.
    pub size_bytes: u64,
}

/// A captured phase and where it sits on the capture's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CapturedPhase {
    pub name: String,
    /// Start, in seconds since the capture started.
    pub start_s: f64,
    /// Length in seconds.
    pub seconds: f64,
}

/// The tables a capture's requests point into, and how it was taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaptureMeta {
    pub devices: Vec<CapturedDevice>,
    /// Issuing task names (`comm`), indexed by [`Request::task`].
    pub tasks: Vec<String>,
    pub phases: Vec<CapturedPhase>,
    /// Events the kernel dropped because the reader fell behind (per-CPU `overrun`); a
    /// capture with lost events is reported as incomplete.
    pub lost_events: u64,
    /// CPU time of drivebench's trace reader thread, user and system (the kernel's work of
    /// handing it the events included): the capture's own CPU cost.
    #[serde(default)]
    pub reader_cpu_s: f64,
}
