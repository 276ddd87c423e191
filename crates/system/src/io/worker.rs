//! What every worker thread shares, whichever engine it drives: the point's clock, the recorded
//! window, the halt flag, its I/O stream and, under a target rate, its schedule.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::recorder::Recorder;
use super::schedule::Schedule;
use super::stream::IoStream;

/// Nanoseconds since the point's start.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
}

impl Clock {
    /// A clock whose zero is `start`.
    pub fn new(start: Instant) -> Clock {
        Clock { start }
    }

    /// Now, in ns from the start.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// Sleep until `at_ns` (returns at once when it has passed).
    pub fn sleep_until(&self, at_ns: u64) {
        let now = self.now_ns();
        if at_ns > now {
            std::thread::sleep(Duration::from_nanos(at_ns - now));
        }
    }
}

/// Longest sleep between looks at the halt flag, ns.
pub const HALT_POLL_NS: u64 = 10_000_000;

/// One worker's inputs and its record.
pub struct Worker<'a> {
    /// The target, open with O_DIRECT.
    pub file: &'a File,
    /// Its path, for error messages.
    pub path: &'a Path,
    /// The point's clock.
    pub clock: Clock,
    /// When issuing stops (end of the recorded window), ns.
    pub end_ns: u64,
    /// Set when the point must end early (a stop request or another worker's failure).
    pub halt: &'a AtomicBool,
    /// Offsets, lengths and directions.
    pub stream: IoStream,
    /// Intended starts under a target rate; `None` when uncontrolled.
    pub schedule: Option<Schedule>,
    /// What was measured.
    pub recorder: Recorder,
}

impl Worker<'_> {
    /// Whether issuing must stop at `now_ns`; a halt closes the recorded window there.
    #[inline]
    pub fn finished(&mut self, now_ns: u64) -> bool {
        if self.halt.load(Ordering::Relaxed) {
            self.recorder.stop_at(now_ns);
            return true;
        }
        now_ns >= self.end_ns
    }
}
