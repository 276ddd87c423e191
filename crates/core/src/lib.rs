//! drivebench's pure leaves: no I/O, no other drivebench crate, and nothing of the main crate
//! can reach back into them (the compiler keeps it so).
//!
//! # Layout
//!
//! - [`config`]: units as scenario files write them (durations, sizes, percentages) and their
//!   formatting, typed setting values, dotted key paths and the scenario error that points at
//!   a file's `line:column` or a `--set` override.
//! - [`curve`]: the sans-IO load-curve driver shared by I/O sweeps and database curves, the
//!   SLO search, the SNIA steady-state rule, a point's backlog judgement, where a fixed load's
//!   p99 departs from its early level (the write cliff).
//! - [`engine_io`]: an engine's own I/O counters, an interval's figures per second and per
//!   transaction, and which I/O class (log flushes, data reads, background writes) a
//!   drive-bound interval waited on.
//! - [`histogram`]: the one HDR histogram shape every latency is recorded in (1 µs .. 1 h, 3
//!   significant digits) and its compact text form in result files.
//! - [`rng`]: the seeded random stream of one virtual client.
//! - [`table`]: what the outputs show, as values both markdown and HTML render: a table
//!   (columns with their alignment, rows, notes) and a section (a titled run of paragraphs,
//!   lists and tables).

pub mod config;
pub mod curve;
pub mod engine_io;
pub mod histogram;
pub mod rng;
pub mod table;
