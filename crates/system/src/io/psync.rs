//! The pread/pwrite engine: one I/O at a time per OS thread, so the outstanding I/O count is
//! the number of threads. Used when io_uring cannot be set up, or on request.

use std::os::unix::fs::FileExt;

use super::direct::AlignedBuf;
use super::error::IoError;
use super::worker::{HALT_POLL_NS, Worker};

/// Run one psync worker until the end of the point or a halt; `buf` holds one slot of the
/// largest block size.
pub fn run(w: &mut Worker<'_>, mut buf: AlignedBuf) -> Result<(), IoError> {
    loop {
        let mut now = w.clock.now_ns();
        if w.finished(now) {
            return Ok(());
        }
        let intended = match &mut w.schedule {
            None => now,
            Some(schedule) => {
                schedule.advance(now);
                let Some(intended) = schedule.pop_due() else {
                    let wake = schedule.next_due_ns().min(w.end_ns).min(now + HALT_POLL_NS);
                    w.clock.sleep_until(wake);
                    continue;
                };
                w.recorder.backlog(now, schedule.backlog());
                intended
            }
        };
        let op = w.stream.next_op();
        w.recorder.issued(&op);
        let len = op.len_bytes as usize;
        let slot = &mut buf.slot_mut(0)[..len];
        now = w.clock.now_ns();
        let done = if op.write {
            w.file.write_at(slot, op.offset)
        } else {
            w.file.read_at(slot, op.offset)
        };
        let complete = w.clock.now_ns();
        let failure = match done {
            Ok(n) if n == len => None,
            Ok(n) => Some(format!("short transfer of {n} bytes")),
            Err(e) => Some(e.to_string()),
        };
        if let Some(reason) = failure {
            return Err(IoError::Io {
                path: w.path.to_path_buf(),
                op: if op.write { "pwrite" } else { "pread" },
                offset: op.offset,
                len_bytes: op.len_bytes,
                reason,
            });
        }
        w.recorder.completed(&op, intended, now, complete);
    }
}
