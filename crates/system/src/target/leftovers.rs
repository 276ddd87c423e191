//! What drivebench leaves on a target, and how it knows its own. Every directory it creates
//! there (an instance's, a pre-built database's) holds a marker file, `.drivebench`, written
//! when the directory is created; every file it creates (a sweep's) gets one beside it,
//! `.NAME.drivebench`, which names the file's inode, so a file put in its place later is not
//! taken for ours. `drivebench clean` lists and removes what carries a marker and nothing
//! else; [`busy`] says which processes still have files open in there.

use std::fmt::Write as _;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The marker inside a directory drivebench created.
pub const DIR_MARKER: &str = ".drivebench";

/// What a marked directory or file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A database instance's directory (`<target>/<engine>-<n>`), with any pre-built copy in it.
    Instance,
    /// A pre-built database under `prebuilt_dir` (`<key>/`, or `<key>.building` unfinished).
    Prebuilt,
    /// A sweep's file.
    SweepFile,
}

impl Kind {
    /// As markers and `clean` name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Instance => "instance",
            Kind::Prebuilt => "prebuilt",
            Kind::SweepFile => "sweep file",
        }
    }

    fn parse(text: &str) -> Option<Kind> {
        [Kind::Instance, Kind::Prebuilt, Kind::SweepFile]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

fn marker_text(kind: Kind, what: &str, extra: &str) -> String {
    let mut s = format!(
        "drivebench {} created {what} at {}; `drivebench clean` removes it\nkind = {}\n",
        env!("CARGO_PKG_VERSION"),
        drivebench_core::config::units::utc_now(),
        kind.as_str()
    );
    s.push_str(extra);
    s
}

/// Create `dir` (and its parents) if absent; when this creates it, mark it as drivebench's
/// `kind`. A directory that existed is left unmarked unless it already was: drivebench never
/// claims what it did not create.
pub fn create_marked_dir(dir: &Path, kind: Kind) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join(DIR_MARKER),
        marker_text(kind, "this directory", ""),
    )
}

/// The marker of a file drivebench created: `.NAME.drivebench` beside it.
pub fn file_marker(file: &Path) -> PathBuf {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    file.with_file_name(format!(".{name}.drivebench"))
}

/// Mark `file`, which drivebench has just created, as its `kind`.
pub fn mark_file(file: &Path, kind: Kind) -> io::Result<()> {
    let inode = std::fs::metadata(file)?.ino();
    let mut extra = String::new();
    let _ = writeln!(extra, "inode = {inode}");
    std::fs::write(
        file_marker(file),
        marker_text(kind, "the file beside this marker", &extra),
    )
}

/// Remove a file drivebench created, and its marker.
pub fn remove_marked_file(file: &Path) -> io::Result<()> {
    std::fs::remove_file(file)?;
    match std::fs::remove_file(file_marker(file)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `key = value` of a marker's text.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('='))
        .map(str::trim)
}

/// Something of drivebench's on a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Leftover {
    pub path: PathBuf,
    pub kind: Kind,
    /// Bytes it takes on disk (allocated blocks, as `du` counts them).
    pub bytes: u64,
}

/// What is at a path, as far as markers tell.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Ours(Leftover),
    /// A file marker whose file is gone or is another file now.
    StaleMarker(PathBuf),
    /// No marker.
    NotOurs,
}

/// Whether `path` is drivebench's: a directory holding a marker, a file with one beside it
/// naming its inode, or a file marker whose file is gone.
pub fn examine(path: &Path) -> Found {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Found::NotOurs;
    };
    let ours = |kind| {
        Found::Ours(Leftover {
            path: path.to_path_buf(),
            kind,
            bytes: disk_usage(path),
        })
    };
    if meta.is_dir() {
        let text = std::fs::read_to_string(path.join(DIR_MARKER)).unwrap_or_default();
        return field(&text, "kind")
            .and_then(Kind::parse)
            .map_or(Found::NotOurs, ours);
    }
    if !meta.is_file() {
        return Found::NotOurs;
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if let Some(of) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_suffix(".drivebench"))
    {
        let file = path.with_file_name(of);
        return match examine(&file) {
            Found::Ours(_) => Found::NotOurs,
            _ => Found::StaleMarker(path.to_path_buf()),
        };
    }
    let text = std::fs::read_to_string(file_marker(path)).unwrap_or_default();
    let same_inode = field(&text, "inode").and_then(|i| i.parse().ok()) == Some(meta.ino());
    match field(&text, "kind").and_then(Kind::parse) {
        Some(kind) if same_inode => ours(kind),
        _ => Found::NotOurs,
    }
}

/// Bytes allocated under `path` (not following symbolic links).
pub fn disk_usage(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let own = meta.blocks() * 512;
    if !meta.is_dir() {
        return own;
    }
    let children = std::fs::read_dir(path).into_iter().flatten().flatten();
    own + children.map(|e| disk_usage(&e.path())).sum::<u64>()
}

/// Remove a leftover: a directory with everything in it, or a file and its marker.
pub fn remove(l: &Leftover) -> io::Result<()> {
    match l.kind {
        Kind::SweepFile => remove_marked_file(&l.path),
        Kind::Instance | Kind::Prebuilt => std::fs::remove_dir_all(&l.path),
    }
}

/// A process with a file open under a path, or its working directory there.
#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub pid: u32,
    /// Its command name, e.g. "mariadbd".
    pub command: String,
}

/// The processes (other than this one) that have a file open under `path`, or their working
/// directory there, as far as /proc lets this user see.
pub fn busy(path: &Path) -> Vec<User> {
    let Ok(root) = path.canonicalize() else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let proc = entry.path();
        let under = |link: PathBuf| std::fs::read_link(link).is_ok_and(|p| p.starts_with(&root));
        let fds = std::fs::read_dir(proc.join("fd"))
            .into_iter()
            .flatten()
            .flatten();
        let using = under(proc.join("cwd")) || fds.into_iter().any(|fd| under(fd.path()));
        if pid != me && using {
            let command = std::fs::read_to_string(proc.join("comm")).unwrap_or_default();
            out.push(User {
                pid,
                command: command.trim().to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_drivebench_created_and_marked_is_ours() {
        let tmp = tempfile::tempdir().unwrap();
        let inst = tmp.path().join("sqlite-1");
        create_marked_dir(&inst, Kind::Instance).unwrap();
        std::fs::write(inst.join("drivebench.db"), vec![1u8; 10_000]).unwrap();
        let Found::Ours(l) = examine(&inst) else {
            panic!("the instance directory is ours")
        };
        assert_eq!(l.kind, Kind::Instance);
        assert!(l.bytes >= 10_000, "{}", l.bytes);

        // A directory that existed is not claimed.
        let theirs = tmp.path().join("mariadb-1");
        std::fs::create_dir(&theirs).unwrap();
        create_marked_dir(&theirs, Kind::Instance).unwrap();
        assert_eq!(examine(&theirs), Found::NotOurs);

        // A marked file is ours; one put in its place later is not, and its marker is stale.
        let file = tmp.path().join("drivebench-sweep.dat");
        std::fs::write(&file, b"x").unwrap();
        mark_file(&file, Kind::SweepFile).unwrap();
        assert!(matches!(examine(&file), Found::Ours(_)));
        assert_eq!(
            examine(&file_marker(&file)),
            Found::NotOurs,
            "the marker of a live file"
        );
        // Written while the first exists, so it cannot reuse its inode.
        std::fs::write(tmp.path().join("other"), b"y").unwrap();
        std::fs::rename(tmp.path().join("other"), &file).unwrap();
        assert_eq!(examine(&file), Found::NotOurs);
        let marker = file_marker(&file);
        assert_eq!(examine(&marker), Found::StaleMarker(marker.clone()));
    }
}
