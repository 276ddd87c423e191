//! A shared `RateControl` steering running clients, under paused tokio time: before it is set
//! clients keep their own pacing; set closed they run flat out; set to a rate they share one
//! Poisson schedule that holds the rate within 2 % when sustainable, and falls behind (start
//! lag growing, flagged by `Backlog::judge`) when asked for more than the clients can serve.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::rate::RateControl;
use super::tests::fake;
use super::*;
use crate::engines::{ErrorClass, Session};
use crate::metrics::StatementCounts;
use crate::metrics::{InstanceRecorder, Recorded};
use crate::workload::Workload;
use drivebench_core::curve::backlog::Backlog;

/// One statement per transaction.
struct Single;

impl Workload for Single {
    type Client = ();
    type Terminal = ();
    type Inputs = ();
    fn kinds(&self) -> &'static [&'static str] {
        &["one"]
    }
    async fn setup<S: Session>(&self, _s: &mut S) -> Result<(), EngineError> {
        Ok(())
    }
    fn terminal(&self, _client: u32, _rng: &mut Rng) {}
    fn generate(&self, _t: &mut (), _rng: &mut Rng, _seq: u64) {}
    fn kind_of(&self, _inputs: &()) -> usize {
        0
    }
    async fn execute<S: Session>(
        &self,
        s: &mut S,
        _c: &mut (),
        _inputs: &(),
    ) -> Result<StatementCounts, EngineError> {
        s.execute(0, &[]).await?;
        Ok(StatementCounts::default())
    }
    async fn abort<S: Session>(&self, _s: &mut S, _c: &mut ()) {}
}

struct Clients {
    recorder: InstanceRecorder,
    control: Arc<RateControl>,
    cancel: CancellationToken,
}

/// `n` clients with 10 ms of service each (a closed-loop peak of 100·n tx/s), started.
async fn start(n: u32, pacing: Pacing) -> Clients {
    let mut connector = fake(0, ErrorClass::Retryable);
    connector.service = Duration::from_millis(10);
    let connector = Arc::new(connector);
    let recorder = InstanceRecorder::new(n, 1);
    let control = Arc::new(RateControl::new());
    let (start, start_rx) = watch::channel(None);
    let (tx, mut events) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    for c in 0..n {
        let spec = ClientSpec {
            connector: connector.clone(),
            workload: Arc::new(Single),
            instance: "fake-1".into(),
            instance_index: 0,
            client: c,
            seed: 3,
            pacing,
            max_attempts: 1,
            shard: recorder.shard_for(c),
            pool: None,
            rate: Some(control.clone()),
        };
        tokio::spawn(run_client(
            spec,
            start_rx.clone(),
            cancel.clone(),
            tx.clone(),
        ));
    }
    for _ in 0..n {
        assert!(matches!(events.recv().await, Some(ClientEvent::Ready)));
    }
    start.send(Some(Instant::now())).unwrap();
    // The watch sender must outlive the clients' wait for the start.
    tokio::spawn(async move {
        let _keep = start;
        std::future::pending::<()>().await
    });
    Clients {
        recorder,
        control,
        cancel,
    }
}

/// Run `secs` of virtual time in quarters; what each quarter recorded.
async fn quarters(c: &mut Clients, secs: f64) -> Vec<Recorded> {
    let mut out = Vec::new();
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_secs_f64(secs / 4.0)).await;
        out.push(c.recorder.collect());
    }
    out
}

fn judge(q: &[Recorded], rate: f64, secs: f64) -> (f64, Backlog) {
    let n: u64 = q.iter().map(Recorded::transactions).sum();
    let lag = |r: &Recorded| r.start_lag.mean() / 1000.0;
    (
        n as f64 / secs,
        Backlog::judge(rate, secs, n, lag(&q[0]), lag(&q[3])),
    )
}

#[tokio::test(start_paused = true)]
async fn a_shared_rate_holds_within_two_percent_then_changes_while_clients_stay_connected() {
    // Own pacing first: a 50 tx/s Poisson schedule per instance.
    let mut c = start(8, Pacing::for_rate(Some(50.0), 8)).await;
    let (tps, _) = judge(&quarters(&mut c, 40.0).await, 50.0, 40.0);
    assert!((tps - 50.0).abs() / 50.0 < 0.1, "own pacing {tps}");

    // Closed loop: 8 clients x 100 tx/s.
    c.control.set_closed();
    tokio::time::sleep(Duration::from_secs(1)).await; // the last scheduled starts pass
    c.recorder.collect();
    let (peak, _) = judge(&quarters(&mut c, 10.0).await, 800.0, 10.0);
    assert!((peak - 800.0).abs() < 10.0, "closed loop {peak}");

    for pct in [10.0, 50.0, 80.0] {
        let rate = peak * pct / 100.0;
        c.control.set_rate(rate);
        tokio::time::sleep(Duration::from_secs(2)).await; // settle
        c.recorder.collect();
        let (tps, backlog) = judge(&quarters(&mut c, 60.0).await, rate, 60.0);
        assert!(
            (tps - rate).abs() / rate < 0.02,
            "{pct} %: asked {rate}, got {tps}"
        );
        assert!(backlog.sustainable, "{pct} %: {backlog:?}");
    }
    c.cancel.cancel();
}

#[tokio::test(start_paused = true)]
async fn asking_for_more_than_the_clients_can_serve_is_flagged_unsustainable() {
    let mut c = start(8, Pacing::Closed).await;
    c.control.set_rate(1000.0); // 125 % of the 800 tx/s the clients can serve
    let q = quarters(&mut c, 20.0).await;
    let (tps, backlog) = judge(&q, 1000.0, 20.0);
    assert!(tps < 820.0, "{tps}");
    assert!(!backlog.sustainable, "{backlog:?}");
    assert!(
        backlog.start_lag_last_ms > backlog.start_lag_first_ms + 1000.0,
        "the backlog grows: {backlog:?}"
    );
    assert!(backlog.shortfall_pct > 15.0, "{backlog:?}");
    c.cancel.cancel();
}
