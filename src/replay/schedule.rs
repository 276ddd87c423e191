//! When each request of a capture may be issued during a replay: at its recorded time (open
//! loop, the default), at its recorded time divided by a speed, or as fast as the recorded
//! concurrency allows. The last is a gate, not a time: request i may go once at least k(i)
//! replayed requests have completed, k(i) being how many recorded requests had completed when
//! i was issued in the recording, so the replay never has more in flight than the recording
//! had. Pure index arithmetic on requests in issue order; the engine keeps the clock.

use std::borrow::Cow;

use crate::capture::{NO_COMPLETION, Request};

/// How a replay spaces its requests.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Timing {
    /// Open loop at the recorded issue times.
    #[default]
    Recorded,
    /// Recorded issue times divided by `speed` (2 = twice as fast).
    Scaled { speed: f64 },
    /// As fast as the recorded concurrency allows (see the module's description).
    Fast,
}

impl Timing {
    /// Its name in reports: "recorded", "scaled" or "fast".
    pub fn name(self) -> &'static str {
        match self {
            Timing::Recorded => "recorded",
            Timing::Scaled { .. } => "scaled",
            Timing::Fast => "fast",
        }
    }

    /// The factor recorded rates are multiplied by: 1 when recorded, the speed when scaled,
    /// `None` when fast (no rate is intended).
    pub fn speed(self) -> Option<f64> {
        match self {
            Timing::Recorded => Some(1.0),
            Timing::Scaled { speed } => Some(speed),
            Timing::Fast => None,
        }
    }
}

/// The requests in issue order (borrowed when they already are; sorted stably otherwise).
pub fn in_issue_order(requests: &[Request]) -> Cow<'_, [Request]> {
    if requests.is_sorted_by_key(|r| r.issue_ns) {
        Cow::Borrowed(requests)
    } else {
        let mut sorted = requests.to_vec();
        sorted.sort_by_key(|r| r.issue_ns);
        Cow::Owned(sorted)
    }
}

/// When a request counts as completed in the recording: its completion, or its issue when
/// no completion was seen (or the completion is before the issue, which bad input may hold).
pub fn recorded_done_ns(r: &Request) -> u64 {
    match r.complete_ns {
        NO_COMPLETION => r.issue_ns,
        c => c.max(r.issue_ns),
    }
}

/// The intended issue time of `r`, ns after the replay's start, for a timed schedule:
/// `first_issue_ns` is the recorded issue time of the first request. `None` under
/// [`Timing::Fast`].
pub fn intended_ns(r: &Request, first_issue_ns: u64, timing: Timing) -> Option<u64> {
    let recorded = r.issue_ns.saturating_sub(first_issue_ns);
    match timing {
        Timing::Recorded => Some(recorded),
        // A float-to-int cast saturates: a huge quotient waits "forever" (until cancelled).
        Timing::Scaled { speed } => Some((recorded as f64 / speed) as u64),
        Timing::Fast => None,
    }
}

/// k(i) for every request of `sorted` (in issue order): how many recorded requests had
/// completed (at or before its issue) when request i was issued. Never more than i, so the
/// gate of a request can always be met by the requests before it (ties of equal issue times
/// are ordered as given).
pub fn fast_gates(sorted: &[Request]) -> Vec<u32> {
    let mut done: Vec<u64> = sorted.iter().map(recorded_done_ns).collect();
    done.sort_unstable();
    let mut seen = 0usize;
    sorted
        .iter()
        .enumerate()
        .map(|(i, r)| {
            while seen < done.len() && done[seen] <= r.issue_ns {
                seen += 1;
            }
            u32::try_from(seen.min(i)).unwrap_or(u32::MAX)
        })
        .collect()
}

/// The most requests the recording had in flight at one issue (itself included), from the
/// same gates: max over i of i + 1 − k(i). At least 1 (0 for no request).
pub fn recorded_max_depth(sorted: &[Request]) -> u32 {
    fast_gates(sorted)
        .iter()
        .enumerate()
        .map(|(i, &k)| u32::try_from(i + 1 - k as usize).unwrap_or(u32::MAX))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Op;

    fn req(issue_us: u64, done_us: Option<u64>) -> Request {
        Request {
            issue_ns: issue_us * 1000,
            complete_ns: done_us.map_or(NO_COMPLETION, |d| d * 1000),
            ..Request::data(Op::Read, 0, 4096)
        }
    }

    #[test]
    fn timed_schedules_are_recorded_times_from_the_first_divided_by_the_speed() {
        let r = req(1_500, Some(1_600));
        assert_eq!(intended_ns(&r, 500_000, Timing::Recorded), Some(1_000_000));
        assert_eq!(
            intended_ns(&r, 500_000, Timing::Scaled { speed: 2.0 }),
            Some(500_000)
        );
        assert_eq!(
            intended_ns(&r, 500_000, Timing::Scaled { speed: 0.5 }),
            Some(2_000_000)
        );
        assert_eq!(intended_ns(&r, 500_000, Timing::Fast), None);
        // A request "before" the first (unsorted input) is due at once.
        assert_eq!(intended_ns(&r, 9_000_000, Timing::Recorded), Some(0));
        assert_eq!(Timing::default(), Timing::Recorded);
        assert_eq!(Timing::Scaled { speed: 3.0 }.speed(), Some(3.0));
        assert_eq!(Timing::Fast.speed(), None);
    }

    #[test]
    fn gates_count_recorded_completions_before_each_issue() {
        // 0: [0,100]  1: [10,20]  2: [30,..]  3: [150, none]  4: [150,160]  5: [200,210]
        let rs = [
            req(0, Some(100)),
            req(10, Some(20)),
            req(30, Some(40)),
            req(150, None),
            req(150, Some(160)),
            req(200, Some(210)),
        ];
        // Done at: 100, 20, 40, 150 (its issue), 160, 210.
        // At 0: none. At 10: none. At 30: 20. At 150: 20, 40, 100 and 150 (request 3 itself,
        // clamped to 3). Request 4 at 150: 20, 40, 100, 150 = 4. At 200: 20,40,100,150,160 = 5.
        assert_eq!(fast_gates(&rs), vec![0, 0, 1, 3, 4, 5]);
        // Depths i + 1 - k: 1, 2, 2, 1, 1, 1.
        assert_eq!(recorded_max_depth(&rs), 2);
    }

    #[test]
    fn a_completion_at_the_issue_counts_and_bad_completions_are_clamped() {
        let rs = [req(0, Some(10)), req(10, Some(5)), req(10, Some(12))];
        // Request 0 is done at 10, at request 1's issue: it counts. Request 1 "completes" at 5,
        // before its issue at 10: counted as done at its issue, so before request 2's.
        assert_eq!(fast_gates(&rs), vec![0, 1, 2]);
        assert_eq!(recorded_max_depth(&rs), 1);
    }

    #[test]
    fn serial_and_empty_recordings() {
        let serial: Vec<Request> = (0..5).map(|i| req(i * 10, Some(i * 10 + 5))).collect();
        assert_eq!(fast_gates(&serial), vec![0, 1, 2, 3, 4]);
        assert_eq!(recorded_max_depth(&serial), 1);
        let all_at_once: Vec<Request> = (0..4).map(|_| req(0, Some(50))).collect();
        assert_eq!(fast_gates(&all_at_once), vec![0, 0, 0, 0]);
        assert_eq!(recorded_max_depth(&all_at_once), 4);
        assert_eq!(recorded_max_depth(&[]), 0);
        assert!(fast_gates(&[]).is_empty());
    }

    #[test]
    fn requests_are_put_in_issue_order_only_when_needed() {
        let sorted = [req(0, None), req(5, None)];
        assert!(matches!(in_issue_order(&sorted), Cow::Borrowed(_)));
        let unsorted = [req(5, None), req(0, None), req(5, Some(9))];
        let fixed = in_issue_order(&unsorted);
        let issues: Vec<u64> = fixed.iter().map(|r| r.issue_ns).collect();
        assert_eq!(issues, vec![0, 5000, 5000]);
        // Stable: the two at 5 µs keep their order.
        assert_eq!(fixed[1].complete_ns, NO_COMPLETION);
    }
}
