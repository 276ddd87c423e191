//! Virtual clients. One loop for every pacing: generate the inputs (pure), wait for their
//! intended start, execute with retries inside the transaction, record, repeat. Pacing only
//! decides the intended start: closed loop (now), open model (Poisson schedule), or keyed (TPC-C
//! spec: the previous answer, a think time, then the keying time of the next transaction).
//! A client owns its connection, or leases one from a shared [`pool::Pool`] per transaction when
//! there are fewer connections than clients. Connections open and statements are prepared
//! before the clock; all clients start together on the start signal and stop between
//! transactions when cancelled. A [`rate::RateControl`] shared by an instance's clients
//! overrides their pacing once set (load curves change the rate per point this way). A
//! [`fleet::Fleet`] holds every client of every instance as one value that phases and curves
//! borrow in turn.

pub mod fleet;
#[cfg(test)]
mod fleet_tests;
#[cfg(test)]
mod keyed_tests;
pub mod pool;
pub mod rate;
#[cfg(test)]
mod rate_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::engines::{Connector, EngineError, ErrorClass};
use crate::metrics::StatementCounts;
use crate::metrics::{LATE_WAKE, Shard};
use crate::workload::Workload;
use drivebench_core::rng::Rng;
pub use pool::Pool;

/// When each transaction is meant to start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pacing {
    /// Next transaction as soon as the previous one ends.
    Closed,
    /// Poisson arrivals with this mean gap between one client's transactions.
    Poisson { mean_gap: Duration },
    /// The workload's keying time before and think time after each transaction; each client's
    /// first transaction is offset uniformly within `ramp` so clients do not key in lockstep.
    Keyed { ramp: Duration },
}

impl Pacing {
    /// How `workload`'s clients are paced: their own keying and think times when it has
    /// self-paced terminals, else one of `clients` clients sharing an instance-wide `rate`.
    pub fn for_workload<W: Workload>(workload: &W, rate: Option<f64>, clients: u32) -> Self {
        match workload.keyed_start_spread() {
            Some(ramp) => Pacing::Keyed { ramp },
            None => Pacing::for_rate(rate, clients),
        }
    }

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

/// Connections shared by the clients of one instance, with each one's prepared state.
pub type SharedPool<C, W> = Pool<<C as Connector>::Session, <W as Workload>::Client>;

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
    /// Leased per transaction when set; otherwise the client opens its own connection.
    pub pool: Option<Arc<SharedPool<C, W>>>,
    /// Overrides `pacing` once set (load curves).
    pub rate: Option<Arc<rate::RateControl>>,
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

/// A transaction's end: done (statements, attempts) or given up (last error, attempts).
type Outcome = Result<(StatementCounts, u32), (EngineError, u32)>;

/// Connect (unless pooled), prepare, report ready, wait for the start instant, then run
/// transactions until cancelled or a fatal error.
pub async fn run_client<C: Connector, W: Workload>(
    spec: ClientSpec<C, W>,
    start: watch::Receiver<Option<Instant>>,
    cancel: CancellationToken,
    events: mpsc::UnboundedSender<ClientEvent>,
) {
    let mut own = None;
    if spec.pool.is_none() {
        match connect(&spec).await {
            Ok(x) => own = Some(x),
            Err(e) => {
                let _ = events.send(failed(&spec, e));
                return;
            }
        }
    }
    let _ = events.send(ClientEvent::Ready);
    let Some(start_at) = wait_for_start(start, &cancel).await else {
        return;
    };
    let mut rng = Rng::for_client(spec.seed, spec.instance_index, u64::from(spec.client));
    let w = &spec.workload;
    let mut terminal = w.terminal(spec.client, &mut rng);
    let mut pace = Pace::new(spec.pacing, start_at, &mut rng);
    let mut seq = 0u64;
    // When the client finished its previous transaction: a start due before that was late
    // because the client was busy, not because it woke late.
    let mut free_at = start_at;
    while !cancel.is_cancelled() {
        pace.follow(spec.rate.as_deref());
        let inputs = w.generate(&mut terminal, &mut rng, seq);
        seq += 1;
        let intended = pace.intended(&**w, &inputs, &mut rng);
        if intended > Instant::now() {
            tokio::select! {
                _ = tokio::time::sleep_until(intended) => {}
                _ = cancel.cancelled() => break,
            }
        }
        // Awake: how late the client itself is; what follows (a pooled connection) is not.
        let awake = Instant::now();
        let woke_late = awake.saturating_duration_since(intended.max(free_at)) > LATE_WAKE;
        let Some((outcome, actual)) = execute(&spec, &mut own, &inputs, &cancel, awake).await
        else {
            break;
        };
        let end = Instant::now();
        free_at = end;
        match outcome {
            Ok((counts, attempts)) => {
                let times = Times {
                    intended,
                    awake,
                    actual,
                    end,
                };
                record(
                    &spec,
                    &terminal,
                    &inputs,
                    times,
                    (counts, attempts),
                    woke_late,
                );
            }
            Err(_) if cancel.is_cancelled() => break,
            Err((e, attempts)) => {
                lock(&spec.shard).failed += 1;
                let _ = events.send(failed(&spec, gave_up(e, attempts, spec.max_attempts)));
                return;
            }
        }
        pace.ended(end, &**w, &inputs, &mut rng);
    }
    let _ = events.send(ClientEvent::Stopped);
}

/// The event of a client that stopped on `source`.
fn failed<C: Connector, W: Workload>(spec: &ClientSpec<C, W>, source: EngineError) -> ClientEvent {
    ClientEvent::Failed(ClientError {
        instance: spec.instance.clone(),
        client: spec.client,
        source,
    })
}

/// Wait until the protocol sets the start instant; `None` when cancelled first.
async fn wait_for_start(
    mut start: watch::Receiver<Option<Instant>>,
    cancel: &CancellationToken,
) -> Option<Instant> {
    loop {
        if let Some(t) = *start.borrow_and_update() {
            return Some(t);
        }
        tokio::select! {
            changed = start.changed() => changed.ok()?,
            _ = cancel.cancelled() => return None,
        }
    }
}

/// When a client's next transaction is due: its own pacing, or an instance-wide open schedule
/// when the rate control set one.
struct Pace {
    pacing: Pacing,
    /// The next start of a Poisson or keyed client.
    next: Instant,
    shared: Option<Arc<rate::OpenSchedule>>,
    /// The rate control's setting last seen.
    generation: u64,
}

impl Pace {
    fn new(pacing: Pacing, start_at: Instant, rng: &mut Rng) -> Pace {
        let mut next = start_at;
        if let Pacing::Keyed { ramp } = pacing {
            next += ramp.mul_f64(rng.next_f64());
        }
        Pace {
            pacing,
            next,
            shared: None,
            generation: 0,
        }
    }

    /// Take a new setting of the rate control, if it changed: from then on the client is
    /// closed-loop, or follows the shared schedule.
    fn follow(&mut self, rate: Option<&rate::RateControl>) {
        if let Some(c) = rate
            && let Some(setting) = c.changed(&mut self.generation)
        {
            self.pacing = Pacing::Closed;
            self.shared = setting;
        }
    }

    /// The intended start of the transaction with `inputs`.
    fn intended<W: Workload>(&mut self, w: &W, inputs: &W::Inputs, rng: &mut Rng) -> Instant {
        match (&self.shared, self.pacing) {
            (Some(s), _) => s.next_start(rng),
            (None, Pacing::Closed) => Instant::now(),
            (None, Pacing::Poisson { mean_gap }) => {
                self.next += Duration::from_secs_f64(rng.exponential(mean_gap.as_secs_f64()));
                self.next
            }
            (None, Pacing::Keyed { .. }) => {
                self.next += w.keying_time(inputs);
                self.next
            }
        }
    }

    /// The transaction ended at `end`: a keyed client thinks from there.
    fn ended<W: Workload>(&mut self, end: Instant, w: &W, inputs: &W::Inputs, rng: &mut Rng) {
        if let Pacing::Keyed { .. } = self.pacing {
            self.next = end + w.think_time(inputs, rng);
        }
    }
}

/// Run the transaction on the client's own connection or on one leased from the pool; its
/// outcome and when it actually started. `None` when cancelled while waiting for a lease.
async fn execute<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
    own: &mut Option<(C::Session, W::Client)>,
    inputs: &W::Inputs,
    cancel: &CancellationToken,
    awake: Instant,
) -> Option<(Outcome, Instant)> {
    match (own, &spec.pool) {
        (Some((session, state)), _) => {
            let o = run_transaction(spec, session, state, inputs, cancel).await;
            Some((o, awake))
        }
        (None, Some(pool)) => {
            let mut lease = tokio::select! {
                l = pool.acquire() => l,
                _ = cancel.cancelled() => return None,
            };
            let actual = Instant::now();
            let o = match lease.parts() {
                Some((session, state)) => {
                    run_transaction(spec, session, state, inputs, cancel).await
                }
                None => Err((
                    EngineError::fatal("DRIVEBENCH", "connection pool is empty"),
                    0,
                )),
            };
            Some((o, actual))
        }
        (None, None) => None,
    }
}

/// A transaction's instants: intended start, the client awake, actual start, end.
struct Times {
    intended: Instant,
    awake: Instant,
    actual: Instant,
    end: Instant,
}

/// A transaction done: into the client's shard.
fn record<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
    terminal: &W::Terminal,
    inputs: &W::Inputs,
    t: Times,
    (counts, attempts): (StatementCounts, u32),
    woke_late: bool,
) {
    let w = &spec.workload;
    let mut shard = lock(&spec.shard);
    shard.record(
        w.kind_of(inputs),
        t.end - t.intended,
        t.end - t.actual,
        counts,
        attempts - 1,
    );
    shard.late_wakes += u64::from(woke_late);
    if let Some(cards) = w.completed_deck(terminal) {
        shard.record_deck(cards);
    }
    // Without a pool the whole start lag is the client's own: nothing to split.
    if spec.pool.is_some() {
        shard.record_start_parts(
            t.awake.saturating_duration_since(t.intended),
            t.actual - t.awake,
        );
    }
}

/// The error a client stops on; one given up after retries says how to retry longer.
fn gave_up(mut e: EngineError, attempts: u32, max_attempts: u32) -> EngineError {
    if attempts >= max_attempts && e.class != ErrorClass::Fatal {
        e.message = format!(
            "{} (gave up after {attempts} attempts; raise workload.max_attempts to retry longer)",
            e.message
        );
    }
    e
}

/// One transaction with its retries: a retryable error rolls back and re-runs the same inputs,
/// a lost connection is replaced (in place, so a pooled one goes back healthy) and re-run.
async fn run_transaction<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
    session: &mut C::Session,
    state: &mut W::Client,
    inputs: &W::Inputs,
    cancel: &CancellationToken,
) -> Outcome {
    let w = &spec.workload;
    let kind = w.kind_of(inputs);
    let mut attempts = 0u32;
    loop {
        attempts += 1;
        match w.execute(session, state, inputs).await {
            Ok(counts) => return Ok((counts, attempts)),
            Err(e) => {
                w.abort(session, state).await;
                lock(&spec.shard).record_error(kind, &e);
                if attempts >= spec.max_attempts || cancel.is_cancelled() {
                    return Err((e, attempts));
                }
                match e.class {
                    ErrorClass::Retryable => continue,
                    ErrorClass::Reconnect => match reconnect(spec, cancel).await {
                        Ok((s, st)) => {
                            *session = s;
                            *state = st;
                            lock(&spec.shard).reconnects += 1;
                        }
                        Err(last) => {
                            let message = format!(
                                "{} (could not reconnect within {} s{})",
                                e.message,
                                RECONNECT_WINDOW.as_secs(),
                                last.map(|l| format!("; last attempt: {}", l.message))
                                    .unwrap_or_default()
                            );
                            return Err((EngineError { message, ..e }, attempts));
                        }
                    },
                    ErrorClass::Fatal => return Err((e, attempts)),
                }
            }
        }
    }
}

fn lock(shard: &Shard) -> std::sync::MutexGuard<'_, crate::metrics::Recorded> {
    shard.lock().unwrap_or_else(|p| p.into_inner())
}

async fn connect<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
) -> Result<(C::Session, W::Client), EngineError> {
    open_connection(&*spec.connector, &*spec.workload).await
}

/// Open `n` connections for a pool, several at a time, each with the workload's statements
/// prepared; the first failure is the answer.
pub async fn open_pool<C: Connector, W: Workload>(
    connector: Arc<C>,
    workload: Arc<W>,
    n: u32,
) -> Result<SharedPool<C, W>, EngineError> {
    const AT_ONCE: u32 = 32;
    let mut conns = Vec::with_capacity(n as usize);
    let mut left = n;
    while left > 0 {
        let batch = left.min(AT_ONCE);
        left -= batch;
        let mut handles = Vec::new();
        for _ in 0..batch {
            let (c, w) = (connector.clone(), workload.clone());
            let fut = async move { open_connection(&*c, &*w).await };
            let h =
                crate::engines::runner::spawn_on(connector.execution(), "pool-connect".into(), fut)
                    .map_err(|e| EngineError::fatal("DRIVEBENCH", e.to_string()))?;
            handles.push(h);
        }
        for h in handles {
            let conn = h
                .await
                .map_err(|_| EngineError::fatal("DRIVEBENCH", "a connecting task stopped"))??;
            conns.push(conn);
        }
    }
    Ok(Pool::new(conns))
}

/// A connection with the workload's statements prepared on it.
pub async fn open_connection<C: Connector, W: Workload>(
    connector: &C,
    workload: &W,
) -> Result<(C::Session, W::Client), EngineError> {
    let mut session = connector.connect().await.map_err(|e| e.during("connect"))?;
    let state = workload
        .setup(&mut session)
        .await
        .map_err(|e| e.during("prepare statements"))?;
    Ok((session, state))
}

/// How long a client keeps trying to reconnect before the phase stops.
const RECONNECT_WINDOW: Duration = Duration::from_secs(10);

/// Reconnect with exponential backoff (100 ms doubling to 5 s) for up to `RECONNECT_WINDOW`.
/// Each attempt is bounded by the time left in the window: a server behind a network that
/// accepts connections and then answers nothing would otherwise hold one attempt for as long
/// as the driver waits (tokio-postgres: forever). The last attempt's error when none
/// succeeded (none when cancelled before the first).
async fn reconnect<C: Connector, W: Workload>(
    spec: &ClientSpec<C, W>,
    cancel: &CancellationToken,
) -> Result<(C::Session, W::Client), Option<EngineError>> {
    let mut delay = Duration::from_millis(100);
    let give_up = Instant::now() + RECONNECT_WINDOW;
    let mut last = None;
    loop {
        let pause = delay.min(give_up.saturating_duration_since(Instant::now()));
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = cancel.cancelled() => return Err(last),
        }
        let left = give_up.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(last);
        }
        match tokio::time::timeout(left, connect(spec)).await {
            Ok(Ok(x)) => return Ok(x),
            Ok(Err(e)) => last = Some(e),
            Err(_) => {
                last = Some(EngineError::new(
                    ErrorClass::Reconnect,
                    "TIMEOUT",
                    "no answer to the connection attempt within the window",
                ));
            }
        }
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}
