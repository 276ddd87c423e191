//! report.html's TPC-C part, present only for a TPC-C run: per recorded phase the
//! "TPC-C-like (not audited)" headline (tpmC, NOPM, efficiency, whether the mix minimums and
//! the 90th-percentile response-time limits were met), the per-kind table, the departures from
//! the spec, and how late transactions started when a schedule sets their start (keyed pacing
//! or an open-model rate); then the consistency checks (how many passed, each failure with its
//! detail). Reads result.json's `phases[].tpcc`, `summary.per_kind` and `checks` only.

use std::fmt::Write;

use crate::results::phase::PhaseReport;

use super::svg::escape;
use crate::results::run::RunReport;
use crate::workload::tpcc::figures::TpccPhase;
use crate::workload::tpcc::options::TpccPacing;

/// The TPC-C section: one part per recorded phase with TPC-C figures, then the checks.
pub(super) fn section(s: &mut String, r: &RunReport) {
    let Some(w) = r.plan.database.as_ref().map(|d| &d.workload) else {
        return;
    };
    let Some(opts) = w.benchmark.tpcc() else {
        return;
    };
    let scheduled = opts.pacing == TpccPacing::Spec || w.rate.is_some();
    for ph in r.phases.iter().filter(|p| p.recorded) {
        if let Some(tp) = &ph.tpcc {
            phase(s, ph, tp, scheduled);
        }
    }
    checks(s, r);
}

/// A coloured badge: `good` when passed, `bad` otherwise.
fn badge(passed: bool, good: &str, bad: &str) -> String {
    if passed {
        format!("<span class=\"status ok\">{good}</span>")
    } else {
        format!("<span class=\"status bad\">{bad}</span>")
    }
}

/// A cell's class when it failed its rule.
fn fail_class(passed: bool) -> &'static str {
    if passed { "" } else { " class=\"fail\"" }
}

fn phase(s: &mut String, ph: &PhaseReport, tp: &TpccPhase, scheduled: bool) {
    let nopm = tp
        .nopm
        .map(|n| format!(", NOPM <b>{n:.0}</b>"))
        .unwrap_or_else(|| ", NOPM not read".into());
    let eff = tp
        .efficiency_pct
        .map(|e| format!(", efficiency <b>{e:.1} %</b>"))
        .unwrap_or_default();
    let mix_ok = tp.mix.iter().all(|m| m.passed);
    let limits_ok = tp.response_time_limits.iter().all(|l| l.passed);
    let _ = write!(
        s,
        "<h2 class=\"tpcc\">TPC-C-like: {name}</h2><p class=\"tpcc-headline\">TPC-C-like (not audited): tpmC <b>{:.0}</b>{}{nopm}{eff}; {}.</p><p>Mix minimums (5.2.3, judged {}): {}; 90th-percentile response-time limits (5.2.5.3): {}.</p>",
        tp.tpmc,
        escape(&crate::workload::tpcc::figures::committed_text(tp)),
        escape(&tp.mix_text()),
        escape(&tp.judged_text(&ph.summary)),
        badge(mix_ok, "met", "NOT met"),
        badge(limits_ok, "met", "NOT met"),
        name = escape(&ph.name),
    );
    kinds_table(s, ph, tp);
    let codes: Vec<String> = ph
        .summary
        .per_kind
        .iter()
        .flat_map(|k| {
            k.errors_by_code
                .iter()
                .map(move |e| format!("{} {} x{}", k.kind, e.code, e.count))
        })
        .collect();
    if !codes.is_empty() {
        let _ = write!(s, "<p>Errors by code: {}.</p>", escape(&codes.join(", ")));
    }
    if !tp.isolation.is_empty() {
        let _ = write!(
            s,
            "<p class=\"tpcc-isolation\">Isolation (read back): {}.</p>",
            escape(&crate::workload::tpcc::figures::isolation_text(tp))
        );
    }
    if let Some(d) = &tp.delivery_skips {
        let _ = write!(
            s,
            "<p class=\"tpcc-delivery\">Delivery: {}.</p>",
            escape(&d.text())
        );
    }
    if !tp.deviations.is_empty() {
        s.push_str("<ul class=\"tpcc-deviations\">");
        for d in &tp.deviations {
            let _ = write!(s, "<li class=\"warn\">non-spec: {}</li>", escape(d));
        }
        s.push_str("</ul>");
    }
    if scheduled {
        let lag = &ph.summary.start_lag_ms;
        let _ = write!(
            s,
            "<p class=\"tpcc-lateness\">Start lateness against the schedule: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {} transactions started more than 1 ms late.</p>",
            lag.p50, lag.p99, ph.summary.max_start_lag_ms, ph.summary.late_starts
        );
    }
}

/// The per-kind table: share against its minimum, latency percentiles against the p90 limit.
fn kinds_table(s: &mut String, ph: &PhaseReport, tp: &TpccPhase) {
    s.push_str(
        "<table class=\"tpcc-kinds\"><tr><th>kind</th><th>transactions</th><th>share %</th><th>min %</th><th>avg ms</th><th>p50 ms</th><th>p90 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th><th>p90 limit ms</th><th>rolled back</th><th>retries</th><th>errors</th></tr>",
    );
    for k in &ph.summary.per_kind {
        let mix = tp.mix.iter().find(|m| m.kind == k.kind);
        let limit = tp.response_time_limits.iter().find(|l| l.kind == k.kind);
        let errors: u64 = k.errors_by_code.iter().map(|e| e.count).sum();
        let l = &k.latency_ms;
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td{}>{}</td><td>{}</td><td>{:.3}</td><td>{:.3}</td><td{}>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{errors}</td></tr>",
            escape(&k.kind),
            k.transactions,
            fail_class(mix.is_none_or(|m| m.passed)),
            mix.map(|m| format!("{:.2}", m.pct)).unwrap_or_default(),
            // New-Order has no minimum: it takes what the others leave.
            mix.filter(|m| m.min_pct > 0.0)
                .map_or("-".into(), |m| format!("{:.0}", m.min_pct)),
            l.avg,
            l.p50,
            fail_class(limit.is_none_or(|x| x.passed)),
            l.p90,
            l.p95,
            l.p99,
            l.max,
            limit
                .map(|x| format!("{:.0}", x.limit_ms))
                .unwrap_or_default(),
            k.rolled_back,
            k.retries,
        );
    }
    s.push_str("</table>");
}

fn checks(s: &mut String, r: &RunReport) {
    s.push_str("<h2 id=\"checks\">Consistency checks (3.3.2)</h2>");
    if r.checks.is_empty() {
        s.push_str("<p>No consistency checks were run (they run after the last phase of a complete run, or with <code>drivebench check</code>).</p>");
        return;
    }
    let failed: Vec<_> = r.checks.iter().filter(|c| !c.passed).collect();
    let checked = r
        .checked_at
        .as_deref()
        .map(|t| {
            format!(
                " (re-run by <code>drivebench check</code> at {})",
                escape(t)
            )
        })
        .unwrap_or_default();
    let _ = write!(
        s,
        "<p class=\"tpcc-checks\">{} of {} passed{checked}. {}</p>",
        r.checks.len() - failed.len(),
        r.checks.len(),
        badge(failed.is_empty(), "all passed", "FAILED"),
    );
    if !failed.is_empty() {
        s.push_str("<ul class=\"tpcc-failed\">");
        for c in failed {
            let _ = write!(
                s,
                "<li class=\"fail\">{}: {}: {}</li>",
                escape(&c.instance),
                escape(&c.name),
                escape(&c.detail)
            );
        }
        s.push_str("</ul>");
    }
    s.push_str("<details><summary>every check</summary><table><tr><th>instance</th><th class=\"l\">check</th><th>result</th><th class=\"l\">detail</th></tr>");
    for c in &r.checks {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"l\">{}</td><td{}>{}</td><td class=\"l\">{}</td></tr>",
            escape(&c.instance),
            escape(&c.name),
            fail_class(c.passed),
            if c.passed { "passed" } else { "FAILED" },
            escape(&c.detail)
        );
    }
    s.push_str("</table></details>");
}
