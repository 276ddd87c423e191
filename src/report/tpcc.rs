//! TPC-C figures of a recorded phase (`phases[].tpcc` in result.json): tpmC from the clients'
//! committed New-Orders, NOPM from the schema (Δ Σ D_NEXT_O_ID, HammerDB's way, an independent
//! count), efficiency against the 12.86-per-warehouse ceiling under spec pacing, the achieved
//! mix against the minimums of 5.2.3, and the 90th-percentile response-time limits of 5.2.5.3.
//! Not audited: these are TPC-C-like figures, and every departure from the spec is listed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::summary::Summary;
use crate::scenario::plan::{TpccOptions, TpccPacing};
use crate::workload::tpcc::deck::MIN_MIX_PCT;
use crate::workload::tpcc::{KIND_NAMES, Kind};

/// The spec's ceiling of tpmC per warehouse with 10 terminals (reference/tpcc.md §6).
pub const TPMC_PER_WAREHOUSE: f64 = 12.86;
/// 90th-percentile response-time limits per kind, ms (`Kind::index` order); Delivery's is the
/// deferred part's, as it runs in the terminal here.
pub const P90_LIMIT_MS: [f64; 5] = [5_000.0, 5_000.0, 5_000.0, 80_000.0, 20_000.0];

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TpccPhase {
    /// Committed New-Orders per minute, all instances (rolled-back ones excluded).
    pub tpmc: f64,
    /// New-Orders per minute read from the schema (Δ Σ D_NEXT_O_ID over the phase), all
    /// instances; absent when the schema could not be read at a boundary.
    pub nopm: Option<f64>,
    /// tpmC as a share of 12.86 x warehouses x instances; spec pacing with 10 terminals only.
    pub efficiency_pct: Option<f64>,
    /// Each kind's share of all transactions against its minimum.
    pub mix: Vec<MixShare>,
    /// Each kind's 90th-percentile response time against its limit.
    pub response_time_limits: Vec<ResponseTimeLimit>,
    /// Mix minimums and response-time limits all met.
    pub passed: bool,
    /// Where the run departs from the spec (empty when it does not).
    pub deviations: Vec<String>,
}

/// One consistency check of one instance (result.json's top-level `checks`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct InstanceCheck {
    pub instance: String,
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// A complete run's error line when a check failed: "consistency checks failed: sqlite-1:
/// 3.3.2.1 ...; ...", or None when all passed.
pub fn checks_error(checks: &[InstanceCheck]) -> Option<String> {
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| format!("{}: {}", c.instance, c.name))
        .collect();
    (!failed.is_empty()).then(|| format!("consistency checks failed: {}", failed.join("; ")))
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct MixShare {
    pub kind: String,
    pub pct: f64,
    pub min_pct: f64,
    pub passed: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct ResponseTimeLimit {
    pub kind: String,
    pub p90_ms: f64,
    pub limit_ms: f64,
    pub passed: bool,
}

/// The figures of a phase from its merged summary; `new_orders_from_schema` is Δ Σ D_NEXT_O_ID
/// summed over instances, when read.
pub fn phase_figures(
    summary: &Summary,
    opts: &TpccOptions,
    clients: u32,
    rate: Option<f64>,
    instances: usize,
    new_orders_from_schema: Option<u64>,
) -> TpccPhase {
    let minutes = summary.seconds.max(1e-9) / 60.0;
    let kind = |k: Kind| summary.per_kind.get(k.index());
    let committed_new_orders = kind(Kind::NewOrder)
        .map(|s| s.transactions.saturating_sub(s.rolled_back))
        .unwrap_or(0);
    let tpmc = committed_new_orders as f64 / minutes;
    let spec = opts.pacing == TpccPacing::Spec && opts.terminals_per_warehouse == 10;
    let ceiling = TPMC_PER_WAREHOUSE * f64::from(opts.warehouses) * instances as f64;
    let total = summary.transactions.max(1) as f64;
    let mix: Vec<MixShare> = Kind::ALL
        .iter()
        .map(|k| {
            let n = kind(*k).map_or(0, |s| s.transactions);
            let pct = n as f64 * 100.0 / total;
            let min_pct = MIN_MIX_PCT[k.index()];
            MixShare {
                kind: KIND_NAMES[k.index()].to_string(),
                pct,
                min_pct,
                // Whole decks meet the minimums exactly; a phase's edges cut every terminal's
                // deck, so the share is judged to the whole percent.
                passed: summary.transactions > 0 && pct.round() >= min_pct,
            }
        })
        .collect();
    let response_time_limits: Vec<ResponseTimeLimit> = Kind::ALL
        .iter()
        .map(|k| {
            let p90_ms = kind(*k).map_or(0.0, |s| s.latency_ms.p90);
            let limit_ms = P90_LIMIT_MS[k.index()];
            ResponseTimeLimit {
                kind: KIND_NAMES[k.index()].to_string(),
                p90_ms,
                limit_ms,
                passed: p90_ms <= limit_ms,
            }
        })
        .collect();
    let passed = mix.iter().all(|m| m.passed) && response_time_limits.iter().all(|r| r.passed);
    TpccPhase {
        tpmc,
        nopm: new_orders_from_schema.map(|n| n as f64 / minutes),
        efficiency_pct: spec.then(|| tpmc * 100.0 / ceiling.max(1e-9)),
        mix,
        response_time_limits,
        passed,
        deviations: opts.deviations(clients, rate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Recorded;
    use crate::metrics::StatementCounts;
    use std::time::Duration;

    fn summary(per_kind: [u64; 5], rolled_back: u64, p90_ms: u64) -> Summary {
        let mut r = Recorded::new(5);
        for (k, n) in per_kind.iter().enumerate() {
            for i in 0..*n {
                let counts = StatementCounts {
                    rolled_back: k == 0 && i < rolled_back,
                    ..StatementCounts::default()
                };
                let d = Duration::from_millis(p90_ms);
                r.record(k, d, d, counts, 0);
            }
        }
        Summary::from_recorded(&r, &KIND_NAMES, 60.0)
    }

    fn opts(pacing: TpccPacing) -> TpccOptions {
        TpccOptions {
            warehouses: 10,
            pacing,
            terminals_per_warehouse: 10,
            procedures: false,
        }
    }

    #[test]
    fn tpmc_counts_committed_new_orders_and_efficiency_the_ceiling() {
        let s = summary([450, 430, 40, 40, 40], 5, 10);
        let t = phase_figures(&s, &opts(TpccPacing::Spec), 100, None, 1, Some(445));
        assert_eq!(t.tpmc, 445.0);
        assert_eq!(t.nopm, Some(445.0));
        let eff = t.efficiency_pct.unwrap();
        assert!((eff - 445.0 * 100.0 / 128.6).abs() < 1e-9, "{eff}");
        assert!(t.passed);
        assert!(t.deviations.is_empty());
    }

    #[test]
    fn throughput_mode_has_no_efficiency_and_says_why() {
        let s = summary([450, 430, 40, 40, 40], 0, 10);
        let t = phase_figures(&s, &opts(TpccPacing::None), 4, None, 1, None);
        assert_eq!(t.efficiency_pct, None);
        assert!(t.deviations[0].contains("throughput mode"));
    }

    #[test]
    fn a_short_mix_or_a_slow_p90_fails() {
        let s = summary([485, 420, 40, 15, 40], 0, 10);
        let t = phase_figures(&s, &opts(TpccPacing::Spec), 100, None, 1, None);
        let failed: Vec<&str> = t
            .mix
            .iter()
            .filter(|m| !m.passed)
            .map(|m| m.kind.as_str())
            .collect();
        assert_eq!(failed, ["payment", "delivery"]);
        assert!(!t.passed);
        let slow = summary([450, 430, 40, 40, 40], 0, 6_000);
        let t = phase_figures(&slow, &opts(TpccPacing::Spec), 100, None, 1, None);
        let over: Vec<&str> = t
            .response_time_limits
            .iter()
            .filter(|r| !r.passed)
            .map(|r| r.kind.as_str())
            .collect();
        assert_eq!(over, ["new_order", "payment", "order_status"]);
    }
}
