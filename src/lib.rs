//! drivebench evaluates a storage drive the way a database administrator experiences it: real
//! database engines with their data on the drive under test, sysbench-style OLTP and TPC-C load
//! from many virtual clients, a precondition-then-sample protocol, and TPS with average and
//! 99th-percentile latency in a result directory that later tools compare.
//!
//! # Layout
//!
//! - [`cli`]: one module per subcommand (`run`, `curve`, `plan`, `report`, `compare`, `check`,
//!   `schema`, `sweep`), exit codes, logging.
//! - [`scenario`]: the scenario file as written, `--set` overrides, units, and the resolved `Plan`
//!   (with its `[[sweep]]` and `[[curve]]` entries).
//! - [`target`]: the drive under test: identity, filesystem, free space, the destructive-write
//!   guard for block devices.
//! - [`engines`]: one folder per engine (`sqlite`; `mysql` for MariaDB and MySQL, one engine in
//!   two flavours; `postgres`; `mssql`, tiberius, validated against a TDS emulator in CI and
//!   against real SQL Server when `MSSQL_URL` is set), each with its connector and session,
//!   typed settings, `Engine` implementation and, for a server, its private instances (start,
//!   wait, stop) and `Server` implementation; shared: the `Connector`/`Session` abstraction,
//!   `Value`, error classes, SQL `Dialect`s, the one `dispatch` on `EngineKind`, and `server`,
//!   the private-server lifecycle on the target.
//! - [`workload`]: what a virtual client does: `sysbench` OLTP tests and `tpcc` (transactions,
//!   terminals, load, consistency checks), data generation, distributions.
//! - [`clients`]: virtual clients: one loop, paced closed-loop, open-model or keyed (TPC-C
//!   terminals), retries inside, own connections or a shared pool; a per-instance rate control
//!   that load curves steer.
//! - [`protocol`]: a run of a plan on its engine (embedded, or servers started and stopped
//!   around it in `servers`), benchmark dispatch, load, phases as barriers,
//!   the sampler, TPC-C's NOPM probe and checks after the phases and again later (`recheck`),
//!   the sweep step after the phases, load curves (`curve`, shared with I/O sweeps; `db_curve`
//!   for databases), preflight findings.
//! - [`io`]: the synthetic direct-I/O engine: workload points on dedicated threads (io_uring or
//!   pread/pwrite), O_DIRECT targets (files, guarded block devices), latency and rate results.
//! - [`metrics`]: sharded HDR histograms, interval collection, summaries.
//! - [`report`]: result.json, series.csv, sweeps.csv, curves.csv, summary.md, report.html
//!   (with its TPC-C and load-curve sections; hand-written SVG charts in `svg`), compare (md,
//!   html, json; TPC-C, load-curve and sweep tables; the settings that differ), TPC-C figures,
//!   live console, host facts.

pub mod cli;
pub mod clients;
pub mod config;
pub mod curve;
pub mod engines;
pub mod io;
pub mod metrics;
pub mod protocol;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod target;
pub mod workload;
