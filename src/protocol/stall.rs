//! The hang watch: an instance whose clients completed no transaction and met no error for
//! `workload.stall_timeout` has a hung or unreachable server (stopped, swapping to death,
//! behind a network that drops packets without a word). Nothing else would end such a run:
//! its clients wait on their sockets, and the phase clock only ends the phase. The phase stops
//! there, naming the instance.

use std::time::Duration;

use tokio::time::Instant;

use crate::metrics::Recorded;

/// No progress on an instance for `seconds`.
#[derive(Debug, thiserror::Error)]
#[error(
    "no transaction completed and no error for {seconds:.0} s: the server is hung or \
     unreachable (workload.stall_timeout)"
)]
pub struct Stalled {
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
                (i, Stalled { seconds })
            })
    }
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
