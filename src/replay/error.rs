//! Why a replay refused to start or could not finish: every bad input found before the target
//! is touched (an empty capture, a bad speed, a span larger than the target, requests the
//! target cannot take with direct I/O) and every failure while replaying (ring set-up, memory,
//! a failed or short I/O naming its operation, offset, length and errno) is one variant.

use std::path::PathBuf;

use crate::capture::Op;

/// An error of a replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The capture holds no request.
    #[error("the capture holds no request: nothing to replay")]
    EmptyCapture,
    /// `--speed` is not a finite number above zero.
    #[error("replay speed {speed} is not a finite number above 0")]
    BadSpeed { speed: f64 },
    /// The in-flight cap is zero.
    #[error("the cap on requests in flight must be at least 1")]
    ZeroInFlight,
    /// Reads, writes or discards of zero bytes, which no target can take.
    #[error("{count} {} requests of the capture have a length of 0 bytes", .op.as_str())]
    ZeroLength { op: Op, count: u64 },
    /// Requests the remap has no place for (it was built from other requests).
    #[error("{count} requests of the capture have no place in the remap onto the target")]
    Unmapped { count: u64 },
    /// The remapped capture needs more bytes than the target has.
    #[error(
        "the capture's remapped span is {span_bytes} bytes but {path} has {target_bytes}: use a larger target"
    )]
    SpanTooLarge {
        path: PathBuf,
        span_bytes: u64,
        target_bytes: u64,
    },
    /// Requests whose offset or length is not a multiple of the target's direct-I/O alignment
    /// (a capture from 512-byte sectors replayed on a 4096-byte device).
    #[error(
        "{count} of {total} requests are not aligned to the {align_bytes}-byte direct-I/O alignment of {path} \
         (the capture is from a device with smaller blocks?); their sizes: {}{}",
        sizes_text(.sizes),
        offsets_text(*.offset_only)
    )]
    Misaligned {
        path: PathBuf,
        align_bytes: u64,
        count: u64,
        total: u64,
        /// (length in bytes, requests) of the misaligned requests, most frequent first, at
        /// most [`MISALIGNED_SIZES_SHOWN`].
        sizes: Vec<(u64, u64)>,
        /// Misaligned requests whose length is aligned (only their offset is not).
        offset_only: u64,
    },
    /// The ring or its registered file could not be set up.
    #[error("io_uring set-up for the replay failed: {0}")]
    Ring(#[source] std::io::Error),
    /// The buffers could not be allocated.
    #[error("cannot allocate {bytes} bytes of replay buffers")]
    Memory { bytes: u64 },
    /// io_uring_enter failed.
    #[error("io_uring_enter failed during the replay: {0}")]
    Submit(#[source] std::io::Error),
    /// The kernel failed a request.
    #[error(
        "{} of {len_bytes} bytes at offset {offset} on {path} failed: {message} (errno {errno})",
        .op.as_str()
    )]
    Io {
        path: PathBuf,
        op: Op,
        offset: u64,
        len_bytes: u64,
        errno: i32,
        message: String,
    },
    /// A read or write moved fewer bytes than asked.
    #[error(
        "{} of {len_bytes} bytes at offset {offset} on {path} moved only {done_bytes} bytes",
        .op.as_str()
    )]
    Short {
        path: PathBuf,
        op: Op,
        offset: u64,
        len_bytes: u64,
        done_bytes: u64,
    },
    /// The submission queue had no room (a bug: it has an entry per slot).
    #[error("the io_uring submission queue of the replay was full")]
    RingFull,
    /// The replay thread could not be started.
    #[error("cannot start the replay thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The replay thread ended without an outcome (a bug: it panicked).
    #[error("the replay thread ended without a result (it panicked)")]
    Panicked,
}

/// How many distinct sizes a [`ReplayError::Misaligned`] names.
pub const MISALIGNED_SIZES_SHOWN: usize = 5;

fn sizes_text(sizes: &[(u64, u64)]) -> String {
    let parts: Vec<String> = sizes
        .iter()
        .map(|(bytes, n)| format!("{n} × {bytes} B"))
        .collect();
    parts.join(", ")
}

fn offsets_text(offset_only: u64) -> String {
    match offset_only {
        0 => String::new(),
        n => format!("; {n} of them have an aligned length but a misaligned offset"),
    }
}

impl ReplayError {
    /// The error for a failed completion: `res` is the negative errno io_uring returned.
    pub(super) fn from_errno(
        path: &std::path::Path,
        op: Op,
        offset: u64,
        len: u64,
        res: i32,
    ) -> Self {
        let errno = res.saturating_neg();
        ReplayError::Io {
            path: path.to_path_buf(),
            op,
            offset,
            len_bytes: len,
            errno,
            message: std::io::Error::from_raw_os_error(errno).to_string(),
        }
    }
}
