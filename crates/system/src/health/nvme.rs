//! The NVMe SMART / Health Information log page (log id 0x02): 512 bytes, every field
//! little-endian, at the offsets of the NVMe Base Specification's layout.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::page::{self, Page, PageError};

/// The log's identifier in Get Log Page.
pub const LOG_ID: u8 = 0x02;

/// Bytes in one data unit: 1,000 units of 512 bytes.
pub const DATA_UNIT_BYTES: u64 = 512_000;

/// Kelvin at 0 °C, for the temperatures the log gives in kelvin.
const KELVIN_AT_ZERO_C: f64 = 273.15;

/// The SMART / Health Information log, as the drive counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NvmeSmart {
    /// Byte 0: bit 0 spare below threshold, 1 temperature, 2 reliability degraded, 3 read
    /// only, 4 volatile backup failed, 5 persistent memory read only.
    pub critical_warning: u8,
    /// Bytes 1-2: the composite temperature, kelvin.
    pub temperature_kelvin: u16,
    /// Byte 3: spare capacity left, percent.
    pub available_spare_pct: u8,
    /// Byte 4: the spare percentage at which the drive warns.
    pub spare_threshold_pct: u8,
    /// Byte 5: the vendor's estimate of the endurance used, percent (may pass 100).
    pub percentage_used: u8,
    /// Bytes 32-47: data read by the host, in units of 512,000 bytes (rounded up).
    pub data_units_read: u64,
    /// Bytes 48-63: data written by the host, in units of 512,000 bytes (rounded up).
    pub data_units_written: u64,
    /// Bytes 64-79: read commands completed.
    pub host_read_commands: u64,
    /// Bytes 80-95: write commands completed.
    pub host_write_commands: u64,
    /// Bytes 96-111: minutes the controller was busy with I/O commands.
    pub controller_busy_minutes: u64,
    /// Bytes 112-127.
    pub power_cycles: u64,
    /// Bytes 128-143.
    pub power_on_hours: u64,
    /// Bytes 144-159.
    pub unsafe_shutdowns: u64,
    /// Bytes 160-175: unrecovered data integrity errors.
    pub media_errors: u64,
    /// Bytes 176-191: error information log entries over the drive's life.
    pub error_log_entries: u64,
    /// Bytes 192-195: minutes above the warning composite temperature.
    pub warning_temperature_minutes: u32,
    /// Bytes 196-199: minutes above the critical composite temperature.
    pub critical_temperature_minutes: u32,
    /// Bytes 200-215: temperature sensors 1-8, kelvin; the ones the drive reports (not 0).
    pub sensors_kelvin: Vec<u16>,
    /// Bytes 216-223: times the drive entered thermal management temperature 1 (light
    /// throttling) and 2 (heavy throttling).
    pub thermal_transitions: [u32; 2],
    /// Bytes 224-231: seconds spent in thermal management temperature 1 and 2.
    pub thermal_seconds: [u32; 2],
}

impl NvmeSmart {
    /// Parse a whole page.
    pub fn parse(bytes: &[u8]) -> Result<NvmeSmart, PageError> {
        let p = page::whole("NVMe SMART log", bytes)?;
        Ok(NvmeSmart {
            critical_warning: p[0],
            temperature_kelvin: page::u16_at(p, 1),
            available_spare_pct: p[3],
            spare_threshold_pct: p[4],
            percentage_used: p[5],
            data_units_read: page::counter_at(p, 32),
            data_units_written: page::counter_at(p, 48),
            host_read_commands: page::counter_at(p, 64),
            host_write_commands: page::counter_at(p, 80),
            controller_busy_minutes: page::counter_at(p, 96),
            power_cycles: page::counter_at(p, 112),
            power_on_hours: page::counter_at(p, 128),
            unsafe_shutdowns: page::counter_at(p, 144),
            media_errors: page::counter_at(p, 160),
            error_log_entries: page::counter_at(p, 176),
            warning_temperature_minutes: page::u32_at(p, 192),
            critical_temperature_minutes: page::u32_at(p, 196),
            sensors_kelvin: sensors(p),
            thermal_transitions: [page::u32_at(p, 216), page::u32_at(p, 220)],
            thermal_seconds: [page::u32_at(p, 224), page::u32_at(p, 228)],
        })
    }

    /// The composite temperature, °C.
    pub fn temperature_c(&self) -> f64 {
        f64::from(self.temperature_kelvin) - KELVIN_AT_ZERO_C
    }
}

fn sensors(p: &Page) -> Vec<u16> {
    (0..8)
        .map(|i| page::u16_at(p, 200 + 2 * i))
        .filter(|&k| k != 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page with every field set by hand at the specification's offsets.
    fn page_bytes() -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[0] = 0b0000_0010;
        p[1..3].copy_from_slice(&318u16.to_le_bytes());
        p[3] = 97;
        p[4] = 10;
        p[5] = 3;
        let counters: [(usize, u128); 10] = [
            (32, 1_000_001),
            (48, 2_000_002),
            (64, 3_003),
            (80, 4_004),
            (96, 55),
            (112, 66),
            (128, 7_777),
            (144, 8),
            (160, 9),
            (176, 10),
        ];
        for (at, v) in counters {
            p[at..at + 16].copy_from_slice(&v.to_le_bytes());
        }
        p[192..196].copy_from_slice(&11u32.to_le_bytes());
        p[196..200].copy_from_slice(&12u32.to_le_bytes());
        p[200..202].copy_from_slice(&320u16.to_le_bytes());
        p[204..206].copy_from_slice(&330u16.to_le_bytes());
        p[216..220].copy_from_slice(&13u32.to_le_bytes());
        p[220..224].copy_from_slice(&14u32.to_le_bytes());
        p[224..228].copy_from_slice(&150u32.to_le_bytes());
        p[228..232].copy_from_slice(&16u32.to_le_bytes());
        p
    }

    #[test]
    fn every_field_is_read_at_its_offset() {
        let s = NvmeSmart::parse(&page_bytes()).unwrap();
        let want = NvmeSmart {
            critical_warning: 2,
            temperature_kelvin: 318,
            available_spare_pct: 97,
            spare_threshold_pct: 10,
            percentage_used: 3,
            data_units_read: 1_000_001,
            data_units_written: 2_000_002,
            host_read_commands: 3_003,
            host_write_commands: 4_004,
            controller_busy_minutes: 55,
            power_cycles: 66,
            power_on_hours: 7_777,
            unsafe_shutdowns: 8,
            media_errors: 9,
            error_log_entries: 10,
            warning_temperature_minutes: 11,
            critical_temperature_minutes: 12,
            sensors_kelvin: vec![320, 330],
            thermal_transitions: [13, 14],
            thermal_seconds: [150, 16],
        };
        assert_eq!(s, want);
        assert!((s.temperature_c() - 44.85).abs() < 1e-9);
    }

    #[test]
    fn a_short_page_is_refused() {
        let mut p = page_bytes();
        p.truncate(232);
        assert_eq!(
            NvmeSmart::parse(&p),
            Err(PageError::Length {
                log: "NVMe SMART log",
                len: 232
            })
        );
    }
}
