//! The replay's io_uring ring and buffers: the target registered as fixed file 0; one read
//! buffer per slot of the largest read; one pool of incompressible data, filled once from the
//! seed, that writes take their bytes from in turn (the kernel only reads it, so writes in
//! flight may share it); both registered with the ring when the kernel allows (else plain
//! reads and writes). Builds each request's submission: reads and writes at the remapped
//! offset (writes with FUA or a preflush get RWF_DSYNC), flushes as fdatasync, discards as a
//! punched hole on a file or BLKDISCARD on a block device.

use std::os::fd::AsRawFd;

use io_uring::{IoUring, opcode, squeue, types};

use super::error::ReplayError;
use crate::capture::{Flags, Op, Request};
use drivebench_system::io::{AlignedBuf, DirectTarget, fill_bytes};

/// Bytes of write data at least: writes cycle through this much distinct data.
const WRITE_POOL_BYTES: usize = 8 << 20;
/// Registered buffer indices.
const WRITE_BUF: u16 = 0;
const READ_BUF: u16 = 1;
/// The kernel's largest ring.
const MAX_ENTRIES: u32 = 32_768;
/// `BLKDISCARD`: `_IO(0x12, 119)`.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// The ring and its buffers. Field order matters: the ring is dropped before the buffers it
/// points into.
pub struct Ring {
    pub ring: IoUring,
    reads: AlignedBuf,
    read_slot_bytes: usize,
    writes: AlignedBuf,
    write_bytes: usize,
    write_cursor: usize,
    page: usize,
    /// Reads and writes use the registered buffers.
    pub fixed: bool,
    /// The kernel takes a timeout with a wait (IORING_FEAT_EXT_ARG).
    pub ext_arg: bool,
}

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to).saturating_mul(to)
}

/// splitmix64: the stream the write data is drawn from.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D4_9BB4_6331_11EB);
    z ^ (z >> 31)
}

/// The largest request of `op`, bytes.
fn largest(requests: &[Request], op: Op) -> usize {
    requests
        .iter()
        .filter(|r| r.op == op)
        .map(|r| r.bytes as usize)
        .max()
        .unwrap_or(0)
}

/// The number of slots a cap allows: the kernel's ring bounds it.
pub fn slots_for(cap: u32) -> u32 {
    cap.clamp(1, MAX_ENTRIES)
}

impl Ring {
    /// A ring of `slots` for `requests` (in any order) on `target`.
    pub fn new(
        target: &DirectTarget,
        requests: &[Request],
        slots: u32,
        seed: u64,
    ) -> Result<Ring, ReplayError> {
        let page = (target.alignment.memory_bytes as usize).max(4096);
        let read_slot_bytes = round_up(largest(requests, Op::Read).max(1), page);
        let write_bytes = round_up(largest(requests, Op::Write).max(1), page).max(WRITE_POOL_BYTES);
        let memory = |bytes: usize| ReplayError::Memory {
            bytes: bytes as u64,
        };
        let reads = AlignedBuf::new(slots as usize, read_slot_bytes, page)
            .ok_or_else(|| memory(read_slot_bytes.saturating_mul(slots as usize)))?;
        let mut writes =
            AlignedBuf::new(1, write_bytes, page).ok_or_else(|| memory(write_bytes))?;
        let mut state = seed;
        fill_bytes(writes.as_mut_slice(), || splitmix64(&mut state));
        let ring = IoUring::new(slots.next_power_of_two()).map_err(ReplayError::Ring)?;
        ring.submitter()
            .register_files(&[target.file.as_raw_fd()])
            .map_err(ReplayError::Ring)?;
        let iovecs = [
            libc::iovec {
                iov_base: writes.slot_ptr(0).cast(),
                iov_len: write_bytes,
            },
            libc::iovec {
                iov_base: reads.slot_ptr(0).cast(),
                iov_len: read_slot_bytes * slots as usize,
            },
        ];
        // SAFETY: both iovecs point into buffers owned by the returned value, which drops the
        // ring first; the kernel touches them only while an I/O on them is in flight.
        let fixed = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(Ring {
            ext_arg: ring.params().is_feature_ext_arg(),
            ring,
            reads,
            read_slot_bytes,
            writes,
            write_bytes,
            write_cursor: 0,
            page,
            fixed,
        })
    }

    /// The next `len` bytes of write data.
    fn write_data(&mut self, len: usize) -> *const u8 {
        if self.write_cursor + len > self.write_bytes {
            self.write_cursor = 0;
        }
        let ptr = self.writes.slot_ptr(0).wrapping_add(self.write_cursor);
        self.write_cursor = round_up(self.write_cursor + len, self.page);
        ptr
    }

    /// The submission of `r` at target `offset` in `slot` (a flush ignores the offset; a
    /// discard on a block device is not submitted here, see [`discard_block`]).
    pub fn entry(&mut self, r: &Request, offset: u64, slot: usize) -> squeue::Entry {
        let fd = types::Fixed(0);
        let len = r.bytes;
        let entry = match r.op {
            Op::Read => {
                let ptr = self.reads.slot_ptr(slot);
                debug_assert!(len as usize <= self.read_slot_bytes);
                match self.fixed {
                    true => opcode::ReadFixed::new(fd, ptr, len, READ_BUF)
                        .offset(offset)
                        .build(),
                    false => opcode::Read::new(fd, ptr, len).offset(offset).build(),
                }
            }
            Op::Write => {
                let ptr = self.write_data(len as usize);
                let sync = r.flags.has(Flags::FUA) || r.flags.has(Flags::PREFLUSH);
                let flags = if sync { libc::RWF_DSYNC } else { 0 };
                match self.fixed {
                    true => opcode::WriteFixed::new(fd, ptr, len, WRITE_BUF)
                        .offset(offset)
                        .rw_flags(flags)
                        .build(),
                    false => opcode::Write::new(fd, ptr, len)
                        .offset(offset)
                        .rw_flags(flags)
                        .build(),
                }
            }
            Op::Flush => opcode::Fsync::new(fd)
                .flags(types::FsyncFlags::DATASYNC)
                .build(),
            Op::Discard => opcode::Fallocate::new(fd, u64::from(len))
                .offset(offset)
                .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                .build(),
        };
        entry.user_data(slot as u64)
    }

    /// Queue `entry`; false when the submission queue is full (never, as the ring has an
    /// entry per slot and at most one entry per slot is queued or in flight).
    pub fn push(&mut self, entry: &squeue::Entry) -> bool {
        // SAFETY: the entry's buffer is a slot's read buffer, untouched until its completion is
        // reaped, or the write pool, which is only read; the ring outlives every I/O (the loop
        // drains before dropping it).
        unsafe { self.ring.submission().push(entry) }.is_ok()
    }
}

/// BLKDISCARD of `[offset, offset + len)` on a block device, synchronously: discards are
/// rare in a database's I/O, so blocking the loop for one costs less than the machinery to
/// put it on the ring (IORING_OP_URING_CMD needs Linux 6.12).
pub fn discard_block(target: &DirectTarget, offset: u64, len: u64) -> std::io::Result<()> {
    let range: [u64; 2] = [offset, len];
    // SAFETY: BLKDISCARD reads two u64 from the pointer, which points at `range`.
    let rc = unsafe { libc::ioctl(target.file.as_raw_fd(), BLKDISCARD as _, range.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_data_cycles_through_the_pool_on_page_boundaries() {
        let mut state = 7;
        let a: Vec<u64> = (0..3).map(|_| splitmix64(&mut state)).collect();
        assert!(a[0] != a[1] && a[1] != a[2]);
        assert_eq!(round_up(5000, 4096), 8192);
        assert_eq!(round_up(8192, 4096), 8192);
        assert_eq!(slots_for(0), 1);
        assert_eq!(slots_for(1 << 20), MAX_ENTRIES);
    }
}
