//! The fleet against an in-memory engine under paused time: every client of every instance
//! connects before the start, records into its own instance, and a client's fatal error wakes
//! the fleet's borrower with the instance named.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Pacing;
use super::fleet::{Fleet, FleetError, FleetSpec, Wake};
use super::tests::{FakeConnector, OneStatement, fake};
use crate::engines::ErrorClass;

fn spec(instances: usize, clients: u32) -> FleetSpec {
    FleetSpec {
        instances: (1..=instances).map(|i| format!("fake-{i}")).collect(),
        clients,
        pooled_connections: None,
        seed: 1,
        pacing: Pacing::Closed,
        max_attempts: 3,
        rate_controlled: false,
    }
}

/// A fleet of `clients` per connector, connected.
async fn connected(
    connectors: &[Arc<FakeConnector>],
    clients: u32,
    cancel: &CancellationToken,
) -> Fleet {
    let spec = spec(connectors.len(), clients);
    Fleet::connect(&spec, connectors, Arc::new(OneStatement::new()), 1, cancel)
        .await
        .expect("connects")
}

#[tokio::test(start_paused = true)]
async fn every_client_connects_before_the_start_and_records_into_its_instance() {
    let connectors = vec![
        Arc::new(fake(0, ErrorClass::Retryable)),
        Arc::new(fake(0, ErrorClass::Retryable)),
    ];
    let cancel = CancellationToken::new();
    let mut fleet = connected(&connectors, 3, &cancel).await;
    assert_eq!(fleet.len(), 6);
    let before = fleet.collect();
    assert!(
        before.iter().all(|r| r.transactions() == 0),
        "nothing before the start"
    );
    let t0 = fleet.start();
    let wake = fleet.wait(t0 + Duration::from_millis(100), &cancel).await;
    assert!(matches!(wake, Wake::Tick), "{wake:?}");
    let recorded = fleet.collect();
    assert_eq!(recorded.len(), 2);
    for r in &recorded {
        // three closed-loop clients at 1 ms per transaction for 100 ms
        assert!(
            (270..=303).contains(&r.transactions()),
            "{}",
            r.transactions()
        );
    }
    assert!(
        fleet.collect().iter().all(|r| r.transactions() <= 3),
        "counters reset"
    );
    fleet.stop(false).await;
}

#[tokio::test(start_paused = true)]
async fn a_fatal_error_wakes_the_borrower_with_the_instance_named() {
    let connectors = vec![
        Arc::new(fake(0, ErrorClass::Retryable)),
        Arc::new(fake(u32::MAX, ErrorClass::Fatal)),
    ];
    let cancel = CancellationToken::new();
    let mut fleet = connected(&connectors, 1, &cancel).await;
    let t0 = fleet.start();
    match fleet.wait(t0 + Duration::from_secs(10), &cancel).await {
        Wake::Failed(FleetError::Client(e)) => assert_eq!(e.instance, "fake-2"),
        other => panic!("expected a client failure, got {other:?}"),
    }
    fleet.stop(false).await;
}

#[tokio::test(start_paused = true)]
async fn cancellation_wakes_the_borrower() {
    let connectors = vec![Arc::new(fake(0, ErrorClass::Retryable))];
    let cancel = CancellationToken::new();
    let mut fleet = connected(&connectors, 2, &cancel).await;
    let t0 = fleet.start();
    cancel.cancel();
    let wake = fleet.wait(t0 + Duration::from_secs(10), &cancel).await;
    assert!(matches!(wake, Wake::Cancelled), "{wake:?}");
    fleet.stop(false).await;
}
