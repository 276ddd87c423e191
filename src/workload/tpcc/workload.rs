//! TPC-C as a [`Workload`]: each virtual client is a terminal with a fixed home warehouse and
//! district (2.4.1.1, 2.8.1.2) and its own deck (or HammerDB's random draw, by the plan's
//! mix), reporting each deck it completes so the mix can be judged over whole decks; one set
//! of NURand run constants serves every terminal of the run, its C_LAST at an allowed distance
//! from the load's (2.1.6.1). Keying and
//! think times are given to the client loop, which applies them under keyed pacing only. A
//! transaction runs as client-side statements (`txn`) or, with `procedures`, as one
//! stored-procedure call (`procs`) on the same inputs. Every session is set to the plan's
//! isolation level, if it names one, before anything is prepared on it.

use std::time::Duration;

use super::data::LoadParams;
use super::deck::Dealer;
use super::input::{Inputs, Terminal};
use super::procs::TpccSqlError;
use super::rand::Constants;
use super::txn::{self, TpccClient};
use super::{DISTRICTS_PER_WAREHOUSE, KIND_NAMES, pacing, procs, schema};
use crate::engines::Dialect;
use crate::engines::isolation::{self, Isolation};
use crate::engines::{EngineError, Session, Statements};
use crate::metrics::StatementCounts;
use crate::workload::Workload;
use crate::workload::tpcc::options::{TpccOptions, TpccPacing};
use drivebench_core::rng::Rng;

/// Random stream of the run-wide constants (separate from every client's stream).
const CONSTANTS_STREAM: u64 = u64::MAX;

/// What the initial population of a run seeded with `seed` depends on; `load_time` is the
/// engine's timestamp text for C_SINCE, O_ENTRY_D and the like.
pub fn load_params(seed: u64, load_time: String) -> LoadParams {
    LoadParams {
        seed,
        constants: Constants::load(&mut Rng::for_client(seed, CONSTANTS_STREAM, 0)),
        load_time,
    }
}

/// The run's NURand constants for data loaded with `load`.
pub fn run_constants(seed: u64, load: &Constants) -> Constants {
    Constants::run(load.c_last, &mut Rng::for_client(seed, CONSTANTS_STREAM, 1))
}

/// The current time as the engines' timestamp text, "YYYY-MM-DD HH:MM:SS" (UTC).
pub fn timestamp_now() -> String {
    drivebench_core::config::units::utc_now()
        .replacen('T', " ", 1)
        .trim_end_matches('Z')
        .to_string()
}

pub struct Tpcc {
    opts: TpccOptions,
    statements: Statements,
    /// The calls of `procedures = true`.
    procedures: Option<Statements>,
    /// The level every session is set to, with the dialect's statements setting it.
    isolation: Option<(Statements, Isolation)>,
    constants: Constants,
    /// How a failed procedure call is cleaned up depends on the engine.
    dialect: Dialect,
}

/// One connection: its prepared statements, or its prepared procedure calls.
pub enum TpccConn {
    Statements(TpccClient),
    Procedures(procs::ProcClient),
}

/// One virtual user: its home and its deck (or its random draw, `mix = "hammerdb"`).
pub struct TpccTerminal {
    terminal: Terminal,
    dealer: Dealer,
}

impl Tpcc {
    pub fn new(opts: TpccOptions, dialect: Dialect, seed: u64) -> Result<Self, TpccSqlError> {
        let load = load_params(seed, String::new());
        Ok(Tpcc {
            constants: run_constants(seed, &load.constants),
            statements: schema::statements(dialect)?,
            isolation: match opts.isolation {
                Some(level) => Some((isolation::statements(dialect)?, level)),
                None => None,
            },
            procedures: if opts.procedures {
                Some(procs::procedures(dialect)?)
            } else {
                None
            },
            opts,
            dialect,
        })
    }

    /// Statements each connection prepares.
    pub fn statements_per_client() -> usize {
        txn::NAMES.len()
    }

    /// The run's NURand constants.
    pub fn constants(&self) -> Constants {
        self.constants
    }

    /// Home warehouse and district of client `client`: clients are dealt across warehouses
    /// first, then districts, so W x 10 clients give every warehouse ten terminals, one per
    /// district.
    pub fn home(&self, client: u32) -> (u32, u8) {
        let w = self.opts.warehouses.max(1);
        let w_id = client % w + 1;
        let d_id = (client / w) % DISTRICTS_PER_WAREHOUSE + 1;
        (w_id, d_id as u8)
    }
}

impl Workload for Tpcc {
    type Client = TpccConn;
    type Terminal = TpccTerminal;
    type Inputs = Inputs;

    fn kinds(&self) -> &'static [&'static str] {
        &KIND_NAMES
    }

    async fn setup<S: Session>(&self, session: &mut S) -> Result<TpccConn, EngineError> {
        if let Some((st, level)) = &self.isolation {
            isolation::set(session, st, *level).await?;
        }
        Ok(match &self.procedures {
            Some(st) => TpccConn::Procedures(procs::prepare(session, st).await?),
            None => TpccConn::Statements(txn::prepare(session, &self.statements).await?),
        })
    }

    fn terminal(&self, client: u32, rng: &mut Rng) -> TpccTerminal {
        let (w_id, d_id) = self.home(client);
        TpccTerminal {
            terminal: Terminal {
                w_id,
                d_id,
                warehouses: self.opts.warehouses,
            },
            dealer: Dealer::new(self.opts.mix, rng),
        }
    }

    fn generate(&self, t: &mut TpccTerminal, rng: &mut Rng, _seq: u64) -> Inputs {
        let kind = t.dealer.next(rng);
        t.terminal.inputs(kind, &self.constants, rng)
    }

    fn kind_of(&self, inputs: &Inputs) -> usize {
        inputs.kind().index()
    }

    fn completed_deck(&self, t: &TpccTerminal) -> Option<&'static [u32]> {
        t.dealer.completed_deck().map(|cards| &cards[..])
    }

    fn keying_time(&self, inputs: &Inputs) -> Duration {
        pacing::keying_time(inputs.kind())
    }

    fn keyed_start_spread(&self) -> Option<Duration> {
        (self.opts.pacing == TpccPacing::Spec).then_some(pacing::START_SPREAD)
    }

    fn think_time(&self, inputs: &Inputs, rng: &mut Rng) -> Duration {
        pacing::think_time(inputs.kind(), rng)
    }

    async fn execute<S: Session>(
        &self,
        s: &mut S,
        c: &mut TpccConn,
        inputs: &Inputs,
    ) -> Result<StatementCounts, EngineError> {
        let c = match c {
            TpccConn::Procedures(p) => {
                return procs::execute(s, p, inputs, &timestamp_now()).await;
            }
            TpccConn::Statements(c) => c,
        };
        match inputs {
            Inputs::NewOrder(t) => txn::new_order(s, c, t, &timestamp_now()).await,
            Inputs::Payment(t) => txn::payment(s, c, t, &timestamp_now()).await,
            Inputs::OrderStatus(t) => txn::order_status(s, c, t).await,
            Inputs::Delivery(t) => txn::delivery(s, c, t, &timestamp_now()).await,
            Inputs::StockLevel(t) => txn::stock_level(s, c, t).await,
        }
    }

    async fn abort<S: Session>(&self, s: &mut S, c: &mut TpccConn) {
        match c {
            TpccConn::Statements(c) => txn::abort(s, c).await,
            TpccConn::Procedures(_) => procs::abort(s, self.dialect).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::tpcc::options::TpccPacing;
    use crate::workload::tpcc::rand::c_last_delta_ok;

    fn opts(warehouses: u32) -> TpccOptions {
        TpccOptions {
            warehouses,
            pacing: TpccPacing::Spec,
            terminals_per_warehouse: 10,
            procedures: false,
            mix: crate::workload::tpcc::options::TpccMix::Spec,
            isolation: None,
        }
    }

    #[test]
    fn ten_terminals_per_warehouse_cover_every_district_once() {
        let w = Tpcc::new(opts(3), Dialect::Sqlite, 1).unwrap();
        let mut homes: Vec<(u32, u8)> = (0..30).map(|c| w.home(c)).collect();
        homes.sort();
        let want: Vec<(u32, u8)> = (1..=3)
            .flat_map(|w| (1..=10).map(move |d| (w, d as u8)))
            .collect();
        assert_eq!(homes, want);
    }

    #[test]
    fn run_constants_keep_the_c_last_rule_against_the_load() {
        for seed in 0..200 {
            let load = load_params(seed, String::new()).constants;
            let run = run_constants(seed, &load);
            let delta = load.c_last.abs_diff(run.c_last);
            assert!(c_last_delta_ok(delta), "seed {seed}: delta {delta}");
        }
    }

    #[test]
    fn timestamps_are_engine_text() {
        let t = timestamp_now();
        assert_eq!(t.len(), 19, "{t}");
        assert_eq!(&t[10..11], " ");
    }
}
