//! Data directories between runs, shared by every engine.

use std::io::ErrorKind;
use std::path::Path;

use super::ProvisionError;

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
