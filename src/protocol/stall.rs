//! The hang watch: an instance whose clients completed no transaction and met no error for
//! `workload.stall_timeout` has a hung or unreachable server (stopped, swapping to death,
//! behind a network that drops packets without a word). Nothing else would end such a run:
//! its clients wait on their sockets, and the phase clock only ends the phase. The phase stops
//! there, naming the instance. The load has its own watch ([`watch_load`]): there a quiet
//! spell is normal (an index build writes no row), so an instance that loaded no row for the
//! timeout is asked for a new connection and `SELECT 1`, and only no answer stops the run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::engines::{Connector, Session};
use crate::metrics::Recorded;

/// No progress on an instance for `seconds`.
#[derive(Debug, thiserror::Error)]
#[error("{what} for {seconds:.0} s: the server is hung or unreachable (workload.stall_timeout)")]
pub struct Stalled {
    /// What did not happen, e.g. "no transaction completed and no error".
    pub what: &'static str,
    pub seconds: f64,
}

/// When each instance last made progress.
pub(super) struct StallWatch {
    timeout: Duration,
    last_progress: Vec<Instant>,
}

impl StallWatch {
    pub fn new(instances: usize, timeout_ms: u64, start: Instant) -> Self {
        StallWatch {
            timeout: Duration::from_millis(timeout_ms),
            last_progress: vec![start; instances],
        }
    }

    /// Note an interval's recordings (one per instance) ending `now`; the first instance
    /// without progress for the timeout, with how long, if any.
    pub fn check(&mut self, recorded: &[Recorded], now: Instant) -> Option<(usize, Stalled)> {
        for (last, r) in self.last_progress.iter_mut().zip(recorded) {
            let progress = r.transactions() > 0 || !r.errors.is_empty() || r.failed > 0;
            if progress {
                *last = now;
            }
        }
        self.last_progress
            .iter()
            .position(|&last| now - last >= self.timeout)
            .map(|i| {
                let seconds = (now - self.last_progress[i]).as_secs_f64();
                let what = "no transaction completed and no error";
                (i, Stalled { what, seconds })
            })
    }
}

/// Each instance's load: the rows it has written, and whether it has ended.
pub(super) struct LoadProgress {
    pub rows: Vec<Arc<AtomicU64>>,
    pub ended: Vec<AtomicBool>,
}

impl LoadProgress {
    pub fn new(instances: usize) -> Self {
        LoadProgress {
            rows: (0..instances).map(|_| Arc::default()).collect(),
            ended: (0..instances).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    pub fn total(&self) -> u64 {
        self.rows.iter().map(|r| r.load(Ordering::Relaxed)).sum()
    }
}

/// Resolves when an instance whose load has not ended wrote no row for `timeout` and then did
/// not answer a new connection's `SELECT 1` within `timeout` either; never otherwise.
pub(super) async fn watch_load<C: Connector>(
    connectors: &[Arc<C>],
    progress: &LoadProgress,
    timeout: Duration,
) -> (usize, Stalled) {
    let start = Instant::now();
    let mut last: Vec<(u64, Instant)> = vec![(0, start); connectors.len()];
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        for (i, c) in connectors.iter().enumerate() {
            let rows = progress.rows[i].load(Ordering::Relaxed);
            let now = Instant::now();
            if progress.ended[i].load(Ordering::Relaxed) || rows != last[i].0 {
                last[i] = (rows, now);
            } else if now - last[i].1 >= timeout {
                if answers(&**c, timeout).await {
                    last[i].1 = Instant::now();
                } else {
                    let seconds = (Instant::now() - last[i].1).as_secs_f64();
                    let what = "no row loaded and no answer to a new connection";
                    return (i, Stalled { what, seconds });
                }
            }
        }
    }
}

/// Whether the server behind `c` takes a new connection and answers `SELECT 1` in time.
async fn answers<C: Connector>(c: &C, timeout: Duration) -> bool {
    let probe = async {
        let mut s = c.connect().await?;
        s.execute_text("SELECT 1").await
    };
    matches!(tokio::time::timeout(timeout, probe).await, Ok(Ok(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_without_progress_for_the_timeout_is_named() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut watch = StallWatch::new(2, 5_000, t0);
        let idle = || Recorded::new(1);
        let mut busy = Recorded::new(1);
        busy.failed = 1;
        assert!(watch.check(&[busy.clone(), idle()], at(3)).is_none());
        assert!(watch.check(&[idle(), busy.clone()], at(4)).is_none());
        // Instance 0 last moved at 3 s; instance 1 at 4 s.
        let (i, stalled) = watch.check(&[idle(), idle()], at(8)).unwrap();
        assert_eq!(i, 0);
        assert_eq!(stalled.seconds, 5.0);
    }
}
