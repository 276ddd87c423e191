//! Little-endian fields of a fixed-size log page, and the one error of a page that cannot be
//! taken for what it claims to be.

/// Every log page drivebench reads is this long (NVMe SMART, OCP extended SMART, ATA SMART).
pub const PAGE_BYTES: usize = 512;

/// A page of exactly [`PAGE_BYTES`] bytes.
pub type Page = [u8; PAGE_BYTES];

/// Why bytes are not a log page of the kind asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PageError {
    #[error("{log}: {len} bytes, a log page has {PAGE_BYTES}")]
    Length { log: &'static str, len: usize },
    #[error("{log}: GUID {found:#034x} is not the log's ({expected:#034x})")]
    Guid {
        log: &'static str,
        found: u128,
        expected: u128,
    },
    #[error("{log}: checksum byte leaves a sum of {sum:#04x}, not 0")]
    Checksum { log: &'static str, sum: u8 },
}

/// `bytes` as a whole page, or why not.
pub fn whole<'a>(log: &'static str, bytes: &'a [u8]) -> Result<&'a Page, PageError> {
    bytes.try_into().map_err(|_| PageError::Length {
        log,
        len: bytes.len(),
    })
}

/// `N` bytes from `at`; the offsets are the specifications' constants, all inside the page.
fn field<const N: usize>(page: &Page, at: usize) -> [u8; N] {
    std::array::from_fn(|i| page[at + i])
}

pub fn u16_at(page: &Page, at: usize) -> u16 {
    u16::from_le_bytes(field(page, at))
}

pub fn u32_at(page: &Page, at: usize) -> u32 {
    u32::from_le_bytes(field(page, at))
}

pub fn u64_at(page: &Page, at: usize) -> u64 {
    u64::from_le_bytes(field(page, at))
}

/// A 6-byte little-endian counter (ATA raw values, OCP's bad-block counts).
pub fn u48_at(page: &Page, at: usize) -> u64 {
    let b: [u8; 6] = field(page, at);
    let mut wide = [0u8; 8];
    wide[..6].copy_from_slice(&b);
    u64::from_le_bytes(wide)
}

pub fn u128_at(page: &Page, at: usize) -> u128 {
    u128::from_le_bytes(field(page, at))
}

/// A 16-byte counter as a `u64`, saturated: 2^64 data units of 512,000 bytes are far beyond
/// any drive, so saturation only marks a corrupt page.
pub fn counter_at(page: &Page, at: usize) -> u64 {
    u64::try_from(u128_at(page, at)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_little_endian() {
        let mut p = [0u8; PAGE_BYTES];
        p[10..26].copy_from_slice(&0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10u128.to_le_bytes());
        assert_eq!(u128_at(&p, 10), 0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
        assert_eq!(u16_at(&p, 10), 0x0f10);
        assert_eq!(u32_at(&p, 10), 0x0d0e_0f10);
        assert_eq!(u64_at(&p, 10), 0x090a_0b0c_0d0e_0f10);
        assert_eq!(u48_at(&p, 10), 0x0b0c_0d0e_0f10);
        assert_eq!(counter_at(&p, 10), u64::MAX, "beyond u64: saturated");
        p[18..26].fill(0);
        assert_eq!(counter_at(&p, 10), 0x090a_0b0c_0d0e_0f10);
    }

    #[test]
    fn a_short_or_long_page_is_refused() {
        for len in [0, 511, 513] {
            let bytes = vec![0u8; len];
            assert_eq!(
                whole("test log", &bytes),
                Err(PageError::Length {
                    log: "test log",
                    len
                })
            );
        }
        assert!(whole("test log", &[0u8; 512]).is_ok());
    }
}
