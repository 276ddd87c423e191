//! TPC-C's options: pacing, mix, warehouses, terminals per warehouse, procedures and
//! isolation, where a mode departs from the spec, and their resolution from the `[workload]`
//! keys of `benchmark = "tpcc"` with the number of virtual users they imply.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engines::EngineKind;
use crate::engines::isolation::{self, Isolation};
use crate::workload::section::{MAX_CLIENTS, PrepareMode, WorkloadSection};
use drivebench_core::config::bounds::int_in;
use drivebench_core::config::error::{Invalid, KeyPath};

/// Most warehouses one instance may have (about 10 TB of data).
pub const MAX_WAREHOUSES: i64 = 100_000;

/// Virtual users per instance and the TPC-C options.
pub fn resolve(w: &WorkloadSection, key: &KeyPath) -> Result<(u32, TpccOptions), Invalid> {
    let warehouses = int_in(w.warehouses, 1, 1, MAX_WAREHOUSES, key.key("warehouses"))?;
    let pacing = match w.pacing.as_deref() {
        None | Some("spec") => TpccPacing::Spec,
        Some("none") => TpccPacing::None,
        Some(other) => {
            return Err(Invalid::new(
                key.key("pacing"),
                format!("unknown pacing {other:?}; known: spec, none"),
            ));
        }
    };
    let (mix, isolation) = mix_and_isolation(w, key)?;
    let terminals_per_warehouse = int_in(
        w.terminals_per_warehouse,
        10,
        1,
        MAX_CLIENTS,
        key.key("terminals_per_warehouse"),
    )?;
    let clients = match pacing {
        TpccPacing::Spec => {
            if w.rate.is_some() {
                return Err(Invalid::new(
                    key.key("rate"),
                    "spec pacing paces each terminal itself; use pacing = \"none\" with a rate",
                ));
            }
            let n = i64::from(warehouses) * i64::from(terminals_per_warehouse);
            if n > MAX_CLIENTS {
                return Err(Invalid::new(
                    key.key("warehouses"),
                    format!(
                        "{warehouses} warehouses x {terminals_per_warehouse} terminals = {n} virtual users, more than {MAX_CLIENTS} per instance; use more instances or fewer terminals_per_warehouse"
                    ),
                ));
            }
            if let Some(c) = w.clients
                && c != n
            {
                return Err(Invalid::new(
                    key.key("clients"),
                    format!(
                        "under spec pacing the virtual users are warehouses x terminals_per_warehouse = {n}, got {c}; remove clients or change terminals_per_warehouse"
                    ),
                ));
            }
            n as u32
        }
        TpccPacing::None => {
            if w.terminals_per_warehouse.is_some() {
                return Err(Invalid::new(
                    key.key("terminals_per_warehouse"),
                    "applies to pacing = \"spec\" only; set clients for pacing = \"none\"",
                ));
            }
            int_in(
                w.clients,
                i64::from(warehouses).min(MAX_CLIENTS),
                1,
                MAX_CLIENTS,
                key.key("clients"),
            )?
        }
    };
    Ok((
        clients,
        TpccOptions {
            warehouses,
            pacing,
            terminals_per_warehouse,
            procedures: w.procedures.unwrap_or(false),
            mix,
            isolation,
        },
    ))
}

/// `mix` and `isolation` as written: a known name or absent.
fn mix_and_isolation(
    w: &WorkloadSection,
    key: &KeyPath,
) -> Result<(TpccMix, Option<Isolation>), Invalid> {
    let mix = match w.mix.as_deref() {
        None => TpccMix::Spec,
        Some(name) => TpccMix::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("mix"),
                format!("unknown mix {name:?}; known: spec, hammerdb"),
            )
        })?,
    };
    let isolation = match w.isolation.as_deref() {
        None => None,
        Some(name) => Some(Isolation::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("isolation"),
                format!(
                    "unknown isolation {name:?}; known: read_committed, repeatable_read, serializable, snapshot"
                ),
            )
        })?),
    };
    Ok((mix, isolation))
}

/// TPC-C pacing.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TpccPacing {
    /// Keying and think times of clause 5.2.5 (the spec's terminals).
    Spec,
    /// No keying or think time: transactions back to back (throughput mode).
    None,
}

impl TpccPacing {
    pub fn name(self) -> &'static str {
        match self {
            TpccPacing::Spec => "spec",
            TpccPacing::None => "none",
        }
    }
}

/// How a TPC-C terminal picks its next transaction kind.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TpccMix {
    /// The deck of 5.2.4.2: 45 New-Order, 43 Payment and 4 of each other kind per 100 cards,
    /// every full deck meeting the minimums of 5.2.3 (as BenchBase and go-tpc weigh them).
    #[default]
    Spec,
    /// HammerDB's and sysbench-tpcc's independent random draw weighted 10/10/1/1/1 of 23
    /// (New-Order 43.5 %); the minimums hold on average only.
    Hammerdb,
}

impl TpccMix {
    pub const ALL: [TpccMix; 2] = [TpccMix::Spec, TpccMix::Hammerdb];

    pub fn name(self) -> &'static str {
        match self {
            TpccMix::Spec => "spec",
            TpccMix::Hammerdb => "hammerdb",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// "spec deck 45/43/4/4/4" or "hammerdb draw 10/10/1/1/1".
    pub fn describe(self) -> &'static str {
        match self {
            TpccMix::Spec => "spec deck 45/43/4/4/4",
            TpccMix::Hammerdb => "hammerdb random draw 10/10/1/1/1",
        }
    }
}

/// The TPC-C options compare sets side by side; "-" for a run of another benchmark.
pub fn compared_options(t: Option<&TpccOptions>) -> [(String, String); 4] {
    let of = |fact: fn(&TpccOptions) -> String| t.map_or("-".into(), fact);
    [
        ("pacing".into(), of(|t| t.pacing.name().to_string())),
        ("mix".into(), of(|t| t.mix.name().to_string())),
        ("procedures".into(), of(|t| t.procedures.to_string())),
        (
            "terminals per warehouse".into(),
            of(|t| t.terminals_per_warehouse.to_string()),
        ),
    ]
}

/// Where every drivebench TPC-C run departs from the spec, whatever its options.
pub const INHERENT_DEVIATIONS: [&str; 3] = [
    "Delivery runs in the terminal as one transaction, not queued for deferred execution (2.7.2): its response time is the whole Delivery, judged against the deferred part's 80 s limit",
    "no emulated user screens, menu or terminal I/O (2.2, 5.2.5.1): response times are measured at the driver",
    "of clause 3's ACID tests only the consistency conditions (3.3.2) run; atomicity, isolation and durability are not tested",
];

/// TPC-C options.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TpccOptions {
    pub warehouses: u32,
    pub pacing: TpccPacing,
    /// Terminals (virtual users) per warehouse under spec pacing; the spec has 10.
    pub terminals_per_warehouse: u32,
    /// Each transaction is one stored-procedure call (MariaDB/MySQL, PostgreSQL, SQL Server).
    #[serde(default)]
    pub procedures: bool,
    /// How each terminal picks its next transaction kind (absent in older results: spec).
    #[serde(default)]
    pub mix: TpccMix,
    /// The isolation level every session is set to; None: the engine's default.
    #[serde(default)]
    pub isolation: Option<crate::engines::isolation::Isolation>,
}

impl TpccOptions {
    /// Rows the initial population holds per instance (ORDER-LINE averages 10 per order).
    pub fn loaded_rows(&self) -> u64 {
        let per_warehouse = 1 + 10 + 30_000 * 3 + 9_000 + 300_000 + 100_000;
        100_000 + u64::from(self.warehouses) * per_warehouse
    }

    /// Where this mode departs from the spec, said plainly (empty when it does not).
    pub fn deviations(&self, clients: u32, rate: Option<f64>) -> Vec<String> {
        let mut out = Vec::new();
        match self.pacing {
            TpccPacing::None => out.push(
                "pacing = \"none\": no keying or think times (throughput mode); tpmC is not bounded by 12.86 per warehouse and efficiency is not reported".to_string(),
            ),
            TpccPacing::Spec if self.terminals_per_warehouse != 10 => out.push(format!(
                "terminals_per_warehouse = {} (the spec has 10)",
                self.terminals_per_warehouse
            )),
            TpccPacing::Spec => {}
        }
        if rate.is_some() {
            out.push("rate: open-model arrivals instead of terminals' own pacing".to_string());
        }
        if self.mix == TpccMix::Hammerdb {
            out.push("mix = \"hammerdb\": each kind drawn at random 10/10/1/1/1 of 23 (HammerDB, sysbench-tpcc) instead of dealt from a deck (5.2.4.2); New-Order is 43.5 % of the work instead of 45 %, so tpmC is about 3.5 % lower for the same work, and the minimums of 5.2.3 hold on average only".to_string());
        }
        let w = u64::from(self.warehouses);
        if u64::from(clients) < w {
            out.push(format!(
                "{clients} clients for {w} warehouses: only {clients} warehouses are home to a terminal"
            ));
        }
        out.extend(INHERENT_DEVIATIONS.iter().map(|d| d.to_string()));
        out
    }

    pub fn describe(&self, clients: u32, connections: u32) -> String {
        let pool = if connections < clients {
            format!(" on {connections} connections")
        } else {
            String::new()
        };
        format!(
            "TPC-C-like, {} warehouses, pacing {}, mix {}, {clients} virtual users{pool}",
            self.warehouses,
            self.pacing.name(),
            self.mix.name()
        )
    }
}

/// The TPC-C keys set in the section.
pub fn keys_set(w: &WorkloadSection) -> Vec<&'static str> {
    [
        ("warehouses", w.warehouses.is_some()),
        ("pacing", w.pacing.is_some()),
        (
            "terminals_per_warehouse",
            w.terminals_per_warehouse.is_some(),
        ),
        ("reload", w.reload.is_some()),
        ("procedures", w.procedures.is_some()),
        ("mix", w.mix.is_some()),
        ("isolation", w.isolation.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, set)| set.then_some(k))
    .collect()
}

/// `prepare`, with `reload = true` meaning prepare = "always".
pub fn prepare(w: &WorkloadSection, key: &KeyPath) -> Result<PrepareMode, Invalid> {
    let prepare = w.prepare.unwrap_or(PrepareMode::Auto);
    match w.reload {
        Some(true) if prepare == PrepareMode::Never && w.prepare.is_some() => Err(Invalid::new(
            key.key("reload"),
            "contradicts prepare = \"never\"",
        )),
        Some(true) => Ok(PrepareMode::Always),
        _ => Ok(prepare),
    }
}

impl TpccOptions {
    /// Options the instances' engines cannot run: stored procedures on an engine without them,
    /// an isolation level the engine does not offer.
    pub fn check_engines(&self, engines: &[EngineKind], key: &KeyPath) -> Result<(), Invalid> {
        if self.procedures
            && let Some(e) = engines.iter().find(|e| !e.ops().stored_procedures)
        {
            return Err(Invalid::new(
                key.key("procedures"),
                format!(
                    "{} runs TPC-C as client-side statements only; stored procedures are for engine = {}",
                    e.as_str(),
                    engines_with_procedures()
                ),
            ));
        }
        if let Some(level) = self.isolation
            && let Some(e) = engines
                .iter()
                .find(|e| !isolation::levels(e.dialect()).contains(&level))
        {
            let offered: Vec<&str> = isolation::levels(e.dialect())
                .iter()
                .map(|l| l.name())
                .collect();
            return Err(Invalid::new(
                key.key("isolation"),
                format!(
                    "isolation = \"{}\" is not available on engine = \"{}\", which offers {}",
                    level.name(),
                    e.as_str(),
                    offered.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// What `drivebench plan` says of the workload, then each departure from the spec:
    /// `pacing` is the clients' when the terminals do not pace themselves.
    pub fn plan_lines(
        &self,
        clients: u32,
        rate: Option<f64>,
        pacing: &str,
        prepare: PrepareMode,
    ) -> Vec<String> {
        let pacing = match self.pacing {
            TpccPacing::Spec => format!(
                "spec pacing (keying 18/3/2/2/2 s, think 12/12/10/5/5 s), {} terminals per warehouse",
                self.terminals_per_warehouse
            ),
            TpccPacing::None => format!("no keying or think time, {pacing}"),
        };
        let mut out = vec![format!(
            "workload  TPC-C-like, {} warehouses, {clients} virtual users per instance, {pacing}, mix {}, isolation {}, prepare {}{}",
            self.warehouses,
            self.mix.describe(),
            self.isolation.map_or("the engine's default", |l| l.name()),
            prepare.name(),
            if self.procedures {
                ", each transaction one stored-procedure call"
            } else {
                ""
            }
        )];
        for d in self.deviations(clients, rate) {
            out.push(format!("          non-spec: {d}"));
        }
        out
    }

    /// A curve sets the rate itself: it needs transactions back to back, not terminals' pacing.
    pub fn check_curve(&self, key: &KeyPath) -> Result<(), Invalid> {
        if self.pacing == TpccPacing::Spec {
            return Err(Invalid::new(
                key.clone(),
                "a curve sets the rate itself; TPC-C needs workload.pacing = \"none\" (throughput mode) for a curve",
            ));
        }
        Ok(())
    }
}

/// The engines that run TPC-C as stored procedures, as a scenario writes them.
fn engines_with_procedures() -> String {
    let names: Vec<String> = EngineKind::ALL
        .iter()
        .filter(|k| k.ops().stored_procedures)
        .map(|k| format!("\"{}\"", k.as_str()))
        .collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "none".to_string(),
    }
}
