//! What a TPC-C run adds to the phases, from the [`probe`](super::probe): Σ D_NEXT_O_ID read
//! before the clock starts and at every phase's end (the schema's count of New-Orders), and
//! each recorded phase's TPC-C figures from it.

use super::figures::phase_figures;
use super::options::TpccOptions;
use super::probe::NewOrderProbe;
use crate::engines::Connector;
use crate::metrics::summary::Summary;
use crate::workload::hooks::{Instances, PhaseFigures, PhaseHooks};

/// TPC-C's phase hooks on a run's instances.
pub struct TpccHooks<'a, C: Connector> {
    probe: NewOrderProbe<C>,
    options: &'a TpccOptions,
    clients: u32,
    rate: Option<f64>,
    instances: usize,
    /// The count at the last boundary (None: unknown).
    count: Option<u64>,
}

impl<'a, C: Connector> TpccHooks<'a, C> {
    /// Open the probe's sessions on every instance.
    pub async fn open(on: &Instances<'_, C>, options: &'a TpccOptions) -> Self {
        let probe = NewOrderProbe::open(&on.instances, on.connectors, options.isolation).await;
        TpccHooks {
            probe,
            options,
            clients: on.clients,
            rate: on.rate,
            instances: on.instances.len(),
            count: None,
        }
    }
}

impl<C: Connector> PhaseHooks for TpccHooks<'_, C> {
    async fn before_start(&mut self) {
        self.count = self.probe.sample().await;
    }

    async fn phase_ended(&mut self, summary: &Summary, recorded: bool) -> Option<PhaseFigures> {
        let now = self.probe.sample().await;
        let new_orders = now
            .zip(self.count)
            .map(|(end, start)| end.saturating_sub(start));
        self.count = now;
        recorded.then(|| {
            PhaseFigures::Tpcc(phase_figures(
                summary,
                self.options,
                self.clients,
                self.rate,
                self.instances,
                new_orders,
                self.probe.isolation(),
            ))
        })
    }
}
