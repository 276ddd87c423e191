//! What every layer may use: units as scenario files write them (durations, sizes, percentages,
//! and their formatting), typed setting values and serde errors worded for scenario authors
//! (`settings`), dotted key paths and the scenario error that points at a file's `line:column`
//! or a `--set` override, and locating a key in the TOML text. A leaf of the crate: no other
//! module of drivebench is used here.

pub mod bounds;
pub mod error;
pub mod locate;
pub mod settings;
pub mod units;

pub use error::{Invalid, KeyPath, Origin, ScenarioError, Seg};
