//! What a benchmark adds to a run beside its transactions, asked through `Benchmark` and
//! answered by the benchmark's folder: the [`Workload`] its clients run with [`PhaseHooks`] at
//! the phase boundaries (a recorded phase's own figures, [`PhaseFigures`]), and the checks it
//! runs on the instances after the phases and again on a finished run's (`drivebench check`). The caller hands the instances as
//! [`Instances`] (engines' connectors) and drives the phases itself through [`Drive`].

use std::future::Future;
use std::sync::Arc;

use super::Workload;
use super::tpcc::figures::TpccPhase;
use crate::engines::statements::NoStatements;
use crate::engines::{Connector, Dialect, EngineError};
use crate::metrics::summary::Summary;

/// An instance as the hooks and the checks reach it: its name and its SQL dialect.
#[derive(Debug, Clone, Copy)]
pub struct Instance<'a> {
    pub name: &'a str,
    pub dialect: Dialect,
}

/// The instances a run drives, with what the hooks need to know of the run.
pub struct Instances<'a, C: Connector> {
    /// In the plan's order, one per connector.
    pub instances: Vec<Instance<'a>>,
    pub connectors: &'a [Arc<C>],
    /// Virtual clients per instance.
    pub clients: u32,
    /// The plan's transaction rate per instance (open model), if any.
    pub rate: Option<f64>,
    /// The run's seed.
    pub seed: u64,
}

/// A benchmark's own figures of a recorded phase, kept in the phase's report.
#[derive(Debug, Clone)]
pub enum PhaseFigures {
    /// `phases[].tpcc`.
    Tpcc(TpccPhase),
}

/// What a benchmark adds to the phases: called once before the clock starts and once per
/// phase, after it is closed and before it is written.
pub trait PhaseHooks {
    fn before_start(&mut self) -> impl Future<Output = ()>;
    /// The phase that just ended, from its summary: the benchmark's figures when the phase is
    /// recorded and the benchmark has figures of its own.
    fn phase_ended(
        &mut self,
        summary: &Summary,
        recorded: bool,
    ) -> impl Future<Output = Option<PhaseFigures>>;
}

/// The hooks of a benchmark that adds nothing to its phases.
pub struct NoHooks;

impl PhaseHooks for NoHooks {
    async fn before_start(&mut self) {}
    async fn phase_ended(&mut self, _: &Summary, _: bool) -> Option<PhaseFigures> {
        None
    }
}

/// What the caller does with the benchmark's workload and phase hooks once they are opened
/// (connect the clients, run the phases and the curve): handed their types, as
/// `engines::dispatch` hands an engine's.
pub trait Drive {
    type Output;
    fn drive<W: Workload, H: PhaseHooks>(
        self,
        workload: Arc<W>,
        hooks: &mut H,
    ) -> impl Future<Output = Self::Output>;
}

/// Why a benchmark's workload cannot run on the instances' engine.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("no instances")]
    NoInstances,
    #[error(transparent)]
    Tpcc(#[from] super::tpcc::procs::TpccSqlError),
}

/// Why a benchmark's checks could not run on an instance.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Statements(#[from] NoStatements),
    #[error("instance {instance}: consistency checks: {source}")]
    Engine {
        instance: String,
        #[source]
        source: EngineError,
    },
}
