//! The bytes of the NVMe admin commands a purge sends, and of what the drive answers: the
//! fields of Identify Namespace (the LBA format and protection settings a Format NVM keeps)
//! and of Identify Controller (the sanitize actions the drive supports), the command dwords
//! 10 of Format NVM and Sanitize, and the Sanitize Status log page. Offsets and bit positions
//! are the NVMe base specification's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Identify's admin opcode.
pub const IDENTIFY: u8 = 0x06;
/// Format NVM's admin opcode.
pub const FORMAT_NVM: u8 = 0x80;
/// Sanitize's admin opcode.
pub const SANITIZE: u8 = 0x84;
/// The Sanitize Status log page's id.
pub const SANITIZE_STATUS_LOG: u8 = 0x81;

/// Identify's CNS (command dword 10, bits 7:0) for the namespace data structure.
pub const CNS_NAMESPACE: u32 = 0x00;
/// Identify's CNS for the controller data structure.
pub const CNS_CONTROLLER: u32 = 0x01;

/// Every Identify data structure is this long.
pub const IDENTIFY_BYTES: usize = 4096;
/// One Identify data structure.
pub type IdentifyData = [u8; IDENTIFY_BYTES];

/// A log page's length, as Get Log Page reads it.
pub const LOG_BYTES: usize = 512;

/// What Identify Namespace says of the namespace's current format: NLBAF (byte 25, the number
/// of LBA formats less one), FLBAS (byte 26, the format in use and where metadata goes), DPS
/// (byte 29, the end-to-end protection type and where its information sits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamespaceFormat {
    pub nlbaf: u8,
    pub flbas: u8,
    pub dps: u8,
}

impl NamespaceFormat {
    pub fn parse(data: &IdentifyData) -> NamespaceFormat {
        NamespaceFormat {
            nlbaf: data[25],
            flbas: data[26],
            dps: data[29],
        }
    }

    /// The index of the LBA format in use: FLBAS bits 3:0, with bits 6:5 as its two high bits
    /// when the namespace has more than 16 formats (NLBAF above 16).
    pub fn lba_format(&self) -> u8 {
        let low = self.flbas & 0x0F;
        match self.nlbaf > 16 {
            true => low | (((self.flbas >> 5) & 0x03) << 4),
            false => low,
        }
    }

    /// FLBAS bit 4: metadata transferred at the end of each LBA (extended), not apart.
    fn metadata_extended(&self) -> bool {
        self.flbas & 0x10 != 0
    }

    /// DPS bits 2:0: the protection information type (0: none).
    fn protection_type(&self) -> u8 {
        self.dps & 0x07
    }

    /// DPS bit 3: protection information in the first bytes of the metadata, not the last.
    fn protection_first(&self) -> bool {
        self.dps & 0x08 != 0
    }
}

/// Format NVM's Secure Erase Settings: what the format erases besides changing the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SecureErase {
    /// SES 001b: every user data of the namespace erased.
    UserData,
}

impl SecureErase {
    /// The SES field's value.
    fn ses(self) -> u32 {
        match self {
            SecureErase::UserData => 0b001,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SecureErase::UserData => "user data erase",
        }
    }
}

/// Format NVM's command dword 10 keeping `format`'s LBA format, metadata and protection
/// settings: LBAF bits 3:0, MSET bit 4, PI bits 7:5, PIL bit 8, SES bits 11:9, the LBA
/// format's high bits in 13:12.
pub fn format_cdw10(format: &NamespaceFormat, erase: SecureErase) -> u32 {
    let lbaf = u32::from(format.lba_format());
    (lbaf & 0x0F)
        | (u32::from(format.metadata_extended()) << 4)
        | (u32::from(format.protection_type()) << 5)
        | (u32::from(format.protection_first()) << 8)
        | (erase.ses() << 9)
        | (((lbaf >> 4) & 0x03) << 12)
}

/// Identify Controller's SANICAP (bytes 328..331): the sanitize actions the drive supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SanitizeCaps {
    /// Bit 0, CES.
    pub crypto_erase: bool,
    /// Bit 1, BES.
    pub block_erase: bool,
    /// Bit 2, OWS (never chosen: an overwrite takes hours and wears the media).
    pub overwrite: bool,
}

impl SanitizeCaps {
    pub fn parse(data: &IdentifyData) -> SanitizeCaps {
        let sanicap = u32::from_le_bytes([data[328], data[329], data[330], data[331]]);
        SanitizeCaps {
            crypto_erase: sanicap & 0b001 != 0,
            block_erase: sanicap & 0b010 != 0,
            overwrite: sanicap & 0b100 != 0,
        }
    }

    /// Block erase where the drive has it, else crypto erase; `None` with neither.
    pub fn choose(&self) -> Option<SanitizeAction> {
        match (self.block_erase, self.crypto_erase) {
            (true, _) => Some(SanitizeAction::BlockErase),
            (false, true) => Some(SanitizeAction::CryptoErase),
            (false, false) => None,
        }
    }
}

/// The sanitize action sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SanitizeAction {
    /// SANACT 010b: every block of the media erased.
    BlockErase,
    /// SANACT 100b: the media encryption keys changed, so what was written cannot be read.
    CryptoErase,
}

impl SanitizeAction {
    pub fn as_str(self) -> &'static str {
        match self {
            SanitizeAction::BlockErase => "block erase",
            SanitizeAction::CryptoErase => "crypto erase",
        }
    }
}

/// Sanitize's command dword 10: SANACT in bits 2:0; AUSE (bit 3), the overwrite fields and
/// No-Deallocate (bit 9) all clear.
pub fn sanitize_cdw10(action: SanitizeAction) -> u32 {
    match action {
        SanitizeAction::BlockErase => 0b010,
        SanitizeAction::CryptoErase => 0b100,
    }
}

/// The most recent sanitize's state, the Sanitize Status log's SSTAT bits 2:0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanitizeState {
    /// 0: the drive was never sanitized.
    Never,
    /// 1: completed.
    Completed,
    /// 2: in progress.
    InProgress,
    /// 3: failed.
    Failed,
    /// 4: completed without deallocating the media.
    CompletedWithoutDeallocate,
}

/// The Sanitize Status log page (log id 0x81): the state and the progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SanitizeStatus {
    pub state: SanitizeState,
    /// SPROG (bytes 0..1) / 65536: the share done of a sanitize in progress, 0 to 1.
    pub progress: f64,
}

/// A Sanitize Status log the specification does not describe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Sanitize Status log shows state {state} (SSTAT {sstat:#06x}), which NVMe does not define"
)]
pub struct UnknownSanitizeState {
    pub state: u8,
    pub sstat: u16,
}

impl SanitizeStatus {
    pub fn parse(page: &[u8; LOG_BYTES]) -> Result<SanitizeStatus, UnknownSanitizeState> {
        let sprog = u16::from_le_bytes([page[0], page[1]]);
        let sstat = u16::from_le_bytes([page[2], page[3]]);
        let state = match (sstat & 0x07) as u8 {
            0 => SanitizeState::Never,
            1 => SanitizeState::Completed,
            2 => SanitizeState::InProgress,
            3 => SanitizeState::Failed,
            4 => SanitizeState::CompletedWithoutDeallocate,
            state => return Err(UnknownSanitizeState { state, sstat }),
        };
        Ok(SanitizeStatus {
            state,
            progress: f64::from(sprog) / 65536.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Identify Namespace structure with these NLBAF, FLBAS and DPS bytes, every other byte
    /// 0xFF so that a field read from the wrong offset shows.
    fn namespace(nlbaf: u8, flbas: u8, dps: u8) -> IdentifyData {
        let mut data = [0xFFu8; IDENTIFY_BYTES];
        data[25] = nlbaf;
        data[26] = flbas;
        data[29] = dps;
        data
    }

    #[test]
    fn identify_namespace_fields_are_read_from_their_bytes() {
        let parsed = NamespaceFormat::parse(&namespace(3, 0x12, 0x0A));
        assert_eq!(
            parsed,
            NamespaceFormat {
                nlbaf: 3,
                flbas: 0x12,
                dps: 0x0A
            }
        );
        assert_eq!(parsed.lba_format(), 2);
    }

    #[test]
    fn format_cdw10_keeps_the_format_and_protection_and_erases_user_data() {
        let cases: [(u8, u8, u8, u8, u32); 6] = [
            // nlbaf, flbas, dps, the LBA format in use, cdw10
            (1, 0x00, 0x00, 0, 0x0200),
            (4, 0x01, 0x00, 1, 0x0201),
            // Extended metadata (MSET), protection type 1, in the first bytes (PIL).
            (4, 0x13, 0x09, 3, 0x0200 | 0x3 | 0x10 | (1 << 5) | (1 << 8)),
            // Type 3 protection in the last bytes.
            (4, 0x04, 0x03, 4, 0x0200 | 0x4 | (3 << 5)),
            // More than 16 formats: FLBAS bits 6:5 are the index's high bits (0x25 = 37).
            (40, 0x45, 0x00, 0x25, 0x0200 | 0x5 | (2 << 12)),
            // 16 formats or fewer: bits 6:5 are reserved and ignored.
            (16, 0x65, 0x00, 5, 0x0205),
        ];
        for (nlbaf, flbas, dps, lbaf, cdw10) in cases {
            let f = NamespaceFormat::parse(&namespace(nlbaf, flbas, dps));
            assert_eq!(f.lba_format(), lbaf, "{f:?}");
            assert_eq!(
                format_cdw10(&f, SecureErase::UserData),
                cdw10,
                "{f:?}: {:#06x}",
                format_cdw10(&f, SecureErase::UserData)
            );
        }
    }

    /// An Identify Controller structure with this SANICAP, every other byte 0xFF.
    fn controller(sanicap: u32) -> IdentifyData {
        let mut data = [0xFFu8; IDENTIFY_BYTES];
        data[328..332].copy_from_slice(&sanicap.to_le_bytes());
        data
    }

    #[test]
    fn sanicap_chooses_block_erase_then_crypto_erase() {
        let cases = [
            (0b111, Some(SanitizeAction::BlockErase)),
            (0b010, Some(SanitizeAction::BlockErase)),
            (0b101, Some(SanitizeAction::CryptoErase)),
            (0b001, Some(SanitizeAction::CryptoErase)),
            (0b100, None),
            (0x6000_0000, None),
        ];
        for (sanicap, chosen) in cases {
            let caps = SanitizeCaps::parse(&controller(sanicap));
            assert_eq!(caps.choose(), chosen, "{sanicap:#x}: {caps:?}");
        }
        assert_eq!(
            SanitizeCaps::parse(&controller(0b100)),
            SanitizeCaps {
                crypto_erase: false,
                block_erase: false,
                overwrite: true
            }
        );
    }

    #[test]
    fn sanitize_cdw10_is_the_action_alone() {
        assert_eq!(sanitize_cdw10(SanitizeAction::BlockErase), 0x0000_0002);
        assert_eq!(sanitize_cdw10(SanitizeAction::CryptoErase), 0x0000_0004);
    }

    #[test]
    fn sanitize_status_log_state_and_progress() {
        let page = |sprog: u16, sstat: u16| {
            let mut p = [0xEEu8; LOG_BYTES];
            p[0..2].copy_from_slice(&sprog.to_le_bytes());
            p[2..4].copy_from_slice(&sstat.to_le_bytes());
            p
        };
        let cases = [
            (0, 0x0000, SanitizeState::Never, 0.0),
            (0xFFFF, 0x0101, SanitizeState::Completed, 65535.0 / 65536.0),
            (0x4000, 0x0002, SanitizeState::InProgress, 0.25),
            (0x8000, 0x00FA, SanitizeState::InProgress, 0.5),
            (0, 0x0003, SanitizeState::Failed, 0.0),
            (0, 0x0004, SanitizeState::CompletedWithoutDeallocate, 0.0),
        ];
        for (sprog, sstat, state, progress) in cases {
            let got = SanitizeStatus::parse(&page(sprog, sstat)).unwrap();
            assert_eq!(got, SanitizeStatus { state, progress }, "{sstat:#x}");
        }
        assert_eq!(
            SanitizeStatus::parse(&page(0, 0x0105)),
            Err(UnknownSanitizeState {
                state: 5,
                sstat: 0x0105
            })
        );
    }
}
