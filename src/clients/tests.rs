//! The client loop against an in-memory engine: retries re-run the same inputs inside one
//! transaction's latency, fatal errors stop the client, and the Poisson schedule (paused tokio
//! time) holds its rate with latency measured from the intended start.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::engines::{
    BulkPath, BulkText, ErrorClass, Execution, RowChunks, Rows, Session, StmtId, Value,
};
use crate::metrics::StatementCounts;
use crate::metrics::{InstanceRecorder, Recorded};
use crate::workload::Workload;

/// Fails the first `fail_first` calls with `class`, then succeeds after `service` of (virtual) time.
pub(super) struct FakeConnector {
    fail_first: u32,
    class: ErrorClass,
    calls: Arc<AtomicU32>,
    pub(super) service: Duration,
}

pub(super) struct FakeSession {
    fail_first: u32,
    class: ErrorClass,
    calls: Arc<AtomicU32>,
    pub(super) service: Duration,
}

impl Session for FakeSession {
    async fn prepare(&mut self, _sql: &str) -> Result<StmtId, EngineError> {
        Ok(0)
    }
    async fn execute(&mut self, _stmt: StmtId, _params: &[Value]) -> Result<u64, EngineError> {
        tokio::time::sleep(self.service).await;
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if n < self.fail_first {
            return Err(EngineError {
                class: self.class,
                code: "FAKE".into(),
                message: "injected".into(),
                context: None,
            });
        }
        Ok(1)
    }
    async fn query(
        &mut self,
        _stmt: StmtId,
        _params: &[Value],
        _rows: &mut Rows,
    ) -> Result<(), EngineError> {
        Ok(())
    }
    async fn execute_text(&mut self, _sql: &str) -> Result<u64, EngineError> {
        Ok(0)
    }
    async fn bulk_path(&mut self) -> Result<BulkPath, EngineError> {
        Ok(BulkPath::None)
    }

    async fn bulk_load(
        &mut self,
        _table: &str,
        _columns: &[&str],
        _text: BulkText,
        _chunks: RowChunks,
    ) -> Result<u64, EngineError> {
        Err(EngineError::fatal("DRIVEBENCH", "no bulk path"))
    }
}

impl Connector for FakeConnector {
    type Session = FakeSession;
    async fn connect(&self) -> Result<FakeSession, EngineError> {
        Ok(FakeSession {
            fail_first: self.fail_first,
            class: self.class,
            calls: self.calls.clone(),
            service: self.service,
        })
    }
    fn execution(&self) -> Execution {
        Execution::Async
    }
    fn version(&self) -> String {
        "fake".into()
    }
}

/// One statement per transaction; remembers the inputs of every attempt.
pub(super) struct OneStatement {
    seen: Mutex<Vec<u64>>,
    aborts: AtomicU32,
}

impl OneStatement {
    pub(super) fn new() -> Self {
        OneStatement {
            seen: Mutex::new(Vec::new()),
            aborts: AtomicU32::new(0),
        }
    }
}

impl Workload for OneStatement {
    type Client = ();
    type Terminal = ();
    type Inputs = u64;
    fn kinds(&self) -> &'static [&'static str] {
        &["one"]
    }
    async fn setup<S: Session>(&self, _s: &mut S) -> Result<(), EngineError> {
        Ok(())
    }
    fn terminal(&self, _client: u32, _rng: &mut Rng) {}
    fn generate(&self, _t: &mut (), rng: &mut Rng, _seq: u64) -> u64 {
        rng.next_u64()
    }
    fn kind_of(&self, _inputs: &u64) -> usize {
        0
    }
    async fn execute<S: Session>(
        &self,
        s: &mut S,
        _c: &mut (),
        inputs: &u64,
    ) -> Result<StatementCounts, EngineError> {
        self.seen.lock().unwrap().push(*inputs);
        s.execute(0, &[]).await?;
        Ok(StatementCounts {
            reads: 0,
            writes: 1,
            ..StatementCounts::default()
        })
    }
    async fn abort<S: Session>(&self, _s: &mut S, _c: &mut ()) {
        self.aborts.fetch_add(1, Ordering::SeqCst);
    }
}

struct Harness {
    recorder: InstanceRecorder,
    workload: Arc<OneStatement>,
    events: mpsc::UnboundedReceiver<ClientEvent>,
    cancel: CancellationToken,
    start: watch::Sender<Option<Instant>>,
}

fn start_client(connector: FakeConnector, pacing: Pacing, max_attempts: u32) -> Harness {
    let recorder = InstanceRecorder::new(1, 1);
    let workload = Arc::new(OneStatement::new());
    let (start, start_rx) = watch::channel(None);
    let (tx, events) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let spec = ClientSpec {
        connector: Arc::new(connector),
        workload: workload.clone(),
        instance: "fake-1".into(),
        instance_index: 0,
        client: 0,
        seed: 1,
        pacing,
        max_attempts,
        shard: recorder.shard_for(0),
        pool: None,
        rate: None,
    };
    tokio::spawn(run_client(spec, start_rx, cancel.clone(), tx));
    Harness {
        recorder,
        workload,
        events,
        cancel,
        start,
    }
}

pub(super) fn fake(fail_first: u32, class: ErrorClass) -> FakeConnector {
    FakeConnector {
        fail_first,
        class,
        calls: Arc::new(AtomicU32::new(0)),
        service: Duration::from_millis(1),
    }
}

#[tokio::test(start_paused = true)]
async fn retryable_errors_rerun_the_same_inputs_within_one_latency() {
    let mut h = start_client(fake(2, ErrorClass::Retryable), Pacing::Closed, 100);
    assert!(matches!(h.events.recv().await, Some(ClientEvent::Ready)));
    h.start.send(Some(Instant::now())).unwrap();
    tokio::time::sleep(Duration::from_micros(3500)).await;
    h.cancel.cancel();
    assert!(matches!(h.events.recv().await, Some(ClientEvent::Stopped)));
    let r: Recorded = h.recorder.collect();
    let seen = h.workload.seen.lock().unwrap().clone();
    assert_eq!(
        &seen[..3],
        &[seen[0]; 3],
        "three attempts of the same inputs"
    );
    assert_ne!(seen[3], seen[0], "then a new transaction");
    assert_eq!(
        h.workload.aborts.load(Ordering::SeqCst),
        2,
        "each failed attempt rolled back"
    );
    assert_eq!(r.retries_total(), 2);
    assert_eq!(
        r.errors
            .get(&(0, ErrorClass::Retryable, "FAKE".to_string())),
        Some(&2)
    );
    // the first transaction's latency covers its three 1 ms attempts
    assert!(
        r.response[0].max() >= 3000,
        "max {} us",
        r.response[0].max()
    );
}

#[tokio::test(start_paused = true)]
async fn a_fatal_error_stops_the_client_with_its_message() {
    let mut h = start_client(fake(1, ErrorClass::Fatal), Pacing::Closed, 100);
    assert!(matches!(h.events.recv().await, Some(ClientEvent::Ready)));
    h.start.send(Some(Instant::now())).unwrap();
    match h.events.recv().await {
        Some(ClientEvent::Failed(e)) => {
            assert_eq!(e.to_string(), "instance fake-1, client 0: FAKE: injected")
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn giving_up_after_max_attempts_says_so() {
    let mut h = start_client(fake(10, ErrorClass::Retryable), Pacing::Closed, 3);
    assert!(matches!(h.events.recv().await, Some(ClientEvent::Ready)));
    h.start.send(Some(Instant::now())).unwrap();
    match h.events.recv().await {
        Some(ClientEvent::Failed(e)) => {
            assert!(e.to_string().contains("gave up after 3 attempts"), "{e}")
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    let r: Recorded = h.recorder.collect();
    assert_eq!(
        (r.failed, r.retries_total()),
        (1, 0),
        "one given up, none retried"
    );
}

#[tokio::test(start_paused = true)]
async fn the_poisson_schedule_holds_its_rate_and_latency_includes_queueing() {
    // 200 tx/s for one client with 1 ms service: never behind, latency ~ service time.
    let mut h = start_client(
        fake(0, ErrorClass::Retryable),
        Pacing::for_rate(Some(200.0), 1),
        100,
    );
    assert!(matches!(h.events.recv().await, Some(ClientEvent::Ready)));
    h.start.send(Some(Instant::now())).unwrap();
    tokio::time::sleep(Duration::from_secs(100)).await;
    let r = h.recorder.collect();
    let tps = r.transactions() as f64 / 100.0;
    assert!((tps - 200.0).abs() < 6.0, "tps {tps}");
    // Poisson gaps bunch up: some transactions wait behind the previous one
    assert!(r.late_starts > 0);
    assert_eq!(
        r.late_wakes, 0,
        "waiting behind its own transaction is not a late wake"
    );
    assert!(r.response[0].mean() > r.service.mean());
    h.cancel.cancel();
}

#[test]
fn an_instance_rate_is_shared_by_its_clients() {
    assert_eq!(Pacing::for_rate(None, 8), Pacing::Closed);
    assert_eq!(
        Pacing::for_rate(Some(500.0), 10),
        Pacing::Poisson {
            mean_gap: Duration::from_millis(20)
        }
    );
}

#[tokio::test(start_paused = true)]
async fn start_lag_splits_into_the_clients_own_lateness_and_the_pool_wait() {
    // Two closed-loop clients on one pooled connection with 10 ms transactions: each wakes on
    // time and waits for the other's transaction, so the start lag is all pool wait.
    let mut recorder = InstanceRecorder::new(2, 1);
    let workload = Arc::new(OneStatement::new());
    let connector = Arc::new(FakeConnector {
        service: Duration::from_millis(10),
        ..fake(0, ErrorClass::Retryable)
    });
    let pool = Arc::new(
        open_pool(connector.clone(), workload.clone(), 1)
            .await
            .unwrap(),
    );
    let (start, start_rx) = watch::channel(None);
    let (tx, mut events) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    for client in 0..2 {
        let spec = ClientSpec {
            connector: connector.clone(),
            workload: workload.clone(),
            instance: "fake-1".into(),
            instance_index: 0,
            client,
            seed: 1,
            pacing: Pacing::Closed,
            max_attempts: 1,
            shard: recorder.shard_for(client),
            pool: Some(pool.clone()),
            rate: None,
        };
        tokio::spawn(run_client(
            spec,
            start_rx.clone(),
            cancel.clone(),
            tx.clone(),
        ));
    }
    for _ in 0..2 {
        assert!(matches!(events.recv().await, Some(ClientEvent::Ready)));
    }
    start.send(Some(Instant::now())).unwrap();
    tokio::time::sleep(Duration::from_millis(1005)).await;
    cancel.cancel();
    let r: Recorded = recorder.collect();
    // One connection, 10 ms each: ~100 transactions in the second, shared by the two.
    assert!(
        (95..=101).contains(&r.transactions()),
        "{}",
        r.transactions()
    );
    assert_eq!(r.wake_lag.len(), r.transactions());
    assert_eq!(r.pool_wait.len(), r.transactions());
    // Under paused time the clients wake exactly on schedule (recorded as the 1 µs floor).
    assert!(r.wake_lag.max() <= 1, "wake lag {} us", r.wake_lag.max());
    // Each waits one 10 ms transaction of the other for its connection.
    assert!(
        r.pool_wait.value_at_quantile(0.5) >= 9_900,
        "{}",
        r.pool_wait.value_at_quantile(0.5)
    );
    assert!(r.start_lag.value_at_quantile(0.5) >= 9_900);
    assert!(
        (r.start_lag.mean() - r.pool_wait.mean()).abs() < 50.0,
        "the start lag is the pool wait: {} vs {}",
        r.start_lag.mean(),
        r.pool_wait.mean()
    );
}
