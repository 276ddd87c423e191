//! Is a difference between two runs more than noise? Welch's t-test on per-interval samples
//! (e.g. TPS per report interval), with each series' sample size reduced for its lag-1
//! autocorrelation — consecutive intervals of a run are not independent, and treating them as
//! such would call a 0.1 % "win" significant.

/// Mean, variance and effective sample size of one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeriesStats {
    pub n: usize,
    pub mean: f64,
    /// Sample variance (n − 1 denominator).
    pub variance: f64,
    /// Lag-1 autocorrelation, clamped to [0, 0.99] (negative correlation is not credited).
    pub lag1: f64,
    /// n × (1 − r) / (1 + r), at least 2.
    pub n_eff: f64,
}

pub fn series_stats(xs: &[f64]) -> Option<SeriesStats> {
    let n = xs.len();
    if n < 3 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let ss: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
    let variance = ss / (n - 1) as f64;
    let cov: f64 = xs.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
    let lag1 = if ss > 0.0 {
        (cov / ss).clamp(0.0, 0.99)
    } else {
        0.0
    };
    let n_eff = (n as f64 * (1.0 - lag1) / (1.0 + lag1)).max(2.0);
    Some(SeriesStats {
        n,
        mean,
        variance,
        lag1,
        n_eff,
    })
}

/// Welch's test result: t, degrees of freedom, two-sided p-value.
#[derive(
    Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    pub p_value: f64,
}

pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (a, b) = (series_stats(a)?, series_stats(b)?);
    let (va, vb) = (a.variance / a.n_eff, b.variance / b.n_eff);
    let se2 = va + vb;
    if se2 <= 0.0 {
        // Two constant series: equal means are no difference, unequal ones are certain.
        let p = if a.mean == b.mean { 1.0 } else { 0.0 };
        return Some(Welch {
            t: 0.0,
            df: a.n_eff + b.n_eff - 2.0,
            p_value: p,
        });
    }
    let t = (a.mean - b.mean) / se2.sqrt();
    let df = se2 * se2 / (va * va / (a.n_eff - 1.0) + vb * vb / (b.n_eff - 1.0));
    Some(Welch {
        t,
        df,
        p_value: student_t_two_sided(t, df),
    })
}

/// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom.
pub fn student_t_two_sided(t: f64, df: f64) -> f64 {
    let x = df / (df + t * t);
    incomplete_beta(x, df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued fraction.
fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front =
        (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

/// Modified Lentz evaluation of the incomplete beta continued fraction.
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..300 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        for num in [
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ] {
            d = 1.0 + num * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + num / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            h *= d * c;
        }
        if (d * c - 1.0).abs() < 1e-14 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_matches_tabulated_critical_values() {
        // Two-sided 5 % critical values: df 10 → 2.228, df 30 → 2.042; 1 % at df 10 → 3.169.
        assert!((student_t_two_sided(2.228, 10.0) - 0.05).abs() < 5e-4);
        assert!((student_t_two_sided(2.042, 30.0) - 0.05).abs() < 5e-4);
        assert!((student_t_two_sided(3.169, 10.0) - 0.01).abs() < 1e-4);
        assert!((student_t_two_sided(0.0, 5.0) - 1.0).abs() < 1e-12);
        // df 1 is the Cauchy distribution: P(|T| ≥ 1) = 0.5.
        assert!((student_t_two_sided(1.0, 1.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn separated_series_differ_and_overlapping_ones_do_not() {
        let a: Vec<f64> = (0..30).map(|i| 1000.0 + f64::from(i % 5) * 4.0).collect();
        let b: Vec<f64> = (0..30).map(|i| 1100.0 + f64::from(i % 7) * 4.0).collect();
        assert!(welch(&a, &b).unwrap().p_value < 1e-6);
        let c: Vec<f64> = (0..30)
            .map(|i| 1001.0 + f64::from((i + 2) % 5) * 4.0)
            .collect();
        assert!(welch(&a, &c).unwrap().p_value > 0.2);
        assert_eq!(welch(&a[..2], &c), None, "too few intervals");
    }

    #[test]
    fn autocorrelation_shrinks_the_effective_sample() {
        // A slow drift: neighbours are alike, so 40 intervals count as far fewer.
        let drift: Vec<f64> = (0..40).map(|i| 1000.0 + f64::from(i)).collect();
        let s = series_stats(&drift).unwrap();
        assert!(s.lag1 > 0.8 && s.n_eff < 5.0, "{s:?}");
        let alternating: Vec<f64> = (0..40).map(|i| 1000.0 + f64::from(i % 2)).collect();
        let s = series_stats(&alternating).unwrap();
        assert_eq!((s.lag1, s.n_eff), (0.0, 40.0));
    }
}
