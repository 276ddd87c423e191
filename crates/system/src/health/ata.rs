//! The ATA SMART READ DATA page (512 bytes): a revision (bytes 0-1), then 30 attribute
//! entries of 12 bytes from byte 2 (id, flags, normalized value, worst, a 6-byte raw value, a
//! reserved byte; id 0 marks an unused entry), and a checksum in byte 511 that makes the sum
//! of all 512 bytes 0 modulo 256. Raw values are vendor-defined; the few read here have a
//! meaning most drives share.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::page::{self, PageError};

const LOG: &str = "ATA SMART data";
const ENTRIES: usize = 30;
const ENTRY_BYTES: usize = 12;
const TABLE_AT: usize = 2;

/// Attribute 5: reallocated sectors.
pub const REALLOCATED_SECTORS: u8 = 5;
/// Attribute 194: temperature, °C in the raw value's lowest byte.
pub const TEMPERATURE: u8 = 194;
/// Attribute 241: total LBAs written (512-byte units on most drives).
pub const TOTAL_LBAS_WRITTEN: u8 = 241;
/// Attribute 242: total LBAs read.
pub const TOTAL_LBAS_READ: u8 = 242;

/// One attribute of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AtaAttribute {
    pub id: u8,
    pub flags: u16,
    /// The normalized value (vendor scale, higher is better).
    pub value: u8,
    pub worst: u8,
    /// The 6-byte raw value.
    pub raw: u64,
}

/// The attribute table, used entries only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AtaSmart {
    pub revision: u16,
    pub attributes: Vec<AtaAttribute>,
}

impl AtaSmart {
    /// Parse a whole page whose checksum holds.
    pub fn parse(bytes: &[u8]) -> Result<AtaSmart, PageError> {
        let p = page::whole(LOG, bytes)?;
        let sum = p.iter().fold(0u8, |a, b| a.wrapping_add(*b));
        if sum != 0 {
            return Err(PageError::Checksum { log: LOG, sum });
        }
        let attributes = (0..ENTRIES)
            .map(|i| TABLE_AT + i * ENTRY_BYTES)
            .filter(|&at| p[at] != 0)
            .map(|at| AtaAttribute {
                id: p[at],
                flags: page::u16_at(p, at + 1),
                value: p[at + 3],
                worst: p[at + 4],
                raw: page::u48_at(p, at + 5),
            })
            .collect();
        Ok(AtaSmart {
            revision: page::u16_at(p, 0),
            attributes,
        })
    }

    /// The raw value of attribute `id`, when the drive lists it.
    pub fn raw(&self, id: u8) -> Option<u64> {
        self.attributes.iter().find(|a| a.id == id).map(|a| a.raw)
    }

    /// Attribute 194's temperature, °C.
    pub fn temperature_c(&self) -> Option<f64> {
        self.raw(TEMPERATURE).map(|r| f64::from((r & 0xff) as u8))
    }
}

/// A table with one attribute, total LBAs written = `written`: the other modules' tests' ATA log.
#[cfg(test)]
pub(crate) fn written_table(written: u64) -> AtaSmart {
    AtaSmart {
        revision: 16,
        attributes: vec![AtaAttribute {
            id: TOTAL_LBAS_WRITTEN,
            flags: 0,
            value: 100,
            worst: 100,
            raw: written,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(p: &mut [u8], slot: usize, id: u8, value: u8, raw: u64) {
        let at = 2 + slot * 12;
        p[at] = id;
        p[at + 1..at + 3].copy_from_slice(&0x0032u16.to_le_bytes());
        p[at + 3] = value;
        p[at + 4] = value - 1;
        p[at + 5..at + 11].copy_from_slice(&raw.to_le_bytes()[..6]);
    }

    fn page_bytes() -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[0..2].copy_from_slice(&16u16.to_le_bytes());
        entry(&mut p, 0, REALLOCATED_SECTORS, 100, 2);
        entry(&mut p, 3, TEMPERATURE, 64, 0x0028_0012_0024);
        entry(&mut p, 29, TOTAL_LBAS_WRITTEN, 99, 0x0000_1234_5678_9abc);
        let sum = p.iter().fold(0u8, |a, b| a.wrapping_add(*b));
        p[511] = 0u8.wrapping_sub(sum);
        p
    }

    #[test]
    fn used_entries_and_their_raw_values() {
        let s = AtaSmart::parse(&page_bytes()).unwrap();
        assert_eq!(s.revision, 16);
        let ids: Vec<u8> = s.attributes.iter().map(|a| a.id).collect();
        assert_eq!(ids, [5, 194, 241], "unused slots (id 0) are skipped");
        assert_eq!(s.raw(REALLOCATED_SECTORS), Some(2));
        assert_eq!(s.raw(TOTAL_LBAS_WRITTEN), Some(0x1234_5678_9abc));
        assert_eq!(s.raw(TOTAL_LBAS_READ), None);
        assert_eq!(s.temperature_c(), Some(36.0));
        let a = &s.attributes[1];
        assert_eq!((a.flags, a.value, a.worst), (0x32, 64, 63));
    }

    #[test]
    fn a_bad_checksum_or_a_short_page_is_refused() {
        let mut p = page_bytes();
        p[511] = p[511].wrapping_add(1);
        assert_eq!(
            AtaSmart::parse(&p),
            Err(PageError::Checksum { log: LOG, sum: 1 })
        );
        assert!(matches!(
            AtaSmart::parse(&p[..100]),
            Err(PageError::Length { len: 100, .. })
        ));
    }
}
