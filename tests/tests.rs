//! The integration tests, one binary: a module per concern (the CLI's commands, the engine
//! conformance suite every engine runs, what each engine has of its own, the I/O engines and
//! sweeps, capture and replay, the documents' and the layers' checks), with the helpers they
//! share in `common`. Tests that need a database server start a private one
//! on a port of their own; the SQL Server ones run against the TDS emulator (not Microsoft SQL
//! Server). One binary links the crate once instead of once per file.

mod common;

mod ansible;
mod capture;
mod check;
mod clean;
mod cliff;
mod compare;
mod compare_curves;
mod compare_sweeps;
mod conformance;
mod corrupt_results;
mod curve;
mod curve_mariadb;
mod docs;
mod engine_io;
mod engine_io_run;
mod engine_io_verdict;
mod faults;
mod faults_net;
mod health;
mod io_engine;
mod io_sweep;
mod layers;
mod mariadb;
mod merge;
mod metrics;
mod mssql;
mod mssql_emulator;
mod postgres;
mod preflight;
mod props;
mod replay;
mod report_html;
mod run;
mod scenarios;
mod schema;
mod secrets;
mod start_state;
mod steady;
mod sweep_cli;
mod sweep_device;
mod sweep_fullness;
mod sweep_interrupt;
mod sweep_scenario;
mod telemetry;
mod tls;
mod tpcc;
mod tpcc_procs;
mod tpcc_procs_postgres;
mod up;
mod workloads;
