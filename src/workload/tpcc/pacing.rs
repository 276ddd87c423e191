//! Keying and think times of spec pacing (5.2.5.2, 5.2.5.4): a fixed keying time before each
//! transaction and a negative-exponential think time after it, Tt = −ln(r) · μ, truncated at
//! 10 · μ. Pure: the caller's [`Rng`] gives r.

use std::time::Duration;

use super::Kind;
use drivebench_core::rng::Rng;

/// Keying time per kind, seconds (`Kind::index` order).
pub const KEYING_S: [u64; 5] = [18, 3, 2, 2, 2];
/// Mean think time per kind, seconds (`Kind::index` order).
pub const THINK_MEAN_S: [u64; 5] = [12, 12, 10, 5, 5];
/// Think times are truncated at this multiple of their mean.
pub const THINK_CAP_FACTOR: u64 = 10;
/// Terminals make their first transaction's keying start uniformly within this of the clock's
/// start (the longest mean think time), so thousands of terminals do not key in lockstep.
pub const START_SPREAD: Duration = Duration::from_secs(12);

/// The fixed keying time of `kind`.
pub fn keying_time(kind: Kind) -> Duration {
    Duration::from_secs(KEYING_S[kind.index()])
}

/// The mean think time μ of `kind`.
pub fn mean_think_time(kind: Kind) -> Duration {
    Duration::from_secs(THINK_MEAN_S[kind.index()])
}

/// A think time for `kind`: −ln(r) · μ with r uniform in (0, 1], at most 10 · μ.
pub fn think_time(kind: Kind, rng: &mut Rng) -> Duration {
    let mean_s = THINK_MEAN_S[kind.index()] as f64;
    let cap_s = mean_s * THINK_CAP_FACTOR as f64;
    let t_s = rng.exponential(mean_s);
    // r in (0, 1] keeps t finite and ≥ 0, so the conversion cannot panic.
    Duration::from_secs_f64(t_s.clamp(0.0, cap_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keying_times_are_the_spec_values() {
        let s: Vec<u64> = Kind::ALL
            .iter()
            .map(|k| keying_time(*k).as_secs())
            .collect();
        assert_eq!(s, [18, 3, 2, 2, 2]);
        let m: Vec<u64> = Kind::ALL
            .iter()
            .map(|k| mean_think_time(*k).as_secs())
            .collect();
        assert_eq!(m, [12, 12, 10, 5, 5]);
    }

    #[test]
    fn think_times_have_their_mean_and_never_exceed_the_cap() {
        let mut rng = Rng::for_client(1, 0, 0);
        for kind in Kind::ALL {
            let mean = mean_think_time(kind).as_secs_f64();
            let cap = mean_think_time(kind) * 10;
            let n = 100_000;
            let mut sum_s = 0.0;
            let mut above_mean = 0;
            for _ in 0..n {
                let t = think_time(kind, &mut rng);
                assert!(t <= cap, "{kind:?}: {t:?} above {cap:?}");
                sum_s += t.as_secs_f64();
                above_mean += usize::from(t.as_secs_f64() > mean);
            }
            let got = sum_s / n as f64;
            assert!((got / mean - 1.0).abs() < 0.02, "{kind:?}: mean {got}");
            // Exponential, not uniform or fixed: P(T > μ) = e^-1 ≈ 36.8 %.
            let share = above_mean as f64 / n as f64;
            assert!((share - (-1.0f64).exp()).abs() < 0.01, "{kind:?}: {share}");
        }
    }
}
