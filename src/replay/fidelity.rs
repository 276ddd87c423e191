//! How faithful a replay was: the recorded and the replayed request streams measured by the
//! one definition of a stream's shape (`capture::shape::shape_of`), figure by figure, each
//! with the value the replay should have shown, the value it showed, the deviation and
//! whether it is within its tolerance; the schedule lag; and a one-line verdict.
//!
//! # Tolerances
//!
//! All in one place, the constants below:
//!
//! - requests and bytes: exact ([`COUNT_TOLERANCE`]); not judged when the replay was
//!   interrupted;
//! - the read share (reads among reads and writes) and each operation's share of all requests:
//!   within [`SHARE_POINTS`] percentage points;
//! - the size histogram: no bucket's share of the data requests differs by more than
//!   [`SIZE_POINTS`] points (the figure names the bucket that differs most);
//! - the sequential share: within [`SEQUENTIAL_POINTS`] points;
//! - IOPS and flushes per second: within [`RATE_PERCENT`] % of the recorded rate under recorded
//!   timing, of the recorded rate × speed under scaled timing, not judged under fast timing;
//! - the queue depth found at issue (mean and p99): shown, not judged. Every timing issues
//!   requests by the recording (its times, or its completions under fast timing), so the depth
//!   each finds follows the target's latency: a replay on a drive twice as fast finds half the
//!   depth while issuing exactly what was recorded (measured: recorded mean 35, replayed 3.1 on
//!   a RAM-backed loop device). The mean's deviation is still computed against
//!   [`DEPTH_MEAN_PERCENT`] %, the tolerance it would have if judged;
//! - the schedule lag p99: at most [`LAG_P99_LIMIT_US`] µs under recorded and scaled timing,
//!   not judged under fast timing (there is no recorded time to lag behind).
//!
//! Failed figures are listed worst first: by deviation over tolerance, an exact figure's
//! deviation counted in per cent of its recorded value as if its tolerance were 1 %.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::schedule::Timing;
use crate::capture::{Op, Request, Shape, ShapeItem};

/// Requests and bytes must match exactly.
pub const COUNT_TOLERANCE: f64 = 0.0;
/// Read share and each operation's share, percentage points.
pub const SHARE_POINTS: f64 = 2.0;
/// Largest difference of a size bucket's share, percentage points.
pub const SIZE_POINTS: f64 = 2.0;
/// Sequential share, percentage points.
pub const SEQUENTIAL_POINTS: f64 = 5.0;
/// IOPS and flushes per second, per cent of the intended rate.
pub const RATE_PERCENT: f64 = 5.0;
/// Mean queue depth, per cent of the recorded mean (shown with the figure; not judged).
pub const DEPTH_MEAN_PERCENT: f64 = 25.0;
/// Schedule lag p99, µs.
pub const LAG_P99_LIMIT_US: f64 = 1000.0;

/// What a deviation is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviationUnit {
    /// Replayed − expected, in the figure's own unit (requests, bytes).
    Count,
    /// Replayed − expected share, percentage points.
    Points,
    /// (replayed − expected) / expected, per cent.
    Percent,
    /// Replayed − limit-free expectation (0), µs.
    Microseconds,
}

/// One figure of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FigureCheck {
    /// Machine name, e.g. "iops", "share_flush", "size_share_16384".
    pub figure: String,
    /// As people read it, e.g. "flush share".
    pub label: String,
    /// The recorded value (shares as fractions, rates per second, lag in µs).
    pub recorded: f64,
    /// What the replay should have shown: the recorded value, × speed for a rate under
    /// scaled timing, 0 for the lag.
    pub expected: f64,
    pub replayed: f64,
    /// In `unit`: signed, replayed against expected.
    pub deviation: f64,
    pub unit: DeviationUnit,
    /// Largest |deviation| that passes, in `unit`.
    pub tolerance: f64,
    /// False when this figure is not judged under the replay's timing or interruption.
    pub judged: bool,
    /// Judged and within tolerance; true when not judged.
    pub passed: bool,
    /// Why it is not judged, or what to keep in mind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Schedule lag (submit − intended issue time) of the replay, µs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LagFigures {
    pub p50_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
}

/// How faithful a replay was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fidelity {
    /// "recorded", "scaled" or "fast".
    pub timing: String,
    /// The speed rates were scaled by (1 when recorded; absent when fast).
    pub speed: Option<f64>,
    /// Whether the replay stopped before its last request.
    pub interrupted: bool,
    pub recorded: Shape,
    pub replayed: Shape,
    pub figures: Vec<FigureCheck>,
    pub lag: LagFigures,
    /// Every judged figure passed.
    pub faithful: bool,
    /// `faithful`, or `deviated: <figure> <expected> -> <replayed> (<deviation>)` for each
    /// failed figure, worst first, separated by "; ".
    pub verdict: String,
}

/// The recorded side's shape items: each request at its device offset.
pub fn recorded_items(requests: &[Request]) -> Vec<ShapeItem> {
    requests
        .iter()
        .map(|r| ShapeItem {
            issue_ns: r.issue_ns,
            complete_ns: r.complete_ns,
            op: r.op,
            device: r.device,
            offset_bytes: if r.op == Op::Flush {
                0
            } else {
                r.offset_bytes()
            },
            bytes: if r.op == Op::Flush { 0 } else { r.bytes },
        })
        .collect()
}

/// What the comparison needs besides the two shapes.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    pub timing: Timing,
    pub interrupted: bool,
    pub lag: LagFigures,
}

impl LagFigures {
    /// From a histogram of lags in µs.
    pub fn of(h: &Histogram<u64>) -> LagFigures {
        if h.is_empty() {
            return LagFigures::default();
        }
        LagFigures {
            p50_us: h.value_at_quantile(0.5),
            p99_us: h.value_at_quantile(0.99),
            max_us: h.max(),
        }
    }
}

/// Compare the recorded and the replayed shapes.
pub fn judge(recorded: Shape, replayed: Shape, cx: Context) -> Fidelity {
    let mut figures = count_figures(&recorded, &replayed, cx);
    figures.extend(share_figures(&recorded, &replayed));
    figures.push(size_figure(&recorded, &replayed));
    figures.extend(rate_figures(&recorded, &replayed, cx));
    figures.extend(depth_and_lag_figures(&recorded, &replayed, cx));
    let verdict = verdict(&figures);
    Fidelity {
        timing: cx.timing.name().to_owned(),
        speed: cx.timing.speed(),
        interrupted: cx.interrupted,
        faithful: figures.iter().all(|f| f.passed),
        recorded,
        replayed,
        figures,
        lag: cx.lag,
        verdict,
    }
}

/// A judged figure, passed when |deviation| ≤ tolerance.
fn figure(
    name: &str,
    label: &str,
    (recorded, expected, replayed): (f64, f64, f64),
    unit: DeviationUnit,
    tolerance: f64,
) -> FigureCheck {
    let deviation = match unit {
        DeviationUnit::Points => (replayed - expected) * 100.0,
        DeviationUnit::Percent => percent(expected, replayed),
        DeviationUnit::Count | DeviationUnit::Microseconds => replayed - expected,
    };
    FigureCheck {
        figure: name.to_owned(),
        label: label.to_owned(),
        recorded,
        expected,
        replayed,
        deviation,
        unit,
        tolerance,
        judged: true,
        passed: deviation.abs() <= tolerance + 1e-9,
        note: None,
    }
}

/// (replayed − expected) / expected in per cent; 100 % when only the replay has any.
fn percent(expected: f64, replayed: f64) -> f64 {
    if expected == 0.0 {
        if replayed == 0.0 { 0.0 } else { 100.0 }
    } else {
        (replayed - expected) / expected * 100.0
    }
}

fn unjudged(mut f: FigureCheck, note: &str) -> FigureCheck {
    f.judged = false;
    f.passed = true;
    f.note = Some(note.to_owned());
    f
}

fn count_figures(rec: &Shape, rep: &Shape, cx: Context) -> Vec<FigureCheck> {
    let pair = |a: u64, b: u64| (a as f64, a as f64, b as f64);
    let counts = [
        figure(
            "requests",
            "requests",
            pair(rec.requests, rep.requests),
            DeviationUnit::Count,
            COUNT_TOLERANCE,
        ),
        figure(
            "bytes",
            "bytes",
            pair(rec.bytes, rep.bytes),
            DeviationUnit::Count,
            COUNT_TOLERANCE,
        ),
    ];
    counts
        .into_iter()
        .map(|f| match cx.interrupted {
            true => unjudged(f, "the replay was interrupted: not judged"),
            false => f,
        })
        .collect()
}

fn share_figures(rec: &Shape, rep: &Shape) -> Vec<FigureCheck> {
    let same = |a: f64, b: f64| (a, a, b);
    let mut out = vec![figure(
        "read_share",
        "reads among reads and writes",
        same(rec.read_share, rep.read_share),
        DeviationUnit::Points,
        SHARE_POINTS,
    )];
    for op in Op::ALL {
        let share = |s: &Shape| {
            let n = s.ops.get(op.as_str()).map_or(0, |c| c.requests);
            if s.requests == 0 {
                0.0
            } else {
                n as f64 / s.requests as f64
            }
        };
        out.push(figure(
            &format!("share_{}", op.as_str()),
            &format!("share of {} requests", op.as_str()),
            same(share(rec), share(rep)),
            DeviationUnit::Points,
            SHARE_POINTS,
        ));
    }
    out.push(figure(
        "sequential_share",
        "sequential share",
        same(rec.sequential_share, rep.sequential_share),
        DeviationUnit::Points,
        SEQUENTIAL_POINTS,
    ));
    out
}

/// The size bucket whose share of the data requests differs most.
fn size_figure(rec: &Shape, rep: &Shape) -> FigureCheck {
    let shares = |s: &Shape| -> std::collections::BTreeMap<u64, f64> {
        let total: u64 = s.sizes.iter().map(|b| b.requests).sum();
        s.sizes
            .iter()
            .map(|b| (b.up_to_bytes, b.requests as f64 / total.max(1) as f64))
            .collect()
    };
    let (a, b) = (shares(rec), shares(rep));
    let mut worst = (0u64, 0.0f64, 0.0f64);
    for bucket in a.keys().chain(b.keys()) {
        let (x, y) = (
            a.get(bucket).copied().unwrap_or(0.0),
            b.get(bucket).copied().unwrap_or(0.0),
        );
        if (y - x).abs() > (worst.2 - worst.1).abs() || worst.0 == 0 {
            worst = (*bucket, x, y);
        }
    }
    figure(
        &format!("size_share_{}", worst.0),
        &format!("size share up to {} B", worst.0),
        (worst.1, worst.1, worst.2),
        DeviationUnit::Points,
        SIZE_POINTS,
    )
}

fn rate_figures(rec: &Shape, rep: &Shape, cx: Context) -> Vec<FigureCheck> {
    let scale = cx.timing.speed().unwrap_or(1.0);
    let rates = [
        ("iops", "IOPS", rec.iops, rep.iops),
        (
            "flushes_per_s",
            "flushes per second",
            rec.flushes_per_s,
            rep.flushes_per_s,
        ),
    ];
    rates
        .into_iter()
        .map(|(name, label, a, b)| {
            let f = figure(
                name,
                label,
                (a, a * scale, b),
                DeviationUnit::Percent,
                RATE_PERCENT,
            );
            match cx.timing {
                Timing::Fast => unjudged(f, "fast timing: rates are not meant to match"),
                Timing::Scaled { .. } => FigureCheck {
                    note: Some(format!("expected: the recorded rate × {scale}")),
                    ..f
                },
                Timing::Recorded => f,
            }
        })
        .collect()
}

fn depth_and_lag_figures(rec: &Shape, rep: &Shape, cx: Context) -> Vec<FigureCheck> {
    let (a, b) = (rec.queue_depth, rep.queue_depth);
    let mean = figure(
        "queue_depth_mean",
        "mean queue depth",
        (a.mean, a.mean, b.mean),
        DeviationUnit::Percent,
        DEPTH_MEAN_PERCENT,
    );
    let p99 = figure(
        "queue_depth_p99",
        "queue depth p99",
        (f64::from(a.p99), f64::from(a.p99), f64::from(b.p99)),
        DeviationUnit::Percent,
        0.0,
    );
    let lag = figure(
        "lag_p99_us",
        "schedule lag p99 (µs)",
        (0.0, 0.0, cx.lag.p99_us as f64),
        DeviationUnit::Microseconds,
        LAG_P99_LIMIT_US,
    );
    let lag = match cx.timing {
        Timing::Fast => unjudged(lag, "fast timing: no recorded time to lag behind"),
        Timing::Recorded | Timing::Scaled { .. } => lag,
    };
    let depth_note = "the depth found follows the target's latency: shown, not judged";
    vec![unjudged(mean, depth_note), unjudged(p99, depth_note), lag]
}

/// How far past its tolerance a failed figure is, to order the verdict.
fn severity(f: &FigureCheck) -> f64 {
    if f.tolerance > 0.0 {
        f.deviation.abs() / f.tolerance
    } else {
        percent(f.expected, f.replayed).abs()
    }
}

fn value_text(f: &FigureCheck, v: f64) -> String {
    match f.unit {
        DeviationUnit::Points => format!("{:.1} %", v * 100.0),
        DeviationUnit::Count => format!("{v:.0}"),
        DeviationUnit::Microseconds => format!("{v:.0} µs"),
        DeviationUnit::Percent => format!("{v:.1}"),
    }
}

fn deviation_text(f: &FigureCheck) -> String {
    let d = f.deviation;
    match f.unit {
        DeviationUnit::Points => format!("{d:+.1} points"),
        DeviationUnit::Count => format!("{d:+.0}"),
        DeviationUnit::Microseconds => format!("{d:+.0} µs, limit {:.0} µs", f.tolerance),
        DeviationUnit::Percent => format!("{d:+.1} %"),
    }
}

/// `faithful`, or every failed figure worst first.
fn verdict(figures: &[FigureCheck]) -> String {
    let mut failed: Vec<&FigureCheck> = figures.iter().filter(|f| !f.passed).collect();
    if failed.is_empty() {
        return "faithful".to_owned();
    }
    failed.sort_by(|a, b| severity(b).total_cmp(&severity(a)));
    let parts: Vec<String> = failed
        .iter()
        .map(|f| {
            format!(
                "{} {} -> {} ({})",
                f.label,
                value_text(f, f.expected),
                value_text(f, f.replayed),
                deviation_text(f)
            )
        })
        .collect();
    format!("deviated: {}", parts.join("; "))
}
