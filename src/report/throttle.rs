//! Which report intervals the drive throttled in, from the series rows' marks: per phase (per
//! phase and host in a merged run) how many intervals were read and which throttled, the
//! seconds they cover, and a run's count for compare. An interval is one tick of the sampler:
//! every instance's row of it shares its end (`elapsed_s`) and its mark.

use serde::Serialize;

use crate::results::phase::{PhaseReport, SeriesRow};
use crate::results::run::RunReport;
use drivebench_system::health::interval::ThrottleMark;

/// One phase's intervals (one host's, in a merged run) as the health log marked them.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseIntervals {
    /// The phase's name, with the host's label in a merged run: "sample (db1)".
    pub label: String,
    /// Intervals of the phase.
    pub total: usize,
    /// Intervals marked (read at both ends).
    pub read: usize,
    /// The throttled intervals' spans, seconds since the clock started (start, end), in order.
    pub throttled: Vec<(f64, f64)>,
}

/// A run's intervals marked, for compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ThrottleCount {
    /// Intervals marked throttled.
    pub throttled_intervals: usize,
    /// Intervals marked at all (read at both ends).
    pub read_intervals: usize,
}

impl PhaseIntervals {
    /// "The drive throttled (thermal) in 3 of 120 intervals of sample: 610-640 s.", when it did.
    pub fn line(&self) -> Option<String> {
        if self.throttled.is_empty() {
            return None;
        }
        let unread = match self.total - self.read {
            0 => String::new(),
            n => format!(" ({n} not read)"),
        };
        let spans: Vec<String> = (joined(&self.throttled).iter())
            .map(|(a, b)| format!("{a:.0}-{b:.0} s"))
            .collect();
        Some(format!(
            "The drive throttled (thermal) in {} of {} intervals{unread} of {}: {}.",
            self.throttled.len(),
            self.total,
            self.label,
            spans.join(", ")
        ))
    }
}

/// The intervals of every phase (of every host's phase in a merged run) where any was read.
pub fn phases(r: &RunReport) -> Vec<PhaseIntervals> {
    let merged = r.merge.is_some();
    (r.phases.iter())
        .flat_map(|p| of_phase(p, merged))
        .filter(|p| p.read > 0)
        .collect()
}

/// A run's count, when any interval was read.
pub fn count(r: &RunReport) -> Option<ThrottleCount> {
    let phases = phases(r);
    (!phases.is_empty()).then(|| ThrottleCount {
        throttled_intervals: phases.iter().map(|p| p.throttled.len()).sum(),
        read_intervals: phases.iter().map(|p| p.read).sum(),
    })
}

/// The spans of the run's throttled intervals, consecutive ones joined, for shading a chart.
pub fn spans(r: &RunReport) -> Vec<(f64, f64)> {
    (phases(r).iter())
        .flat_map(|p| joined(&p.throttled))
        .collect()
}

/// One phase's intervals, per host in a merged run (its rows' instances are `HOST/INSTANCE`).
fn of_phase(p: &PhaseReport, merged: bool) -> Vec<PhaseIntervals> {
    let host = |row: &SeriesRow| -> Option<String> {
        merged.then(|| {
            row.instance
                .split('/')
                .next()
                .unwrap_or_default()
                .to_string()
        })
    };
    let mut hosts: Vec<Option<String>> = Vec::new();
    for row in &p.series {
        let h = host(row);
        if !hosts.contains(&h) {
            hosts.push(h);
        }
    }
    (hosts.into_iter())
        .map(|h| {
            let rows = p.series.iter().filter(|row| host(row) == h);
            let label = match &h {
                Some(h) => format!("{} ({h})", p.name),
                None => p.name.clone(),
            };
            intervals(label, rows)
        })
        .collect()
}

/// The intervals of `rows` (one phase, one host), each counted once however many instances
/// it has rows for.
fn intervals<'a>(label: String, rows: impl Iterator<Item = &'a SeriesRow>) -> PhaseIntervals {
    let mut seen: Vec<(u64, ThrottleMark, (f64, f64))> = Vec::new();
    for row in rows {
        let key = row.elapsed_s.to_bits();
        if !seen.iter().any(|(k, ..)| *k == key) {
            let span = (row.elapsed_s - row.interval_s, row.elapsed_s);
            seen.push((key, row.drive_throttle, span));
        }
    }
    PhaseIntervals {
        label,
        total: seen.len(),
        read: seen.iter().filter(|(_, m, _)| !m.is_not_read()).count(),
        throttled: (seen.iter())
            .filter(|(_, m, _)| *m == ThrottleMark::Throttled)
            .map(|(.., span)| *span)
            .collect(),
    }
}

/// Spans that touch (an interval's start within a millisecond of the previous one's end, as
/// consecutive intervals' do) joined into one.
fn joined(spans: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for &(a, b) in spans {
        match out.last_mut() {
            Some(last) if (a - last.1).abs() < 1e-3 => last.1 = b,
            _ => out.push((a, b)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ThrottleMark::{Clear, NotRead, Throttled};

    fn row(instance: &str, elapsed_s: f64, mark: ThrottleMark) -> SeriesRow {
        let summary = crate::metrics::summary::Summary::from_recorded(
            &crate::metrics::Recorded::new(1),
            &["tx"],
            10.0,
        );
        SeriesRow {
            drive_throttle: mark,
            ..SeriesRow::from_summary("sample", instance, elapsed_s, 4, &summary)
        }
    }

    #[test]
    fn an_interval_is_counted_once_over_its_instances_and_touching_ones_join() {
        let marks = [Clear, Throttled, Throttled, NotRead, Throttled, Clear];
        let rows: Vec<SeriesRow> = (marks.iter().enumerate())
            .flat_map(|(i, m)| {
                let at = 610.0 + 10.0 * i as f64;
                [row("a", at, *m), row("b", at, *m)]
            })
            .collect();
        let p = intervals("sample".into(), rows.iter());
        assert_eq!((p.total, p.read), (6, 5));
        assert_eq!(
            p.throttled,
            [(610.0, 620.0), (620.0, 630.0), (640.0, 650.0)]
        );
        assert_eq!(
            p.line().as_deref(),
            Some(
                "The drive throttled (thermal) in 3 of 6 intervals (1 not read) of sample: 610-630 s, 640-650 s."
            )
        );
        let clear = intervals("sample".into(), rows[..2].iter());
        assert_eq!((clear.total, clear.read, clear.line()), (1, 1, None));
    }

    /// The committed compare fixture: a run with a precondition and a sample phase.
    fn fixture() -> RunReport {
        let text = include_str!("../../tests/data/compare/a.json");
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_merged_phase_counts_each_host_apart() {
        let mut p = fixture().phases.remove(0);
        p.series = vec![
            row("db1/main", 10.0, Throttled),
            row("db2/main", 10.0, Clear),
            row("db1/main", 20.0, Clear),
            row("db2/main", 20.0, NotRead),
        ];
        let name = p.name.clone();
        let by_host = of_phase(&p, true);
        let got: Vec<(String, usize, usize, usize)> = (by_host.into_iter())
            .map(|h| (h.label, h.total, h.read, h.throttled.len()))
            .collect();
        assert_eq!(
            got,
            [
                (format!("{name} (db1)"), 2, 2, 1),
                (format!("{name} (db2)"), 2, 1, 0)
            ]
        );
        let one = of_phase(&p, false);
        assert_eq!((one.len(), one[0].total, one[0].throttled.len()), (1, 2, 1));
    }

    #[test]
    fn a_run_counts_only_where_intervals_were_read() {
        let mut r = fixture();
        assert_eq!(count(&r), None, "no marks: nothing read");
        assert!(phases(&r).is_empty() && spans(&r).is_empty());
        let last = r.phases.len() - 1;
        let rows = &mut r.phases[last].series;
        assert!(rows.len() >= 2, "the fixture has intervals");
        rows[0].drive_throttle = Throttled;
        rows[1].drive_throttle = Clear;
        let want = ThrottleCount {
            throttled_intervals: 1,
            read_intervals: 2,
        };
        assert_eq!(count(&r), Some(want));
        let end = r.phases[last].series[0].elapsed_s;
        assert_eq!(spans(&r).len(), 1);
        assert!((spans(&r)[0].1 - end).abs() < 1e-9);
    }
}
