//! Why a direct-I/O point could not start or could not finish: every refusal and failure is a
//! value naming the target, the setting or the I/O that was at fault.

use std::path::PathBuf;

use crate::target::guard::GuardError;

/// An error from opening a target or running a point on it.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The point's settings are inconsistent (names the setting).
    #[error("invalid workload point: {0}")]
    InvalidSpec(String),
    /// A block size is not a multiple of the target's direct-I/O alignment.
    #[error(
        "block size {block_size_bytes} bytes is not a multiple of the direct-I/O alignment of {path} ({align_bytes} bytes)"
    )]
    Misaligned {
        path: PathBuf,
        block_size_bytes: u64,
        align_bytes: u64,
    },
    /// The target cannot do direct I/O (O_DIRECT refused or meaningless there).
    #[error("{path} cannot do direct I/O: {reason}")]
    NoDirectIo { path: PathBuf, reason: String },
    /// An existing target file is smaller than the size asked for.
    #[error("{path} is {actual_bytes} bytes, smaller than the {wanted_bytes} bytes asked for")]
    TooSmall {
        path: PathBuf,
        actual_bytes: u64,
        wanted_bytes: u64,
    },
    /// The target path is neither a regular file nor what the spec says it is.
    #[error("{path}: {reason}")]
    WrongKind { path: PathBuf, reason: String },
    /// The region of the target is too small for one I/O of the largest block size.
    #[error("region of {region_bytes} bytes on {path} cannot hold one {block_size_bytes}-byte I/O")]
    RegionTooSmall {
        path: PathBuf,
        region_bytes: u64,
        block_size_bytes: u64,
    },
    /// The destructive-write guard refused a block device.
    #[error(transparent)]
    Guard(#[from] GuardError),
    /// A system call on the target failed outside the I/O path (open, fallocate, statx, ...).
    #[error("{path}: {what}: {source}")]
    System {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// io_uring was asked for explicitly and could not be set up.
    #[error("io_uring unavailable: {0}")]
    UringUnavailable(String),
    /// An I/O failed or came back short.
    #[error("{op} of {len_bytes} bytes at offset {offset} on {path} failed: {reason}")]
    Io {
        path: PathBuf,
        op: &'static str,
        offset: u64,
        len_bytes: u64,
        reason: String,
    },
    /// A worker thread could not be started or ended abnormally.
    #[error("I/O worker thread: {0}")]
    Worker(String),
}
