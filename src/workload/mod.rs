//! What a virtual client does, written against `Session` only. A workload prepares its
//! statements on a session, generates a transaction's inputs (pure: seeded RNG, no I/O) and
//! executes them. sysbench OLTP is the first family; TPC-C (so far its pure part: inputs,
//! mix, pacing and initial data) is the second.

pub mod feed;
pub mod rng;
pub mod sysbench;
pub mod tpcc;

use std::future::Future;

use crate::engine::{EngineError, Session};
pub use rng::Rng;

/// Statements one executed transaction ran, by sysbench's classes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatementCounts {
    pub reads: u32,
    pub writes: u32,
    pub other: u32,
}

pub trait Workload: Send + Sync + 'static {
    /// Per-client state (prepared statement ids, buffers).
    type Client: Send + 'static;
    /// Inputs of one transaction.
    type Inputs: Send + 'static;

    /// Names of the transaction kinds, reported separately; index = `kind_of`.
    fn kinds(&self) -> &'static [&'static str];
    /// Prepare everything a client needs on a fresh session.
    fn setup<S: Session>(
        &self,
        session: &mut S,
    ) -> impl Future<Output = Result<Self::Client, EngineError>> + Send;
    /// Generate the next transaction's inputs. Pure.
    fn generate(&self, rng: &mut Rng, client: u64, seq: u64) -> Self::Inputs;
    /// Transaction kind of these inputs (index into `kinds`).
    fn kind_of(&self, inputs: &Self::Inputs) -> usize;
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
