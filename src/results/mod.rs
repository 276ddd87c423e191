//! The results model: a run (`RunReport`, result.json, the source of truth), its phases, their
//! series rows, preflight findings, and what the phase-closing computations fill in (per-phase
//! telemetry figures and verdict, the drive's health log before and after, the engines' own
//! I/O figures, the steady-state rounds, a fixed
//! load's write-cliff rounds, TPC-C figures and checks, load curves, sweeps, a merge
//! of several hosts), the device's start state and a fullness run's table. `protocol` fills
//! it; `report` only renders it.

pub mod cliff;
pub mod curves;
pub mod engine_io;
pub mod finding;
pub mod fullness;
pub mod health;
pub mod merge;
pub mod phase;
pub mod run;
pub mod start_state;
pub mod status;
pub mod steady;
pub mod sweeps;
pub mod telemetry;

use std::path::Path;

pub use run::{OLDEST_SCHEMA_VERSION, RunReport, SCHEMA_VERSION};

/// A result.json that could not be read: which file, and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {cause}")]
pub struct ReadError {
    pub path: String,
    #[source]
    pub cause: ReadCause,
}

/// Why a result.json could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadCause {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("not a drivebench result: {0}")]
    NotAResult(#[from] serde_json::Error),
    /// The file's schema_version, which this build does not read.
    #[error(
        "schema_version {0} is not supported (this drivebench reads {OLDEST_SCHEMA_VERSION} to {SCHEMA_VERSION})"
    )]
    Schema(u32),
}

/// Read and check a result.json.
pub fn read_result(path: &Path) -> Result<RunReport, ReadError> {
    let fail = |cause: ReadCause| ReadError {
        path: path.display().to_string(),
        cause,
    };
    let text = std::fs::read_to_string(path).map_err(|e| fail(e.into()))?;
    let report: RunReport = serde_json::from_str(&text).map_err(|e| fail(e.into()))?;
    if !(OLDEST_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&report.schema_version) {
        return Err(fail(ReadCause::Schema(report.schema_version)));
    }
    Ok(report)
}
