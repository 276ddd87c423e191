//! What changed on the drive between two readings of its health log (before and after a
//! phase): bytes the host wrote and read, bytes written to the media and so the write
//! amplification (media bytes / host bytes, from the OCP extended log), media errors, the
//! temperature, and thermal throttling: whether the drive throttled in between.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ata::{self, AtaSmart};
use super::nvme::{DATA_UNIT_BYTES, NvmeSmart};
use super::ocp::OcpSmart;
use super::read::HealthLog;

/// Bytes per LBA in the ATA total LBAs written and read attributes.
const ATA_LBA_BYTES: u64 = 512;

/// The difference between two readings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HealthDelta {
    /// Bytes the host wrote (NVMe: data units × 512,000, so a granularity of 512,000 bytes;
    /// ATA: attribute 241 × 512), when the log counts them.
    pub host_bytes_written: Option<u64>,
    /// Bytes the host read (NVMe data units; ATA attribute 242).
    pub host_bytes_read: Option<u64>,
    /// Bytes written to the media (OCP extended log only).
    pub media_bytes_written: Option<u64>,
    /// Media bytes written / host bytes written, when both are known and the host wrote.
    pub write_amplification: Option<f64>,
    /// The higher temperature of the two readings, °C.
    pub temperature_max_c: Option<f64>,
    /// New media errors (NVMe media and data integrity errors; ATA reallocated sectors).
    pub media_errors: u64,
    /// Endurance used in between, percentage points (NVMe).
    pub percentage_used: u64,
    /// Entries into thermal management temperature 1 and 2 (NVMe).
    pub thermal_transitions: u64,
    /// Seconds spent in thermal management temperature 1 and 2 (NVMe).
    pub thermal_seconds: u64,
    /// Minutes above the warning composite temperature (NVMe).
    pub warning_temperature_minutes: u64,
    /// Thermal throttling events the OCP extended log counted.
    pub ocp_throttling_events: Option<u64>,
    /// The drive throttled in between: any of the throttle figures above moved, or the OCP
    /// log's throttling status was not 0 at the second reading. ATA logs have no such
    /// counter: always false for them.
    pub throttled: bool,
}

/// Why two readings cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeltaError {
    #[error("the health log changed interface between the readings")]
    Interface,
}

impl HealthDelta {
    /// From `before` to `after`. Counters that went backwards (a reset) count as 0.
    pub fn between(before: &HealthLog, after: &HealthLog) -> Result<HealthDelta, DeltaError> {
        let temperature_max_c = match (before.temperature_c(), after.temperature_c()) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let mut d = match (before, after) {
            (HealthLog::Nvme { smart: b, ocp: bo }, HealthLog::Nvme { smart: a, ocp: ao }) => {
                nvme(b, a, bo.as_ref().zip(ao.as_ref()))
            }
            (HealthLog::Ata { smart: b }, HealthLog::Ata { smart: a }) => ata_delta(b, a),
            _ => return Err(DeltaError::Interface),
        };
        d.temperature_max_c = temperature_max_c;
        d.write_amplification = match (d.media_bytes_written, d.host_bytes_written) {
            (Some(media), Some(host)) if host > 0 => Some(media as f64 / host as f64),
            _ => None,
        };
        Ok(d)
    }
}

fn nvme(b: &NvmeSmart, a: &NvmeSmart, ocp: Option<(&OcpSmart, &OcpSmart)>) -> HealthDelta {
    let units =
        |after: u64, before: u64| after.saturating_sub(before).saturating_mul(DATA_UNIT_BYTES);
    let sum2 = |after: [u32; 2], before: [u32; 2]| {
        (0..2)
            .map(|i| u64::from(after[i].saturating_sub(before[i])))
            .sum::<u64>()
    };
    let thermal_transitions = sum2(a.thermal_transitions, b.thermal_transitions);
    let thermal_seconds = sum2(a.thermal_seconds, b.thermal_seconds);
    let warning_temperature_minutes = u64::from(
        a.warning_temperature_minutes
            .saturating_sub(b.warning_temperature_minutes),
    );
    let ocp_throttling_events = ocp.map(|(b, a)| {
        u64::from(
            a.thermal_throttling_events
                .wrapping_sub(b.thermal_throttling_events),
        )
    });
    let ocp_throttling = ocp.is_some_and(|(_, a)| a.throttling_status != 0);
    HealthDelta {
        host_bytes_written: Some(units(a.data_units_written, b.data_units_written)),
        host_bytes_read: Some(units(a.data_units_read, b.data_units_read)),
        media_bytes_written: ocp
            .map(|(b, a)| a.media_bytes_written.saturating_sub(b.media_bytes_written)),
        write_amplification: None,
        temperature_max_c: None,
        media_errors: a.media_errors.saturating_sub(b.media_errors),
        percentage_used: u64::from(a.percentage_used.saturating_sub(b.percentage_used)),
        thermal_transitions,
        thermal_seconds,
        warning_temperature_minutes,
        throttled: thermal_transitions > 0
            || thermal_seconds > 0
            || warning_temperature_minutes > 0
            || ocp_throttling_events.is_some_and(|n| n > 0)
            || ocp_throttling,
        ocp_throttling_events,
    }
}

fn ata_delta(b: &AtaSmart, a: &AtaSmart) -> HealthDelta {
    let lbas = |id| {
        Some(
            a.raw(id)?
                .saturating_sub(b.raw(id)?)
                .saturating_mul(ATA_LBA_BYTES),
        )
    };
    let reallocated = |s: &AtaSmart| s.raw(ata::REALLOCATED_SECTORS).unwrap_or(0);
    HealthDelta {
        host_bytes_written: lbas(ata::TOTAL_LBAS_WRITTEN),
        host_bytes_read: lbas(ata::TOTAL_LBAS_READ),
        media_bytes_written: None,
        write_amplification: None,
        temperature_max_c: None,
        media_errors: reallocated(a).saturating_sub(reallocated(b)),
        percentage_used: 0,
        thermal_transitions: 0,
        thermal_seconds: 0,
        warning_temperature_minutes: 0,
        ocp_throttling_events: None,
        throttled: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smart(units_written: u64, transitions: [u32; 2], kelvin: u16) -> NvmeSmart {
        NvmeSmart {
            critical_warning: 0,
            temperature_kelvin: kelvin,
            available_spare_pct: 100,
            spare_threshold_pct: 10,
            percentage_used: 1,
            data_units_read: 10,
            data_units_written: units_written,
            host_read_commands: 0,
            host_write_commands: 0,
            controller_busy_minutes: 0,
            power_cycles: 1,
            power_on_hours: 1,
            unsafe_shutdowns: 0,
            media_errors: 0,
            error_log_entries: 0,
            warning_temperature_minutes: 0,
            critical_temperature_minutes: 0,
            sensors_kelvin: vec![],
            thermal_transitions: transitions,
            thermal_seconds: [0, 0],
        }
    }

    fn ocp(media: u64, events: u8) -> OcpSmart {
        OcpSmart {
            media_bytes_written: media,
            media_bytes_read: 0,
            bad_user_nand_blocks: 0,
            bad_system_nand_blocks: 0,
            uncorrectable_read_errors: 0,
            thermal_throttling_events: events,
            throttling_status: 0,
            log_page_version: 3,
        }
    }

    #[test]
    fn write_amplification_is_media_over_host_bytes() {
        let before = HealthLog::Nvme {
            smart: smart(1_000, [0, 0], 310),
            ocp: Some(ocp(1 << 30, 255)),
        };
        let after = HealthLog::Nvme {
            smart: smart(3_000, [0, 0], 320),
            ocp: Some(ocp((1 << 30) + 2_048_000_000, 255)),
        };
        let d = HealthDelta::between(&before, &after).unwrap();
        assert_eq!(d.host_bytes_written, Some(2_000 * 512_000));
        assert_eq!(d.host_bytes_read, Some(0));
        assert_eq!(d.media_bytes_written, Some(2_048_000_000));
        assert_eq!(d.write_amplification, Some(2.0));
        assert!((d.temperature_max_c.unwrap() - 46.85).abs() < 1e-9);
        assert!(!d.throttled);
    }

    #[test]
    fn throttle_counters_that_moved_mark_the_interval() {
        let before = HealthLog::Nvme {
            smart: smart(1, [4, 0], 330),
            ocp: None,
        };
        let after = HealthLog::Nvme {
            smart: smart(1, [5, 2], 330),
            ocp: None,
        };
        let d = HealthDelta::between(&before, &after).unwrap();
        assert_eq!(d.thermal_transitions, 3);
        assert!(d.throttled);
        assert_eq!(d.media_bytes_written, None);
        assert_eq!(d.write_amplification, None, "no OCP log: no media bytes");
        let wrapped = HealthLog::Nvme {
            smart: smart(1, [4, 0], 330),
            ocp: Some(ocp(0, 255)),
        };
        let next = HealthLog::Nvme {
            smart: smart(1, [4, 0], 330),
            ocp: Some(ocp(0, 1)),
        };
        let d = HealthDelta::between(&wrapped, &next).unwrap();
        assert_eq!(d.ocp_throttling_events, Some(2), "the 8-bit count wraps");
        assert!(d.throttled);
    }

    #[test]
    fn ata_bytes_from_lbas_and_mixed_interfaces_refused() {
        let table = ata::written_table;
        let b = HealthLog::Ata { smart: table(100) };
        let a = HealthLog::Ata { smart: table(300) };
        let d = HealthDelta::between(&b, &a).unwrap();
        assert_eq!(d.host_bytes_written, Some(200 * 512));
        assert_eq!(d.host_bytes_read, None);
        assert!(!d.throttled);
        let n = HealthLog::Nvme {
            smart: smart(1, [0, 0], 300),
            ocp: None,
        };
        assert_eq!(HealthDelta::between(&b, &n), Err(DeltaError::Interface));
    }
}
