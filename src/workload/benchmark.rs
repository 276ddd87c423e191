//! The one dispatch on the benchmark: `Benchmark`, the options of that benchmark only,
//! resolved from the `[workload]` section as written (where `BenchmarkKind` names it). What
//! differs between benchmarks is asked here, once, and answered by the benchmark's folder.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::sync::Arc;

use super::hooks::{CheckError, Drive, Instance, Instances, NoHooks, WorkloadError};
use super::section::{BenchmarkKind, PrepareMode, WorkloadSection};
use super::sysbench::Sysbench;
use super::sysbench::options::{self as sysbench, SysbenchOptions, SysbenchTest};
use super::tpcc::figures::{self as tpcc_figures, HostFigures, InstanceCheck, TpccRun};
use super::tpcc::hooks::TpccHooks;
use super::tpcc::options::TpccPacing;
use super::tpcc::options::{self as tpcc, TpccOptions};
use super::tpcc::probe;
use super::tpcc::report as tpcc_report;
use super::tpcc::workload::Tpcc;
use super::views::{Headline, HostPart, MergedFigures, PhaseView, RunChecks, RunFigures};
use crate::engines::{Connector, Dialect, EngineKind, EngineOps};
use crate::metrics::summary::Summary;
use drivebench_core::config::error::{Invalid, KeyPath};
use drivebench_core::config::units::format_count;
use drivebench_core::table::Section;

/// The benchmark part of a `[workload]` section, resolved.
#[derive(Debug)]
pub struct Resolved {
    /// Virtual clients per instance.
    pub clients: u32,
    pub benchmark: Benchmark,
    pub prepare: PrepareMode,
}

/// The benchmark a plan runs, with the options of that benchmark only.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(tag = "benchmark", rename_all = "lowercase")]
pub enum Benchmark {
    /// `benchmark = "sysbench"`.
    Sysbench { sysbench: SysbenchOptions },
    /// `benchmark = "tpcc"`.
    Tpcc { tpcc: TpccOptions },
}

impl Benchmark {
    /// Rows the initial population holds per instance.
    pub fn loaded_rows(&self) -> u64 {
        match self {
            Benchmark::Sysbench { sysbench } => sysbench.loaded_rows(),
            Benchmark::Tpcc { tpcc } => tpcc.loaded_rows(),
        }
    }

    /// The benchmark a section names, its options and its virtual clients; a key of another
    /// benchmark is refused.
    pub fn resolve(w: &WorkloadSection, key: &KeyPath) -> Result<Resolved, Invalid> {
        for other in BenchmarkKind::ALL.into_iter().filter(|k| *k != w.benchmark) {
            if let Some(k) = keys_set(other, w).first() {
                return Err(Invalid::new(
                    key.key(k),
                    format!("does not apply to benchmark = \"{}\"", w.benchmark.name()),
                ));
            }
        }
        Ok(match w.benchmark {
            BenchmarkKind::Sysbench => {
                let (clients, sysbench) = sysbench::resolve(w, key)?;
                Resolved {
                    clients,
                    benchmark: Benchmark::Sysbench { sysbench },
                    prepare: w.prepare.unwrap_or(PrepareMode::Auto),
                }
            }
            BenchmarkKind::Tpcc => {
                let prepare = tpcc::prepare(w, key)?;
                let (clients, tpcc) = tpcc::resolve(w, key)?;
                Resolved {
                    clients,
                    benchmark: Benchmark::Tpcc { tpcc },
                    prepare,
                }
            }
        })
    }

    pub fn kind(&self) -> BenchmarkKind {
        match self {
            Benchmark::Sysbench { .. } => BenchmarkKind::Sysbench,
            Benchmark::Tpcc { .. } => BenchmarkKind::Tpcc,
        }
    }

    /// The sysbench options, when the benchmark is sysbench.
    pub fn sysbench(&self) -> Option<&SysbenchOptions> {
        match self {
            Benchmark::Sysbench { sysbench } => Some(sysbench),
            Benchmark::Tpcc { .. } => None,
        }
    }

    /// The TPC-C options, when the benchmark is TPC-C.
    pub fn tpcc(&self) -> Option<&TpccOptions> {
        match self {
            Benchmark::Tpcc { tpcc } => Some(tpcc),
            Benchmark::Sysbench { .. } => None,
        }
    }

    /// Options the engines cannot run, refused under `key` (the `[workload]` section).
    pub fn check_engines(&self, engines: &[EngineKind], key: &KeyPath) -> Result<(), Invalid> {
        match self {
            Benchmark::Sysbench { .. } => Ok(()),
            Benchmark::Tpcc { tpcc } => tpcc.check_engines(engines, key),
        }
    }

    /// Whether its clients pace themselves (TPC-C spec pacing: keying and think times), so
    /// that no rate can be set on them.
    pub fn self_paced(&self) -> bool {
        match self {
            Benchmark::Sysbench { .. } => false,
            Benchmark::Tpcc { tpcc } => tpcc.pacing == TpccPacing::Spec,
        }
    }

    /// Whether a load curve can drive this benchmark: a curve sets the rate itself.
    pub fn check_curve(&self, key: &KeyPath) -> Result<(), Invalid> {
        match self {
            Benchmark::Sysbench { .. } => Ok(()),
            Benchmark::Tpcc { tpcc } => tpcc.check_curve(key),
        }
    }

    /// Data on disk per instance after the load, as the engine estimates it.
    pub fn data_bytes(&self, ops: &EngineOps) -> u64 {
        match self {
            Benchmark::Sysbench { sysbench: o } => {
                (ops.estimate_sysbench_bytes)(o.loaded_rows(), o.create_secondary)
            }
            Benchmark::Tpcc { tpcc: t } => (ops.estimate_tpcc_bytes)(t.warehouses),
        }
    }

    /// What `drivebench plan` says of the workload, one line each: `pacing` is the clients'
    /// (closed loop, or open model at `rate`).
    pub fn plan_lines(
        &self,
        clients: u32,
        rate: Option<f64>,
        pacing: &str,
        prepare: PrepareMode,
    ) -> Vec<String> {
        match self {
            Benchmark::Sysbench { sysbench } => {
                vec![sysbench.plan_line(clients, pacing, prepare)]
            }
            Benchmark::Tpcc { tpcc } => tpcc.plan_lines(clients, rate, pacing, prepare),
        }
    }

    /// The loaded data, as a pre-built copy's name holds it: tables, rows and index, or
    /// warehouses.
    pub fn data_key(&self) -> String {
        match self {
            Benchmark::Sysbench { sysbench: o } => format!(
                "{}x{}-{}",
                o.tables,
                o.table_size,
                if o.create_secondary { "k" } else { "nok" }
            ),
            Benchmark::Tpcc { tpcc: t } => format!("tpcc{}w", t.warehouses),
        }
    }

    /// Whether the transactions write (a read-only sysbench test does not).
    pub fn writes(&self) -> bool {
        match self {
            Benchmark::Sysbench { sysbench: o } => !matches!(
                o.test,
                SysbenchTest::OltpReadOnly | SysbenchTest::OltpPointSelect
            ),
            Benchmark::Tpcc { .. } => true,
        }
    }

    /// Statements each client connection prepares in `dialect` (sizes the servers' limits).
    pub fn statements_per_client(&self, dialect: Dialect) -> usize {
        match self {
            Benchmark::Sysbench { sysbench: o } => {
                Sysbench::new(o.clone(), dialect).statements_per_client()
            }
            Benchmark::Tpcc { .. } => Tpcc::statements_per_client(),
        }
    }

    /// Tables the workload touches (sizes table caches).
    pub fn tables(&self) -> u32 {
        match self {
            Benchmark::Sysbench { sysbench } => sysbench.tables,
            Benchmark::Tpcc { .. } => 9,
        }
    }

    /// One line saying what runs, e.g. "sysbench oltp_read_write, 4 tables x 10,000 rows".
    pub fn describe(&self, clients: u32, connections: u32) -> String {
        match self {
            Benchmark::Sysbench { sysbench: o } => format!(
                "sysbench {}, {} tables x {} rows, rand_type {}",
                o.test.name(),
                o.tables,
                o.table_size,
                o.rand_type.name()
            ),
            Benchmark::Tpcc { tpcc } => tpcc.describe(clients, connections),
        }
    }
}

/// A run as compare asks its benchmark about it: its label, its benchmark, its figures of the
/// compared phase.
#[derive(Debug, Clone, Copy)]
pub struct ComparedRun<'a> {
    pub label: &'a str,
    pub benchmark: &'a Benchmark,
    pub figures: &'a RunFigures,
}

/// The compared runs that have TPC-C figures, with their labels.
fn tpcc_runs<'a>(runs: &[ComparedRun<'a>]) -> Vec<(&'a str, &'a TpccRun)> {
    runs.iter()
        .filter_map(|r| Some((r.label, r.figures.tpcc.as_ref()?)))
        .collect()
}

/// What the outputs ask of the benchmark: its sections, its figures when phases are merged or
/// runs compared. A benchmark with nothing of its own to show answers with nothing.
impl Benchmark {
    /// summary.md's and report.html's sections of the benchmark's own: from its figures of the
    /// recorded `phases` and the run's `checks`; `rate` the clients' open-model rate.
    pub fn phase_sections(
        &self,
        phases: &[PhaseView],
        checks: &RunChecks,
        rate: Option<f64>,
    ) -> Vec<Section> {
        match self {
            Benchmark::Sysbench { .. } => Vec::new(),
            Benchmark::Tpcc { tpcc } => {
                let scheduled = tpcc.pacing == TpccPacing::Spec || rate.is_some();
                tpcc_report::sections(phases, checks, scheduled)
            }
        }
    }

    /// What ran, in one line of summary.md and report.html: sysbench's test, tables and rows,
    /// clients and `pacing`, rand_type; TPC-C's description.
    pub fn report_line(&self, clients: u32, connections: u32, pacing: &str) -> String {
        match self {
            Benchmark::Sysbench { sysbench: o } => format!(
                "sysbench {}, {} tables x {} rows, {clients} clients per instance, {pacing}, rand_type {}",
                o.test.name(),
                o.tables,
                format_count(u64::from(o.table_size)),
                o.rand_type.name()
            ),
            Benchmark::Tpcc { tpcc } => tpcc.describe(clients, connections),
        }
    }

    /// The workload identity runs must share to be compared: benchmark, test and data scale.
    pub fn compare_key(&self) -> String {
        match self {
            Benchmark::Sysbench { sysbench: o } => format!(
                "sysbench {} with {} tables x {} rows",
                o.test.name(),
                o.tables,
                o.table_size
            ),
            Benchmark::Tpcc { tpcc: t } => format!("tpcc with {} warehouses", t.warehouses),
        }
    }

    /// The options compare sets side by side, every benchmark's by name, "-" where the run
    /// (`None`: one with no database part) is of another benchmark.
    pub fn compared_options(b: Option<&Benchmark>) -> Vec<(String, String)> {
        let sysbench = b.and_then(Benchmark::sysbench);
        let mut out = vec![(
            "rand_type".to_string(),
            sysbench.map_or("-".into(), |o| o.rand_type.name().to_string()),
        )];
        out.extend(tpcc::compared_options(b.and_then(Benchmark::tpcc)));
        out
    }

    /// The figure this benchmark's runs are ranked by before TPS, when it has one.
    pub fn headline(&self, figures: &RunFigures) -> Option<Headline> {
        match self {
            Benchmark::Sysbench { .. } => None,
            Benchmark::Tpcc { .. } => figures.tpcc.as_ref().map(|t| Headline {
                key: "tpmc",
                title: "tpmC, TPC-C-like (higher is better)",
                value: t.tpmc,
                decimals: 0,
            }),
        }
    }

    /// compare's sections of this benchmark for a group's `runs` (those of another benchmark
    /// are passed over).
    pub fn compare_sections(&self, runs: &[ComparedRun]) -> Vec<Section> {
        match self {
            Benchmark::Sysbench { .. } => Vec::new(),
            Benchmark::Tpcc { .. } => tpcc_report::compare_sections(&tpcc_runs(runs)),
        }
    }

    /// What compare warns of above everything when this benchmark's `runs` differ in a way
    /// that changes what a figure means.
    pub fn compare_warnings(&self, runs: &[ComparedRun]) -> Vec<String> {
        match self {
            Benchmark::Sysbench { .. } => Vec::new(),
            Benchmark::Tpcc { .. } => {
                let figures = tpcc_runs(runs);
                let procedures: Vec<_> = runs
                    .iter()
                    .filter_map(|r| Some((r.label, r.benchmark.tpcc()?.procedures)))
                    .collect();
                tpcc_report::mix_warning(&figures)
                    .into_iter()
                    .chain(tpcc_report::procedures_warning(&procedures))
                    .collect()
            }
        }
    }

    /// The benchmark's figures of a phase merged from several `hosts`' (`drivebench merge`),
    /// from the merged `summary`; `instances` all hosts'. None when a host has none.
    pub fn merged_figures(
        &self,
        hosts: &[HostPart],
        summary: &Summary,
        clients: u32,
        rate: Option<f64>,
        instances: usize,
    ) -> MergedFigures {
        match self {
            Benchmark::Sysbench { .. } => MergedFigures::default(),
            Benchmark::Tpcc { tpcc } => {
                let parts: Option<Vec<HostFigures>> = hosts
                    .iter()
                    .map(|h| {
                        Some(HostFigures {
                            label: h.label,
                            figures: h.figures.tpcc?,
                        })
                    })
                    .collect();
                MergedFigures {
                    tpcc: parts
                        .map(|p| tpcc_figures::merged(&p, summary, tpcc, clients, rate, instances)),
                }
            }
        }
    }
}

impl Benchmark {
    /// Open the benchmark's workload and phase hooks on the instances and hand them to `d`,
    /// which runs the phases; the hooks' sessions close when it returns.
    pub async fn drive<C: Connector, D: Drive>(
        &self,
        on: &Instances<'_, C>,
        d: D,
    ) -> Result<D::Output, WorkloadError> {
        let Some(dialect) = on.instances.first().map(|i| i.dialect) else {
            return Err(WorkloadError::NoInstances);
        };
        Ok(match self {
            Benchmark::Sysbench { sysbench: o } => {
                let workload = Arc::new(Sysbench::new(o.clone(), dialect));
                d.drive(workload, &mut NoHooks).await
            }
            Benchmark::Tpcc { tpcc: o } => {
                let workload = Arc::new(Tpcc::new(o.clone(), dialect, on.seed)?);
                let mut hooks = TpccHooks::open(on, o).await;
                d.drive(workload, &mut hooks).await
            }
        })
    }

    /// The checks the benchmark runs on its instances after the phases, as the console names
    /// them; None when it has none.
    pub fn checks(&self) -> Option<&'static str> {
        match self {
            Benchmark::Sysbench { .. } => None,
            Benchmark::Tpcc { .. } => Some("consistency checks (TPC-C 3.3.2)"),
        }
    }

    /// Run the benchmark's checks on every instance, one after another, each on a session of
    /// its own (none for a benchmark without checks).
    pub async fn run_checks<C: Connector>(
        &self,
        instances: &[Instance<'_>],
        connectors: &[Arc<C>],
    ) -> Result<Vec<InstanceCheck>, CheckError> {
        match self {
            Benchmark::Sysbench { .. } => Ok(Vec::new()),
            Benchmark::Tpcc { tpcc: o } => {
                probe::run_checks(instances, connectors, o.warehouses).await
            }
        }
    }
}

/// The keys of benchmark `kind` set in the section.
fn keys_set(kind: BenchmarkKind, w: &WorkloadSection) -> Vec<&'static str> {
    match kind {
        BenchmarkKind::Sysbench => sysbench::keys_set(w),
        BenchmarkKind::Tpcc => tpcc::keys_set(w),
    }
}
