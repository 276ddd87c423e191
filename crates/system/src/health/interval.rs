//! Whether the drive throttled in each report interval, decided from readings of its health
//! log at the intervals' boundaries: an interval is marked from the reading at its start and
//! the one at its end, compared with [`HealthDelta::between`]. A reading that failed leaves
//! both intervals it bounds unmarked (unknown), never failed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::delta::HealthDelta;
use super::read::HealthLog;

/// What the health log says of one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ThrottleMark {
    /// No reading at one of its boundaries: the disk has no log, or a read failed.
    #[default]
    NotRead,
    /// Read at both boundaries; the throttle figures did not move.
    Clear,
    /// Read at both boundaries; the drive throttled in between.
    Throttled,
}

impl ThrottleMark {
    /// For serde's `skip_serializing_if`: a row whose interval was not read has no mark.
    pub fn is_not_read(&self) -> bool {
        *self == ThrottleMark::NotRead
    }

    /// series.csv's cell: empty when not read, `no` or `yes`.
    pub fn csv_cell(self) -> &'static str {
        match self {
            ThrottleMark::NotRead => "",
            ThrottleMark::Clear => "no",
            ThrottleMark::Throttled => "yes",
        }
    }
}

/// The mark of the interval between two readings (`None`: that reading failed).
pub fn mark(start: Option<&HealthLog>, end: Option<&HealthLog>) -> ThrottleMark {
    match (start, end) {
        (Some(b), Some(a)) => match HealthDelta::between(b, a) {
            Ok(d) if d.throttled => ThrottleMark::Throttled,
            Ok(_) => ThrottleMark::Clear,
            Err(_) => ThrottleMark::NotRead,
        },
        _ => ThrottleMark::NotRead,
    }
}

/// The readings of a sequence of intervals as they come: each one closes an interval and
/// opens the next.
#[derive(Debug, Clone)]
pub struct IntervalMarks {
    /// The reading at the open interval's start (`None`: it failed).
    last: Option<HealthLog>,
}

impl IntervalMarks {
    /// Intervals from now, `start` the reading taken now.
    pub fn new(start: Option<HealthLog>) -> IntervalMarks {
        IntervalMarks { last: start }
    }

    /// The reading at the open interval's end: its mark; the next interval starts from it.
    pub fn close(&mut self, end: Option<HealthLog>) -> ThrottleMark {
        let m = mark(self.last.as_ref(), end.as_ref());
        self.last = end;
        m
    }

    /// The reading at the open interval's start, when it succeeded.
    pub fn last(&self) -> Option<&HealthLog> {
        self.last.as_ref()
    }

    /// A reading taken between intervals (as a phase closes): the next interval starts from
    /// it, no interval is marked.
    pub fn restart(&mut self, now: Option<HealthLog>) {
        self.last = now;
    }
}

/// The marks of the intervals between consecutive readings, `readings[0]` the first's start.
pub fn marks(readings: &[Option<HealthLog>]) -> Vec<ThrottleMark> {
    let Some((first, rest)) = readings.split_first() else {
        return Vec::new();
    };
    let mut m = IntervalMarks::new(first.clone());
    rest.iter().map(|r| m.close(r.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::ata;
    use crate::health::nvme::NvmeSmart;
    use crate::health::ocp::OcpSmart;

    /// An NVMe SMART page (log 0x02) laid out as the NVMe Base Specification gives it: data
    /// units written at 48-63, warning composite temperature minutes at 192-195, thermal
    /// management temperature 1 and 2 transition counts at 216-223 and their seconds at
    /// 224-231.
    fn smart_page(written: u128, warning_min: u32, tmt: [u32; 2], tmt_s: [u32; 2]) -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[1..3].copy_from_slice(&318u16.to_le_bytes());
        p[48..64].copy_from_slice(&written.to_le_bytes());
        p[192..196].copy_from_slice(&warning_min.to_le_bytes());
        p[216..220].copy_from_slice(&tmt[0].to_le_bytes());
        p[220..224].copy_from_slice(&tmt[1].to_le_bytes());
        p[224..228].copy_from_slice(&tmt_s[0].to_le_bytes());
        p[228..232].copy_from_slice(&tmt_s[1].to_le_bytes());
        p
    }

    /// An OCP extended SMART page (log 0xC0): thermal throttling events at byte 96, the
    /// throttling status at 97, the log GUID's bytes at 496-511 as the specification lists
    /// them, lowest first.
    fn ocp_page(events: u8, status: u8) -> Vec<u8> {
        let mut p = vec![0u8; 512];
        p[96] = events;
        p[97] = status;
        p[496..512].copy_from_slice(&[
            0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4, 0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14,
            0xD5, 0xAF,
        ]);
        p
    }

    fn nvme(page: &[u8]) -> Option<HealthLog> {
        Some(HealthLog::Nvme {
            smart: NvmeSmart::parse(page).unwrap(),
            ocp: None,
        })
    }

    fn nvme_ocp(page: &[u8], ocp: &[u8]) -> Option<HealthLog> {
        Some(HealthLog::Nvme {
            smart: NvmeSmart::parse(page).unwrap(),
            ocp: Some(OcpSmart::parse(ocp).unwrap()),
        })
    }

    use ThrottleMark::{Clear, NotRead, Throttled};

    #[test]
    fn each_throttle_figure_that_moves_marks_its_interval_only() {
        let readings = [
            nvme(&smart_page(100, 0, [0, 0], [0, 0])),
            // The host wrote: not a throttle.
            nvme(&smart_page(200, 0, [0, 0], [0, 0])),
            // An entry into thermal management temperature 1.
            nvme(&smart_page(300, 0, [1, 0], [0, 0])),
            nvme(&smart_page(400, 0, [1, 0], [0, 0])),
            // Seconds in thermal management temperature 2.
            nvme(&smart_page(500, 0, [1, 0], [0, 7])),
            // A minute above the warning composite temperature.
            nvme(&smart_page(600, 1, [1, 0], [0, 7])),
            nvme(&smart_page(700, 1, [1, 0], [0, 7])),
        ];
        assert_eq!(
            marks(&readings),
            [Clear, Throttled, Clear, Throttled, Throttled, Clear]
        );
    }

    #[test]
    fn a_failed_reading_leaves_both_intervals_it_bounds_unmarked() {
        let hot = smart_page(100, 0, [5, 0], [0, 0]);
        let readings = [
            nvme(&smart_page(100, 0, [0, 0], [0, 0])),
            None,
            // Moved since the first reading, but which interval throttled is unknown.
            nvme(&hot),
            nvme(&hot),
        ];
        assert_eq!(marks(&readings), [NotRead, NotRead, Clear]);
        assert_eq!(marks(&readings[..1]), []);
        assert_eq!(marks(&[]), []);
    }

    #[test]
    fn the_ocp_log_marks_by_its_event_count_and_its_status() {
        let smart = smart_page(100, 0, [0, 0], [0, 0]);
        let readings = [
            nvme_ocp(&smart, &ocp_page(255, 0)),
            // The 8-bit count wraps: one event.
            nvme_ocp(&smart, &ocp_page(0, 0)),
            nvme_ocp(&smart, &ocp_page(0, 0)),
            // Throttling now, no new event counted.
            nvme_ocp(&smart, &ocp_page(0, 1)),
        ];
        assert_eq!(marks(&readings), [Throttled, Clear, Throttled]);
    }

    #[test]
    fn a_change_of_interface_or_an_ata_log_is_never_throttled() {
        let ata = |written: u64| {
            Some(HealthLog::Ata {
                smart: ata::written_table(written),
            })
        };
        let readings = [ata(1), ata(2), nvme(&smart_page(1, 0, [0, 0], [0, 0]))];
        assert_eq!(marks(&readings), [Clear, NotRead]);
    }

    #[test]
    fn a_reading_between_intervals_restarts_them() {
        let mut m = IntervalMarks::new(nvme(&smart_page(1, 0, [0, 0], [0, 0])));
        // Throttled between the last interval and the phase's closing reading: counted in
        // the phase, not in the next interval.
        m.restart(nvme(&smart_page(1, 0, [3, 0], [0, 0])));
        assert_eq!(m.close(nvme(&smart_page(1, 0, [3, 0], [0, 0]))), Clear);
        m.restart(None);
        assert_eq!(m.last(), None);
        assert_eq!(m.close(nvme(&smart_page(1, 0, [3, 0], [0, 0]))), NotRead);
        assert_eq!(m.last(), nvme(&smart_page(1, 0, [3, 0], [0, 0])).as_ref());
    }

    #[test]
    fn a_mark_serializes_compactly_and_not_read_is_its_default() {
        assert_eq!(serde_json::to_string(&Throttled).unwrap(), "\"throttled\"");
        assert_eq!(serde_json::to_string(&Clear).unwrap(), "\"clear\"");
        assert_eq!(ThrottleMark::default(), NotRead);
        assert!(NotRead.is_not_read() && !Clear.is_not_read());
        assert_eq!(
            [NotRead, Clear, Throttled].map(ThrottleMark::csv_cell),
            ["", "no", "yes"]
        );
    }
}
