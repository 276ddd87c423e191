//! sysbench's `--rand-type` generators over an inclusive range [a, b]: special (1.0's default),
//! uniform, gaussian, pareto and zipfian, with sysbench's parameters. Integer arithmetic follows
//! sysbench's (including its integer division in `special`), so the access skew matches.

use crate::workload::sysbench::options::{RandType, SysbenchOptions};
use drivebench_core::rng::Rng;

/// The default generator of a run (`sysbench.rand.default`).
#[derive(Debug, Clone)]
pub struct DefaultRand {
    kind: RandType,
    spec_pct: u64,
    spec_res: u64,
    spec_iter: u64,
    pareto_power: f64,
    zipf: Option<Zipf>,
}

impl DefaultRand {
    /// Built for ids 1..=`n` (zipfian precomputes over that range).
    pub fn new(opts: &SysbenchOptions, n: u64) -> Self {
        let h = opts.rand_pareto_h;
        DefaultRand {
            kind: opts.rand_type,
            spec_pct: u64::from(opts.rand_spec_pct),
            spec_res: u64::from(opts.rand_spec_res),
            spec_iter: u64::from(opts.rand_spec_iter),
            pareto_power: h.ln() / (1.0 - h).ln(),
            zipf: (opts.rand_type == RandType::Zipfian)
                .then(|| Zipf::new(n.max(1), opts.rand_zipfian_exp)),
        }
    }

    /// A value in [a, b] from the configured distribution.
    pub fn draw(&self, rng: &mut Rng, a: i64, b: i64) -> i64 {
        match self.kind {
            RandType::Uniform => rng.uniform(a, b),
            RandType::Gaussian => gaussian(rng, a, b, self.spec_iter),
            RandType::Special => self.special(rng, a, b),
            RandType::Pareto => {
                let t = (b - a + 1) as f64;
                (a + (t * rng.next_f64().powf(self.pareto_power)) as i64).min(b)
            }
            RandType::Zipfian => match &self.zipf {
                Some(z) if z.n == (b - a + 1) as u64 => a + z.sample(rng) as i64 - 1,
                _ => a + Zipf::new((b - a + 1).max(1) as u64, 0.8).sample(rng) as i64 - 1,
            },
        }
    }

    fn special(&self, rng: &mut Rng, a: i64, b: i64) -> i64 {
        if a >= b {
            return a;
        }
        let t = (b - a + 1) as u64;
        let range_size = t * (100 / (100 - self.spec_res));
        let res = rng.next_u64() % range_size;
        if res < t {
            return gaussian(rng, a, b, self.spec_iter);
        }
        let d = (t * self.spec_pct / 100).max(1);
        let res = res % d + (t / 2 - t * self.spec_pct / 200);
        a + res as i64
    }
}

fn gaussian(rng: &mut Rng, a: i64, b: i64, iter: u64) -> i64 {
    let t = (b - a + 1) as u64;
    let sum: u64 = (0..iter).map(|_| rng.next_u64() % t).sum();
    a + (sum / iter) as i64
}

/// Zipf over 1..=n with exponent s, by rejection-inversion (Hörmann & Derflinger).
#[derive(Debug, Clone)]
struct Zipf {
    n: u64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    s_const: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Self {
        let mut z = Zipf {
            n,
            s,
            h_x1: 0.0,
            h_n: 0.0,
            s_const: 0.0,
        };
        z.h_x1 = z.h_integral(1.5) - 1.0;
        z.h_n = z.h_integral(n as f64 + 0.5);
        z.s_const = 2.0 - z.h_integral_inv(z.h_integral(2.5) - z.h(2.0));
        z
    }
    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }
    fn h_integral(&self, x: f64) -> f64 {
        let lx = x.ln();
        if (1.0 - self.s).abs() < 1e-9 {
            lx
        } else {
            (((1.0 - self.s) * lx).exp() - 1.0) / (1.0 - self.s)
        }
    }
    fn h_integral_inv(&self, x: f64) -> f64 {
        if (1.0 - self.s).abs() < 1e-9 {
            x.exp()
        } else {
            let t = (x * (1.0 - self.s)).max(-1.0 + 1e-12);
            ((1.0 + t).ln() / (1.0 - self.s)).exp()
        }
    }
    fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_n + rng.next_f64() * (self.h_x1 - self.h_n);
            let x = self.h_integral_inv(u);
            let k = ((x + 0.5) as u64).clamp(1, self.n);
            if (k as f64 - x) <= self.s_const
                || u >= self.h_integral(k as f64 + 0.5) - self.h(k as f64)
            {
                return k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::sysbench::options::SysbenchTest;

    fn opts(kind: RandType) -> SysbenchOptions {
        SysbenchOptions {
            rand_type: kind,
            ..SysbenchOptions::defaults(SysbenchTest::OltpReadWrite)
        }
    }

    fn histogram(kind: RandType, draws: usize) -> Vec<u64> {
        let g = DefaultRand::new(&opts(kind), 10_000);
        let mut rng = Rng::for_client(1, 0, 0);
        let mut h = vec![0u64; 10_001];
        for _ in 0..draws {
            let v = g.draw(&mut rng, 1, 10_000);
            assert!((1..=10_000).contains(&v), "{kind:?} drew {v}");
            h[v as usize] += 1;
        }
        h
    }

    #[test]
    fn every_distribution_stays_in_range() {
        for kind in [
            RandType::Special,
            RandType::Uniform,
            RandType::Gaussian,
            RandType::Pareto,
            RandType::Zipfian,
        ] {
            histogram(kind, 50_000);
        }
    }

    #[test]
    fn special_sends_three_quarters_of_draws_to_the_central_one_percent() {
        // t = 10000: range_size = 4t, res < t (25%) is gaussian; the rest hit ids 4951..=5050.
        let h = histogram(RandType::Special, 400_000);
        let hot: u64 = h[4951..=5050].iter().sum();
        let share = hot as f64 / 400_000.0;
        // 75% special plus the gaussian draws that land there too
        assert!(share > 0.75 && share < 0.80, "hot share {share}");
    }

    #[test]
    fn gaussian_centres_on_the_middle_and_uniform_is_flat() {
        let g = histogram(RandType::Gaussian, 200_000);
        // mean of 12 uniform draws: sd = t / 12, so +-0.2 t is +-2.4 sd (98.4%)
        let centre: u64 = g[3000..=7000].iter().sum();
        assert!(centre as f64 / 200_000.0 > 0.97);
        let u = histogram(RandType::Uniform, 200_000);
        let first_half: u64 = u[1..=5000].iter().sum();
        assert!((first_half as f64 / 200_000.0 - 0.5).abs() < 0.01);
    }

    #[test]
    fn pareto_and_zipfian_favour_low_ids() {
        // pareto h=0.2: 80% of draws in the first 20% of ids
        let p = histogram(RandType::Pareto, 200_000);
        let low: u64 = p[1..=2000].iter().sum();
        assert!(
            (low as f64 / 200_000.0 - 0.8).abs() < 0.02,
            "pareto low share {}",
            low as f64 / 200_000.0
        );
        let z = histogram(RandType::Zipfian, 200_000);
        assert!(z[1] > z[10] && z[10] > z[1000]);
    }
}
