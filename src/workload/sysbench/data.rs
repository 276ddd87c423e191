//! sysbench's data templates: `c` is 10 groups of 11 random digits joined by '-' (119 chars),
//! `pad` is 5 such groups (59 chars).

use crate::workload::rng::Rng;

pub const C_GROUPS: usize = 10;
pub const PAD_GROUPS: usize = 5;
const GROUP_DIGITS: usize = 11;

/// `groups` groups of 11 random digits joined by '-', appended to `out`.
pub fn digit_groups(rng: &mut Rng, groups: usize, out: &mut String) {
    let mut pool = 0u64;
    let mut left = 0;
    for g in 0..groups {
        if g > 0 {
            out.push('-');
        }
        for _ in 0..GROUP_DIGITS {
            if left == 0 {
                pool = rng.next_u64();
                left = 18;
            }
            out.push(char::from(b'0' + (pool % 10) as u8));
            pool /= 10;
            left -= 1;
        }
    }
}

pub fn c_value(rng: &mut Rng) -> String {
    let mut s = String::with_capacity(120);
    digit_groups(rng, C_GROUPS, &mut s);
    s
}

pub fn pad_value(rng: &mut Rng) -> String {
    let mut s = String::with_capacity(60);
    digit_groups(rng, PAD_GROUPS, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape_ok(s: &str, groups: usize) -> bool {
        let parts: Vec<&str> = s.split('-').collect();
        parts.len() == groups
            && parts
                .iter()
                .all(|p| p.len() == 11 && p.bytes().all(|b| b.is_ascii_digit()))
    }

    #[test]
    fn c_and_pad_follow_sysbench_templates() {
        let mut rng = Rng::for_client(1, 0, 0);
        for _ in 0..100 {
            let c = c_value(&mut rng);
            let pad = pad_value(&mut rng);
            assert_eq!((c.len(), pad.len()), (119, 59));
            assert!(shape_ok(&c, 10) && shape_ok(&pad, 5), "{c} / {pad}");
        }
        let a = c_value(&mut rng);
        assert_ne!(a, c_value(&mut rng));
    }

    #[test]
    fn digits_are_evenly_spread() {
        let mut rng = Rng::for_client(5, 0, 0);
        let mut counts = [0u32; 10];
        for _ in 0..1000 {
            for b in c_value(&mut rng).bytes().filter(u8::is_ascii_digit) {
                counts[(b - b'0') as usize] += 1;
            }
        }
        let total: u32 = counts.iter().sum();
        for c in counts {
            assert!((f64::from(c) / f64::from(total) - 0.1).abs() < 0.01);
        }
    }
}
