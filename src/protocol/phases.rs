//! Phases as barriers. Clients connect and prepare first; one start signal releases them all;
//! the sampler wakes at every report tick and phase boundary, swaps the shards out (so counters
//! reset at boundaries), appends series rows, prints the live line, and closes each phase into
//! a `PhaseReport`. A transaction in flight at a boundary is recorded where it ends; those
//! still running when the last phase ends are outside every phase and are dropped.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::tpcc::NewOrderProbe;
use super::{Ending, RunCtx};
use crate::clients::rate::RateControl;
use crate::clients::{ClientEvent, ClientSpec, Pacing, open_pool, run_client};
use crate::engines::Connector;
use crate::engines::runner::spawn_on;
use crate::metrics::summary::{MeanOfInstances, Summary};
use crate::metrics::{InstanceRecorder, Recorded, histogram};
use crate::report::live::interval_line;
use crate::report::result::{InstancePhase, PhaseReport, SeriesRow};
use crate::report::tpcc::phase_figures;
use crate::scenario::Plan;
use crate::scenario::plan::TpccPacing;
use crate::workload::Workload;
use crate::workload::tpcc;

/// How long stopping clients may take before the run moves on without them.
const STOP_GRACE: Duration = Duration::from_secs(30);

pub(super) enum Wake {
    Tick,
    Cancelled,
    Failed(String),
}

/// Sleep until `deadline`, unless the run is cancelled or a client fails first.
pub(super) async fn wait(
    deadline: Instant,
    events: &mut mpsc::UnboundedReceiver<ClientEvent>,
    cancel: &CancellationToken,
) -> Wake {
    loop {
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => return Wake::Tick,
            _ = cancel.cancelled() => return Wake::Cancelled,
            ev = events.recv() => match ev {
                Some(ClientEvent::Failed(e)) => return Wake::Failed(e.to_string()),
                Some(_) => {}
                None => return Wake::Failed("all clients stopped".into()),
            },
        }
    }
}

/// Run every phase; `probe` (TPC-C) is read at each phase boundary for NOPM.
pub async fn run_phases<C: Connector, W: Workload>(
    plan: &Plan,
    connectors: Vec<Arc<C>>,
    workload: Arc<W>,
    mut probe: Option<&mut NewOrderProbe<C>>,
    ctx: &mut RunCtx<'_>,
) -> Ending {
    let RunCtx {
        report,
        dir,
        console,
        cancel,
    } = ctx;
    let clients = plan.workload.clients;
    let kinds = workload.kinds();
    let mut recorders: Vec<InstanceRecorder> = connectors
        .iter()
        .map(|_| InstanceRecorder::new(clients, kinds.len()))
        .collect();
    let clients_cancel = cancel.child_token();
    let (start_tx, start_rx) = watch::channel(None);
    let (ev_tx, mut events) = mpsc::unbounded_channel();
    let mut handles: Vec<oneshot::Receiver<()>> = Vec::new();
    let mut ending = None;
    let pacing = match &plan.workload.tpcc {
        Some(t) if t.pacing == TpccPacing::Spec => Pacing::Keyed {
            ramp: tpcc::pacing::START_SPREAD,
        },
        _ => Pacing::for_rate(plan.workload.rate, clients),
    };
    // A curve steers the same clients after the phases.
    let controls: Vec<Arc<RateControl>> = connectors
        .iter()
        .map(|_| Arc::new(RateControl::new()))
        .collect();
    'spawn: for (i, connector) in connectors.iter().enumerate() {
        let pool = if plan.workload.pooled() {
            let n = plan.workload.connections();
            console.line(&format!(
                "{}: opening {n} connections shared by {clients} clients",
                plan.instances[i].name
            ));
            let opened = tokio::select! {
                p = open_pool(connector.clone(), workload.clone(), n) => p,
                _ = cancel.cancelled() => {
                    ending = Some(Ending::Interrupted);
                    break 'spawn;
                }
            };
            match opened {
                Ok(p) => Some(Arc::new(p)),
                Err(e) => {
                    ending = Some(Ending::Failed(format!(
                        "instance {}: {e}",
                        plan.instances[i].name
                    )));
                    break 'spawn;
                }
            }
        } else {
            None
        };
        for c in 0..clients {
            let spec = ClientSpec {
                connector: connector.clone(),
                workload: workload.clone(),
                instance: plan.instances[i].name.clone(),
                instance_index: i as u64,
                client: c,
                seed: plan.seed,
                pacing,
                max_attempts: plan.workload.max_attempts,
                shard: recorders[i].shard_for(c),
                pool: pool.clone(),
                rate: plan.curve.as_ref().map(|_| controls[i].clone()),
            };
            let fut = run_client(
                spec,
                start_rx.clone(),
                clients_cancel.clone(),
                ev_tx.clone(),
            );
            match spawn_on(connector.execution(), format!("client-{i}-{c}"), fut) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    ending = Some(Ending::Failed(format!(
                        "cannot start client {c} of {}: {e}",
                        plan.instances[i].name
                    )));
                    break 'spawn;
                }
            }
        }
    }
    drop(ev_tx);
    // Connections and statements before the clock.
    let total_clients = handles.len();
    let mut ready = 0;
    while ending.is_none() && ready < total_clients {
        tokio::select! {
            ev = events.recv() => match ev {
                Some(ClientEvent::Ready) => ready += 1,
                Some(ClientEvent::Failed(e)) => ending = Some(Ending::Failed(e.to_string())),
                Some(ClientEvent::Stopped) | None => ending = Some(Ending::Failed("a client stopped before the start".into())),
            },
            _ = cancel.cancelled() => ending = Some(Ending::Interrupted),
        }
    }
    if let Some(e) = ending {
        stop_clients(&clients_cancel, handles).await;
        return e;
    }
    console.line(&format!(
        "{total_clients} clients connected; starting {} phase(s)",
        plan.phases.len()
    ));
    let mut schema_count = match probe.as_mut() {
        Some(p) => p.sample().await,
        None => None,
    };
    let t0 = Instant::now();
    let _ = start_tx.send(Some(t0));
    let interval = Duration::from_millis(plan.report_interval_ms);
    let mut ending = Ending::Complete;
    let mut phase_start = t0;
    for phase in &plan.phases {
        let planned_end = t0 + Duration::from_millis(phase.start_offset_ms + phase.duration_ms);
        let bar = console.phase_bar(&phase.name, phase.duration_ms, phase_start);
        let mut totals: Vec<Recorded> = recorders
            .iter()
            .map(|_| Recorded::new(kinds.len()))
            .collect();
        let mut series = Vec::new();
        let mut tick_planned = phase_start;
        let mut last_tick = phase_start;
        let mut stop = None;
        loop {
            tick_planned = (tick_planned + interval).min(planned_end);
            let wake = wait(tick_planned, &mut events, cancel).await;
            let now = Instant::now();
            let secs = (now - last_tick).as_secs_f64();
            let mut interval_total = Recorded::new(kinds.len());
            for (i, rec) in recorders.iter_mut().enumerate() {
                let r = rec.collect();
                let s = Summary::from_recorded(&r, kinds, secs);
                let row = SeriesRow::from_summary(
                    &phase.name,
                    &plan.instances[i].name,
                    (now - t0).as_secs_f64(),
                    clients,
                    &s,
                );
                if let Err(e) = dir.append_series(&row) {
                    stop.get_or_insert(Ending::Failed(e.to_string()));
                }
                series.push(row);
                totals[i].merge(&r);
                interval_total.merge(&r);
            }
            let s = Summary::from_recorded(&interval_total, kinds, secs);
            console.line(&interval_line(
                (now - t0).as_secs_f64(),
                &phase.name,
                recorders.len(),
                clients,
                &s,
            ));
            last_tick = now;
            match wake {
                Wake::Cancelled => stop = Some(Ending::Interrupted),
                Wake::Failed(e) => stop = Some(Ending::Failed(e)),
                Wake::Tick => {}
            }
            if stop.is_some() || tick_planned >= planned_end {
                break;
            }
        }
        if let Some(b) = bar {
            b.finish();
        }
        let seconds = (last_tick - phase_start).as_secs_f64();
        let completed = stop.is_none();
        let count_now = match probe.as_mut() {
            Some(p) => p.sample().await,
            None => None,
        };
        let new_orders = count_now
            .zip(schema_count)
            .map(|(end, start)| end.saturating_sub(start));
        schema_count = count_now;
        let mut closed = close_phase(
            plan,
            phase,
            kinds,
            &totals,
            series,
            seconds,
            completed,
            (phase_start - t0).as_secs_f64(),
        );
        if let Some(t) = plan.workload.tpcc.as_ref().filter(|_| phase.record) {
            closed.tpcc = Some(phase_figures(
                &closed.summary,
                t,
                clients,
                plan.workload.rate,
                plan.instances.len(),
                new_orders,
            ));
        }
        report.phases.push(closed);
        phase_start = last_tick;
        if let Err(e) = dir.write_result(report) {
            stop.get_or_insert(Ending::Failed(e.to_string()));
        }
        if let Some(s) = stop {
            ending = s;
            break;
        }
    }
    if let (Ending::Complete, Some(curve)) = (&ending, &plan.curve) {
        ending = super::db_curve::CurveRun {
            plan,
            curve,
            recorders: &mut recorders,
            controls: &controls,
            events: &mut events,
            kinds,
            report,
            dir,
            console,
            cancel,
        }
        .run()
        .await;
    }
    stop_clients(&clients_cancel, handles).await;
    ending
}

#[allow(clippy::too_many_arguments)]
fn close_phase(
    plan: &Plan,
    phase: &crate::scenario::plan::PlanPhase,
    kinds: &[&str],
    totals: &[Recorded],
    series: Vec<SeriesRow>,
    seconds: f64,
    completed: bool,
    start_offset_s: f64,
) -> PhaseReport {
    let mut all = Recorded::new(kinds.len());
    let mut per_instance = Vec::new();
    for (i, r) in totals.iter().enumerate() {
        all.merge(r);
        per_instance.push(InstancePhase {
            instance: plan.instances[i].name.clone(),
            summary: Summary::from_recorded(r, kinds, seconds),
            histogram: histogram::encode(&r.response_total()),
        });
    }
    let refs: Vec<&Summary> = per_instance.iter().map(|p| &p.summary).collect();
    PhaseReport {
        name: phase.name.clone(),
        recorded: phase.record,
        completed,
        planned_duration_s: phase.duration_ms as f64 / 1000.0,
        start_offset_s,
        clients: plan.workload.clients,
        summary: Summary::from_recorded(&all, kinds, seconds),
        mean_of_instances: MeanOfInstances::of(&refs),
        histogram: histogram::encode(&all.response_total()),
        per_instance,
        series,
        tpcc: None,
    }
}

/// Cancel the clients and wait (bounded) until they have closed their sessions.
async fn stop_clients(cancel: &CancellationToken, handles: Vec<oneshot::Receiver<()>>) {
    cancel.cancel();
    let all = async {
        for h in handles {
            let _ = h.await;
        }
    };
    if tokio::time::timeout(STOP_GRACE, all).await.is_err() {
        tracing::warn!("some clients did not stop within {STOP_GRACE:?}");
    }
}
