//! What each captured request was: the class of the file it wrote or read, from the file map
//! the instances' directories gave at the end of the capture.
//!
//! A file's class comes from its name and path ([`file_class`]): the engines' logs (InnoDB
//! redo, PostgreSQL WAL, SQL Server `.ldf`, SQLite `-wal`/`-journal`, MariaDB binary and Aria
//! logs) are [`FileClass::Log`]; temporary tables and spill files are [`FileClass::Temp`];
//! every other file is [`FileClass::Data`]. A request with an address takes the class with the
//! most bytes in common with it; one that matches no file is [`FileClass::Filesystem`] when the
//! filesystem's journal thread issued it (`jbd2/...`) or it carries the metadata flag, else
//! [`FileClass::Unknown`].
//!
//! A flush has no address: it takes the class of the latest write issued before it on the same
//! device, the write it most likely makes durable. Only a flush issued by a task of its own
//! (not a `kworker/`) takes that task's latest write first: the block layer's flush sequence
//! issues the flushes of fsync, fdatasync and FUA emulation from a kblockd worker
//! (`kworker/N:NH`), which also issues the data parts of such sequences (a journal commit
//! block, say), so the flushing worker's own last write says little.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::fiemap::FileMap;
use super::model::{FileClass, Flags, Op, Request};

/// A file the capture mapped, as the manifest lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MappedFile {
    /// The instance directory it was found under.
    pub instance: String,
    /// Its path relative to that directory.
    pub path: String,
    pub class: FileClass,
    /// Extents on a traced disk.
    pub extents: u32,
    /// Bytes those extents cover.
    pub bytes: u64,
}

/// The files the capture mapped, and what it could not map.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MappedFiles {
    pub files: Vec<MappedFile>,
    /// Entries that could not be opened or mapped (permissions, no FIEMAP on the filesystem).
    pub skipped: u64,
    /// Files on a device that was not traced (or not linearly mapped onto a traced one).
    pub off_device: u64,
}

/// The class of a file from its path relative to its instance directory.
pub fn file_class(path: &Path) -> FileClass {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    let in_dir = |dir: &str| {
        path.parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == dir))
    };
    let is_log = name.starts_with("ib_logfile")
        || in_dir("#innodb_redo")
        || in_dir("pg_wal")
        || in_dir("pg_xlog")
        || lower.ends_with(".ldf")
        || name.ends_with("-wal")
        || name.ends_with("-journal")
        || name.starts_with("aria_log.")
        || is_binlog(&name);
    if is_log {
        return FileClass::Log;
    }
    let is_temp = name.starts_with("#sql")
        || name.starts_with("ibtmp")
        || name.starts_with("pgsql_tmp")
        || in_dir("pgsql_tmp")
        || in_dir("#innodb_temp")
        || lower.starts_with("tempdb");
    if is_temp {
        FileClass::Temp
    } else {
        FileClass::Data
    }
}

/// A MariaDB/MySQL binary or relay log: `<base>-bin.000001`, `<base>-relay-bin.000001`.
fn is_binlog(name: &str) -> bool {
    name.split_once("-bin.").is_some_and(|(_, n)| {
        n.len() >= 2 && n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Tag `requests` (in issue order) with their file classes; `tasks` is the capture's task
/// table. Returns the files as the manifest lists them.
pub fn classify(requests: &mut [Request], map: &FileMap, tasks: &[String]) -> MappedFiles {
    let classes: Vec<FileClass> = map.files.iter().map(|f| file_class(&f.path)).collect();
    let mut last_by_task: Vec<Option<FileClass>> = vec![None; tasks.len().max(1)];
    let mut last_by_device: Vec<Option<FileClass>> = Vec::new();
    for r in requests.iter_mut() {
        let device = usize::from(r.device);
        if last_by_device.len() <= device {
            last_by_device.resize(device + 1, None);
        }
        let task = usize::from(r.task);
        if r.op == Op::Flush {
            let worker = tasks.get(task).is_some_and(|t| t.starts_with("kworker/"));
            let by_task = last_by_task
                .get(task)
                .copied()
                .flatten()
                .filter(|_| !worker);
            r.class = by_task
                .or(last_by_device[device])
                .unwrap_or(FileClass::Unknown);
            continue;
        }
        r.class = addressed_class(r, map, &classes, tasks);
        if r.op == Op::Write {
            if let Some(slot) = last_by_task.get_mut(task) {
                *slot = Some(r.class);
            }
            last_by_device[device] = Some(r.class);
        }
    }
    MappedFiles {
        files: map
            .files
            .iter()
            .zip(&classes)
            .map(|(f, &class)| MappedFile {
                instance: f.instance.display().to_string(),
                path: f.path.display().to_string(),
                class,
                extents: f.extents,
                bytes: f.bytes,
            })
            .collect(),
        skipped: map.skipped,
        off_device: map.off_device,
    }
}

/// The class of a request with an address: the file class it has most bytes in common with,
/// or the filesystem's, or unknown.
fn addressed_class(
    r: &Request,
    map: &FileMap,
    classes: &[FileClass],
    tasks: &[String],
) -> FileClass {
    let mut common = [0u64; FileClass::ALL.len()];
    for (extent, bytes) in map.overlaps(r.device, r.offset_bytes(), u64::from(r.bytes)) {
        if let Some(&class) = classes.get(extent.file as usize) {
            common[class as usize] += bytes;
        }
    }
    let best = FileClass::ALL
        .into_iter()
        .filter(|&c| common[c as usize] > 0)
        .max_by_key(|&c| (common[c as usize], std::cmp::Reverse(c as u8)));
    if let Some(class) = best {
        return class;
    }
    let by_journal = tasks
        .get(usize::from(r.task))
        .is_some_and(|t| t.starts_with("jbd2/"));
    if by_journal || r.flags.has(Flags::META) {
        FileClass::Filesystem
    } else {
        FileClass::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::fiemap::{Extent, FileEntry};
    use std::path::PathBuf;

    #[test]
    fn file_classes_by_name_and_path() {
        let cases = [
            ("ib_logfile0", FileClass::Log),
            ("ib_logfile101", FileClass::Log),
            ("#innodb_redo/#ib_redo12", FileClass::Log),
            ("pg_wal/000000010000000000000001", FileClass::Log),
            ("pg_wal/archive_status/x.done", FileClass::Log),
            ("pg_xlog/000000010000000000000001", FileClass::Log),
            ("DATA/sales_log.LDF", FileClass::Log),
            ("templog.ldf", FileClass::Log),
            ("app.db-wal", FileClass::Log),
            ("app.db-journal", FileClass::Log),
            ("aria_log.00000001", FileClass::Log),
            ("mysql-bin.000001", FileClass::Log),
            ("host-relay-bin.000002", FileClass::Log),
            ("mysql-bin.index", FileClass::Data),
            ("aria_log_control", FileClass::Data),
            ("#sql-1a2b_3.ibd", FileClass::Temp),
            ("ibtmp1", FileClass::Temp),
            ("#innodb_temp/temp_1.ibt", FileClass::Temp),
            ("base/pgsql_tmp/pgsql_tmp1234.0", FileClass::Temp),
            ("tempdb.mdf", FileClass::Temp),
            ("TEMPDB_2.ndf", FileClass::Temp),
            ("sbtest/sbtest1.ibd", FileClass::Data),
            ("ibdata1", FileClass::Data),
            ("base/16384/16385", FileClass::Data),
            ("app.db", FileClass::Data),
            ("wal", FileClass::Data),
        ];
        for (path, want) in cases {
            assert_eq!(file_class(Path::new(path)), want, "{path}");
        }
    }

    fn req(op: Op, sector: u64, bytes: u32, task: u16, flags: u8) -> Request {
        Request {
            task,
            flags: Flags(flags),
            class: FileClass::Unknown,
            ..Request::data(op, sector, bytes)
        }
    }

    fn map() -> FileMap {
        let entry = |path: &str| FileEntry {
            instance: PathBuf::from("/i"),
            path: PathBuf::from(path),
            extents: 1,
            bytes: 1 << 20,
        };
        let files = vec![entry("ib_logfile0"), entry("t1.ibd"), entry("ibtmp1")];
        // Files at 1 MiB, 2 MiB and 3 MiB, 1 MiB each.
        let extents = (0..3u32)
            .map(|file| Extent {
                device: 0,
                start: u64::from(file + 1) << 20,
                length: 1 << 20,
                file,
            })
            .collect();
        FileMap::from_parts(files, extents)
    }

    #[test]
    fn requests_take_the_class_of_their_bytes_and_flushes_that_of_the_last_write() {
        let mib = 2048u64; // sectors
        let tasks: Vec<String> = ["mariadbd", "jbd2/loop0-8", "kworker/0:1H"]
            .map(String::from)
            .to_vec();
        let mut rs = vec![
            req(Op::Write, mib, 4096, 0, 0),          // log
            req(Op::Flush, 0, 0, 0, Flags::PREFLUSH), // after a log write by task 0
            req(Op::Write, 2 * mib + 8, 16384, 0, 0), // data
            req(Op::Write, 2 * mib - 8, 16384, 0, 0), // 4 KiB log, 12 KiB data: data
            req(Op::Write, mib + 8, 4096, 2, 0),      // log, by the worker
            req(Op::Write, 2 * mib + 64, 4096, 0, 0), // data
            req(Op::Flush, 0, 0, 2, Flags::PREFLUSH), // kworker: the device's last write
            req(Op::Read, 3 * mib, 4096, 0, 0),       // temp
            req(Op::Write, 16, 4096, 1, 0),           // jbd2: filesystem
            req(Op::Write, 64, 4096, 0, Flags::META), // metadata
            req(Op::Write, 128, 4096, 0, 0),          // nothing known
            req(Op::Flush, 0, 0, 1, 0),               // jbd2's last write
        ];
        let files = classify(&mut rs, &map(), &tasks);
        let got: Vec<FileClass> = rs.iter().map(|r| r.class).collect();
        use FileClass::*;
        assert_eq!(
            got,
            [
                Log, Log, Data, Data, Log, Data, Data, Temp, Filesystem, Filesystem, Unknown,
                Filesystem
            ]
        );
        let listed: Vec<(&str, FileClass)> = files
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.class))
            .collect();
        assert_eq!(
            listed,
            [("ib_logfile0", Log), ("t1.ibd", Data), ("ibtmp1", Temp)]
        );
    }

    #[test]
    fn a_flush_with_no_write_before_it_is_unknown() {
        let mut rs = vec![req(Op::Flush, 0, 0, 0, Flags::PREFLUSH)];
        classify(&mut rs, &FileMap::default(), &["x".to_owned()]);
        assert_eq!(rs[0].class, FileClass::Unknown);
    }
}
