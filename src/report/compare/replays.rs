//! compare's replay section: the runs made by `drivebench replay`, one row each (target,
//! timing, capture, schedule lag p99, the drive's verdict, fidelity, and p99 latency per file
//! class and of all requests), then rankings by log p99, data p99 and the p99 of all requests
//! (lower is better). The p99 of all requests is read off the per-class histograms merged,
//! never a mean of percentiles. Replays are ranked only when they replay one capture (the same
//! trace SHA-256) with one timing; otherwise the rows are listed and the section says why they
//! are not ranked. A replay that was not faithful to its capture (or was interrupted) is
//! ranked, marked in its row and in the rankings, with its verdict in a note.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::capture::FileClass;
use crate::metrics::histogram::{decode, new_histogram};
use crate::replay::ReplayReport;
use crate::report::svg::escape;
use crate::results::run::RunReport;
use crate::results::telemetry::bound_name;
use crate::telemetry::{Bound, Verdict};

/// Hex digits of a capture's SHA-256 shown in the tables.
const SHA_SHOWN: usize = 12;

/// One replay as compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayRun {
    pub label: String,
    /// The file or device replayed on.
    pub target: String,
    /// "recorded", "scaled, speed 2", "fast".
    pub timing: String,
    /// The capture's trace SHA-256 (empty when the result does not hold it).
    pub trace_sha256: String,
    pub capture_dir: String,
    /// Requests replayed, of `requests_total` in the capture.
    pub requests: u64,
    pub requests_total: u64,
    pub interrupted: bool,
    /// Schedule lag p99 (submission − intended time), µs.
    pub lag_p99_us: u64,
    /// The fidelity judgement: every judged figure within its tolerance.
    pub faithful: bool,
    /// `faithful`, or `deviated: ...` worst first.
    pub fidelity: String,
    /// What limited the replay, from the drive's telemetry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// p99 latency (from each request's recorded time) per file class that occurred, µs.
    pub p99_by_class_us: BTreeMap<String, u64>,
    /// p99 latency of all requests, from the per-class histograms merged, µs; absent when
    /// they could not be read (`note` says why).
    pub p99_us: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ReplayRun {
    /// The run's mark in the tables: empty for a faithful, complete replay.
    pub fn mark(&self) -> String {
        let mut parts = Vec::new();
        if !self.faithful {
            parts.push("not faithful".to_string());
        }
        if self.interrupted {
            parts.push(format!(
                "interrupted ({} of {} requests)",
                self.requests, self.requests_total
            ));
        }
        parts.join(", ")
    }

    /// The capture as the tables show it: the start of its SHA-256, else its directory.
    pub fn capture_text(&self) -> String {
        match self.trace_sha256.get(..SHA_SHOWN) {
            Some(short) => short.to_string(),
            None if !self.trace_sha256.is_empty() => self.trace_sha256.clone(),
            None if !self.capture_dir.is_empty() => self.capture_dir.clone(),
            None => "-".into(),
        }
    }

    fn bound_text(&self) -> &'static str {
        self.verdict.as_ref().map_or("-", |v| bound_name(v.bound))
    }
}

/// One replay's place in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayRanked {
    pub rank: usize,
    pub label: String,
    pub p99_us: u64,
    /// Distance to the leader in % of the leader's value (0 for the leader).
    pub vs_leader_pct: f64,
    /// The run's mark (not faithful, interrupted), empty when there is none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub mark: String,
}

/// The replays of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayComparison {
    /// In the order given.
    pub runs: Vec<ReplayRun>,
    /// The file classes that occurred in any replay, in the classes' order.
    pub classes: Vec<String>,
    /// Why the replays are not ranked (different captures or timings); absent when they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_ranked: Option<String>,
    /// The replays that were not drive-bound, one line each: their ranking measures the host.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_drive_bound: Vec<String>,
    /// Ranked by the p99 of log requests (empty when not ranked or no replay had any).
    pub by_log_p99: Vec<ReplayRanked>,
    /// Ranked by the p99 of data requests.
    pub by_data_p99: Vec<ReplayRanked>,
    /// Ranked by the p99 of all requests (merged histograms).
    pub by_p99: Vec<ReplayRanked>,
}

impl ReplayComparison {
    /// The rankings that have rows: title and rows.
    pub fn rankings(&self) -> Vec<(&'static str, &[ReplayRanked])> {
        [
            (
                "p99 latency of log requests, µs (lower is better)",
                &self.by_log_p99[..],
            ),
            (
                "p99 latency of data requests, µs (lower is better)",
                &self.by_data_p99[..],
            ),
            (
                "p99 latency of all requests, µs (lower is better)",
                &self.by_p99[..],
            ),
        ]
        .into_iter()
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
    }

    /// The marked runs' notes: what their mark means, with their fidelity verdicts.
    pub fn marked_notes(&self) -> Vec<String> {
        self.runs
            .iter()
            .filter(|r| !r.mark().is_empty())
            .map(|r| {
                let why = if r.faithful {
                    "its latencies cover only the requests replayed".to_string()
                } else {
                    format!(
                        "its latencies answer another load than the capture's: {}",
                        r.fidelity
                    )
                };
                format!("{} ({}): {why}", r.label, r.mark())
            })
            .collect()
    }
}

/// "recorded", "scaled, speed 2" or "fast".
fn timing_text(r: &ReplayReport) -> String {
    match (r.timing.as_str(), r.speed) {
        ("scaled", Some(x)) => format!("scaled, speed {x}"),
        (t, _) => t.to_string(),
    }
}

/// Why a replay has no p99 of all requests.
#[derive(Debug, thiserror::Error)]
enum NoMergedP99 {
    #[error("no per-class latency histograms in its result")]
    NoHistograms,
    #[error("class {class}: {detail}")]
    Unreadable { class: String, detail: String },
    #[error("its histograms hold no request")]
    Empty,
}

/// The p99 of all requests: the per-class histograms merged.
fn merged_p99(r: &ReplayReport) -> Result<u64, NoMergedP99> {
    let hists = &r.histograms.latency_by_class;
    if hists.is_empty() {
        return Err(NoMergedP99::NoHistograms);
    }
    let mut all = new_histogram();
    for (class, text) in hists {
        let unreadable = |detail: String| NoMergedP99::Unreadable {
            class: class.clone(),
            detail,
        };
        let h = decode(text).map_err(|e| unreadable(e.to_string()))?;
        all.add(&h).map_err(|e| unreadable(format!("{e:?}")))?;
    }
    if all.is_empty() {
        return Err(NoMergedP99::Empty);
    }
    Ok(all.value_at_quantile(0.99))
}

fn row(label: &str, r: &ReplayReport) -> ReplayRun {
    let merged = merged_p99(r);
    ReplayRun {
        label: label.to_string(),
        target: r.target.path.clone(),
        timing: timing_text(r),
        trace_sha256: r.source.trace_sha256.clone(),
        capture_dir: r.source.capture_dir.clone(),
        requests: r.requests,
        requests_total: r.requests_total,
        interrupted: r.interrupted,
        lag_p99_us: r.lag_us.p99,
        faithful: r.fidelity.faithful,
        fidelity: r.fidelity.verdict.clone(),
        verdict: r.verdict.clone(),
        p99_by_class_us: r
            .latency_by_class_us
            .iter()
            .filter(|(_, l)| l.count > 0)
            .map(|(class, l)| (class.clone(), l.p99))
            .collect(),
        p99_us: merged.as_ref().ok().copied(),
        note: merged.err().map(|e| format!("no p99 of all requests: {e}")),
    }
}

/// The runs grouped by `key`, in the order first met: "key: a, b; key2: c".
fn grouped(runs: &[ReplayRun], key: impl Fn(&ReplayRun) -> String) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for r in runs {
        let k = key(r);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(&r.label),
            None => groups.push((k, vec![&r.label])),
        }
    }
    let each: Vec<String> = groups
        .iter()
        .map(|(k, members)| format!("{k}: {}", members.join(", ")))
        .collect();
    each.join("; ")
}

/// Why `runs` cannot be ranked together, when they cannot.
fn not_ranked(runs: &[ReplayRun]) -> Option<String> {
    let mut why = Vec::new();
    let unknown: Vec<&str> = runs
        .iter()
        .filter(|r| r.trace_sha256.is_empty())
        .map(|r| r.label.as_str())
        .collect();
    if !unknown.is_empty() {
        why.push(format!(
            "the capture of {} is not known (its result has no trace SHA-256), so it cannot be \
             shown to be the same capture",
            unknown.join(", ")
        ));
    } else if runs.iter().any(|r| r.trace_sha256 != runs[0].trace_sha256) {
        why.push(format!(
            "the replays are of different captures, so they put different requests on the drives \
             (trace SHA-256 {})",
            grouped(runs, ReplayRun::capture_text)
        ));
    }
    if runs.iter().any(|r| r.timing != runs[0].timing) {
        why.push(format!(
            "the replays differ in timing, so they put different loads on the drives ({})",
            grouped(runs, |r| r.timing.clone())
        ));
    }
    (!why.is_empty()).then(|| format!("not ranked: {}", why.join("; ")))
}

/// Rank the runs that have `value`, lowest first (ties in the order given).
fn rank(runs: &[ReplayRun], value: impl Fn(&ReplayRun) -> Option<u64>) -> Vec<ReplayRanked> {
    let mut order: Vec<(&ReplayRun, u64)> =
        runs.iter().filter_map(|r| Some((r, value(r)?))).collect();
    order.sort_by_key(|(_, v)| *v);
    let leader = order.first().map_or(0, |(_, v)| *v);
    order
        .iter()
        .enumerate()
        .map(|(i, (r, v))| ReplayRanked {
            rank: i + 1,
            label: r.label.clone(),
            p99_us: *v,
            vs_leader_pct: if leader > 0 {
                (*v as f64 - leader as f64) / leader as f64 * 100.0
            } else {
                0.0
            },
            mark: r.mark(),
        })
        .collect()
}

/// The replay section of `runs` (label, report); `None` when no run is a replay. Replays are
/// ranked when there are two or more of one capture and one timing.
pub fn build(runs: &[(String, &RunReport)]) -> Option<ReplayComparison> {
    let rows: Vec<ReplayRun> = runs
        .iter()
        .filter_map(|(label, r)| Some(row(label, r.replay.as_ref()?)))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let classes: Vec<String> = FileClass::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .filter(|c| rows.iter().any(|r| r.p99_by_class_us.contains_key(c)))
        .collect();
    let not_ranked = not_ranked(&rows);
    let ranked = rows.len() >= 2 && not_ranked.is_none();
    let ranking = |value: &dyn Fn(&ReplayRun) -> Option<u64>| match ranked {
        true => rank(&rows, value),
        false => Vec::new(),
    };
    let class_p99 =
        |class: FileClass| move |r: &ReplayRun| r.p99_by_class_us.get(class.as_str()).copied();
    let not_drive_bound = rows
        .iter()
        .filter_map(|r| {
            let v = r.verdict.as_ref()?;
            (v.bound != Bound::DriveBound)
                .then(|| format!("{}: {} — {}", r.label, bound_name(v.bound), v.reason))
        })
        .collect();
    Some(ReplayComparison {
        by_log_p99: ranking(&class_p99(FileClass::Log)),
        by_data_p99: ranking(&class_p99(FileClass::Data)),
        by_p99: ranking(&|r: &ReplayRun| r.p99_us),
        not_drive_bound: if ranked { not_drive_bound } else { Vec::new() },
        runs: rows,
        classes,
        not_ranked,
    })
}

/// The cells of a run's row after its label: target, timing, capture, requests, lag p99, the
/// p99 of each class in `classes`, of all requests, what limited it, fidelity.
fn cells(r: &ReplayRun, classes: &[String]) -> Vec<String> {
    let mut out = vec![
        r.target.clone(),
        r.timing.clone(),
        r.capture_text(),
        format!("{} of {}", r.requests, r.requests_total),
        r.lag_p99_us.to_string(),
    ];
    out.extend(classes.iter().map(|c| {
        r.p99_by_class_us
            .get(c)
            .map_or_else(|| "-".into(), u64::to_string)
    }));
    out.push(r.p99_us.map_or_else(|| "-".into(), |v| v.to_string()));
    out.push(r.bound_text().to_string());
    let mark = r.mark();
    out.push(if mark.is_empty() {
        r.fidelity.clone()
    } else {
        format!("**{mark}**: {}", r.fidelity)
    });
    out
}

/// The column heads after "run".
fn heads(classes: &[String]) -> Vec<String> {
    let mut out: Vec<String> = ["target", "timing", "capture", "requests", "lag p99 µs"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.extend(classes.iter().map(|c| format!("{c} p99 µs")));
    out.extend(["all p99 µs", "what limited it", "fidelity"].map(String::from));
    out
}

const LATENCY_NOTE: &str = "Latency is from each request's recorded (intended) time to its completion, so a replay that falls behind is charged for it; the p99 of all requests is read off the per-class histograms merged.";

fn vs_leader(r: &ReplayRanked) -> String {
    if r.rank == 1 {
        "leader".into()
    } else {
        format!("{:+.1}%", r.vs_leader_pct)
    }
}

/// compare.md's replay section.
pub fn markdown(s: &mut String, c: &ReplayComparison) {
    let _ = writeln!(s, "\n## Replays\n");
    if let Some(why) = &c.not_ranked {
        let _ = writeln!(s, "**Warning: {why}.**\n");
    }
    let heads = heads(&c.classes);
    let _ = writeln!(
        s,
        "| run | {} |\n|---|{}",
        heads.join(" | "),
        heads
            .iter()
            .map(|h| if h.ends_with("µs") || h == "requests" {
                "---:|"
            } else {
                "---|"
            })
            .collect::<String>()
    );
    for r in &c.runs {
        let _ = writeln!(s, "| {} | {} |", r.label, cells(r, &c.classes).join(" | "));
    }
    for r in &c.runs {
        if let Some(note) = &r.note {
            let _ = writeln!(s, "\n{}: {note}.", r.label);
        }
    }
    let _ = writeln!(s, "\n{LATENCY_NOTE}");
    let rankings = c.rankings();
    if rankings.is_empty() {
        return;
    }
    if !c.not_drive_bound.is_empty() {
        let _ = writeln!(
            s,
            "\n**Warning: these rankings measure the host, not the drives: these replays were not drive-bound.**\n"
        );
        for line in &c.not_drive_bound {
            let _ = writeln!(s, "- {line}");
        }
    }
    for (title, rows) in rankings {
        let _ = writeln!(
            s,
            "\n### Replays: {title}\n\n| rank | run | p99 µs | vs leader | |\n|---:|---|---:|---:|---|"
        );
        for r in rows {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                r.rank,
                r.label,
                r.p99_us,
                vs_leader(r),
                r.mark
            );
        }
    }
    let notes = c.marked_notes();
    if !notes.is_empty() {
        s.push_str("\nMarked replays are ranked all the same:\n\n");
        for n in notes {
            let _ = writeln!(s, "- {n}");
        }
    }
}

/// compare.html's replay section: the table, the rankings and the runs' p99 per file class
/// as bars.
pub fn html(s: &mut String, c: &ReplayComparison) {
    s.push_str("<h2>Replays</h2>");
    if let Some(why) = &c.not_ranked {
        let _ = write!(s, "<p class=\"warn\"><b>Warning: {}.</b></p>", escape(why));
    }
    s.push_str("<table><tr><th class=\"l\">run</th>");
    for h in heads(&c.classes) {
        let _ = write!(s, "<th>{}</th>", escape(&h));
    }
    s.push_str("</tr>");
    for r in &c.runs {
        html_row(s, r, &c.classes);
    }
    s.push_str("</table>");
    for r in &c.runs {
        if let Some(note) = &r.note {
            let _ = write!(s, "<p>{}: {}.</p>", escape(&r.label), escape(note));
        }
    }
    let _ = write!(s, "<p>{}</p>", escape(LATENCY_NOTE));
    class_bars(s, c);
    html_rankings(s, c);
}

/// compare.html's replay rankings, with the warnings and the notes on marked replays.
fn html_rankings(s: &mut String, c: &ReplayComparison) {
    let rankings = c.rankings();
    if rankings.is_empty() {
        return;
    }
    if !c.not_drive_bound.is_empty() {
        s.push_str("<p class=\"warn\"><b>Warning: these rankings measure the host, not the drives: these replays were not drive-bound.</b></p><ul>");
        for line in &c.not_drive_bound {
            let _ = write!(s, "<li class=\"warn\">{}</li>", escape(line));
        }
        s.push_str("</ul>");
    }
    for (title, rows) in rankings {
        let _ = write!(
            s,
            "<h3>Replays: {}</h3><table><tr><th>rank</th><th class=\"l\">run</th><th>p99 µs</th><th>vs leader</th><th class=\"l\"></th></tr>",
            escape(title)
        );
        for r in rows {
            let _ = write!(
                s,
                "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l fail\">{}</td></tr>",
                r.rank,
                escape(&r.label),
                r.p99_us,
                vs_leader(r),
                escape(&r.mark)
            );
        }
        s.push_str("</table>");
    }
    let notes = c.marked_notes();
    if !notes.is_empty() {
        s.push_str("<p>Marked replays are ranked all the same:</p><ul>");
        for n in notes {
            let _ = write!(s, "<li>{}</li>", escape(&n));
        }
        s.push_str("</ul>");
    }
}

/// One replay's row of compare.html's table; its fidelity cell carries the mark.
fn html_row(s: &mut String, r: &ReplayRun, classes: &[String]) {
    let _ = write!(s, "<tr><td class=\"l\">{}</td>", escape(&r.label));
    let mut cells = cells(r, classes);
    let mark = r.mark();
    if let Some(last) = cells.last_mut() {
        *last = if mark.is_empty() {
            escape(&r.fidelity)
        } else {
            format!(
                "<span class=\"fail\">{}</span>: {}",
                escape(&mark),
                escape(&r.fidelity)
            )
        };
    }
    let n = cells.len();
    for (i, cell) in cells.into_iter().enumerate() {
        let text = if i + 1 == n { cell } else { escape(&cell) };
        let class = if i < 3 || i + 3 > n {
            " class=\"l\""
        } else {
            ""
        };
        let _ = write!(s, "<td{class}>{text}</td>");
    }
    s.push_str("</tr>");
}

/// Widest bar, px.
const BAR_PX: f64 = 320.0;

/// One figure of the bars: its name, and per run its label and p99 (µs) when it has one.
type BarGroup<'a> = (String, Vec<(&'a str, Option<u64>)>);

/// Per file class (and all requests), each replay's p99 as a bar scaled to the class's
/// largest.
fn class_bars(s: &mut String, c: &ReplayComparison) {
    let mut figures: Vec<BarGroup<'_>> = c
        .classes
        .iter()
        .map(|class| {
            let each = c
                .runs
                .iter()
                .map(|r| (r.label.as_str(), r.p99_by_class_us.get(class).copied()))
                .collect();
            (class.clone(), each)
        })
        .collect();
    figures.push((
        "all requests".into(),
        c.runs
            .iter()
            .map(|r| (r.label.as_str(), r.p99_us))
            .collect(),
    ));
    s.push_str("<h3>p99 latency per file class, µs</h3><table><tr><th class=\"l\">class</th><th class=\"l\">run</th><th>p99 µs</th><th class=\"l\"></th></tr>");
    for (class, each) in &figures {
        let top = each
            .iter()
            .filter_map(|(_, v)| *v)
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        for (i, (label, v)) in each.iter().enumerate() {
            let head = if i == 0 {
                format!(
                    "<td class=\"l\" rowspan=\"{}\">{}</td>",
                    each.len(),
                    escape(class)
                )
            } else {
                String::new()
            };
            let (value, bar) = match v {
                Some(v) => (
                    v.to_string(),
                    format!(
                        "<span style=\"display:inline-block;height:10px;width:{:.0}px;background:#4e79a7\"></span>",
                        (*v as f64 / top * BAR_PX).max(1.0)
                    ),
                ),
                None => ("-".into(), String::new()),
            };
            let _ = write!(
                s,
                "<tr>{head}<td class=\"l\">{}</td><td>{value}</td><td class=\"l\">{bar}</td></tr>",
                escape(label)
            );
        }
    }
    s.push_str("</table>");
}
