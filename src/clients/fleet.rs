//! A fleet: every virtual client of every instance as one value. It is connected before the
//! clock (connections opened, statements prepared), started by one signal, and then borrowed
//! in turn by whoever drives it — the phases, then a load curve — each of which waits on it
//! until a deadline, a client failure or cancellation, takes each instance's recorded figures
//! out of it, and (curves) steers each instance's rate. Stopping it cancels the clients and
//! waits, bounded, for them to close their sessions.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::rate::RateControl;
use super::{ClientError, ClientEvent, ClientSpec, Pacing, open_pool, run_client};
use crate::engines::runner::spawn_on;
use crate::engines::{Connector, EngineError};
use crate::metrics::{InstanceRecorder, Recorded};
use crate::workload::Workload;

/// How long stopping clients may take before the run moves on without them.
const STOP_GRACE: Duration = Duration::from_secs(30);
/// The same after a failure, when clients may be waiting on a hung or unreachable server that
/// will never answer them.
const FAILED_GRACE: Duration = Duration::from_secs(3);

/// What every instance's clients share.
#[derive(Debug, Clone)]
pub struct FleetSpec {
    /// The instances' names, in order (one connector each).
    pub instances: Vec<String>,
    /// Virtual clients per instance.
    pub clients: u32,
    /// Connections per instance shared by its clients; None: one connection per client.
    pub pooled_connections: Option<u32>,
    pub seed: u64,
    pub pacing: Pacing,
    pub max_attempts: u32,
    /// Give each instance a [`RateControl`] that overrides the pacing once set (load curves).
    pub rate_controlled: bool,
}

/// Why a fleet could not connect or stopped.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("interrupted")]
    Interrupted,
    #[error("instance {instance}: {source}")]
    Pool {
        instance: String,
        #[source]
        source: EngineError,
    },
    #[error("cannot start client {client} of {instance}: {source}")]
    Spawn {
        instance: String,
        client: u32,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Client(ClientError),
    #[error("a client stopped before the start")]
    StoppedBeforeStart,
    #[error("all clients stopped")]
    AllStopped,
}

/// Why [`Fleet::wait`] returned.
#[derive(Debug)]
pub enum Wake {
    /// The deadline passed.
    Tick,
    /// The run was cancelled.
    Cancelled,
    /// A client failed (or all stopped).
    Failed(FleetError),
}

pub struct Fleet {
    recorders: Vec<InstanceRecorder>,
    controls: Vec<Arc<RateControl>>,
    events: mpsc::UnboundedReceiver<ClientEvent>,
    handles: Vec<oneshot::Receiver<()>>,
    start: watch::Sender<Option<Instant>>,
    /// The clients' own token, a child of the run's.
    clients_cancel: CancellationToken,
}

impl Fleet {
    /// Spawn every client of every instance and wait until all are connected and prepared.
    /// `kinds` is the number of transaction kinds the workload records. On failure or
    /// cancellation the clients already spawned are stopped before this returns.
    pub async fn connect<C: Connector, W: Workload>(
        spec: &FleetSpec,
        connectors: &[Arc<C>],
        workload: Arc<W>,
        kinds: usize,
        cancel: &CancellationToken,
    ) -> Result<Fleet, FleetError> {
        let (start, start_rx) = watch::channel(None);
        let (ev_tx, events) = mpsc::unbounded_channel();
        let mut fleet = Fleet {
            recorders: connectors
                .iter()
                .map(|_| InstanceRecorder::new(spec.clients, kinds))
                .collect(),
            controls: connectors
                .iter()
                .map(|_| Arc::new(RateControl::new()))
                .collect(),
            events,
            handles: Vec::new(),
            start,
            clients_cancel: cancel.child_token(),
        };
        let spawned = fleet
            .spawn_all(spec, connectors, &workload, &start_rx, &ev_tx, cancel)
            .await;
        drop(ev_tx);
        let ready = match spawned {
            Ok(()) => fleet.until_ready(cancel).await,
            Err(e) => Err(e),
        };
        match ready {
            Ok(()) => Ok(fleet),
            Err(e) => {
                fleet.stop(true).await;
                Err(e)
            }
        }
    }

    async fn spawn_all<C: Connector, W: Workload>(
        &mut self,
        spec: &FleetSpec,
        connectors: &[Arc<C>],
        workload: &Arc<W>,
        start_rx: &watch::Receiver<Option<Instant>>,
        ev_tx: &mpsc::UnboundedSender<ClientEvent>,
        cancel: &CancellationToken,
    ) -> Result<(), FleetError> {
        for (i, connector) in connectors.iter().enumerate() {
            let instance = &spec.instances[i];
            let pool = match spec.pooled_connections {
                None => None,
                Some(n) => tokio::select! {
                    p = open_pool(connector.clone(), workload.clone(), n) => {
                        Some(Arc::new(p.map_err(|source| FleetError::Pool {
                            instance: instance.clone(),
                            source,
                        })?))
                    }
                    _ = cancel.cancelled() => return Err(FleetError::Interrupted),
                },
            };
            for client in 0..spec.clients {
                let client_spec = ClientSpec {
                    connector: connector.clone(),
                    workload: workload.clone(),
                    instance: instance.clone(),
                    instance_index: i as u64,
                    client,
                    seed: spec.seed,
                    pacing: spec.pacing,
                    max_attempts: spec.max_attempts,
                    shard: self.recorders[i].shard_for(client),
                    pool: pool.clone(),
                    rate: spec.rate_controlled.then(|| self.controls[i].clone()),
                };
                let fut = run_client(
                    client_spec,
                    start_rx.clone(),
                    self.clients_cancel.clone(),
                    ev_tx.clone(),
                );
                let name = format!("client-{i}-{client}");
                let handle = spawn_on(connector.execution(), name, fut).map_err(|source| {
                    FleetError::Spawn {
                        instance: instance.clone(),
                        client,
                        source,
                    }
                })?;
                self.handles.push(handle);
            }
        }
        Ok(())
    }

    /// Wait until every client has connected and prepared its statements.
    async fn until_ready(&mut self, cancel: &CancellationToken) -> Result<(), FleetError> {
        let mut ready = 0;
        while ready < self.handles.len() {
            tokio::select! {
                ev = self.events.recv() => match ev {
                    Some(ClientEvent::Ready) => ready += 1,
                    Some(ClientEvent::Failed(e)) => return Err(FleetError::Client(e)),
                    Some(ClientEvent::Stopped) | None => return Err(FleetError::StoppedBeforeStart),
                },
                _ = cancel.cancelled() => return Err(FleetError::Interrupted),
            }
        }
        Ok(())
    }

    /// Clients across all instances.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// Whether the fleet has no client at all.
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// Release every client now; returns the start instant.
    pub fn start(&self) -> Instant {
        let t0 = Instant::now();
        let _ = self.start.send(Some(t0));
        t0
    }

    /// Sleep until `deadline`, unless the run is cancelled or a client fails first.
    pub async fn wait(&mut self, deadline: Instant, cancel: &CancellationToken) -> Wake {
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return Wake::Tick,
                _ = cancel.cancelled() => return Wake::Cancelled,
                ev = self.events.recv() => match ev {
                    Some(ClientEvent::Failed(e)) => return Wake::Failed(FleetError::Client(e)),
                    Some(_) => {}
                    None => return Wake::Failed(FleetError::AllStopped),
                },
            }
        }
    }

    /// What each instance's clients recorded since the last collection (counters reset).
    pub fn collect(&mut self) -> Vec<Recorded> {
        self.recorders.iter_mut().map(|r| r.collect()).collect()
    }

    /// Each instance's rate control (in effect only with `rate_controlled`).
    pub fn controls(&self) -> &[Arc<RateControl>] {
        &self.controls
    }

    /// Cancel the clients and wait (bounded; briefly `after_failure`) until they have closed
    /// their sessions.
    pub async fn stop(self, after_failure: bool) {
        self.clients_cancel.cancel();
        let grace = if after_failure {
            FAILED_GRACE
        } else {
            STOP_GRACE
        };
        let all = async {
            for h in self.handles {
                let _ = h.await;
            }
        };
        if tokio::time::timeout(grace, all).await.is_err() {
            tracing::warn!("some clients did not stop within {grace:?}");
        }
    }
}
