//! Customer last names (4.3.2.3): a number 0..=999 whose three digits pick syllables, and the
//! load rule that covers every name once before the skewed draws (4.3.3.1).

use std::fmt;

use super::rand::Constants;
use drivebench_core::rng::Rng;

const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// A C_LAST by its syllable number (0..=999); displays as the name, e.g. 371 → PRICALLYOUGHT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LastName(u16);

impl LastName {
    /// The name of `number`; numbers above 999 are taken modulo 1000.
    pub fn new(number: u16) -> Self {
        LastName(number % 1000)
    }

    /// A run-time last name: NURand(255, 0, 999) with the run's C_LAST constant.
    pub fn random(constants: &Constants, rng: &mut Rng) -> Self {
        LastName::new(constants.last_name_number(rng))
    }

    /// C_LAST of customer `c_id` at load: c_id − 1 for the first 1,000 customers of a
    /// district, NURand(255, 0, 999) with the load constant for the others.
    pub fn for_load(c_id: u32, load: &Constants, rng: &mut Rng) -> Self {
        match c_id {
            1..=1000 => LastName::new((c_id - 1) as u16),
            _ => LastName::random(load, rng),
        }
    }

    pub fn number(self) -> u16 {
        self.0
    }
}

impl fmt::Display for LastName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = usize::from(self.0);
        for digit in [n / 100, n / 10 % 10, n % 10] {
            f.write_str(SYLLABLES[digit])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syllables_follow_the_digits() {
        for (n, name) in [
            (371, "PRICALLYOUGHT"),
            (0, "BARBARBAR"),
            (999, "EINGEINGEING"),
            (10, "BAROUGHTBAR"),
            (482, "PRESATIONABLE"),
        ] {
            assert_eq!(LastName::new(n).to_string(), name, "{n}");
        }
    }

    #[test]
    fn names_are_distinct_and_at_most_16_chars() {
        let names: std::collections::BTreeSet<String> =
            (0..1000).map(|n| LastName::new(n).to_string()).collect();
        assert_eq!(names.len(), 1000);
        assert!(names.iter().all(|n| (9..=16).contains(&n.len())));
    }

    #[test]
    fn load_covers_every_name_with_the_first_thousand_then_draws() {
        let mut rng = Rng::for_client(1, 0, 0);
        let load = Constants::load(&mut rng);
        for c_id in 1..=1000u32 {
            let name = LastName::for_load(c_id, &load, &mut rng);
            assert_eq!(u32::from(name.number()), c_id - 1);
        }
        let mut counts = [0u32; 1000];
        for c_id in 1001..=3000u32 {
            counts[usize::from(LastName::for_load(c_id, &load, &mut rng).number())] += 1;
        }
        // 2,000 skewed draws: some names repeat, many never appear.
        assert!(counts.iter().filter(|c| **c == 0).count() > 200);
    }
}
