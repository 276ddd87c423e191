//! Keyed pacing (TPC-C spec terminals) and pooled connections in the one client loop, under
//! paused tokio time: each transaction's intended start is the previous answer plus a think
//! time of the previous kind plus the keying time of this one; the first keying starts within
//! the ramp; response time counts from the intended start; clients sharing fewer connections
//! wait for one, and the wait shows as start lateness.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::tests::fake;
use super::*;
use crate::engines::{ErrorClass, Session};
use crate::metrics::InstanceRecorder;
use crate::metrics::StatementCounts;
use crate::workload::Workload;
use crate::workload::tpcc::deck::Deck;
use crate::workload::tpcc::{Kind, pacing};

/// TPC-C's deck, keying and think times over a fake engine; remembers when each transaction
/// of each client ran.
struct Terminals {
    runs: Mutex<Vec<(u32, Kind, Instant, Instant)>>,
}

impl Workload for Terminals {
    type Client = ();
    type Terminal = (u32, Deck);
    type Inputs = (u32, Kind);
    fn kinds(&self) -> &'static [&'static str] {
        &crate::workload::tpcc::KIND_NAMES
    }
    async fn setup<S: Session>(&self, _s: &mut S) -> Result<(), EngineError> {
        Ok(())
    }
    fn terminal(&self, client: u32, rng: &mut Rng) -> (u32, Deck) {
        (client, Deck::new(rng))
    }
    fn generate(&self, t: &mut (u32, Deck), rng: &mut Rng, _seq: u64) -> (u32, Kind) {
        (t.0, t.1.deal(rng))
    }
    fn kind_of(&self, inputs: &(u32, Kind)) -> usize {
        inputs.1.index()
    }
    fn keying_time(&self, inputs: &(u32, Kind)) -> Duration {
        pacing::keying_time(inputs.1)
    }
    fn think_time(&self, inputs: &(u32, Kind), rng: &mut Rng) -> Duration {
        pacing::think_time(inputs.1, rng)
    }
    async fn execute<S: Session>(
        &self,
        s: &mut S,
        _c: &mut (),
        inputs: &(u32, Kind),
    ) -> Result<StatementCounts, EngineError> {
        let start = Instant::now();
        s.execute(0, &[]).await?;
        let end = Instant::now();
        self.runs
            .lock()
            .unwrap()
            .push((inputs.0, inputs.1, start, end));
        Ok(StatementCounts::default())
    }
    async fn abort<S: Session>(&self, _s: &mut S, _c: &mut ()) {}
}

struct Run {
    workload: Arc<Terminals>,
    recorder: InstanceRecorder,
    t0: Instant,
}

/// `clients` keyed terminals with `service` per transaction, on their own connections or on
/// a pool of `pooled` shared ones, for `secs` of virtual time.
async fn run_terminals(clients: u32, pooled: Option<u32>, service: Duration, secs: u64) -> Run {
    let mut connector = fake(0, ErrorClass::Retryable);
    connector.service = service;
    let connector = Arc::new(connector);
    let workload = Arc::new(Terminals {
        runs: Mutex::new(Vec::new()),
    });
    let recorder = InstanceRecorder::new(clients, 5);
    let pool = match pooled {
        Some(n) => Some(Arc::new(
            open_pool(connector.clone(), workload.clone(), n)
                .await
                .unwrap(),
        )),
        None => None,
    };
    let (start, start_rx) = watch::channel(None);
    let (tx, mut events) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    for c in 0..clients {
        let spec = ClientSpec {
            connector: connector.clone(),
            workload: workload.clone(),
            instance: "fake-1".into(),
            instance_index: 0,
            client: c,
            seed: 5,
            pacing: Pacing::Keyed {
                ramp: pacing::START_SPREAD,
            },
            max_attempts: 1,
            shard: recorder.shard_for(c),
            pool: pool.clone(),
            rate: None,
        };
        tokio::spawn(run_client(
            spec,
            start_rx.clone(),
            cancel.clone(),
            tx.clone(),
        ));
    }
    for _ in 0..clients {
        assert!(matches!(events.recv().await, Some(ClientEvent::Ready)));
    }
    let t0 = Instant::now();
    start.send(Some(t0)).unwrap();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    cancel.cancel();
    Run {
        workload,
        recorder,
        t0,
    }
}

#[tokio::test(start_paused = true)]
async fn a_terminal_keys_then_waits_for_the_answer_then_thinks() {
    let mut run = run_terminals(1, None, Duration::from_millis(100), 20_000).await;
    let runs = run.workload.runs.lock().unwrap().clone();
    assert!(runs.len() > 800, "{} transactions", runs.len());
    let (_, first, start, _) = runs[0];
    let offset = start - run.t0;
    let keying = pacing::keying_time(first);
    assert!(
        offset >= keying && offset <= keying + pacing::START_SPREAD,
        "first start {offset:?}"
    );
    // Between one answer and the next start: that kind's keying plus the previous kind's
    // think time, negative exponential with its mean and at most 10 means.
    let mut think_s = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for pair in runs.windows(2) {
        let ((_, prev, _, end), (_, next, start, _)) = (pair[0], pair[1]);
        let gap = start - end;
        let think = gap
            .checked_sub(pacing::keying_time(next))
            .unwrap_or_else(|| panic!("{next:?} started {gap:?} after the answer"));
        assert!(think <= pacing::mean_think_time(prev) * 10, "{think:?}");
        think_s[prev.index()].push(think.as_secs_f64());
    }
    for kind in Kind::ALL {
        let t = &think_s[kind.index()];
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        let want = pacing::mean_think_time(kind).as_secs_f64();
        // Few samples for the 4 % kinds: a loose bound still tells exponential from fixed.
        let tolerance = if kind == Kind::NewOrder || kind == Kind::Payment {
            0.1
        } else {
            0.3
        };
        assert!(
            (mean / want - 1.0).abs() < tolerance,
            "{kind:?}: mean think {mean:.2}s over {}",
            t.len()
        );
    }
    // Never behind schedule: starts on time to the timer's 1 ms granularity.
    let r = run.recorder.collect();
    assert_eq!(r.late_starts, 0);
    assert!(r.start_lag.max() <= 1_001, "{} us", r.start_lag.max());
}

#[tokio::test(start_paused = true)]
async fn terminals_sharing_one_connection_start_late_by_the_wait() {
    // Ten terminals, one connection, 2 s per transaction: about 21 s of keying and thinking per
    // 2 s transaction per terminal asks for ~95 % of the connection, so starts queue.
    let mut run = run_terminals(10, Some(1), Duration::from_secs(2), 3_000).await;
    let runs = run.workload.runs.lock().unwrap().clone();
    for pair in runs.windows(2) {
        assert!(
            pair[1].2 >= pair[0].3,
            "transactions overlap on one connection"
        );
    }
    let clients: std::collections::BTreeSet<u32> = runs.iter().map(|r| r.0).collect();
    assert_eq!(clients.len(), 10, "every terminal got the connection");
    let r = run.recorder.collect();
    assert!(r.late_starts > 0, "waiting for the connection is lateness");
    assert!(r.response_total().mean() > r.service.mean() + 100_000.0);
}
