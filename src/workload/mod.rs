//! What a virtual client does, written against `Session` only. A workload prepares its
//! statements on a session, generates a transaction's inputs (pure: seeded RNG, no I/O) and
//! executes them. Two families: sysbench OLTP and TPC-C (transactions, terminals, load and
//! consistency checks). What a benchmark adds to a run beside its transactions (phase hooks
//! and their figures, checks) is typed in `hooks` and dispatched by `benchmark`.

pub mod benchmark;
pub mod feed;
pub mod hooks;
pub mod load;
pub mod meta;
pub mod section;
pub mod sysbench;
pub mod tpcc;
pub mod views;

use std::future::Future;
use std::time::Duration;

use crate::engines::{EngineError, Session};
use crate::metrics::StatementCounts;
use drivebench_core::rng::Rng;

pub trait Workload: Send + Sync + 'static {
    /// Per-connection state (prepared statement ids, buffers).
    type Client: Send + 'static;
    /// Per-virtual-client state that outlives connections (a TPC-C terminal's home warehouse
    /// and deck; a sysbench client's id).
    type Terminal: Send + 'static;
    /// Inputs of one transaction.
    type Inputs: Send + Sync + 'static;

    /// Names of the transaction kinds, reported separately; index = `kind_of`.
    fn kinds(&self) -> &'static [&'static str];
    /// Prepare everything a client needs on a fresh session.
    fn setup<S: Session>(
        &self,
        session: &mut S,
    ) -> impl Future<Output = Result<Self::Client, EngineError>> + Send;
    /// The state of virtual client `client` (0-based within its instance).
    fn terminal(&self, client: u32, rng: &mut Rng) -> Self::Terminal;
    /// Generate the next transaction's inputs (`seq` counts the client's transactions). Pure.
    fn generate(&self, terminal: &mut Self::Terminal, rng: &mut Rng, seq: u64) -> Self::Inputs;
    /// Transaction kind of these inputs (index into `kinds`).
    fn kind_of(&self, inputs: &Self::Inputs) -> usize;
    /// Workloads that deal their kinds from decks (TPC-C's spec mix): after a transaction is
    /// recorded, the per-kind cards of the deck it completed, when it was a deck's last card.
    fn completed_deck(&self, _terminal: &Self::Terminal) -> Option<&'static [u32]> {
        None
    }
    /// Keyed pacing: the time a user spends keying these inputs before the transaction starts.
    fn keying_time(&self, _inputs: &Self::Inputs) -> Duration {
        Duration::ZERO
    }
    /// Terminals that pace themselves (keying and think times, as TPC-C's spec pacing): the
    /// spread over which they start. None: the plan's rate (or a closed loop) paces clients.
    fn keyed_start_spread(&self) -> Option<Duration> {
        None
    }
    /// Keyed pacing: the time a user thinks after this transaction's answer.
    fn think_time(&self, _inputs: &Self::Inputs, _rng: &mut Rng) -> Duration {
        Duration::ZERO
    }
    /// Run one attempt of the transaction.
    fn execute<S: Session>(
        &self,
        session: &mut S,
        client: &mut Self::Client,
        inputs: &Self::Inputs,
    ) -> impl Future<Output = Result<StatementCounts, EngineError>> + Send;
    /// Undo a failed attempt (ROLLBACK if a transaction may be open); errors are ignored.
    fn abort<S: Session>(
        &self,
        session: &mut S,
        client: &mut Self::Client,
    ) -> impl Future<Output = ()> + Send;
}
