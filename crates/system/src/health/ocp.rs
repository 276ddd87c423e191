//! The OCP Datacenter NVMe SSD specification's extended SMART log, "SMART / Health
//! Information Extended" (log id 0xC0, 512 bytes): what the drive wrote to and read from its
//! media, beside the host's figures of the NVMe SMART log. A page is taken for this log only
//! when its log page GUID (bytes 496-511) is the specification's; a vendor's own 0xC0 page
//! is refused.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::page::{self, PageError};

/// The log's identifier in Get Log Page.
pub const LOG_ID: u8 = 0xC0;

/// The log page GUID at bytes 496-511, read as a little-endian 128-bit number.
pub const GUID: u128 = 0xAFD5_14C9_7C6F_4F9C_A4F2_BFEA_2810_AFC5;

const LOG: &str = "OCP extended SMART log";

/// The fields of the extended log drivebench reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OcpSmart {
    /// Bytes 0-15: bytes written to the media (the host's writes, garbage collection, wear
    /// levelling and the rest).
    pub media_bytes_written: u64,
    /// Bytes 16-31: bytes read from the media.
    pub media_bytes_read: u64,
    /// Bytes 32-37: bad user NAND blocks, raw count.
    pub bad_user_nand_blocks: u64,
    /// Bytes 40-45: bad system NAND blocks, raw count.
    pub bad_system_nand_blocks: u64,
    /// Bytes 56-63: reads the drive could not correct.
    pub uncorrectable_read_errors: u64,
    /// Byte 96: thermal throttling events (the drive's own count, wrapping at 255).
    pub thermal_throttling_events: u8,
    /// Byte 97: current throttling status (0 none, 1 first level, 2 second, 3 third).
    pub throttling_status: u8,
    /// Bytes 494-495: the log page's version.
    pub log_page_version: u16,
}

impl OcpSmart {
    /// Parse a whole page whose GUID is the extended log's.
    pub fn parse(bytes: &[u8]) -> Result<OcpSmart, PageError> {
        let p = page::whole(LOG, bytes)?;
        let found = page::u128_at(p, 496);
        if found != GUID {
            return Err(PageError::Guid {
                log: LOG,
                found,
                expected: GUID,
            });
        }
        Ok(OcpSmart {
            media_bytes_written: page::counter_at(p, 0),
            media_bytes_read: page::counter_at(p, 16),
            bad_user_nand_blocks: page::u48_at(p, 32),
            bad_system_nand_blocks: page::u48_at(p, 40),
            uncorrectable_read_errors: page::u64_at(p, 56),
            thermal_throttling_events: p[96],
            throttling_status: p[97],
            log_page_version: page::u16_at(p, 494),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GUID's bytes as they lie in the page, lowest first.
    const GUID_BYTES: [u8; 16] = [
        0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5,
        0xAF,
    ];

    fn page_bytes() -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[0..16].copy_from_slice(&(3u128 << 40).to_le_bytes());
        p[16..32].copy_from_slice(&(5u128 << 30).to_le_bytes());
        p[32..38].copy_from_slice(&[7, 1, 0, 0, 0, 0]);
        p[38..40].copy_from_slice(&100u16.to_le_bytes());
        p[40..46].copy_from_slice(&[9, 0, 0, 0, 0, 1]);
        p[46..48].copy_from_slice(&99u16.to_le_bytes());
        p[56..64].copy_from_slice(&11u64.to_le_bytes());
        p[96] = 4;
        p[97] = 1;
        p[494..496].copy_from_slice(&3u16.to_le_bytes());
        p[496..512].copy_from_slice(&GUID_BYTES);
        p
    }

    #[test]
    fn every_field_is_read_at_its_offset() {
        let o = OcpSmart::parse(&page_bytes()).unwrap();
        let want = OcpSmart {
            media_bytes_written: 3 << 40,
            media_bytes_read: 5 << 30,
            bad_user_nand_blocks: 263,
            bad_system_nand_blocks: (1 << 40) + 9,
            uncorrectable_read_errors: 11,
            thermal_throttling_events: 4,
            throttling_status: 1,
            log_page_version: 3,
        };
        assert_eq!(
            o, want,
            "normalized values (38-39, 46-47) are not raw counts"
        );
    }

    #[test]
    fn the_guid_constant_is_the_bytes_in_the_page() {
        assert_eq!(u128::from_le_bytes(GUID_BYTES), GUID);
    }

    #[test]
    fn a_page_with_another_guid_is_refused() {
        let mut p = page_bytes();
        p[511] ^= 0x01;
        let found = u128::from_le_bytes(p[496..512].try_into().unwrap());
        assert_eq!(
            OcpSmart::parse(&p),
            Err(PageError::Guid {
                log: LOG,
                found,
                expected: GUID
            })
        );
        p[496..512].fill(0);
        assert!(matches!(
            OcpSmart::parse(&p),
            Err(PageError::Guid { found: 0, .. })
        ));
    }

    #[test]
    fn a_short_page_is_refused() {
        let p = page_bytes();
        assert_eq!(
            OcpSmart::parse(&p[..496]),
            Err(PageError::Length { log: LOG, len: 496 })
        );
    }
}
