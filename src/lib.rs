//! drivebench evaluates a storage drive the way a database administrator experiences it: real
//! database engines with their data on the drive under test, sysbench-style OLTP and TPC-C load
//! from many virtual clients, a precondition-then-sample protocol, and TPS with average and
//! 99th-percentile latency in a result directory that later tools compare.
//!
//! # Layout
//!
//! Listed from the top of the dependency stack down; a module uses only those below it, as the
//! layer table in docs/architecture.md says and `tests/layers.rs` checks.
//!
//! - [`cli`]: one module per subcommand (`run`, `curve`, `plan`, `report`, `compare`, `check`,
//!   `schema`, `sweep`, `docs`, `clean`), exit codes, logging, the generated references.
//! - [`protocol`]: a run of a plan on its engine (embedded, or servers started and stopped
//!   around it in `servers`), load, the fleet's phases as barriers (`phases`) then its load
//!   curve (`db_curve`), TPC-C's NOPM hooks and checks after the phases and again later
//!   (`recheck`), the sweep step after the phases, preflight findings, how a run ends
//!   (`Ending`, `RunError`), and a run's lifecycle in one place (`lifecycle`: run directory,
//!   plan.json, log, console, stop signals, live metrics; then result.json and its renders).
//! - [`report`]: renderers of the results: series.csv, sweeps.csv, curves.csv, summary.md,
//!   report.html (hand-written SVG charts in `svg`), compare (md, html, json), merge of several
//!   hosts' runs, and the run directory those files are written to.
//! - [`results`]: the results model: a run (`RunReport`, result.json), its phases, series rows
//!   and preflight findings, and what the phase-closing computations fill in (telemetry and
//!   verdict per phase, steady-state rounds, a benchmark's figures and checks, typed in its
//!   `workload` folder, load curves, sweeps); the result.json reader.
//! - [`console`]: the live console: progress bars, interval and closing lines.
//! - [`clients`]: virtual clients: one loop, paced closed-loop, open-model or keyed (TPC-C
//!   terminals), retries inside, own connections or a shared pool; a per-instance rate control
//!   that load curves steer; the `Fleet` of every instance's clients.
//! - [`scenario`]: the scenario file as written, `--set` overrides, and the resolved `Plan`
//!   (with its `[[sweep]]` and `[[curve]]` entries); the benchmark's part of `[workload]` is
//!   resolved by `workload`.
//! - [`workload`]: what a virtual client does, one folder per benchmark: `sysbench` OLTP tests
//!   and `tpcc` (transactions, terminals, load, consistency checks, per-phase figures, the NOPM
//!   and isolation probe), each with its options and their resolution from the `[workload]`
//!   section (`section`), data generation, distributions; `benchmark`: the one dispatch on
//!   `Benchmark`.
//! - [`replay`]: a capture's requests put on another file or block device (io_uring, O_DIRECT)
//!   at their recorded times, scaled, or as fast as the recorded concurrency allows, with each
//!   request's schedule lag, latency per operation and file class, and the fidelity verdict.
//! - [`capture`]: block I/O capture during a run's phases (tracefs block events in a private
//!   instance), file classes from FIEMAP, the compact trace format, its summary, the fio
//!   export, and the remap of a capture onto a replay target.
//! - [`io`]: the synthetic direct-I/O engine: workload points on dedicated threads (io_uring or
//!   pread/pwrite), O_DIRECT targets (files, guarded block devices), latency and rate results.
//! - [`exporter`]: live metrics of a running run (current phase, TPS, latency quantiles,
//!   errors, drive and host figures), served over HTTP in the OpenMetrics text format.
//! - [`metrics`]: sharded HDR histograms, interval collection, summaries.
//! - [`target`]: the drive under test: identity, filesystem, free space, the destructive-write
//!   guard for block devices, and the markers on what drivebench leaves there (`leftovers`).
//! - [`engines`]: one folder per engine (`sqlite`; `mysql` for MariaDB and MySQL, one engine in
//!   two flavours; `postgres`; `mssql`, tiberius, validated against a TDS emulator in CI and
//!   against real SQL Server when `MSSQL_URL` is set), each with its connector and session,
//!   typed settings, `Engine` implementation and, for a server, its private instances (start,
//!   wait, stop) and `Server` implementation; shared: the `Connector`/`Session` abstraction,
//!   `Value`, error classes, SQL `Dialect`s, the one `dispatch` on `EngineKind`, and `server`,
//!   the private-server lifecycle on the target.
//! - [`telemetry`]: a leaf that reads `/proc` and `/sys`: device counters at the physical
//!   members under the target, host CPU, page cache, pressure and named processes, sampled at
//!   instants, turned into interval and phase figures, and the bottleneck verdict; host facts
//!   (`host_info`) and the host clock's state (`clock`).
//! - Leaves, using no other module: [`curve`] (the sans-IO curve driver and SLO search shared by
//!   I/O sweeps and database curves, the SNIA steady-state rule, a point's backlog judgement),
//!   [`config`] (units, key paths, scenario errors, typed setting values), [`rng`] (a virtual
//!   client's seeded random stream).

pub mod capture;
pub mod cli;
pub mod clients;
pub mod config;
pub mod console;
pub mod curve;
pub mod engines;
pub mod exporter;
pub mod io;
pub mod metrics;
pub mod protocol;
pub mod replay;
pub mod report;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod target;
pub mod telemetry;
pub mod workload;
