//! How a run ends, and why it stopped when it did not finish: the stage it was in, the
//! instance when one is to blame, and the cause, kept typed until the CLI prints it and picks
//! the exit code from it.

use std::error::Error;
use std::fmt;

/// How a run ended.
#[derive(Debug)]
pub enum Ending {
    Complete,
    Failed(RunError),
    Interrupted,
}

impl Ending {
    /// A failure at `stage` with no instance to blame.
    pub fn failed(stage: Stage, cause: impl Into<Cause>) -> Self {
        Ending::Failed(RunError::new(stage, cause))
    }

    /// A failure at `stage` of the instance named `instance`.
    pub fn failed_on(stage: Stage, instance: &str, cause: impl Into<Cause>) -> Self {
        Ending::Failed(RunError::new(stage, cause).on(instance))
    }

    pub fn is_complete(&self) -> bool {
        matches!(self, Ending::Complete)
    }
}

/// Where in the protocol a run stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// Opening, starting or attaching the instances; connecting to them.
    Setup,
    /// Loading (or verifying) the benchmark's data.
    Load,
    /// The phases, clients connected and running.
    Phases,
    /// The load curve after the phases.
    Curve,
    /// TPC-C's consistency checks after the phases.
    Checks,
    /// An I/O sweep, named as the run reports it (`sweep[0]`, `sweep on /dev/nvme1n1`).
    Sweep(String),
    /// Writing the block I/O capture after the phases.
    Capture,
    /// Writing the results.
    Results,
    /// A capture's requests replayed on a target (`drivebench replay`).
    Replay,
}

/// The underlying error, with its own type (an engine's, the fleet's, the loader's, an I/O
/// error) behind it; a few causes are only a sentence ([`Reason`]).
pub type Cause = Box<dyn Error + Send + Sync>;

/// A cause that is only a sentence.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Reason(pub String);

/// A failure on a target that is full: the likely reason, said beside the engine's error.
#[derive(Debug, thiserror::Error)]
#[error(
    "{cause}\nthe target {} is full: {} free of {} (a database that cannot write fails or \
     stops); free space there or use a larger target", .path.display(),
    crate::config::units::format_bytes(*.free), crate::config::units::format_bytes(*.total)
)]
pub struct TargetFull {
    pub path: std::path::PathBuf,
    pub free: u64,
    pub total: u64,
    #[source]
    pub cause: Cause,
}

impl Ending {
    /// A failure on a target found full afterwards says so, with its free space.
    pub fn noting_full_target(self, target: &std::path::Path) -> Self {
        match self {
            Ending::Failed(e) => match crate::target::space::full(target) {
                Some(u) => Ending::Failed(RunError {
                    stage: e.stage,
                    instance: e.instance,
                    cause: Box::new(TargetFull {
                        path: target.to_path_buf(),
                        free: u.free,
                        total: u.total,
                        cause: e.cause,
                    }),
                }),
                None => Ending::Failed(e),
            },
            other => other,
        }
    }
}

/// Why a run stopped before its end.
#[derive(Debug)]
pub struct RunError {
    pub stage: Stage,
    pub instance: Option<String>,
    pub cause: Cause,
}

impl RunError {
    pub fn new(stage: Stage, cause: impl Into<Cause>) -> Self {
        RunError {
            stage,
            instance: None,
            cause: cause.into(),
        }
    }

    /// Blame the instance named `instance`.
    pub fn on(mut self, instance: &str) -> Self {
        self.instance = Some(instance.to_string());
        self
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = &self.instance {
            write!(f, "instance {i}: ")?;
        }
        match &self.stage {
            Stage::Load => write!(f, "load: {}", self.cause),
            Stage::Sweep(name) => write!(f, "{name}: {}", self.cause),
            Stage::Capture => write!(f, "capture: {}", self.cause),
            _ => write!(f, "{}", self.cause),
        }
    }
}

impl Error for RunError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.cause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_error_names_its_instance_and_stage_as_the_run_always_did() {
        let cases = [
            (
                RunError::new(Stage::Load, Reason("prepare = \"never\"".into())),
                "load: prepare = \"never\"",
            ),
            (
                RunError::new(Stage::Setup, Reason("cannot start".into())).on("mariadb-1"),
                "instance mariadb-1: cannot start",
            ),
            (
                RunError::new(Stage::Sweep("sweep[1]".into()), Reason("no space".into())),
                "sweep[1]: no space",
            ),
            (
                RunError::new(Stage::Phases, Reason("all clients stopped".into())),
                "all clients stopped",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
            assert!(e.source().is_some(), "the cause stays reachable");
        }
    }
}
