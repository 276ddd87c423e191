//! A rate that changes while clients keep their connections: load curves run their points
//! through one `RateControl` per instance. Until it is first set, clients follow their own
//! `Pacing`; once set, every client follows it — closed loop (the curve's max run) or one
//! open-model schedule shared by the instance's clients: Poisson arrivals at the instance rate,
//! each taken by whichever client is free next (an M/G/N queue, as sysbench `--rate`), so a
//! response time includes the wait for a free client. A client sees a new setting between
//! transactions (one atomic load each); a new schedule starts at the instant it was set.
//!
//! [`drivebench_core::curve::backlog::Backlog`] judges whether clients kept up with such a schedule over
//! a point.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use drivebench_core::rng::Rng;

/// One open-model schedule: arrivals from `base`, the shared clock advanced by each taker.
#[derive(Debug)]
pub struct OpenSchedule {
    base: Instant,
    mean_gap_s: f64,
    /// Nanoseconds after `base` of the last arrival taken.
    clock_ns: AtomicU64,
}

impl OpenSchedule {
    /// The next arrival's intended start; the gap is drawn from the taker's own stream, so
    /// the arrivals stay a Poisson process whoever takes them.
    pub fn next_start(&self, rng: &mut Rng) -> Instant {
        let gap_ns = (rng.exponential(self.mean_gap_s) * 1e9) as u64;
        let at = self.clock_ns.fetch_add(gap_ns, Ordering::Relaxed) + gap_ns;
        self.base + Duration::from_nanos(at)
    }
}

/// The instance-wide setting clients follow once it is set.
#[derive(Debug, Default)]
pub struct RateControl {
    /// 0 until first set; bumped on every setting.
    generation: AtomicU64,
    /// None: closed loop; Some: the open schedule.
    current: Mutex<Option<Arc<OpenSchedule>>>,
}

impl RateControl {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every client runs closed loop from its next transaction.
    pub fn set_closed(&self) {
        self.set(None);
    }

    /// Every client takes arrivals of one Poisson schedule at `rate` tx/s starting now.
    pub fn set_rate(&self, rate: f64) {
        let mean_gap_s = 1.0 / rate.max(1e-9);
        self.set(Some(Arc::new(OpenSchedule {
            base: Instant::now(),
            mean_gap_s,
            clock_ns: AtomicU64::new(0),
        })));
    }

    fn set(&self, s: Option<Arc<OpenSchedule>>) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = s;
        self.generation.fetch_add(1, Ordering::Release);
    }

    /// The setting, when it changed since `seen` (which is updated): Some(None) = closed loop.
    #[allow(clippy::option_option)]
    pub fn changed(&self, seen: &mut u64) -> Option<Option<Arc<OpenSchedule>>> {
        let g = self.generation.load(Ordering::Acquire);
        if g == *seen {
            return None;
        }
        *seen = g;
        Some(
            self.current
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        )
    }
}
