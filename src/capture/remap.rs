//! Where a captured request lands on a replay target. The devices' address space is cut into
//! chunks (1 MiB by default); only the chunks some request touched are kept, in device then
//! address order, packed from the target's offset 0. Offsets inside a chunk, and the
//! adjacency of touched neighbouring chunks, are kept, so sequential runs stay sequential and
//! a capture of a few GiB on a large disk needs a target of a few GiB, not the disk's size.
//! Distances between untouched areas shrink, which matters to a disk with heads, not to flash.

use super::model::{Op, Request};

/// The default chunk: large enough to keep every request of a database whole and sequential
/// runs intact, small enough that scattered pages do not inflate the span.
pub const DEFAULT_CHUNK_BYTES: u64 = 1 << 20;

/// The packing of a capture's touched chunks onto a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    chunk_bytes: u64,
    /// Touched chunks, sorted: (device index, chunk number on that device).
    chunks: Vec<(u16, u64)>,
}

impl Remap {
    /// The remap of `requests` with chunks of `chunk_bytes` (a power of two, at least 4096).
    pub fn new(requests: &[Request], chunk_bytes: u64) -> Remap {
        assert!(chunk_bytes.is_power_of_two() && chunk_bytes >= 4096);
        let mut chunks: Vec<(u16, u64)> = Vec::new();
        for r in requests.iter().filter(|r| r.op != Op::Flush && r.bytes > 0) {
            let first = r.offset_bytes() / chunk_bytes;
            let last = (r.offset_bytes() + u64::from(r.bytes) - 1) / chunk_bytes;
            for c in first..=last {
                chunks.push((r.device, c));
            }
        }
        chunks.sort_unstable();
        chunks.dedup();
        Remap {
            chunk_bytes,
            chunks,
        }
    }

    /// Bytes of target the packed chunks need.
    pub fn span_bytes(&self) -> u64 {
        self.chunks.len() as u64 * self.chunk_bytes
    }

    pub fn chunk_bytes(&self) -> u64 {
        self.chunk_bytes
    }

    /// The target offset of `r`'s first byte; `None` for a flush (no address) or a request
    /// this remap was not built from.
    pub fn target_offset(&self, r: &Request) -> Option<u64> {
        if r.op == Op::Flush || r.bytes == 0 {
            return None;
        }
        let chunk = r.offset_bytes() / self.chunk_bytes;
        let index = self.chunks.binary_search(&(r.device, chunk)).ok()?;
        Some(index as u64 * self.chunk_bytes + r.offset_bytes() % self.chunk_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(device: u16, sector: u64, bytes: u32, op: Op) -> Request {
        Request {
            device,
            ..Request::data(op, sector, bytes)
        }
    }

    #[test]
    fn touched_chunks_are_packed_in_device_and_address_order() {
        let mib = 1u64 << 20;
        let far = 100 * 1024 * 2048; // sector of byte 100 GiB
        let rs = [
            req(0, far, 4096, Op::Write),
            req(0, 8, 4096, Op::Read),
            req(1, 0, 4096, Op::Write),
            req(0, 0, 0, Op::Flush),
        ];
        let m = Remap::new(&rs, mib);
        assert_eq!(m.span_bytes(), 3 * mib);
        assert_eq!(m.target_offset(&rs[1]), Some(4096));
        assert_eq!(m.target_offset(&rs[0]), Some(mib));
        assert_eq!(m.target_offset(&rs[2]), Some(2 * mib));
        assert_eq!(m.target_offset(&rs[3]), None);
    }

    #[test]
    fn a_request_across_a_chunk_border_stays_contiguous() {
        let mib = 1u64 << 20;
        // 8 KiB starting 4 KiB before the 5 MiB border, and a far request between.
        let a = req(0, (5 * mib - 4096) / 512, 8192, Op::Write);
        let b = req(0, (50 * mib) / 512, 4096, Op::Write);
        let m = Remap::new(&[a, b], mib);
        assert_eq!(m.span_bytes(), 3 * mib);
        assert_eq!(m.target_offset(&a), Some(mib - 4096));
        assert_eq!(m.target_offset(&b), Some(2 * mib));
    }
}
