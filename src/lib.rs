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
//! - [`protocol`]: one entry per command that runs something (`entry`: `run`/`curve`, `up`,
//!   an ad-hoc `sweep`; preflight and the target before anything starts), a run of a plan on
//!   its engine (embedded, or servers started and stopped around it in `servers`), load, the
//!   benchmark's workload and phase hooks opened through `Benchmark::drive` and driven
//!   generically (`measure`), the fleet's phases as barriers (`phases`; the drive's health
//!   log read around them and, where the disk has one, at every report tick, in `health`)
//!   then its load curve (`db_curve`), the benchmark's checks after the phases and again later
//!   (`recheck`: reaching a finished run's instances), the sweep step after the phases,
//!   preflight findings, how a run ends (`Ending`, `RunError`), and a run's lifecycle in one
//!   place (`lifecycle`: console, stop signals, live metrics; a run directory with plan.json,
//!   log, result.json and its renders, or `up`'s up.json, one enum in the finish step).
//! - [`report`]: renderers of the results: series.csv, sweeps.csv, curves.csv, summary.md,
//!   report.html (hand-written SVG charts in `svg`), the intervals the drive throttled in
//!   (`throttle`, from the series rows' marks), every table and section rendered from one
//!   model (`drivebench_core::table`, by `table`; a benchmark's own sections are asked of
//!   `Benchmark`, never built here), compare (md, html, json), merge of several hosts' runs, and
//!   the run directory those files are written to.
//! - [`results`]: the results model: a run (`RunReport`, result.json), its phases, series rows
//!   and preflight findings, and what the phase-closing computations fill in (telemetry and
//!   verdict per phase, steady-state rounds, write-cliff rounds, a benchmark's figures and
//!   checks, typed in its `workload` folder, load curves, sweeps); a run's status as one enum
//!   carrying its error (`status`); the result.json reader.
//! - [`console`]: the live console: progress bars, interval and closing lines.
//! - [`clients`]: virtual clients: one loop, paced closed-loop, open-model or keyed (TPC-C
//!   terminals), retries inside, own connections or a shared pool; a per-instance rate control
//!   that load curves steer; the `Fleet` of every instance's clients.
//! - [`scenario`]: the scenario file as written, `--set` overrides, and the resolved `Plan`
//!   (with its `[[sweep]]` and `[[curve]]` entries); the benchmark's part of `[workload]` is
//!   resolved by `workload`.
//! - [`workload`]: what a virtual client does, one folder per benchmark: `sysbench` OLTP tests
//!   and `tpcc` (transactions, terminals, load, consistency checks, per-phase figures, the NOPM
//!   and isolation probe, the phase hooks reading it, and its sections of the reports and
//!   compare in `tpcc::report`), each with its options and their resolution from the
//!   `[workload]` section (`section`), data generation, distributions; `hooks`: what a
//!   benchmark adds to a run (`PhaseHooks`, `PhaseFigures`, the checks' types); `views`: what
//!   the outputs hand a benchmark when they ask for its sections; `benchmark`: the one dispatch
//!   on `Benchmark`.
//! - [`replay`]: a capture's requests put on another file or block device (io_uring, O_DIRECT)
//!   at their recorded times, scaled, or as fast as the recorded concurrency allows, with each
//!   request's schedule lag, latency per operation and file class, and the fidelity verdict.
//! - [`capture`]: block I/O capture during a run's phases (tracefs block events in a private
//!   instance), file classes from FIEMAP, the compact trace format, its summary, the fio
//!   export, and the remap of a capture onto a replay target.
//! - [`exporter`]: live metrics of a running run (current phase, TPS, latency quantiles,
//!   errors, drive and host figures), served over HTTP in the OpenMetrics text format.
//! - [`metrics`]: sharded HDR histograms, interval collection, summaries.
//! - [`engines`]: one folder per engine (`sqlite`; `mysql` for MariaDB and MySQL, one engine in
//!   two flavours; `postgres`; `mssql`, tiberius, validated against a TDS emulator in CI and
//!   against real SQL Server when `MSSQL_URL` is set), each with its connector and session,
//!   typed settings, `Engine` implementation and, for a server, what its private instances
//!   need of their own (locate, initialise, a `ServerKind`: command line, config, readiness
//!   probe, stop signals) and `Server` implementation; shared: the `Connector`/`Session`
//!   abstraction, `Value`, error classes, SQL `Dialect`s, the one `dispatch` on `EngineKind`,
//!   and `server`, the one private-server lifecycle on the target (`Private<K: ServerKind>`:
//!   port retry, process group, readiness, stop ladder, detach, orphans, `Drop`).
//!
//! Below every module here, in crates of their own (the compiler keeps them from reaching
//! up):
//! - `drivebench-system` (crates/system): `io`, the synthetic direct-I/O engine shaped like
//!   fio's; `sysfs`, one model of a block device; `target`, the drive under test, its identity,
//!   space, guard and leftovers; `telemetry`, device and host counters, the bottleneck
//!   verdict, host facts (`host_info`) and the host clock's state (`clock`); `health`, the
//!   drive's own health log (NVMe SMART and OCP extended SMART through the admin passthrough,
//!   an ATA disk's SMART table through the SCSI generic ATA pass-through), what changed between
//!   two readings, and each report interval's throttle mark from the readings at its ends
//!   (`interval`).
//! - `drivebench-core` (crates/core), the pure leaves: `config`, units and scenario errors;
//!   `curve`, the sans-IO curve driver, steady-state rule and write-cliff judgement;
//!   `histogram`, the one HDR shape of every latency; `rng`, a virtual client's seeded random
//!   stream.
//! - `drivebench-mysql-wire` (crates/mysql-wire), what the MySQL session in `engines` speaks:
//!   packet framing, the connection phase, the server's responses; its parsers are fuzzed.

pub mod capture;
pub mod cli;
pub mod clients;
pub mod console;
pub mod engines;
pub mod exporter;
pub mod metrics;
pub mod protocol;
pub mod replay;
pub mod report;
pub mod results;
pub mod scenario;
pub mod workload;
