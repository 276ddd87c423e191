//! What a TPC-C run shows beside the tables every run has, as sections
//! (`drivebench_core::table`) summary.md and report.html (and compare's pages) render alike:
//! per recorded phase the "TPC-C-like (not audited)" headline (tpmC, NOPM, efficiency, the mix),
//! whether the mix minimums and the 90th-percentile response-time limits were met, the
//! per-kind table, errors by code, the isolation read back, Delivery's skipped districts, the
//! departures from the spec, and how late transactions started when a schedule sets their start
//! (keyed pacing or an open-model rate); then the consistency checks (how many passed, each
//! failure, every check folded). For compare: a table of runs (tpmC, NOPM, the mix with its
//! New-Order share, efficiency, whether the mix and limits were met), a table of kinds with each
//! run's p90 and p99, and the warnings when runs differ in mix or in procedures.

use drivebench_core::table::{Block, Cell, Column, Item, Section, Table, Text, Tone};

use super::figures::{TpccPhase, TpccRun, committed_text, isolation_text};
use crate::metrics::summary::Summary;
use crate::workload::views::{PhaseView, RunChecks};

/// The sections of a TPC-C run: one per recorded phase with TPC-C figures, then the checks;
/// `scheduled`: a schedule sets the transactions' start (keyed pacing or an open-model rate).
pub fn sections(phases: &[PhaseView], checks: &RunChecks, scheduled: bool) -> Vec<Section> {
    let mut out: Vec<Section> = phases
        .iter()
        .filter_map(|p| Some(phase(p.name, p.summary, p.figures.tpcc?, scheduled)))
        .collect();
    out.push(checks_section(checks));
    out
}

fn phase(name: &str, summary: &Summary, tp: &TpccPhase, scheduled: bool) -> Section {
    let mut sec = Section::new(format!("TPC-C-like: {name}")).with_class("tpcc");
    sec.push(Block::classed("tpcc-headline", headline(tp)));
    let mix_ok = tp.mix.iter().all(|m| m.passed);
    let limits_ok = tp.response_time_limits.iter().all(|l| l.passed);
    sec.push(Block::paragraph(
        Text::plain(format!(
            "Mix minimums (5.2.3, judged {}): ",
            tp.judged_text(summary)
        ))
        .verdict(mix_ok, "met", "NOT met")
        .and("; 90th-percentile response-time limits (5.2.5.3): ")
        .verdict(limits_ok, "met", "NOT met")
        .and("."),
    ));
    sec.push(Block::Table(kinds_table(summary, tp)));
    let codes: Vec<String> = summary
        .per_kind
        .iter()
        .flat_map(|k| {
            k.errors_by_code
                .iter()
                .map(move |e| format!("{} {} x{}", k.kind, e.code, e.count))
        })
        .collect();
    if !codes.is_empty() {
        let text = format!("Errors by code: {}.", codes.join(", "));
        sec.push(Block::paragraph(Text::plain(text)));
    }
    if !tp.isolation.is_empty() {
        let text = format!("Isolation (read back): {}.", isolation_text(tp));
        sec.push(Block::classed("tpcc-isolation", Text::plain(text)));
    }
    if let Some(d) = &tp.delivery_skips {
        let text = format!("Delivery: {}.", d.text());
        sec.push(Block::classed("tpcc-delivery", Text::plain(text)));
    }
    if !tp.deviations.is_empty() {
        let items = tp.deviations.iter().map(|d| Item {
            tone: Tone::Warn,
            text: Text::plain(format!("non-spec: {d}")),
        });
        sec.push(Block::List {
            class: Some("tpcc-deviations".into()),
            items: items.collect(),
        });
    }
    if scheduled {
        let lag = &summary.start_lag_ms;
        let text = format!(
            "Start lateness against the schedule: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {} transactions started more than 1 ms late.",
            lag.p50, lag.p99, summary.max_start_lag_ms, summary.late_starts
        );
        sec.push(Block::classed("tpcc-lateness", Text::plain(text)));
    }
    sec
}

/// "TPC-C-like (not audited): tpmC **10135** (committed only ...), NOPM **10087**; mix ...".
fn headline(tp: &TpccPhase) -> Text {
    let t = Text::plain("TPC-C-like (not audited): tpmC ")
        .strong(format!("{:.0}", tp.tpmc))
        .and(committed_text(tp));
    let t = match tp.nopm {
        Some(n) => t.and(", NOPM ").strong(format!("{n:.0}")),
        None => t.and(", NOPM not read"),
    };
    let t = match tp.efficiency_pct {
        Some(e) => t.and(", efficiency ").strong(format!("{e:.1} %")),
        None => t,
    };
    t.and(format!("; {}.", tp.mix_text()))
}

/// The per-kind table: share against its minimum, latency percentiles against the p90 limit.
fn kinds_table(summary: &Summary, tp: &TpccPhase) -> Table {
    let heads = [
        "transactions",
        "share %",
        "min %",
        "avg ms",
        "p50 ms",
        "p90 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "p90 limit ms",
        "rolled back",
        "retries",
        "errors",
    ];
    let mut t = Table::figures("kind", &heads).with_class("tpcc-kinds");
    for k in &summary.per_kind {
        let mix = tp.mix.iter().find(|m| m.kind == k.kind);
        let limit = tp.response_time_limits.iter().find(|l| l.kind == k.kind);
        let errors: u64 = k.errors_by_code.iter().map(|e| e.count).sum();
        let l = &k.latency_ms;
        let ms = |v: f64| Cell::from(format!("{v:.3}"));
        t.cells(vec![
            k.kind.clone().into(),
            k.transactions.to_string().into(),
            Cell::judged(
                mix.map(|m| format!("{:.2}", m.pct)).unwrap_or_default(),
                mix.is_none_or(|m| m.passed),
            ),
            // New-Order has no minimum: it takes what the others leave.
            mix.filter(|m| m.min_pct > 0.0)
                .map_or("-".into(), |m| format!("{:.0}", m.min_pct))
                .into(),
            ms(l.avg),
            ms(l.p50),
            Cell::judged(format!("{:.3}", l.p90), limit.is_none_or(|x| x.passed)),
            ms(l.p95),
            ms(l.p99),
            ms(l.max),
            limit
                .map(|x| format!("{:.0}", x.limit_ms))
                .unwrap_or_default()
                .into(),
            k.rolled_back.to_string().into(),
            k.retries.to_string().into(),
            errors.to_string().into(),
        ]);
    }
    t
}

/// The consistency checks of clause 3.3.2: how many passed (and when `drivebench check` re-ran
/// them), each failure, then every check folded.
fn checks_section(c: &RunChecks) -> Section {
    let mut sec = Section::new("Consistency checks (3.3.2)");
    if c.checks.is_empty() {
        sec.push(Block::paragraph(
            Text::plain("No consistency checks were run (they run after the last phase of a complete run, or with ")
                .code("drivebench check")
                .and(")."),
        ));
        return sec;
    }
    let failed: Vec<_> = c.checks.iter().filter(|c| !c.passed).collect();
    let mut text = Text::plain(format!(
        "{} of {} passed",
        c.checks.len() - failed.len(),
        c.checks.len()
    ));
    if let Some(at) = c.checked_at {
        text = text
            .and(" (re-run by ")
            .code("drivebench check")
            .and(format!(" at {at})"));
    }
    let text = text
        .and(". ")
        .verdict(failed.is_empty(), "all passed", "FAILED");
    sec.push(Block::classed("tpcc-checks", text));
    if !failed.is_empty() {
        let items = failed.iter().map(|f| Item {
            tone: Tone::Fail,
            text: Text::plain(format!("{}: {}: {}", f.instance, f.name, f.detail)),
        });
        sec.push(Block::List {
            class: Some("tpcc-failed".into()),
            items: items.collect(),
        });
    }
    let mut every = Table::new(vec![
        Column::left("instance"),
        Column::left("check"),
        Column::right("result"),
        Column::left("detail"),
    ]);
    for check in c.checks {
        let result = if check.passed { "passed" } else { "FAILED" };
        every.cells(vec![
            check.instance.clone().into(),
            check.name.clone().into(),
            Cell::judged(result.into(), check.passed),
            check.detail.clone().into(),
        ]);
    }
    sec.push(Block::Folded {
        summary: "every check".into(),
        table: every,
    });
    sec
}

/// compare's TPC-C sections of a group's runs that have TPC-C figures, by label: the runs'
/// figures and each kind's p90 / p99 (nothing when none has).
pub fn compare_sections(runs: &[(&str, &TpccRun)]) -> Vec<Section> {
    if runs.is_empty() {
        return Vec::new();
    }
    let opt = |v: Option<f64>, d: usize| v.map_or("-".to_string(), |x| format!("{x:.d$}"));
    let heads = [
        "tpmC",
        "NOPM",
        "mix (New-Order %)",
        "efficiency %",
        "mix and p90 limits",
    ];
    let mut figures = Table::figures("run", &heads).with_class("tpcc");
    for (label, t) in runs {
        figures.row(vec![
            label.to_string(),
            format!("{:.0}", t.tpmc),
            opt(t.nopm, 0),
            format!("{} ({:.1})", t.mix.name(), t.new_order_pct),
            opt(t.efficiency_pct, 1),
            if t.passed { "met" } else { "NOT met" }.to_string(),
        ]);
    }
    let mut kinds: Vec<&str> = Vec::new();
    for k in runs.iter().flat_map(|(_, t)| &t.per_kind) {
        if !kinds.contains(&k.kind.as_str()) {
            kinds.push(&k.kind);
        }
    }
    let labels: Vec<&str> = runs.iter().map(|(l, _)| *l).collect();
    let mut tails = Table::figures("kind", &labels).with_class("tpcc");
    for kind in kinds {
        let mut row = vec![kind.to_string()];
        row.extend(runs.iter().map(|(_, t)| {
            t.per_kind
                .iter()
                .find(|k| k.kind == kind)
                .map_or("-".to_string(), |k| {
                    format!("{:.3} / {:.3}", k.p90_ms, k.p99_ms)
                })
        }));
        tails.row(row);
    }
    let titled = |title: &str, t: Table| {
        let mut sec = Section::new(title);
        sec.push(Block::Table(t));
        sec
    };
    vec![
        titled("TPC-C-like figures (not audited)", figures),
        titled(
            "p90 / p99 response time per kind, ms (lower is better)",
            tails,
        ),
    ]
}

/// A warning when TPC-C runs picked their transactions differently: New-Order is 45 % of the
/// spec's deck and 43.5 % of HammerDB's draw, so tpmC per unit of work differs by about 3.5 %.
pub fn mix_warning(runs: &[(&str, &TpccRun)]) -> Option<String> {
    let first = runs.first()?.1.mix;
    if runs.iter().all(|(_, t)| t.mix == first) {
        return None;
    }
    let each: Vec<String> = runs
        .iter()
        .map(|(label, t)| {
            format!(
                "{label}: {} (New-Order {:.1} %)",
                t.mix.name(),
                t.new_order_pct
            )
        })
        .collect();
    Some(format!(
        "the TPC-C runs differ in mix, so their tpmC per unit of work differs (New-Order is 45 % of the spec's deck, 43.5 % of HammerDB's draw): {}",
        each.join("; ")
    ))
}

/// A warning when TPC-C runs differ in `procedures` (by label): one stored-procedure call per
/// transaction (one round trip) against one statement per step (a round trip each), so their
/// throughput and latency differ by the round trips and not by the drive alone.
pub fn procedures_warning(runs: &[(&str, bool)]) -> Option<String> {
    let first = runs.first()?.1;
    if runs.iter().all(|(_, p)| *p == first) {
        return None;
    }
    let each: Vec<String> = runs
        .iter()
        .map(|(label, p)| {
            let form = if *p {
                "stored procedures"
            } else {
                "client-side statements"
            };
            format!("{label}: {form}")
        })
        .collect();
    Some(format!(
        "the TPC-C runs differ in procedures, so their throughput and latency differ by the round trips per transaction (one call against one statement per step), not by the drive alone: {}",
        each.join("; ")
    ))
}
