//! Data directories between runs, shared by every engine: telling an absent or empty one from
//! one holding something else, and creating a new one with the engine's initialiser.

use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::ProvisionError;
use super::error::Incomplete;
use super::process::{run_to_completion, spawn_in_group};

/// Where a new data directory is made before it is renamed to `data`, so that `data` only ever
/// exists fully initialised, and where the initialiser's output goes.
pub struct NewData<'a> {
    pub data: &'a Path,
    pub data_init: &'a Path,
    pub output: &'a Path,
}

impl NewData<'_> {
    /// Run the engine's initialiser `command`, which fills `data_init`, in its own process
    /// group (it may run a bootstrap server of its own: a timeout ends the whole group) for at
    /// most `timeout`, its output in `output` (written afresh); then `finish` the new
    /// directory and rename it to `data`. On failure the half-made directory is removed and
    /// `failed` says why.
    pub fn initialise(
        &self,
        command: &mut Command,
        timeout: Duration,
        failed: impl FnOnce(Incomplete) -> ProvisionError,
        finish: impl FnOnce(&Path) -> Result<(), ProvisionError>,
    ) -> Result<(), ProvisionError> {
        remove_dir_if_present(self.data_init)?;
        let output =
            File::create(self.output).map_err(ProvisionError::io("create", self.output))?;
        let program = Path::new(command.get_program()).to_path_buf();
        let started = Instant::now();
        tracing::info!(data = %self.data.display(), "initialising data directory");
        let mut child = spawn_in_group(command, &program, output, self.output)?;
        if let Err(outcome) = run_to_completion(&mut child, timeout) {
            if let Err(err) = remove_dir_if_present(self.data_init) {
                tracing::warn!("{err}");
            }
            return Err(failed(outcome));
        }
        finish(self.data_init)?;
        std::fs::rename(self.data_init, self.data).map_err(ProvisionError::io(
            "rename the new data directory to",
            self.data,
        ))?;
        tracing::info!(data = %self.data.display(), elapsed = ?started.elapsed(), "data directory initialised");
        Ok(())
    }
}

/// For a data directory without its engine's mark of an initialised one: `false` when `data`
/// is absent or empty (an empty one is removed, to be initialised afresh); refused with
/// `reason` when it holds other files, rather than overwritten.
pub fn absent_or_empty(data: &Path, reason: &str) -> Result<bool, ProvisionError> {
    match std::fs::read_dir(data) {
        Err(err) if err.kind() == ErrorKind::NotFound => Ok(false),
        Err(err) => Err(ProvisionError::io("read directory", data)(err)),
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(ProvisionError::UnusablePath {
                    path: data.to_path_buf(),
                    reason: reason.to_string(),
                });
            }
            std::fs::remove_dir(data)
                .map_err(ProvisionError::io("remove empty directory", data))?;
            Ok(false)
        }
    }
}

/// Remove `path` and everything in it; an absent `path` is not an error.
pub fn remove_dir_if_present(path: &Path) -> Result<(), ProvisionError> {
    match std::fs::remove_dir_all(path) {
        Err(err) if err.kind() != ErrorKind::NotFound => {
            Err(ProvisionError::io("remove directory", path)(err))
        }
        _ => Ok(()),
    }
}
