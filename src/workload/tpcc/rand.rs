//! TPC-C's random functions (clauses 2.1.5, 2.1.6, 4.3.2): uniform integers, NURand with one
//! constant C per field for a whole run, the load/run rule for the C_LAST constant,
//! a-strings and n-strings, zip codes and the "ORIGINAL" marker. Pure: every draw comes from
//! the caller's seeded [`Rng`].

use drivebench_core::rng::Rng;

/// NURand's A for C_LAST syllable numbers (0..=999).
pub const A_C_LAST: u16 = 255;
/// NURand's A for customer ids (1..=3000).
pub const A_C_ID: u16 = 1023;
/// NURand's A for item ids (1..=100,000).
pub const A_OL_I_ID: u16 = 8191;

/// Allowed |C_RUN − C_LOAD| for C_LAST (2.1.6.1): 65..=119 except 96 and 112.
pub fn c_last_delta_ok(delta: u16) -> bool {
    (65..=119).contains(&delta) && delta != 96 && delta != 112
}

/// Uniform integer in [x, y], both inclusive.
pub fn random(rng: &mut Rng, x: i64, y: i64) -> i64 {
    rng.uniform(x, y)
}

/// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x.
pub fn nurand(rng: &mut Rng, a: u16, c: u16, x: i64, y: i64) -> i64 {
    if y <= x {
        return x;
    }
    let r = random(rng, 0, i64::from(a)) | random(rng, x, y);
    ((r + i64::from(c)) % (y - x + 1)) + x
}

/// The NURand constants of one run (or of the load), one per field, shared by every terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constants {
    /// C for C_LAST numbers, in 0..=255.
    pub c_last: u16,
    /// C for customer ids, in 0..=1023.
    pub c_id: u16,
    /// C for item ids, in 0..=8191.
    pub ol_i_id: u16,
}

impl Constants {
    /// Constants for the initial population: each uniform in [0, A].
    pub fn load(rng: &mut Rng) -> Self {
        Constants {
            c_last: draw_c(rng, A_C_LAST),
            c_id: draw_c(rng, A_C_ID),
            ol_i_id: draw_c(rng, A_OL_I_ID),
        }
    }

    /// Constants for a measured run against data loaded with C_LAST constant `load_c_last`:
    /// C_LAST differs from it by an allowed delta (2.1.6.1); C_ID and OL_I_ID are drawn afresh
    /// in [0, A] (the spec puts no rule between their load and run values).
    pub fn run(load_c_last: u16, rng: &mut Rng) -> Self {
        let load = i64::from(load_c_last.min(A_C_LAST));
        let allowed: Vec<i64> = (65..=119)
            .filter(|d| c_last_delta_ok(*d as u16))
            .flat_map(|d| [load - d, load + d])
            .filter(|c| (0..=i64::from(A_C_LAST)).contains(c))
            .collect();
        // Never empty: with load in 0..=255 one of load ± 65 lies in 0..=255.
        let pick = random(rng, 0, allowed.len() as i64 - 1) as usize;
        let c_last = allowed.get(pick).copied().unwrap_or(load + 65) as u16;
        Constants {
            c_last,
            c_id: draw_c(rng, A_C_ID),
            ol_i_id: draw_c(rng, A_OL_I_ID),
        }
    }

    /// A customer id, NURand(1023, 1, 3000).
    pub fn customer_id(&self, rng: &mut Rng) -> u32 {
        nurand(rng, A_C_ID, self.c_id, 1, 3000) as u32
    }

    /// An item id, NURand(8191, 1, 100000).
    pub fn item_id(&self, rng: &mut Rng) -> u32 {
        nurand(rng, A_OL_I_ID, self.ol_i_id, 1, 100_000) as u32
    }

    /// A C_LAST syllable number, NURand(255, 0, 999).
    pub fn last_name_number(&self, rng: &mut Rng) -> u16 {
        nurand(rng, A_C_LAST, self.c_last, 0, 999) as u16
    }
}

fn draw_c(rng: &mut Rng, a: u16) -> u16 {
    random(rng, 0, i64::from(a)) as u16
}

const ALNUM: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Appends `len` characters drawn from `set`, several per 64-bit draw.
fn push_chars(rng: &mut Rng, set: &[u8], len: usize, out: &mut String) {
    let base = set.len() as u64;
    // Characters per draw with a negligible modulo bias (base^k ≤ 2^60).
    let per_draw = if base <= 10 { 18 } else { 10 };
    let mut left = len;
    while left > 0 {
        let mut pool = rng.next_u64();
        for _ in 0..per_draw.min(left) {
            out.push(char::from(set[(pool % base) as usize]));
            pool /= base;
            left -= 1;
        }
    }
}

/// Random a-string [x..y] (4.3.2.2): alphanumeric, length uniform in [x, y], appended to `out`.
pub fn push_a_string(rng: &mut Rng, x: usize, y: usize, out: &mut String) {
    let len = random(rng, x as i64, y as i64) as usize;
    push_chars(rng, ALNUM, len, out);
}

/// Random a-string [x..y] as a new string.
pub fn a_string(rng: &mut Rng, x: usize, y: usize) -> String {
    let mut s = String::with_capacity(y);
    push_a_string(rng, x, y, &mut s);
    s
}

/// Random n-string [x..y]: digits, length uniform in [x, y].
pub fn n_string(rng: &mut Rng, x: usize, y: usize) -> String {
    let len = random(rng, x as i64, y as i64) as usize;
    let mut s = String::with_capacity(len);
    push_chars(rng, b"0123456789", len, &mut s);
    s
}

/// A zip code (4.3.2.7): a random n-string of 4 digits followed by "11111".
pub fn zip(rng: &mut Rng) -> String {
    let mut s = n_string(rng, 4, 4);
    s.push_str("11111");
    s
}

/// I_DATA / S_DATA: a-string [26..50]; when `original`, "ORIGINAL" replaces 8 consecutive
/// characters at a random position (4.3.3.1).
pub fn data_string(rng: &mut Rng, original: bool) -> String {
    let mut s = a_string(rng, 26, 50);
    if original {
        let at = random(rng, 0, (s.len() - 8) as i64) as usize;
        s.replace_range(at..at + 8, "ORIGINAL");
    }
    s
}

/// Picks exactly `k` of `n` items in one pass, each set of k equally likely (selection
/// sampling): "10 % of the rows, selected at random" without holding the rows.
#[derive(Debug, Clone)]
pub struct Selection {
    to_pick: u64,
    left: u64,
}

impl Selection {
    /// Pick `k` (at most `n`) of the next `n` items.
    pub fn new(k: u64, n: u64) -> Self {
        Selection {
            to_pick: k.min(n),
            left: n,
        }
    }

    /// Whether the next item is picked; false once all `n` items were seen.
    pub fn pick(&mut self, rng: &mut Rng) -> bool {
        if self.left == 0 {
            return false;
        }
        let picked = (rng.next_u64() % self.left) < self.to_pick;
        self.left -= 1;
        if picked {
            self.to_pick -= 1;
        }
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nurand_stays_in_range_and_is_skewed() {
        let mut rng = Rng::for_client(1, 0, 0);
        for (a, x, y) in [(255, 0, 999), (1023, 1, 3000), (8191, 1, 100_000)] {
            let c = draw_c(&mut rng, a);
            let mut hits = vec![0u32; (y - x + 1) as usize];
            for _ in 0..200_000 {
                let v = nurand(&mut rng, a, c, x, y);
                assert!((x..=y).contains(&v), "NURand({a},{x},{y}) gave {v}");
                hits[(v - x) as usize] += 1;
            }
            // Non-uniform: the most frequent value is far above the uniform expectation.
            let uniform = 200_000.0 / hits.len() as f64;
            let max = f64::from(*hits.iter().max().unwrap_or(&0));
            assert!(max > 3.0 * uniform, "A={a}: max {max} vs uniform {uniform}");
        }
    }

    #[test]
    fn nurand_reaches_both_ends_of_small_ranges() {
        let mut rng = Rng::for_client(2, 0, 0);
        let c = Constants::load(&mut rng);
        // The rarest number needs random(0, 255) = 0 and random(0, 999) = 0 (p = 1/256,000):
        // 4 M draws expect 15 hits.
        let mut seen = [false; 1000];
        for _ in 0..4_000_000 {
            seen[usize::from(c.last_name_number(&mut rng))] = true;
        }
        assert!(
            seen.iter().all(|s| *s),
            "every C_LAST number must be reachable"
        );
    }

    #[test]
    fn load_constants_lie_in_zero_to_a() {
        for seed in 0..2_000 {
            let c = Constants::load(&mut Rng::for_client(seed, 0, 0));
            assert!(c.c_last <= A_C_LAST && c.c_id <= A_C_ID && c.ol_i_id <= A_OL_I_ID);
        }
    }

    #[test]
    fn run_c_last_obeys_the_delta_rule_for_every_load_value() {
        let mut deltas = std::collections::BTreeSet::new();
        for load in 0..=A_C_LAST {
            for seed in 0..40 {
                let run = Constants::run(load, &mut Rng::for_client(seed, u64::from(load), 1));
                assert!(run.c_last <= A_C_LAST);
                let delta = run.c_last.abs_diff(load);
                assert!(c_last_delta_ok(delta), "load {load} run {} ", run.c_last);
                assert!(run.c_id <= A_C_ID && run.ol_i_id <= A_OL_I_ID);
                deltas.insert(delta);
            }
        }
        // The whole allowed set is used, and nothing else.
        assert_eq!(deltas.len(), 55 - 2);
        assert!(!deltas.contains(&96) && !deltas.contains(&112));
    }

    #[test]
    fn delta_rule_cases() {
        for (d, ok) in [
            (64, false),
            (65, true),
            (95, true),
            (96, false),
            (112, false),
        ] {
            assert_eq!(c_last_delta_ok(d), ok, "{d}");
        }
        assert!(c_last_delta_ok(119) && !c_last_delta_ok(120) && !c_last_delta_ok(0));
    }

    #[test]
    fn strings_have_their_lengths_and_alphabets() {
        let mut rng = Rng::for_client(3, 0, 0);
        let mut lens = std::collections::BTreeSet::new();
        for _ in 0..5_000 {
            let a = a_string(&mut rng, 8, 16);
            assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
            lens.insert(a.len());
            let n = n_string(&mut rng, 16, 16);
            assert!(n.len() == 16 && n.bytes().all(|b| b.is_ascii_digit()));
            let z = zip(&mut rng);
            assert!(z.len() == 9 && z.ends_with("11111") && z.bytes().all(|b| b.is_ascii_digit()));
        }
        assert_eq!(lens, (8..=16).collect());
    }

    #[test]
    fn original_is_placed_inside_the_data_at_varying_positions() {
        let mut rng = Rng::for_client(4, 0, 0);
        let mut positions = std::collections::BTreeSet::new();
        for _ in 0..2_000 {
            let s = data_string(&mut rng, true);
            assert!((26..=50).contains(&s.len()));
            positions.insert(s.find("ORIGINAL").expect("ORIGINAL present"));
        }
        assert!(positions.contains(&0) && positions.len() > 30);
    }

    #[test]
    fn selection_picks_exactly_k() {
        let mut rng = Rng::for_client(5, 0, 0);
        for (k, n) in [(300, 3000), (0, 10), (10, 10), (10_000, 100_000)] {
            let mut s = Selection::new(k, n);
            let picked = (0..n).filter(|_| s.pick(&mut rng)).count() as u64;
            assert_eq!(picked, k);
            assert!(!s.pick(&mut rng));
        }
    }
}
