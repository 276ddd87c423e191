//! Finding server binaries, shared by every engine.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Whether `path` is a file someone may execute.
pub fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The directories on `PATH`, in order.
pub fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default()
}

/// `dirs` as a `PATH`-style list, for messages.
pub fn join_dirs(dirs: &[PathBuf]) -> String {
    let shown: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    shown.join(":")
}
