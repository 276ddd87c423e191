//! What can go wrong taking, writing, reading or exporting a capture. Each variant names what
//! failed and where (the path, the record, the device), so the CLI can print it as it is and
//! map it to an exit code: [`CaptureError::Unavailable`] before a run starts, the corrupt
//! capture variants before a replay touches its target.

use std::path::PathBuf;

use drivebench_system::sysfs::SysfsError;

/// A failure of the capture module.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Block I/O tracing cannot work on this host; the reason says what is missing.
    #[error("block I/O capture is not possible here: {0}")]
    Unavailable(#[from] Unavailable),
    /// A file or directory could not be read, written, created or removed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done: "read", "write", "create", "open", "remove", ...
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A device's sysfs entry could not be read or held what it should not.
    #[error(transparent)]
    Sysfs(#[from] SysfsError),
    /// The devices under a path could not be resolved.
    #[error("cannot find the block devices under {path}: {reason}")]
    Devices { path: PathBuf, reason: String },
    /// The path is on no block device (tmpfs, overlay, btrfs's anonymous device): there is
    /// nothing to trace.
    #[error("{path} is on no block device, so its block requests cannot be captured")]
    NoBlockDevice { path: PathBuf },
    /// `Tracer::start` was given no device.
    #[error("no device to trace was given")]
    NoDevices,
    /// A partition was given to trace: its requests are reported on its whole disk.
    #[error(
        "{name} ({major}:{minor}) is a partition: the kernel reports block requests on the whole \
         disk, so trace the disk it belongs to"
    )]
    Partition {
        name: String,
        major: u32,
        minor: u32,
    },
    /// A bio-based device (zram, brd, device-mapper, md): it has no block requests, so the
    /// request tracepoints never fire for it.
    #[error(
        "{name} ({major}:{minor}) is a bio-based device (no `mq` in sysfs): the kernel issues no \
         block requests to it, so there is nothing to capture; trace the disks below it"
    )]
    BioBased {
        name: String,
        major: u32,
        minor: u32,
    },
    /// More phases than a record's one-byte phase index can tell apart.
    #[error("a capture holds at most {max} phases")]
    TooManyPhases { max: usize },
    /// The reader thread of the trace pipe panicked; what it had read is lost.
    #[error("the thread reading {path} stopped unexpectedly")]
    ReaderPanicked { path: PathBuf },
    /// The trace file does not start with the capture magic.
    #[error("{path} is not a drivebench capture: it starts with {found:?}, not \"DBCAPTR1\"")]
    BadMagic { path: PathBuf, found: String },
    /// The trace file or its manifest is of a format version this build does not read.
    #[error(
        "{path}: format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        path: PathBuf,
        found: u64,
        supported: u32,
    },
    /// The header gives a record size other than the format's.
    #[error("{path}: records of {found} bytes where the format has {expected}")]
    RecordSize {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// The file is shorter (or longer) than its header and record count say.
    #[error(
        "{path} is truncated or padded: its header and {records} records need {expected} bytes, \
         the file has {actual}"
    )]
    Truncated {
        path: PathBuf,
        records: u64,
        expected: u64,
        actual: u64,
    },
    /// The trace's bytes are not those the manifest's checksum was taken of.
    #[error(
        "{path} was changed after it was written: its sha256 is {actual}, capture.json says {expected}"
    )]
    ChecksumMismatch {
        path: PathBuf,
        expected: String,
        actual: String,
    },
    /// The trace's header and the manifest disagree on the number of records.
    #[error("{path}: the trace header says {header} records, capture.json says {manifest}")]
    CountMismatch {
        path: PathBuf,
        header: u64,
        manifest: u64,
    },
    /// A field of one record is outside what the format or the capture's tables allow.
    #[error("{path}, record {record}: {field} is {value}, out of range ({limit})")]
    OutOfRange {
        path: PathBuf,
        /// 0-based record number.
        record: u64,
        field: &'static str,
        value: u64,
        /// What the field must be, e.g. "below 4 devices".
        limit: String,
    },
    /// capture.json is missing, not JSON, or not a capture manifest.
    #[error("{path} is unreadable: {source}")]
    Manifest {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The name given for the file in a fio iolog cannot be written there.
    #[error(
        "{name:?} cannot name the file of a fio iolog: it must be non-empty, with no white space"
    )]
    IologFileName { name: String },
}

/// Why block I/O tracing is unavailable on this host.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("not running as root (the kernel's trace buffers and block events need root)")]
    NotRoot,
    #[error("tracefs is not mounted and cannot be mounted at /sys/kernel/tracing: {detail}")]
    NoTracefs { detail: String },
    #[error("the kernel has no block tracepoints: {path} is missing")]
    NoBlockEvents { path: PathBuf },
    #[error("tracefs has no {path}: this kernel cannot make private trace buffers")]
    NoInstances { path: PathBuf },
}

/// An I/O error with the action and path it happened at.
pub(super) fn io(
    action: &'static str,
    path: impl Into<PathBuf>,
) -> impl FnOnce(std::io::Error) -> CaptureError {
    let path = path.into();
    move |source| CaptureError::Io {
        action,
        path,
        source,
    }
}
