//! sysbench's data templates: `c` is 10 groups of 11 random digits joined by '-' (119 chars),
//! `pad` is 5 such groups (59 chars).

use drivebench_core::rng::Rng;

pub const C_GROUPS: usize = 10;
pub const PAD_GROUPS: usize = 5;
const GROUP_DIGITS: usize = 11;

/// Two decimal digits per value 0..100, for drawing digits a pair at a time.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `groups` (at most 10) groups of 11 random digits joined by '-', appended to `out`. Each
/// 64-bit draw gives 18 digits, two at a time.
pub fn digit_groups(rng: &mut Rng, groups: usize, out: &mut String) {
    let groups = groups.min(C_GROUPS);
    let n = groups * GROUP_DIGITS;
    // One spare byte: digits come in pairs and n may be odd.
    let mut digits = [0u8; C_GROUPS * GROUP_DIGITS + 1];
    let mut i = 0;
    while i < n {
        let mut pool = rng.next_u64();
        for _ in 0..9 {
            if i >= n {
                break;
            }
            let pair = (pool % 100) as usize * 2;
            pool /= 100;
            digits[i..i + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
            i += 2;
        }
    }
    let mut text = [0u8; C_GROUPS * (GROUP_DIGITS + 1)];
    let mut len = 0;
    for (g, group) in digits[..n].chunks(GROUP_DIGITS).enumerate() {
        if g > 0 {
            text[len] = b'-';
            len += 1;
        }
        text[len..len + GROUP_DIGITS].copy_from_slice(group);
        len += GROUP_DIGITS;
    }
    out.push_str(std::str::from_utf8(&text[..len]).unwrap_or_default());
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
