//! Virtual clients. One loop for every pacing: wait for the next start instant, generate the
//! inputs (pure), execute with retries inside the transaction, record, repeat. Pacing only
//! decides the next intended start: closed loop (now) or open model (Poisson schedule).
//! Connections open and statements are prepared before the clock; all clients start together
//! on the start signal and stop between transactions when cancelled.

pub mod runner;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::engine::{Connector, EngineError, ErrorClass};
use crate::metrics::Shard;
use crate::workload::{Rng, Workload};

/// When each transaction is meant to start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pacing {
    /// Next transaction as soon as the previous one ends.
    Closed,
    /// Poisson arrivals with this mean gap between one client's transactions.
    Poisson { mean_gap: Duration },
}

impl Pacing {
    /// The pacing of one of `clients` clients sharing an instance-wide `rate` (tx/s).
    pub fn for_rate(rate: Option<f64>, clients: u32) -> Self {
        match rate {
            None => Pacing::Closed,
            Some(r) => Pacing::Poisson {
                mean_gap: Duration::from_secs_f64(f64::from(clients) / r),
            },
        }
    }
}

/// Everything one virtual client needs.
pub struct ClientSpec<C: Connector, W: Workload> {
    pub connector: Arc<C>,
    pub workload: Arc<W>,
    pub instance: String,
    pub instance_index: u64,
    pub client: u32,
    pub seed: u64,
    pub pacing: Pacing,
    pub max_attempts: u32,
    pub shard: Shard,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("instance {instance}, client {client}: {source}")]
pub struct ClientError {
    pub instance: String,
    pub client: u32,
    #[source]
    pub source: EngineError,
}

/// What clients tell the protocol.
#[derive(Debug)]
pub enum ClientEvent {
    Ready,
    Failed(ClientError),
    Stopped,
}

/// Connect, prepare, report ready, wait for the start instant, then run transactions until
/// cancelled or a fatal error.
pub async fn run_client<C: Connector, W: Workload>(
    spec: ClientSpec<C, W>,
    mut start: watch::Receiver<Option<Instant>>,
    cancel: CancellationToken,
    events: mpsc::UnboundedSender<ClientEvent>,
) {
    let fail = |source: EngineError| {
        ClientEvent::Failed(ClientError {
            instance: spec.instance.clone(),
            client: spec.client,
            source,
        })
    };
    let (mut session, mut state) = match connect(&spec).await {
        Ok(x) => x,
        Err(e) => {
            let _ = events.send(fail(e));
            return;
        }
    };
    let _ = events.send(ClientEvent::Ready);
    let start_at = loop {
        if let Some(t) = *start.borrow_and_update() {
            break t;
        }
        tokio::select! {
            changed = start.changed() => if changed.is_err() { return },
            _ = cancel.cancelled() => return,
        }
    };
    let mut rng = Rng::for_client(spec.seed, spec.instance_index, u64::from(spec.client));
    let mut next = start_at;
    let mut seq = 0u64;
    let w = &spec.workload;
    while !cancel.is_cancelled() {
        let intended = match spec.pacing {
            Pacing::Closed => Instant::now(),
            Pacing::Poisson { mean_gap } => {
                next += Duration::from_secs_f64(rng.exponential(mean_gap.as_secs_f64()));
                if next > Instant::now() {
                    tokio::select! {
                        _ = tokio::time::sleep_until(next) => {}
                        _ = cancel.cancelled() => break,
                    }
                }
                next
            }
        };
        let inputs = w.generate(&mut rng, u64::from(spec.client), seq);
        seq += 1;
        let actual = Instant::now();
        let mut attempts = 0u32;
        let outcome = loop {
            attempts += 1;
            match w.execute(&mut session, &mut state, &inputs).await {
                Ok(counts) => break Ok(counts),
                Err(e) => {
                    w.abort(&mut session, &mut state).await;
                    lock(&spec.shard).record_error(&e);
                    if attempts >= spec.max_attempts || cancel.is_cancelled() {
                        break Err(e);
                    }
                    match e.class {
                        ErrorClass::Retryable => continue,
                        ErrorClass::Reconnect => match reconnect(&spec, &cancel).await {
                            Some((s, st)) => {
                                session = s;
                                state = st;
                                lock(&spec.shard).reconnects += 1;
                            }
                            None => {
                                let message = format!(
                                    "{} (could not reconnect within {}s)",
                                    e.message,
                                    RECONNECT_WINDOW.as_secs()
                                );
                                break Err(EngineError { message, ..e });
                            }
                        },
                        ErrorClass::Fatal => break Err(e),
                    }
                }
            }
        };
        let end = Instant::now();
        match outcome {
            Ok(counts) => lock(&spec.shard).record(
                w.kind_of(&inputs),
                end - intended,
                end - actual,
                counts,
                attempts - 1,
            ),
            Err(_) if cancel.is_cancelled() => break,
            Err(e) => {
                let e = if attempts >= spec.max_attempts && e.class != ErrorClass::Fatal {
                    let mut e = e;
                    e.message = format!(
                        "{} (gave up after {attempts} attempts; raise workload.max_attempts to retry longer)",
                        e.message
                    );
                    e
                } else {
                    e
                };
                let _ = events.send(fail(e));
                return;
            }
        }
    }
    let _ = events.send(ClientEvent::Stopped);
}

fn lock(shard: &Shard) -> std::sync::MutexGuard<'_, crate::metrics::Recorded> {
    shard.lock().unwrap_or_else(|p| p.into_inner())
}

async fn connect<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
) -> Result<(C::Session, W::Client), EngineError> {
    let mut session = spec
        .connector
        .connect()
        .await
        .map_err(|e| e.during("connect"))?;
    let state = spec
        .workload
        .setup(&mut session)
        .await
        .map_err(|e| e.during("prepare statements"))?;
    Ok((session, state))
}

/// How long a client keeps trying to reconnect before the phase stops.
const RECONNECT_WINDOW: Duration = Duration::from_secs(10);

/// Reconnect with exponential backoff (100 ms doubling to 5 s) for up to `RECONNECT_WINDOW`.
async fn reconnect<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
    cancel: &CancellationToken,
) -> Option<(C::Session, W::Client)> {
    let mut delay = Duration::from_millis(100);
    let give_up = Instant::now() + RECONNECT_WINDOW;
    while Instant::now() < give_up {
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = cancel.cancelled() => return None,
        }
        if let Ok(x) = connect(spec).await {
            return Some(x);
        }
        delay = (delay * 2).min(Duration::from_secs(5));
    }
    None
}
