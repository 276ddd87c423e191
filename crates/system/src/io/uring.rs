//! The io_uring engine: one ring per worker thread, the target registered as fixed file 0, one
//! registered buffer per slot, up to `depth` I/Os in flight. Prepared I/Os are submitted once
//! `submit_batch` of them are queued and another is ready, or together with the wait for
//! completions when no more can be queued now. The default batch of 1 submits each I/O at once, as fio
//! does: on this project's virtio test disk, a whole refill in one call reached the device as
//! one convoy and cost 10-20 % of fio's IOPS at 4K random read depth 32. Larger batches save
//! CPU per I/O where the drive does not mind.

use std::fs::File;
use std::os::fd::AsRawFd;

use io_uring::{IoUring, opcode, squeue, types};

use super::direct::AlignedBuf;
use super::error::IoError;
use super::stream::IoOp;
use super::worker::{HALT_POLL_NS, Worker};

/// A ring with the target and the slot buffers registered. Field order matters: the ring is
/// dropped before the buffers it points into.
pub struct Ring {
    ring: IoUring,
    buf: AlignedBuf,
    depth: usize,
}

fn build_ring(entries: u32) -> std::io::Result<IoUring> {
    // A plain ring: on this project's test machine, DEFER_TASKRUN + SINGLE_ISSUER gave fewer
    // IOPS and more CPU per I/O at 4K random read depth 32 than the default setup.
    IoUring::new(entries)
}

impl Ring {
    /// Set up a ring for `depth` slots of `slot_bytes` on `file`, buffers aligned to `align`.
    pub fn new(file: &File, depth: u32, slot_bytes: usize, align: usize) -> std::io::Result<Ring> {
        let ring = build_ring(depth.next_power_of_two())?;
        ring.submitter().register_files(&[file.as_raw_fd()])?;
        let buf = AlignedBuf::new(depth as usize, slot_bytes, align)
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        let iovecs: Vec<libc::iovec> = (0..depth as usize)
            .map(|i| libc::iovec {
                iov_base: buf.slot_ptr(i).cast(),
                iov_len: slot_bytes,
            })
            .collect();
        // SAFETY: every iovec points into `buf`, which lives as long as the ring (same struct,
        // dropped after it) and is only touched by the kernel while an I/O on it is in flight.
        unsafe { ring.submitter().register_buffers(&iovecs)? };
        Ok(Ring {
            ring,
            buf,
            depth: depth as usize,
        })
    }

    /// Fill the buffers with bytes from `fill` (written data that does not compress).
    pub fn fill(&mut self, fill: impl FnMut() -> u64) {
        fill_bytes(self.buf.as_mut_slice(), fill);
    }
}

/// Overwrite `bytes` with words from `next`.
pub fn fill_bytes(bytes: &mut [u8], mut next: impl FnMut() -> u64) {
    for chunk in bytes.chunks_mut(8) {
        let word = next().to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

/// One slot: the I/O in it and its intended and submit times.
#[derive(Debug, Clone, Copy)]
struct Slot {
    op: IoOp,
    intended_ns: u64,
    submit_ns: u64,
}

fn io_error(w: &Worker<'_>, op: &IoOp, reason: String) -> IoError {
    IoError::Io {
        path: w.path.to_path_buf(),
        op: if op.write { "write" } else { "read" },
        offset: op.offset,
        len_bytes: op.len_bytes,
        reason,
    }
}

fn transient(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY | libc::ETIME)
    )
}

/// Run one io_uring worker until the end of the point or a halt, then wait for every I/O in
/// flight before returning.
pub fn run(w: &mut Worker<'_>, ring: Ring, submit_batch: u32) -> Result<(), IoError> {
    let mut flight = Flight::new(ring, submit_batch);
    let outcome = flight.pump(w);
    flight.drain(w, outcome)
}

/// A ring in use: its slots, the free ones, and those queued but not yet submitted.
struct Flight {
    ring: Ring,
    slots: Vec<Slot>,
    free: Vec<usize>,
    queued: Vec<usize>,
    /// Queued entries that go in before the next one joins them.
    batch: usize,
    /// Whether the kernel takes a timeout with the wait (IORING_FEAT_EXT_ARG).
    ext_arg: bool,
}

impl Flight {
    fn new(ring: Ring, submit_batch: u32) -> Flight {
        let depth = ring.depth;
        let empty = Slot {
            op: IoOp {
                offset: 0,
                len_bytes: 0,
                write: false,
            },
            intended_ns: 0,
            submit_ns: 0,
        };
        Flight {
            slots: vec![empty; depth],
            free: (0..depth).rev().collect(),
            queued: Vec::with_capacity(depth),
            batch: (submit_batch as usize).max(1),
            ext_arg: ring.ring.params().is_feature_ext_arg(),
            ring,
        }
    }

    /// Issue and reap until the end of the point, a halt or the first error.
    fn pump(&mut self, w: &mut Worker<'_>) -> Result<(), IoError> {
        loop {
            let now = w.clock.now_ns();
            if w.finished(now) {
                return Ok(());
            }
            if let Some(schedule) = &mut w.schedule {
                schedule.advance(now);
            }
            self.queue(w)?;
            self.wait_and_reap(w)?;
        }
    }

    /// Queue an I/O in every free slot (under a schedule, only as many as are due), submitting
    /// each full batch before the next entry joins the queue.
    #[inline]
    fn queue(&mut self, w: &mut Worker<'_>) -> Result<(), IoError> {
        while let Some(&slot) = self.free.last() {
            let intended = match &mut w.schedule {
                None => u64::MAX,
                Some(schedule) => match schedule.pop_due() {
                    Some(t) => t,
                    None => break,
                },
            };
            // A full batch goes in before the next entry joins the queue; what is queued when
            // the loop stops goes in with the wait below, so an I/O never costs a call of its
            // own just before the wait.
            if self.queued.len() >= self.batch {
                submit(w, &mut self.ring.ring, &mut self.slots, &mut self.queued)?;
            }
            self.free.pop();
            let op = w.stream.next_op();
            w.recorder.issued(&op);
            let ptr = self.ring.buf.slot_ptr(slot);
            let entry = if op.write {
                opcode::WriteFixed::new(types::Fixed(0), ptr, op.len_bytes as u32, slot as u16)
                    .offset(op.offset)
                    .build()
            } else {
                opcode::ReadFixed::new(types::Fixed(0), ptr, op.len_bytes as u32, slot as u16)
                    .offset(op.offset)
                    .build()
            };
            if !push(&mut self.ring.ring, &entry.user_data(slot as u64)) {
                self.free.push(slot);
                return Err(IoError::Worker("io_uring submission queue full".to_owned()));
            }
            self.slots[slot] = Slot {
                op,
                intended_ns: intended,
                submit_ns: 0,
            };
            self.queued.push(slot);
        }
        Ok(())
    }

    /// Submit what is still queued together with the wait for a completion (or, under a
    /// schedule, for the next due I/O), then reap. With nothing in flight, sleep instead.
    #[inline]
    fn wait_and_reap(&mut self, w: &mut Worker<'_>) -> Result<(), IoError> {
        let in_flight = self.ring.depth - self.free.len();
        let submit_ns = w.clock.now_ns();
        stamp(&mut self.slots, &mut self.queued, submit_ns);
        let next_due = w.schedule.as_ref().map(|s| {
            w.recorder.backlog(submit_ns, s.backlog());
            s.next_due_ns()
        });
        let wake = next_due
            .map(|t| t.min(w.end_ns).min(submit_ns + HALT_POLL_NS))
            .filter(|&t| t > submit_ns && !self.free.is_empty());
        let ring = &mut self.ring.ring;
        let entered = match wake {
            _ if in_flight == 0 => {
                w.clock.sleep_until(wake.unwrap_or(submit_ns));
                return Ok(());
            }
            None => ring.submit_and_wait(1),
            Some(t) if self.ext_arg => {
                let ts = types::Timespec::new().nsec((t - submit_ns) as u32);
                let args = types::SubmitArgs::new().timespec(&ts);
                ring.submitter().submit_with_args(1, &args)
            }
            Some(t) => {
                let done = ring.submit();
                w.clock.sleep_until(t.min(submit_ns + 50_000));
                done
            }
        };
        if let Err(e) = entered
            && !transient(&e)
        {
            return Err(IoError::Worker(format!("io_uring_enter: {e}")));
        }
        reap(w, &mut self.ring, &self.slots, &mut self.free)
    }

    /// Wait for every I/O in flight: it must land before its buffer may be freed. The first
    /// error of the run (`outcome`) goes before one found here.
    fn drain(self, w: &mut Worker<'_>, mut outcome: Result<(), IoError>) -> Result<(), IoError> {
        let Flight {
            mut ring,
            slots,
            mut free,
            ..
        } = self;
        let depth = ring.depth;
        while free.len() < depth {
            if let Err(e) = ring.ring.submit_and_wait(1)
                && !transient(&e)
            {
                // The kernel may still write into the buffers: never free them.
                std::mem::forget(ring);
                return Err(IoError::Worker(format!(
                    "io_uring_enter while draining: {e}"
                )));
            }
            if let Err(e) = reap(w, &mut ring, &slots, &mut free)
                && outcome.is_ok()
            {
                outcome = Err(e);
            }
        }
        outcome
    }
}

/// Stamp the queued entries and submit them. A busy ring keeps entries queued for the next call.
fn submit(
    w: &Worker<'_>,
    ring: &mut IoUring,
    slots: &mut [Slot],
    queued: &mut Vec<usize>,
) -> Result<(), IoError> {
    stamp(slots, queued, w.clock.now_ns());
    match ring.submit() {
        Err(e) if !transient(&e) => Err(IoError::Worker(format!("io_uring_enter: {e}"))),
        _ => Ok(()),
    }
}

/// Mark the queued slots as submitted at `submit_ns`, just before the call that submits them
/// (an I/O without a schedule is intended to start then), and empty the queue.
fn stamp(slots: &mut [Slot], queued: &mut Vec<usize>, submit_ns: u64) {
    for slot in queued.drain(..) {
        let s = &mut slots[slot];
        s.submit_ns = submit_ns;
        if s.intended_ns == u64::MAX {
            s.intended_ns = submit_ns;
        }
    }
}

/// Queue one entry; false when the queue is full (it has at least `depth` entries and at most
/// `depth` I/Os are queued or in flight, so that would be a bug, reported as an error).
fn push(ring: &mut IoUring, entry: &squeue::Entry) -> bool {
    // SAFETY: the entry's buffer is a registered slot that stays untouched until its
    // completion is reaped, and the ring outlives every I/O (drained before returning).
    unsafe { ring.submission().push(entry) }.is_ok()
}

/// Record every available completion and free its slot; the first failed or short I/O is
/// returned (after all completions are reaped).
fn reap(
    w: &mut Worker<'_>,
    ring: &mut Ring,
    slots: &[Slot],
    free: &mut Vec<usize>,
) -> Result<(), IoError> {
    let complete_ns = w.clock.now_ns();
    let mut failure = None;
    for cqe in ring.ring.completion() {
        let Some(slot) = slots.get(cqe.user_data() as usize) else {
            continue;
        };
        free.push(cqe.user_data() as usize);
        let res = cqe.result();
        if res < 0 || res as u64 != slot.op.len_bytes {
            let reason = if res < 0 {
                std::io::Error::from_raw_os_error(-res).to_string()
            } else {
                format!("short transfer of {res} bytes")
            };
            failure.get_or_insert_with(|| io_error(w, &slot.op, reason));
            continue;
        }
        w.recorder
            .completed(&slot.op, slot.intended_ns, slot.submit_ns, complete_ns);
    }
    failure.map_or(Ok(()), Err)
}
