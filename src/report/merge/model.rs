//! What result.json keeps of a merge (`RunReport::merge`): the hosts, their clocks and each
//! phase's figures per host, and summary.md's section of them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::report::clock::ClockState;

/// How `merge` combined the hosts, and what each host measured.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergeReport {
    pub hosts: Vec<MergedHost>,
    /// Latest minus earliest host's phase-clock start, seconds.
    pub start_skew_s: f64,
    pub phases: Vec<MergedPhase>,
    /// How the figures were combined.
    pub rules: String,
}

/// One host's run in a merge.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergedHost {
    /// Its label: `--label`, else its host name (its run directory's name when host names repeat).
    pub label: String,
    /// Its run directory as given to `merge`.
    pub run_dir: String,
    pub hostname: String,
    /// Its run ran every phase to its end.
    pub complete: bool,
    /// Why it stopped early, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When its phase clock started (RFC 3339 UTC), and how late against `--start-at`.
    pub phases_started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_by_s: Option<f64>,
    /// Its start after the earliest host's, seconds.
    pub skew_s: f64,
    pub clock: ClockState,
}

/// A phase's common window and each host's figures in it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MergedPhase {
    pub phase: String,
    /// Seconds every host was in the phase: from the latest start to the earliest end.
    pub common_window_s: f64,
    pub hosts: Vec<HostPhase>,
}

/// One host's figures of a phase (all its instances).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct HostPhase {
    pub label: String,
    pub transactions: u64,
    pub tps: f64,
    pub latency_avg_ms: f64,
    pub latency_p99_ms: f64,
    /// TPC-C phases: its tpmC and NOPM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpmc: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nopm: Option<f64>,
}

pub const RULES: &str = "TPS and TPC-C tpmC/NOPM: the hosts' figures summed; latency: percentiles of the hosts' histograms merged; counts summed; series rows moved onto the earliest host's clock and rounded to the report interval; load curves and sweeps are kept per host.";

/// summary.md's section of a merged run: the hosts, their clocks, and each phase per host.
pub fn markdown(s: &mut String, m: &MergeReport) {
    use std::fmt::Write as _;
    let _ = writeln!(
        s,
        "\n## Hosts (merged run)\n\nStart skew: {:.3} s. {}\n",
        m.start_skew_s, m.rules
    );
    let _ = writeln!(
        s,
        "| host | run directory | complete | phases started (UTC) | skew s | late s | clock |"
    );
    let _ = writeln!(s, "|---|---|---|---|---:|---:|---|");
    for h in &m.hosts {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.3} | {} | {} |",
            h.label,
            h.run_dir,
            if h.complete { "yes" } else { "no" },
            h.phases_started_at,
            h.skew_s,
            h.late_by_s.map_or("-".into(), |l| format!("{l:.3}")),
            h.clock.line()
        );
    }
    for p in &m.phases {
        let _ = writeln!(
            s,
            "\n### {} per host (common window {:.1} s)\n\n| host | transactions | TPS | avg ms | p99 ms | tpmC | NOPM |\n|---|---:|---:|---:|---:|---:|---:|",
            p.phase, p.common_window_s
        );
        let opt = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1}"));
        for h in &p.hosts {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {:.2} | {:.2} | {} | {} |",
                h.label,
                h.transactions,
                h.tps,
                h.latency_avg_ms,
                h.latency_p99_ms,
                opt(h.tpmc),
                opt(h.nopm)
            );
        }
    }
}
