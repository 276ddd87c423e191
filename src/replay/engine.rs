//! The replay loop: one dedicated OS thread, one io_uring ring, the capture's requests in
//! issue order. Each waits for its turn: under a timed schedule its intended time (a sleep, or
//! a timed wait for completions, while it is more than [`SPIN_NS`] away; then spinning on the
//! completion queue), under fast timing its gate of completions; and always a free slot under
//! the cap on requests in flight. Requests due together are submitted in one call (at most
//! [`MAX_BATCH`]); completions are reaped without blocking between turns. The loop stamps
//! each request's intended, submission and completion times (ns since the replay started; under
//! fast timing the intended time is when its gate was met) and `measure` makes the figures.
//! A cancel flag stops submitting; what is in flight is always drained before the buffers go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use io_uring::types;

use super::checks::{TargetFit, check_capture, check_target};
use super::error::ReplayError;
use super::measure::{ReplayOutcome, RunFacts, Stamps, ns_to_us, outcome};
use super::ring::{Ring, discard_block, slots_for};
use super::schedule::{Timing, fast_gates, in_issue_order, intended_ns, recorded_max_depth};
use crate::capture::{Op, Remap, Request};
use drivebench_core::histogram::new_histogram;
use drivebench_system::io::{DirectTarget, TargetKind};

/// Closer than this to a request's intended time, the loop spins instead of sleeping. It
/// covers a wake-up on the 2-core test VM (10-20 µs typical, with this thread's timer slack at
/// 1 ns). Measured there at 20,000 requests/s (gaps of 50 µs, so the loop mostly spins):
/// 15, 25 and 50 µs gave the same lag within run-to-run noise, 100 µs a worse p99 when the host
/// was busy (a thread that never sleeps is preempted for milliseconds).
pub const SPIN_NS: u64 = 50_000;
/// Longest single wait, so the cancel flag and progress are looked at often enough.
const WAIT_SLICE_NS: u64 = 10_000_000;
/// Most requests submitted in one call.
pub const MAX_BATCH: usize = 32;
/// Progress is reported this often.
const PROGRESS_NS: u64 = 1_000_000_000;

/// How to replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReplayOptions {
    pub timing: Timing,
    /// Cap on requests in flight; `None`: the most the recording had in flight.
    pub max_in_flight: Option<u32>,
    /// Seeds the written data.
    pub seed: u64,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            timing: Timing::Recorded,
            max_in_flight: None,
            seed: 0x5eed,
        }
    }
}

/// Where a replay is, reported about once a second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub submitted: u64,
    pub completed: u64,
    pub total: u64,
    pub in_flight: u32,
    pub elapsed_s: f64,
    /// Schedule lag so far, µs.
    pub lag_p99_us: u64,
    pub lag_max_us: u64,
}

/// Replay `requests` (in any order) through `remap` on `target`. Checks the capture and the
/// target first; runs the loop on a thread of its own; `progress` is called on this thread.
pub fn replay(
    requests: &[Request],
    remap: &Remap,
    target: &DirectTarget,
    opts: &ReplayOptions,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(Progress),
) -> Result<ReplayOutcome, ReplayError> {
    check_capture(requests, opts.timing, opts.max_in_flight)?;
    let fit = TargetFit {
        path: &target.path,
        size_bytes: target.size_bytes,
        align_bytes: target.alignment.offset_bytes,
        block_device: target.kind == TargetKind::BlockDevice,
    };
    check_target(requests, remap, fit)?;
    let sorted = in_issue_order(requests);
    let cap = slots_for(
        opts.max_in_flight
            .unwrap_or_else(|| recorded_max_depth(&sorted)),
    );
    let gates = match opts.timing {
        Timing::Fast => fast_gates(&sorted),
        Timing::Recorded | Timing::Scaled { .. } => Vec::new(),
    };
    let (tx, rx) = channel();
    let sorted_ref: &[Request] = &sorted;
    let (stamps, facts) = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("replay".to_owned())
            .spawn_scoped(s, move || {
                precise_timers();
                let mut engine = Engine::new(sorted_ref, remap, target, opts, gates, cap)?;
                let ran = engine.run(cancel, &tx);
                engine.finish(ran, &tx)
            })
            .map_err(ReplayError::Spawn)?;
        for p in rx {
            progress(p);
        }
        worker.join().unwrap_or(Err(ReplayError::Panicked))
    })?;
    Ok(outcome(&sorted, remap, &stamps, facts))
}

/// Sleeps of this thread end when asked, not up to 50 µs later (the default timer slack).
fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// Errors of io_uring_enter that only mean "call again".
fn transient(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR | libc::EAGAIN | libc::EBUSY | libc::ETIME)
    )
}

/// The loop's state.
struct Engine<'a> {
    sorted: &'a [Request],
    remap: &'a Remap,
    target: &'a DirectTarget,
    timing: Timing,
    first_issue_ns: u64,
    /// k(i) under fast timing; empty otherwise.
    gates: Vec<u32>,
    ring: Ring,
    slots: usize,
    /// The request in each slot.
    slot_request: Vec<u32>,
    free: Vec<usize>,
    /// Requests queued on the ring and not yet submitted.
    queued: Vec<u32>,
    start: Instant,
    stamps: Stamps,
    completed: usize,
    /// When each completion was reaped, in order (fast timing only).
    completions_at: Vec<u64>,
    failure: Option<ReplayError>,
    lag_us: Histogram<u64>,
}

impl<'a> Engine<'a> {
    fn new(
        sorted: &'a [Request],
        remap: &'a Remap,
        target: &'a DirectTarget,
        opts: &ReplayOptions,
        gates: Vec<u32>,
        slots: u32,
    ) -> Result<Engine<'a>, ReplayError> {
        let ring = Ring::new(target, sorted, slots, opts.seed)?;
        let slots = slots as usize;
        Ok(Engine {
            sorted,
            remap,
            target,
            timing: opts.timing,
            first_issue_ns: sorted.first().map_or(0, |r| r.issue_ns),
            completions_at: Vec::with_capacity(if gates.is_empty() { 0 } else { sorted.len() }),
            gates,
            ring,
            slots,
            slot_request: vec![0; slots],
            free: (0..slots).rev().collect(),
            queued: Vec::with_capacity(MAX_BATCH),
            start: Instant::now(),
            stamps: Stamps::new(sorted.len()),
            completed: 0,
            failure: None,
            lag_us: new_histogram(),
        })
    }

    #[inline]
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    fn in_flight(&self) -> usize {
        self.slots - self.free.len()
    }

    /// Issue every request in turn until the last, a cancel or the first failure; returns
    /// whether it was cancelled.
    fn run(&mut self, cancel: &AtomicBool, tx: &Sender<Progress>) -> Result<bool, ReplayError> {
        self.start = Instant::now();
        let mut next_report = PROGRESS_NS;
        let mut i = 0;
        while i < self.sorted.len() && self.failure.is_none() {
            if cancel.load(Ordering::Relaxed) {
                return Ok(true);
            }
            let now = self.now();
            if now >= next_report {
                let _ = tx.send(self.progress(now));
                next_report = now + PROGRESS_NS;
            }
            let Some(intended) = self.turn(i)? else {
                continue;
            };
            self.issue(i, intended)?;
            i += 1;
            if self.queued.len() >= MAX_BATCH {
                self.submit()?;
            }
        }
        self.submit()?;
        Ok(false)
    }

    /// Whether request `i` may go now: its intended time (ns since the start) when it may,
    /// `None` after waiting a little (the caller looks at the cancel flag and comes back).
    fn turn(&mut self, i: usize) -> Result<Option<u64>, ReplayError> {
        self.reap();
        let gate = self.gates.get(i).map_or(0, |&k| k as usize);
        if self.free.is_empty() || self.completed < gate {
            self.submit()?;
            self.wait(WAIT_SLICE_NS)?;
            return Ok(None);
        }
        let Some(due) = intended_ns(&self.sorted[i], self.first_issue_ns, self.timing) else {
            let met_at = gate.checked_sub(1).map_or(0, |k| self.completions_at[k]);
            return Ok(Some(met_at));
        };
        let now = self.now();
        if now >= due {
            return Ok(Some(due));
        }
        self.submit()?;
        let ahead = due - now;
        if ahead > SPIN_NS {
            self.nap((ahead - SPIN_NS).min(WAIT_SLICE_NS))?;
        } else {
            std::hint::spin_loop();
        }
        Ok(None)
    }

    /// Queue request `i` (a discard on a block device runs here, synchronously).
    fn issue(&mut self, i: usize, intended: u64) -> Result<(), ReplayError> {
        let r = self.sorted[i];
        let offset = self.remap.target_offset(&r).unwrap_or(0);
        self.stamps.intended_ns[i] = intended;
        self.stamps.submitted = i + 1;
        if r.op == Op::Discard && self.target.kind == TargetKind::BlockDevice {
            self.submit()?;
            let submit = self.now();
            let done = discard_block(self.target, offset, u64::from(r.bytes));
            let complete = self.now();
            self.stamps.submit_ns[i] = submit;
            self.lag_us
                .record(ns_to_us(submit.saturating_sub(intended)))
                .ok();
            self.completed_at(i, complete);
            if let Err(e) = done {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                let len = u64::from(r.bytes);
                self.failure = Some(ReplayError::from_errno(
                    &self.target.path,
                    r.op,
                    offset,
                    len,
                    -errno,
                ));
            }
            return Ok(());
        }
        let slot = self.free.pop().ok_or(ReplayError::RingFull)?;
        let entry = self.ring.entry(&r, offset, slot);
        if !self.ring.push(&entry) {
            self.free.push(slot);
            return Err(ReplayError::RingFull);
        }
        self.slot_request[slot] = i as u32;
        self.queued.push(i as u32);
        Ok(())
    }

    /// Stamp the queued requests and submit them.
    fn submit(&mut self) -> Result<(), ReplayError> {
        if self.queued.is_empty() {
            return Ok(());
        }
        let now = self.now();
        for &i in &self.queued {
            let i = i as usize;
            self.stamps.submit_ns[i] = now;
            let lag = now.saturating_sub(self.stamps.intended_ns[i]);
            self.lag_us.record(ns_to_us(lag)).ok();
        }
        self.queued.clear();
        match self.ring.ring.submit() {
            Err(e) if !transient(&e) => Err(ReplayError::Submit(e)),
            _ => Ok(()),
        }
    }

    /// Wait up to `ns` for a completion (or just sleep, with nothing in flight).
    fn wait(&mut self, ns: u64) -> Result<(), ReplayError> {
        if self.in_flight() == 0 {
            std::thread::sleep(Duration::from_nanos(ns));
            return Ok(());
        }
        let entered = if self.ring.ext_arg {
            let ts = types::Timespec::from(Duration::from_nanos(ns));
            let args = types::SubmitArgs::new().timespec(&ts);
            self.ring.ring.submitter().submit_with_args(1, &args)
        } else {
            self.ring.ring.submit_and_wait(1)
        };
        match entered {
            Err(e) if !transient(&e) => Err(ReplayError::Submit(e)),
            _ => Ok(()),
        }
    }

    /// Pass `ns` before the next turn: waiting for completions when some are in flight and
    /// the kernel takes a timeout, else sleeping.
    fn nap(&mut self, ns: u64) -> Result<(), ReplayError> {
        if self.ring.ext_arg {
            self.wait(ns)
        } else {
            std::thread::sleep(Duration::from_nanos(ns));
            Ok(())
        }
    }

    /// Request `i` completed at `now`.
    fn completed_at(&mut self, i: usize, now: u64) {
        self.stamps.complete_ns[i] = now;
        self.completed += 1;
        if !self.gates.is_empty() {
            self.completions_at.push(now);
        }
    }

    /// Record every available completion; the first failed or short one becomes the
    /// failure.
    fn reap(&mut self) {
        let now = self.now();
        loop {
            let Some(cqe) = self.ring.ring.completion().next() else {
                break;
            };
            let slot = cqe.user_data() as usize;
            let Some(&i) = self.slot_request.get(slot) else {
                continue;
            };
            self.free.push(slot);
            let i = i as usize;
            self.completed_at(i, now);
            if self.failure.is_none() {
                self.failure = self.check(i, cqe.result());
            }
        }
    }

    /// The failure a completion's result means, if any.
    fn check(&self, i: usize, res: i32) -> Option<ReplayError> {
        let r = &self.sorted[i];
        let offset = self.remap.target_offset(r).unwrap_or(0);
        let len = u64::from(r.bytes);
        if res < 0 {
            return Some(ReplayError::from_errno(
                &self.target.path,
                r.op,
                offset,
                len,
                res,
            ));
        }
        let moved = res as u64;
        (matches!(r.op, Op::Read | Op::Write) && moved != len).then(|| ReplayError::Short {
            path: self.target.path.clone(),
            op: r.op,
            offset,
            len_bytes: len,
            done_bytes: moved,
        })
    }

    fn progress(&self, now: u64) -> Progress {
        Progress {
            submitted: self.stamps.submitted as u64,
            completed: self.completed as u64,
            total: self.sorted.len() as u64,
            in_flight: self.in_flight() as u32,
            elapsed_s: now as f64 / 1e9,
            lag_p99_us: self.lag_us.value_at_quantile(0.99),
            lag_max_us: self.lag_us.max(),
        }
    }

    /// Drain what is in flight, report the last progress, then hand back the stamps: an error of the run (`ran`) wins
    /// over a failed request, which wins over an error found while draining. When the ring
    /// cannot be waited on, the kernel may still write into the buffers: they are leaked.
    fn finish(
        mut self,
        ran: Result<bool, ReplayError>,
        tx: &Sender<Progress>,
    ) -> Result<(Stamps, RunFacts), ReplayError> {
        let queued = self.submit();
        while self.in_flight() > 0 {
            if let Err(e) = self.ring.ring.submit_and_wait(1)
                && !transient(&e)
            {
                std::mem::forget(self.ring);
                return Err(ran.err().unwrap_or(ReplayError::Submit(e)));
            }
            self.reap();
        }
        let interrupted = ran?;
        if let Some(failure) = self.failure.take() {
            return Err(failure);
        }
        queued?;
        let _ = tx.send(self.progress(self.now()));
        let facts = RunFacts {
            timing: self.timing,
            max_in_flight: self.slots as u32,
            interrupted,
            registered_buffers: self.ring.fixed,
        };
        Ok((self.stamps, facts))
    }
}
