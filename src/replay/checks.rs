//! What is wrong with a replay before the target is touched: an empty capture, a speed that
//! is not a finite number above zero, a zero cap on requests in flight, data requests of no
//! length; then, against the target's size and direct-I/O alignment (known from the device or
//! the filesystem before any I/O), a remapped span larger than the target and requests whose
//! offset or length the target cannot take with O_DIRECT, such as a capture from 512-byte
//! sectors replayed on a 4096-byte device.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::{MISALIGNED_SIZES_SHOWN, ReplayError};
use super::schedule::Timing;
use crate::capture::{Op, Remap, Request};

/// Checks of the capture and the replay's settings alone.
pub fn check_capture(
    requests: &[Request],
    timing: Timing,
    max_in_flight: Option<u32>,
) -> Result<(), ReplayError> {
    if requests.is_empty() {
        return Err(ReplayError::EmptyCapture);
    }
    if let Timing::Scaled { speed } = timing
        && !(speed.is_finite() && speed > 0.0)
    {
        return Err(ReplayError::BadSpeed { speed });
    }
    if max_in_flight == Some(0) {
        return Err(ReplayError::ZeroInFlight);
    }
    for op in [Op::Read, Op::Write, Op::Discard] {
        let count = requests
            .iter()
            .filter(|r| r.op == op && r.bytes == 0)
            .count() as u64;
        if count > 0 {
            return Err(ReplayError::ZeroLength { op, count });
        }
    }
    Ok(())
}

/// What a target offers a replay: its size and its direct-I/O offset alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetFit<'a> {
    pub path: &'a Path,
    pub size_bytes: u64,
    /// Offsets and lengths of reads and writes must be multiples of this.
    pub align_bytes: u64,
    /// Whether discards become BLKDISCARD (aligned like reads and writes) rather than a
    /// punched hole in a file (any range).
    pub block_device: bool,
}

/// Checks of the remapped capture against the target.
pub fn check_target(
    requests: &[Request],
    remap: &Remap,
    target: TargetFit<'_>,
) -> Result<(), ReplayError> {
    if remap.span_bytes() > target.size_bytes {
        return Err(ReplayError::SpanTooLarge {
            path: target.path.to_path_buf(),
            span_bytes: remap.span_bytes(),
            target_bytes: target.size_bytes,
        });
    }
    let align = target.align_bytes.max(1);
    let mut unmapped = 0u64;
    let mut sizes: BTreeMap<u64, u64> = BTreeMap::new();
    let mut offset_only = 0u64;
    let aligned_op = |op: Op| match op {
        Op::Read | Op::Write => true,
        Op::Discard => target.block_device,
        Op::Flush => false,
    };
    for r in requests.iter().filter(|r| r.op != Op::Flush) {
        let Some(offset) = remap.target_offset(r) else {
            unmapped += 1;
            continue;
        };
        let bytes = u64::from(r.bytes);
        if aligned_op(r.op) && (offset % align != 0 || bytes % align != 0) {
            *sizes.entry(bytes).or_default() += 1;
            offset_only += u64::from(bytes % align == 0);
        }
    }
    if unmapped > 0 {
        return Err(ReplayError::Unmapped { count: unmapped });
    }
    if sizes.is_empty() {
        return Ok(());
    }
    let count = sizes.values().sum();
    let mut sizes: Vec<(u64, u64)> = sizes.into_iter().collect();
    sizes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    sizes.truncate(MISALIGNED_SIZES_SHOWN);
    Err(ReplayError::Misaligned {
        path: target.path.to_path_buf(),
        align_bytes: align,
        count,
        total: requests.len() as u64,
        sizes,
        offset_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::DEFAULT_CHUNK_BYTES;

    fn req(op: Op, sector: u64, bytes: u32) -> Request {
        Request::data(op, sector, bytes)
    }

    fn fit(size_bytes: u64, align_bytes: u64, block_device: bool) -> TargetFit<'static> {
        TargetFit {
            path: Path::new("/dev/test"),
            size_bytes,
            align_bytes,
            block_device,
        }
    }

    #[test]
    fn bad_captures_and_settings_are_refused() {
        let ok = [req(Op::Read, 0, 4096), req(Op::Flush, 0, 0)];
        assert!(check_capture(&ok, Timing::Recorded, None).is_ok());
        assert!(matches!(
            check_capture(&[], Timing::Recorded, None),
            Err(ReplayError::EmptyCapture)
        ));
        for speed in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = check_capture(&ok, Timing::Scaled { speed }, None).unwrap_err();
            assert!(matches!(e, ReplayError::BadSpeed { .. }), "{speed}");
            assert!(e.to_string().contains("speed"), "{e}");
        }
        assert!(matches!(
            check_capture(&ok, Timing::Fast, Some(0)),
            Err(ReplayError::ZeroInFlight)
        ));
        let empty_write = [req(Op::Write, 0, 0), req(Op::Write, 8, 0)];
        let e = check_capture(&empty_write, Timing::Recorded, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "2 write requests of the capture have a length of 0 bytes"
        );
    }

    #[test]
    fn a_span_larger_than_the_target_is_refused() {
        let mib = 1u64 << 20;
        // Three far-apart chunks: a 3 MiB span.
        let rs = [
            req(Op::Write, 0, 4096),
            req(Op::Write, 100 * mib / 512, 4096),
            req(Op::Read, 200 * mib / 512, 4096),
        ];
        let remap = Remap::new(&rs, DEFAULT_CHUNK_BYTES);
        assert!(check_target(&rs, &remap, fit(3 * mib, 4096, false)).is_ok());
        let e = check_target(&rs, &remap, fit(3 * mib - 1, 4096, false)).unwrap_err();
        assert!(matches!(
            e,
            ReplayError::SpanTooLarge {
                span_bytes: 3_145_728,
                target_bytes: 3_145_727,
                ..
            }
        ));
        assert!(e.to_string().contains("use a larger target"), "{e}");
    }

    #[test]
    fn requests_from_smaller_sectors_are_named_with_their_sizes() {
        let rs = [
            req(Op::Write, 0, 4096),
            req(Op::Write, 8, 512),   // length 512
            req(Op::Write, 9, 512),   // length and offset
            req(Op::Read, 17, 4096),  // offset only
            req(Op::Read, 100, 1536), // length
            req(Op::Discard, 1, 512), // discard on a file: any range
            req(Op::Flush, 3, 0),     // no address
        ];
        let remap = Remap::new(&rs, DEFAULT_CHUNK_BYTES);
        assert!(check_target(&rs, &remap, fit(1 << 30, 512, false)).is_ok());
        let e = check_target(&rs, &remap, fit(1 << 30, 4096, false)).unwrap_err();
        let ReplayError::Misaligned {
            count,
            total,
            ref sizes,
            offset_only,
            ..
        } = e
        else {
            panic!("{e}");
        };
        assert_eq!((count, total, offset_only), (4, 7, 1));
        assert_eq!(sizes, &vec![(512, 2), (1536, 1), (4096, 1)]);
        let text = e.to_string();
        assert!(
            text.starts_with(
                "4 of 7 requests are not aligned to the 4096-byte direct-I/O alignment of /dev/test"
            ),
            "{text}"
        );
        assert!(text.contains("2 × 512 B, 1 × 1536 B, 1 × 4096 B"), "{text}");
        assert!(text.contains("1 of them have an aligned length"), "{text}");
        // On a block device a discard is a BLKDISCARD, which must be aligned too.
        let e = check_target(&rs, &remap, fit(1 << 30, 4096, true)).unwrap_err();
        assert!(matches!(e, ReplayError::Misaligned { count: 5, .. }), "{e}");
    }

    #[test]
    fn requests_the_remap_does_not_know_are_refused() {
        let rs = [req(Op::Write, 0, 4096)];
        let other = [req(Op::Write, 1 << 30, 4096)];
        let remap = Remap::new(&other, DEFAULT_CHUNK_BYTES);
        assert!(matches!(
            check_target(&rs, &remap, fit(1 << 30, 4096, false)),
            Err(ReplayError::Unmapped { count: 1 })
        ));
    }
}
