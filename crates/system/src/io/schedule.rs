//! When a worker's I/Os are meant to start under a target rate: evenly spaced or Poisson
//! arrivals at the worker's share of the rate, in nanoseconds from the point's start. The
//! intended times are fixed in advance, so a slow I/O delays the ones behind it but does not
//! move their intended starts (coordinated-omission correct).

use std::collections::VecDeque;

use drivebench_core::rng::Rng;

use super::spec::Arrivals;

/// Most due-but-unissued starts one worker keeps; beyond it the backlog count saturates (the
/// starts are not lost: they stay in the schedule with their intended times).
pub const BACKLOG_CAP: usize = 1 << 22;

/// Intended start times of one worker.
#[derive(Debug, Clone)]
pub struct Schedule {
    next_ns: f64,
    mean_gap_ns: f64,
    arrivals: Arrivals,
    rng: Rng,
    /// Starts that are due (intended ≤ now) and not yet issued, oldest first.
    due: VecDeque<u64>,
}

impl Schedule {
    /// Worker `worker` of `workers` sharing `iops`; uniform schedules are staggered so the
    /// workers' starts interleave.
    pub fn new(iops: f64, arrivals: Arrivals, rng: Rng, worker: u32, workers: u32) -> Schedule {
        let mean_gap_ns = 1e9 * f64::from(workers) / iops;
        let mut s = Schedule {
            next_ns: 0.0,
            mean_gap_ns,
            arrivals,
            rng,
            due: VecDeque::new(),
        };
        s.next_ns = match arrivals {
            Arrivals::Uniform => mean_gap_ns * f64::from(worker) / f64::from(workers),
            Arrivals::Poisson => s.gap(),
        };
        s
    }

    fn gap(&mut self) -> f64 {
        match self.arrivals {
            Arrivals::Uniform => self.mean_gap_ns,
            Arrivals::Poisson => self.rng.exponential(self.mean_gap_ns),
        }
    }

    /// Move every start intended at or before `now_ns` into the due queue.
    pub fn advance(&mut self, now_ns: u64) {
        while self.next_ns <= now_ns as f64 && self.due.len() < BACKLOG_CAP {
            self.due.push_back(self.next_ns as u64);
            self.next_ns += self.gap();
        }
    }

    /// The oldest due start, to issue now.
    pub fn pop_due(&mut self) -> Option<u64> {
        self.due.pop_front()
    }

    /// Due starts not yet issued.
    pub fn backlog(&self) -> usize {
        self.due.len()
    }

    /// When the next start falls due (now, if some are already due).
    pub fn next_due_ns(&self) -> u64 {
        self.due.front().copied().unwrap_or(self.next_ns as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_schedules_interleave_workers_at_their_share_of_the_rate() {
        // 1000 IOPS over 2 workers: each every 2 ms, worker 1 offset by 1 ms.
        let mut a = Schedule::new(1000.0, Arrivals::Uniform, Rng::for_client(1, 0, 0), 0, 2);
        let mut b = Schedule::new(1000.0, Arrivals::Uniform, Rng::for_client(1, 0, 1), 1, 2);
        a.advance(5_000_000);
        b.advance(5_000_000);
        let take = |s: &mut Schedule| std::iter::from_fn(|| s.pop_due()).collect::<Vec<_>>();
        assert_eq!(take(&mut a), [0, 2_000_000, 4_000_000]);
        assert_eq!(take(&mut b), [1_000_000, 3_000_000, 5_000_000]);
        assert_eq!(a.next_due_ns(), 6_000_000);
    }

    #[test]
    fn the_backlog_counts_due_starts_not_yet_issued() {
        let mut s = Schedule::new(1000.0, Arrivals::Uniform, Rng::for_client(1, 0, 0), 0, 1);
        s.advance(9_500_000);
        assert_eq!(s.backlog(), 10);
        assert_eq!(s.pop_due(), Some(0));
        assert_eq!(s.backlog(), 9);
        assert_eq!(s.next_due_ns(), 1_000_000);
    }

    #[test]
    fn poisson_schedules_hold_their_rate() {
        let mut s = Schedule::new(2000.0, Arrivals::Poisson, Rng::for_client(5, 0, 0), 0, 4);
        s.advance(100_000_000_000); // 100 s at 500/s per worker
        let n = s.backlog() as f64;
        assert!((n / 50_000.0 - 1.0).abs() < 0.02, "{n} arrivals");
    }
}
