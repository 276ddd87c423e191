//! Pre-built databases (`prebuilt_dir`), as the reviews keep one and copy it to the drive under
//! test before each run: the first run loads once into `<prebuilt_dir>/<key>/`, shuts the server
//! down cleanly and keeps that data directory; every run then copies it into each instance's
//! directory on the target instead of loading — identical bytes every run, copy rate reported.

use std::path::Path;
use std::time::Instant;

use crate::results::run::CopyReport;
use crate::scenario::plan::DbPlan;

/// The pre-built copy a plan uses: same engine, benchmark data (tables, rows, index or
/// warehouses) and seed.
pub fn key(plan: DbPlan<'_>) -> String {
    let data = plan.db.workload.benchmark.data_key();
    format!(
        "{}-{data}-seed{}",
        plan.db.instances[0].engine.as_str(),
        plan.seed()
    )
}

/// A file or directory of a pre-built copy that could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct CopyError {
    /// The path, or "source -> destination" for a file copy.
    pub what: String,
    #[source]
    pub source: std::io::Error,
}

fn at(path: &Path) -> impl FnOnce(std::io::Error) -> CopyError + '_ {
    move |source| CopyError {
        what: path.display().to_string(),
        source,
    }
}

/// Copy `<prebuilt>/data` into `<instance_dir>/data` unless the instance already has data.
pub fn copy_into(prebuilt: &Path, instance_dir: &Path) -> Result<Option<CopyReport>, CopyError> {
    let target = instance_dir.join("data");
    if target.exists() {
        return Ok(None);
    }
    let started = Instant::now();
    let partial = instance_dir.join("data.copying");
    let _ = std::fs::remove_dir_all(&partial);
    let bytes = copy_tree(&prebuilt.join("data"), &partial)?;
    std::fs::rename(&partial, &target).map_err(at(&target))?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(Some(CopyReport {
        source: prebuilt.display().to_string(),
        bytes,
        seconds,
        bytes_per_s: bytes as f64 / seconds.max(1e-9),
    }))
}

fn copy_tree(from: &Path, to: &Path) -> Result<u64, CopyError> {
    std::fs::create_dir_all(to).map_err(at(to))?;
    let mut bytes = 0;
    for entry in std::fs::read_dir(from).map_err(at(from))? {
        let entry = entry.map_err(at(from))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(at(&src))?;
        if kind.is_dir() {
            bytes += copy_tree(&src, &dst)?;
        } else if kind.is_file() {
            bytes += std::fs::copy(&src, &dst).map_err(|source| CopyError {
                what: format!("{} -> {}", src.display(), dst.display()),
                source,
            })?;
        }
    }
    // Same mode as the source: PostgreSQL refuses a data directory others can read.
    let mode = std::fs::metadata(from).map_err(at(from))?.permissions();
    std::fs::set_permissions(to, mode).map_err(at(to))?;
    // Durable before the server starts on it.
    if let Ok(d) = std::fs::File::open(to) {
        let _ = d.sync_all();
    }
    Ok(bytes)
}
