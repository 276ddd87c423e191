//! What one worker measured: latency histograms (service time and schedule-relative time, in
//! µs), counts and bytes per direction, time spent in flight (for the mean outstanding I/O
//! count) and the backlog. Pre-allocated before the clock starts; recording never allocates
//! (except the optional offset log). Only I/Os that complete inside the recorded window count.

use hdrhistogram::Histogram;

use super::stream::IoOp;
use drivebench_core::histogram::{HIGHEST_US, new_histogram};

/// Measurements of one worker (or several merged).
#[derive(Debug, Clone)]
pub struct Recorder {
    /// Recorded window, ns from the point's start.
    pub window_start_ns: u64,
    /// End of the recorded window (moved earlier when the point is stopped).
    pub window_end_ns: u64,
    /// Submit → complete, µs.
    pub service_us: Histogram<u64>,
    /// Intended start → complete, µs (equal to service time when uncontrolled).
    pub schedule_us: Histogram<u64>,
    /// Exact sum of service times, ns.
    pub service_sum_ns: u128,
    /// Exact sum of schedule-relative times, ns.
    pub schedule_sum_ns: u128,
    /// Reads completed in the window.
    pub read_ios: u64,
    /// Writes completed in the window.
    pub write_ios: u64,
    /// Bytes read in the window.
    pub read_bytes: u64,
    /// Bytes written in the window.
    pub write_bytes: u64,
    /// Sum over I/Os of their time in flight inside the window, ns (the integral of the
    /// outstanding count over time).
    pub in_flight_ns: u128,
    /// Largest backlog (due, unissued starts) seen inside the window.
    pub backlog_max: u64,
    /// Backlog at the last look inside the window.
    pub backlog_last: u64,
    /// Every issued I/O, when asked for.
    pub offsets: Option<Vec<IoOp>>,
}

fn ns_to_us(ns: u64) -> u64 {
    (ns.saturating_add(500) / 1000).min(HIGHEST_US)
}

impl Recorder {
    /// An empty record for the window `[start_ns, end_ns)`.
    pub fn new(window_start_ns: u64, window_end_ns: u64, log_offsets: bool) -> Recorder {
        Recorder {
            window_start_ns,
            window_end_ns,
            service_us: new_histogram(),
            schedule_us: new_histogram(),
            service_sum_ns: 0,
            schedule_sum_ns: 0,
            read_ios: 0,
            write_ios: 0,
            read_bytes: 0,
            write_bytes: 0,
            in_flight_ns: 0,
            backlog_max: 0,
            backlog_last: 0,
            offsets: log_offsets.then(Vec::new),
        }
    }

    /// An I/O is about to be issued.
    #[inline]
    pub fn issued(&mut self, op: &IoOp) {
        if let Some(log) = &mut self.offsets {
            log.push(*op);
        }
    }

    /// An I/O completed: `intended`, `submit` and `complete` are ns from the point's start.
    #[inline]
    pub fn completed(&mut self, op: &IoOp, intended_ns: u64, submit_ns: u64, complete_ns: u64) {
        let from = submit_ns.max(self.window_start_ns);
        let to = complete_ns.min(self.window_end_ns);
        if to > from {
            self.in_flight_ns += u128::from(to - from);
        }
        if complete_ns < self.window_start_ns || complete_ns >= self.window_end_ns {
            return;
        }
        let service = complete_ns.saturating_sub(submit_ns);
        let schedule = complete_ns.saturating_sub(intended_ns);
        let _ = self.service_us.record(ns_to_us(service));
        let _ = self.schedule_us.record(ns_to_us(schedule));
        self.service_sum_ns += u128::from(service);
        self.schedule_sum_ns += u128::from(schedule);
        if op.write {
            self.write_ios += 1;
            self.write_bytes += op.len_bytes;
        } else {
            self.read_ios += 1;
            self.read_bytes += op.len_bytes;
        }
    }

    /// The backlog seen at `now_ns`.
    #[inline]
    pub fn backlog(&mut self, now_ns: u64, backlog: usize) {
        if now_ns >= self.window_start_ns && now_ns < self.window_end_ns {
            self.backlog_last = backlog as u64;
            self.backlog_max = self.backlog_max.max(backlog as u64);
        }
    }

    /// The point was stopped at `now_ns`: nothing completing later is recorded.
    pub fn stop_at(&mut self, now_ns: u64) {
        self.window_end_ns = self.window_end_ns.min(now_ns.max(self.window_start_ns));
    }

    /// Completed I/Os in the window.
    pub fn ios(&self) -> u64 {
        self.read_ios + self.write_ios
    }

    /// Add another worker's record (windows must match up to a stop).
    pub fn merge(&mut self, other: Recorder) {
        let _ = self.service_us.add(&other.service_us);
        let _ = self.schedule_us.add(&other.schedule_us);
        self.service_sum_ns += other.service_sum_ns;
        self.schedule_sum_ns += other.schedule_sum_ns;
        self.read_ios += other.read_ios;
        self.write_ios += other.write_ios;
        self.read_bytes += other.read_bytes;
        self.write_bytes += other.write_bytes;
        self.in_flight_ns += other.in_flight_ns;
        self.backlog_max += other.backlog_max;
        self.backlog_last += other.backlog_last;
        self.window_end_ns = self.window_end_ns.max(other.window_end_ns);
        match (&mut self.offsets, other.offsets) {
            (Some(mine), Some(theirs)) => mine.extend(theirs),
            (mine @ None, theirs) => *mine = theirs,
            (Some(_), None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OP: IoOp = IoOp {
        offset: 0,
        len_bytes: 4096,
        write: false,
    };

    #[test]
    fn only_completions_inside_the_window_are_recorded() {
        let mut r = Recorder::new(1_000_000, 2_000_000, false);
        // (intended, submit, complete, recorded?)
        let cases = [
            (900_000, 900_000, 999_999, false),
            (900_000, 950_000, 1_000_000, true),
            (1_500_000, 1_600_000, 1_999_999, true),
            (1_900_000, 1_900_000, 2_000_000, false),
        ];
        for (i, (intended, submit, complete, recorded)) in cases.into_iter().enumerate() {
            let before = r.ios();
            r.completed(&OP, intended, submit, complete);
            assert_eq!(r.ios() - before, u64::from(recorded), "case {i}");
        }
        assert_eq!(r.read_bytes, 2 * 4096);
        // Service 50 µs and 400 µs (rounded to µs); schedule-relative 100 µs and 500 µs.
        assert_eq!(r.service_sum_ns, 50_000 + 399_999);
        assert_eq!(r.schedule_sum_ns, 100_000 + 499_999);
        assert_eq!(r.service_us.max(), 400);
        // Time in flight inside the window: 0 + 0 + 399_999 + 100_000.
        assert_eq!(r.in_flight_ns, 499_999);
    }

    #[test]
    fn a_stop_closes_the_window_early_and_merging_adds_up() {
        let mut a = Recorder::new(0, 10_000, true);
        a.issued(&OP);
        a.stop_at(5_000);
        a.completed(&OP, 0, 0, 6_000);
        assert_eq!(a.ios(), 0);
        let mut b = Recorder::new(0, 10_000, true);
        b.issued(&OP);
        b.completed(&OP, 0, 0, 4_000);
        b.backlog(100, 3);
        a.merge(b);
        assert_eq!(a.ios(), 1);
        assert_eq!(a.backlog_max, 3);
        assert_eq!(a.offsets.map(|o| o.len()), Some(2));
    }
}
