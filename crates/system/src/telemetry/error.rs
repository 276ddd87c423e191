//! What can go wrong reading a kernel counter file or walking sysfs.

use std::path::PathBuf;

/// A counter file that could not be read or understood.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Sysfs(#[from] crate::sysfs::SysfsError),
    #[error("cannot stat {path} or any directory above it: {source}")]
    Stat {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}, line {line}: {problem}")]
    Parse {
        /// The file the text came from, e.g. "/proc/diskstats".
        file: &'static str,
        /// 1-based line number.
        line: usize,
        problem: ParseProblem,
    },
}

/// Why a line of a counter file was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseProblem {
    #[error("{found} fields where at least {needed} are needed")]
    TooFewFields { found: usize, needed: usize },
    #[error("field {field} is not a counter: {text:?}")]
    NotACounter { field: usize, text: String },
    #[error("no `)` closes the command name")]
    NoCommandEnd,
    #[error("no line starts with {0:?}")]
    Missing(&'static str),
}

/// A field of a counter line as a u64, or the problem naming its 1-based position.
pub(super) fn counter(text: &str, field: usize) -> Result<u64, ParseProblem> {
    text.parse().map_err(|_| ParseProblem::NotACounter {
        field,
        text: text.to_owned(),
    })
}

/// Read a whole counter file.
pub(super) fn read(path: &str) -> Result<String, TelemetryError> {
    std::fs::read_to_string(path).map_err(|source| TelemetryError::Read {
        path: PathBuf::from(path),
        source,
    })
}
