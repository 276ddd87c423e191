//! What the drive and the host did during a phase, as result.json keeps it: the phase's
//! telemetry summed, the figures per transaction derived from it, the bottleneck verdict with
//! the figures that decided it (a drive-bound one naming the I/O class the engines' own
//! figures point at), and the telemetry of every report interval.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Summary;
use drivebench_core::engine_io::{
    ClassJudgement, ClientWork, DriveAwait, EngineIoFigures, classify,
};
use drivebench_system::telemetry::{
    Bound, IntervalTelemetry, Totals, Verdict, VerdictInput, judge,
};

/// The telemetry of one report interval, at its end.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TelemetryRow {
    /// Seconds since the first phase started, as `series[].elapsed_s`.
    pub elapsed_s: f64,
    pub figures: IntervalTelemetry,
}

/// A phase's (or a curve point's) telemetry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct PhaseTelemetry {
    /// The whole phase: counts summed, shares over its length, peaks of memory.
    pub summary: IntervalTelemetry,
    /// Device figures per transaction and against TPS.
    pub derived: Derived,
    /// What held the phase back, and the figures that decided it; when the drive did, the I/O
    /// class it was waited on for.
    pub verdict: PhaseVerdict,
    /// One row per report interval (empty for a curve point).
    #[serde(default)]
    pub series: Vec<TelemetryRow>,
}

/// The drive's work per unit of database work. Absent where the target has no block device
/// or no transaction completed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Derived {
    pub tps: f64,
    /// Device reads and writes per second, all members.
    pub device_iops: Option<f64>,
    /// `device_iops` / `tps`.
    pub device_ios_per_tx: Option<f64>,
    pub device_read_bytes_per_tx: Option<f64>,
    pub device_written_bytes_per_tx: Option<f64>,
    /// Cache flushes per committed transaction (a durable commit costs at least one, unless
    /// commits are grouped or the engine does not flush).
    pub device_flushes_per_commit: Option<f64>,
}

impl PhaseTelemetry {
    /// Close a phase's telemetry: its intervals summed, `summary` of its transactions, and
    /// whether its clients were paced (open model), which makes late starts a figure.
    pub fn close(series: Vec<TelemetryRow>, summary: &Summary, paced: bool) -> Self {
        let mut totals = Totals::default();
        for row in &series {
            totals.add(&row.figures);
        }
        let mut t = Self::of_span(totals.summary(), summary, paced);
        t.series = series;
        t
    }

    /// The telemetry of one measured span without rows of its own (a curve point): `figures`
    /// sampled over it, `summary` of its transactions.
    pub fn of_span(figures: IntervalTelemetry, summary: &Summary, paced: bool) -> Self {
        let late_pct = (paced && summary.transactions > 0)
            .then(|| 100.0 * summary.late_wakes as f64 / summary.transactions as f64);
        PhaseTelemetry {
            verdict: PhaseVerdict::of(judge(&VerdictInput::from_telemetry(&figures, late_pct))),
            derived: Derived::of(&figures, summary),
            summary: figures,
            series: Vec::new(),
        }
    }

    /// "drive-bound", "host-CPU-bound", … with the reason, and for a drive-bound one the I/O
    /// class it names ("drive: log flushes: 1.02 per commit at 4.80 ms …").
    pub fn verdict_line(&self) -> String {
        let v = self.verdict.judged();
        let line = format!("{}: {}", bound_name(v.bound), v.reason);
        match self.verdict.class() {
            Some(c) => format!("{line}; drive: {}", c.text),
            None => line,
        }
    }

    /// The drive's await over the span, as the class judgement prices requests the engine
    /// does not time.
    pub fn drive_await(&self) -> DriveAwait {
        let dev = self.summary.device.as_ref().map(|d| &d.total);
        DriveAwait {
            read_ms: dev.and_then(|d| d.read_await_ms),
            write_ms: dev.and_then(|d| d.write_await_ms),
        }
    }

    /// Name the I/O class of a drive-bound span from the engines' figures over it (`work`:
    /// their clients' work); nothing for any other verdict, or when the figures name none.
    pub fn name_class(&mut self, figures: &EngineIoFigures, work: ClientWork) {
        if self.verdict.judged().bound != Bound::DriveBound {
            return;
        }
        if let Some(j) = classify(figures, work, self.drive_await()) {
            self.verdict = PhaseVerdict::drive_class(self.verdict.judged().clone(), j)
                .unwrap_or_else(|e| PhaseVerdict::of(e.verdict));
        }
    }
}

/// A verdict, and the I/O class a drive-bound one waited on. Only a drive verdict carries a
/// class: the fields are private and the constructors check. result.json keeps one object,
/// the verdict's own fields and `class` beside them (absent when none), so a reader that
/// does not know `class` reads the verdict as before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(try_from = "VerdictRecord", into = "VerdictRecord")]
pub struct PhaseVerdict {
    judged: Verdict,
    class: Option<ClassJudgement>,
}

/// A verdict as result.json writes it: [`Verdict`]'s fields, then the class of a drive-bound one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VerdictRecord {
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The I/O class the drive was waited on for, with the figures that decided it (only
    /// with `bound` "drive").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassJudgement>,
}

/// A class given to a verdict that is not drive-bound.
#[derive(Debug, Clone, thiserror::Error)]
#[error("an I/O class ({}) on a verdict that is not drive-bound", .class.class.label())]
pub struct NotDriveBound {
    pub verdict: Verdict,
    pub class: ClassJudgement,
}

impl PhaseVerdict {
    /// A verdict without a class.
    pub fn of(judged: Verdict) -> Self {
        PhaseVerdict {
            judged,
            class: None,
        }
    }

    /// A drive-bound verdict with the class it waited on; any other verdict is refused.
    pub fn drive_class(judged: Verdict, class: ClassJudgement) -> Result<Self, NotDriveBound> {
        if judged.bound != Bound::DriveBound {
            return Err(NotDriveBound {
                verdict: judged,
                class,
            });
        }
        Ok(PhaseVerdict {
            judged,
            class: Some(class),
        })
    }

    /// The bound, its reason and deciding figures.
    pub fn judged(&self) -> &Verdict {
        &self.judged
    }

    /// The I/O class of a drive-bound verdict, when the engines' figures named one.
    pub fn class(&self) -> Option<&ClassJudgement> {
        self.class.as_ref()
    }
}

impl TryFrom<VerdictRecord> for PhaseVerdict {
    type Error = NotDriveBound;
    fn try_from(r: VerdictRecord) -> Result<Self, NotDriveBound> {
        match r.class {
            None => Ok(PhaseVerdict::of(r.verdict)),
            Some(class) => PhaseVerdict::drive_class(r.verdict, class),
        }
    }
}

impl From<PhaseVerdict> for VerdictRecord {
    fn from(v: PhaseVerdict) -> Self {
        VerdictRecord {
            verdict: v.judged,
            class: v.class,
        }
    }
}

/// How a bound reads in the outputs.
pub fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::DriveBound => "drive-bound",
        Bound::HostCpuBound => "host-CPU-bound",
        Bound::ClientBound => "client-bound",
        Bound::Unclear => "unclear",
    }
}

impl Derived {
    fn of(t: &IntervalTelemetry, s: &Summary) -> Self {
        let dev = t.device.as_ref().map(|d| &d.total);
        let tx = s.transactions as f64;
        let per_tx = |n: u64| (tx > 0.0).then(|| n as f64 / tx);
        let iops = dev.map(|d| d.read_ops_per_s + d.write_ops_per_s);
        Derived {
            tps: s.tps,
            device_iops: iops,
            device_ios_per_tx: dev.and_then(|d| per_tx(d.counts.reads + d.counts.writes)),
            device_read_bytes_per_tx: dev.and_then(|d| per_tx(d.counts.read_bytes)),
            device_written_bytes_per_tx: dev.and_then(|d| per_tx(d.counts.written_bytes)),
            device_flushes_per_commit: dev.and_then(|d| per_tx(d.counts.flushes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivebench_core::engine_io::{EngineIoCounters, IoClass};

    fn verdict(bound: Bound) -> Verdict {
        Verdict {
            bound,
            deciding: Vec::new(),
            reason: "I/O pressure full 35.0 % >= 20.0 %".into(),
        }
    }

    fn telemetry(bound: Bound) -> PhaseTelemetry {
        let s = Summary::from_recorded(&crate::metrics::Recorded::new(1), &["tx"], 10.0);
        let none = serde_json::json!({"elapsed_ms": 10000.0, "device": null, "cpu": null,
            "memory": null, "pressure": {}, "own_process": null, "processes": []});
        let figures: IntervalTelemetry = serde_json::from_value(none).unwrap();
        let mut t = PhaseTelemetry::of_span(figures, &s, false);
        t.verdict = PhaseVerdict::of(verdict(bound));
        t
    }

    /// 1000 commits in 10 s at 10 ms, 1020 log flushes of 4.8 ms each.
    fn commit_bound() -> (EngineIoFigures, ClientWork) {
        let work = ClientWork {
            seconds: 10.0,
            transactions: 1_000,
            commits: 1_000,
            mean_latency_ms: 10.0,
        };
        let after = EngineIoCounters {
            log_flushes: Some(1_020),
            log_flush_us: Some(4_896_000),
            ..Default::default()
        };
        let before = EngineIoCounters {
            log_flushes: Some(0),
            log_flush_us: Some(0),
            ..Default::default()
        };
        (EngineIoFigures::between(&before, &after, work), work)
    }

    #[test]
    fn a_drive_bound_verdict_names_its_class_in_the_line() {
        let mut t = telemetry(Bound::DriveBound);
        let (f, w) = commit_bound();
        t.name_class(&f, w);
        assert_eq!(
            t.verdict.class().map(|c| c.class),
            Some(IoClass::LogFlushes)
        );
        assert_eq!(
            t.verdict_line(),
            "drive-bound: I/O pressure full 35.0 % >= 20.0 %; drive: log flushes: 1.02 per commit \
             at 4.80 ms (engine-timed), 49 % of the transaction time"
        );
    }

    #[test]
    fn only_a_drive_verdict_can_have_a_class() {
        let mut t = telemetry(Bound::HostCpuBound);
        let (f, w) = commit_bound();
        t.name_class(&f, w);
        assert_eq!(t.verdict.class(), None);
        assert_eq!(
            t.verdict_line(),
            "host-CPU-bound: I/O pressure full 35.0 % >= 20.0 %"
        );
        let mut drive = telemetry(Bound::DriveBound);
        drive.name_class(&f, w);
        let class = drive.verdict.class().unwrap().clone();
        assert!(PhaseVerdict::drive_class(verdict(Bound::ClientBound), class.clone()).is_err());
        let mut json = serde_json::to_value(&drive.verdict).unwrap();
        json["bound"] = "host_cpu".into();
        assert!(serde_json::from_value::<PhaseVerdict>(json).is_err());
    }

    #[test]
    fn the_verdict_stays_one_object_an_old_reader_reads() {
        let mut t = telemetry(Bound::DriveBound);
        let (f, w) = commit_bound();
        t.name_class(&f, w);
        let json = serde_json::to_value(&t.verdict).unwrap();
        assert_eq!(json["bound"], "drive");
        assert_eq!(json["class"]["class"], "log_flushes");
        let old: Verdict = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(&old, t.verdict.judged());
        let without = serde_json::to_value(verdict(Bound::Unclear)).unwrap();
        let read: PhaseVerdict = serde_json::from_value(without).unwrap();
        assert_eq!(read, PhaseVerdict::of(verdict(Bound::Unclear)));
        assert!(!serde_json::to_string(&read).unwrap().contains("class"));
    }
}
