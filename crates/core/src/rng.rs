//! The random stream of one virtual client: xoshiro256++ seeded through splitmix64 from the
//! plan seed, the instance and the client id, so a run is reproducible and stable across
//! library versions. Pure: no I/O, no global state.

#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream for (seed, instance, client); different triples give independent streams.
    pub fn for_client(seed: u64, instance: u64, client: u64) -> Self {
        let mut st = seed
            ^ instance.wrapping_mul(0xD1B5_4A32_D192_ED03)
            ^ client.wrapping_mul(0x8CB9_2BA7_2F3D_8DD7);
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut st);
        }
        Rng { s }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [a, b] (inclusive), by modulo as sysbench does.
    #[inline]
    pub fn uniform(&mut self, a: i64, b: i64) -> i64 {
        if b <= a {
            return a;
        }
        a + (self.next_u64() % ((b - a + 1) as u64)) as i64
    }

    /// Exponential with the given mean (inter-arrival times of a Poisson process).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        let u = 1.0 - self.next_f64(); // (0, 1]
        -u.ln() * mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct_per_client() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::for_client(1, 0, 0);
                move |_| r.next_u64()
            })
            .collect();
        let mut again = Rng::for_client(1, 0, 0);
        let mut other = Rng::for_client(1, 0, 1);
        assert_eq!(a, (0..4).map(|_| again.next_u64()).collect::<Vec<_>>());
        assert_ne!(a[0], other.next_u64());
    }

    #[test]
    fn uniform_stays_in_bounds_and_covers_them() {
        let mut r = Rng::for_client(7, 1, 2);
        let mut seen = [false; 10];
        for _ in 0..10_000 {
            let v = r.uniform(1, 10);
            assert!((1..=10).contains(&v));
            seen[(v - 1) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut r = Rng::for_client(3, 0, 0);
        let n = 200_000;
        let mean = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.03, "mean {mean}");
    }
}
