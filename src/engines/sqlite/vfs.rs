//! SQLite keeps no I/O counters, so drivebench counts them in a VFS of its own: `drivebench`,
//! a thin layer over the default (unix) VFS that every connection drivebench opens goes
//! through. It times each read, write and sync of the database file (data) and of its `-wal`
//! or `-journal` (log), adds them to atomics kept per database path ([`DbIo`]), and passes
//! everything else straight to the default VFS's file. The SQL function `drivebench_io(name)`
//! (registered by the connector on each connection) answers the counters by drivebench's
//! names, so `schemas/engine_io/sqlite.sql` reads them like the server engines' views.
//!
//! What is counted: `xRead`, `xWrite` and `xSync` calls, their bytes and their time (from
//! before the call to after it: the OS page cache's time on a hit, the drive's on a miss).
//! Pages read through mmap (`mmap_size` > 0) bypass `xRead` and are not counted; the shared
//! memory index (`-shm`) and temporary files are not counted. Writes to the database file
//! while its WAL is open are checkpoints: background writes.
//!
//! # Safety
//!
//! The unsafe code is the VFS's C callbacks and their registration, and rests on these
//! invariants, each stated where it is used:
//! - SQLite allocates `szOsFile` bytes for every file it opens through this VFS and passes
//!   that pointer to every method; we set `szOsFile` to [`PARENT_OFFSET`] plus the default
//!   VFS's size, and keep our [`ShimFile`] header first, the default VFS's file after it.
//! - Our `pMethods` is set only when the default VFS set its own, so SQLite calls our methods
//!   (and `xClose`) only on a file the default VFS opened; each method forwards to the default
//!   VFS's method of the same version, which is present because we advertise its version.
//! - The VFS object and the method tables are `'static` (leaked once, or `static`), as SQLite
//!   keeps pointers to them for the process's life.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use rusqlite::ffi;

/// The VFS name connections are opened with.
pub const NAME: &str = "drivebench";

/// The counters of one kind of file (the database, or its log).
#[derive(Debug, Default)]
pub struct FileIo {
    pub reads: AtomicU64,
    pub read_bytes: AtomicU64,
    pub read_ns: AtomicU64,
    pub writes: AtomicU64,
    pub write_bytes: AtomicU64,
    pub write_ns: AtomicU64,
    pub syncs: AtomicU64,
    pub sync_ns: AtomicU64,
}

/// The counters of one database: its file, its log (`-wal` or `-journal`), and the bytes
/// checkpoints wrote to the database file.
#[derive(Debug, Default)]
pub struct DbIo {
    pub data: FileIo,
    pub log: FileIo,
    pub background_write_bytes: AtomicU64,
    /// WAL files open on this database: while one is, writes to the database file are
    /// checkpoints.
    wal_open: AtomicU64,
}

impl DbIo {
    /// A counter by drivebench's name (`EngineIoCounters::NAMES`); None for one this layer
    /// does not count. Times in microseconds.
    pub fn value(&self, name: &str) -> Option<u64> {
        let (d, l) = (&self.data, &self.log);
        let c = match name {
            "log_writes" => &l.writes,
            "log_bytes" => &l.write_bytes,
            "log_flushes" => &l.syncs,
            "log_flush_us" => return Some(l.sync_ns.load(Relaxed) / 1000),
            "data_reads" => &d.reads,
            "data_read_bytes" => &d.read_bytes,
            "data_read_us" => return Some(d.read_ns.load(Relaxed) / 1000),
            "data_writes" => &d.writes,
            "data_write_bytes" => &d.write_bytes,
            "data_write_us" => return Some(d.write_ns.load(Relaxed) / 1000),
            "data_flushes" => &d.syncs,
            "background_write_bytes" => &self.background_write_bytes,
            _ => return None,
        };
        Some(c.load(Relaxed))
    }
}

/// The counters of the database at `path` (as SQLite names it: `Connection::path`), created
/// on first use and kept for the process's life (a run opens a handful of databases).
pub fn counters(path: &str) -> &'static DbIo {
    static ALL: OnceLock<Mutex<HashMap<String, &'static DbIo>>> = OnceLock::new();
    let mut all = ALL
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    all.entry(path.to_string())
        .or_insert_with(|| Box::leak(Box::default()))
}

/// The VFS could not be registered (SQLite's result code).
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("cannot register drivebench's SQLite VFS (SQLite result code {0})")]
pub struct RegisterError(pub c_int);

/// Register the `drivebench` VFS once per process (later calls give the first outcome).
pub fn register() -> Result<&'static str, RegisterError> {
    static DONE: OnceLock<Result<(), RegisterError>> = OnceLock::new();
    (*DONE.get_or_init(register_once)).map(|()| NAME)
}

/// Bytes of our header before the default VFS's file, rounded up to 8 so its file is aligned.
const PARENT_OFFSET: usize = std::mem::size_of::<ShimFile>().next_multiple_of(8);

/// What kind of file, and whose counters.
#[derive(Clone, Copy)]
enum Kind {
    Data,
    Log { wal: bool },
    Uncounted,
}

/// Our file header; SQLite's `sqlite3_file` (its `pMethods`) must come first.
#[repr(C)]
struct ShimFile {
    base: ffi::sqlite3_file,
    io: Option<&'static DbIo>,
    kind: Kind,
}

fn register_once() -> Result<(), RegisterError> {
    // SAFETY: sqlite3_vfs_find initialises SQLite and returns the default VFS or null; the
    // default VFS is static in SQLite and never unregistered by drivebench.
    let parent = unsafe { ffi::sqlite3_vfs_find(std::ptr::null()) };
    if parent.is_null() {
        return Err(RegisterError(ffi::SQLITE_ERROR));
    }
    // SAFETY: parent is a valid VFS (above). The default (unix) VFS's methods other than xOpen
    // read nothing of the VFS they are given but `mxPathname` and `pAppData`, which the copy
    // keeps; xOpen is ours and calls the parent's with the parent itself.
    let mut vfs = unsafe { std::ptr::read(parent) };
    let parent_size = usize::try_from(vfs.szOsFile).unwrap_or(0);
    vfs.szOsFile = c_int::try_from(PARENT_OFFSET + parent_size).unwrap_or(c_int::MAX);
    vfs.pNext = std::ptr::null_mut();
    vfs.zName = CString::new(NAME).expect("no NUL").into_raw();
    vfs.pAppData = parent.cast();
    vfs.xOpen = Some(x_open);
    let vfs = Box::leak(Box::new(vfs));
    // SAFETY: vfs is 'static (leaked) and fully initialised; 0: not the default VFS.
    let rc = unsafe { ffi::sqlite3_vfs_register(vfs, 0) };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(RegisterError(rc))
    }
}

/// The file's kind and counters from the flags SQLite opens it with and its name.
fn classify(name: Option<&str>, flags: c_int) -> (Option<&'static DbIo>, Kind) {
    let Some(name) = name else {
        return (None, Kind::Uncounted);
    };
    let (db, kind) = if flags & ffi::SQLITE_OPEN_MAIN_DB != 0 {
        (name, Kind::Data)
    } else if flags & ffi::SQLITE_OPEN_WAL != 0 {
        (
            name.strip_suffix("-wal").unwrap_or(name),
            Kind::Log { wal: true },
        )
    } else if flags & ffi::SQLITE_OPEN_MAIN_JOURNAL != 0 {
        let db = name.strip_suffix("-journal").unwrap_or(name);
        (db, Kind::Log { wal: false })
    } else {
        return (None, Kind::Uncounted);
    };
    (Some(counters(db)), kind)
}

unsafe extern "C" fn x_open(
    vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: vfs is ours (pAppData: the default VFS, set at registration); file points to
    // szOsFile bytes (PARENT_OFFSET + the default VFS's), so the parent's file fits after our
    // header; name is null or a NUL-terminated string SQLite keeps while the file is open.
    unsafe {
        let parent_vfs = (*vfs).pAppData.cast::<ffi::sqlite3_vfs>();
        let shim = file.cast::<ShimFile>();
        let inner = parent(file);
        let name_str = (!name.is_null())
            .then(|| CStr::from_ptr(name).to_str().ok())
            .flatten();
        let (io, kind) = classify(name_str, flags);
        shim.write(ShimFile {
            base: ffi::sqlite3_file {
                pMethods: std::ptr::null(),
            },
            io,
            kind,
        });
        let open = (*parent_vfs).xOpen.expect("every VFS has xOpen");
        let rc = open(parent_vfs, name, inner, flags, out_flags);
        if !(*inner).pMethods.is_null() {
            (*shim).base.pMethods = methods_for((*(*inner).pMethods).iVersion);
            if let (Some(io), Kind::Log { wal: true }) = (io, kind) {
                io.wal_open.fetch_add(1, Relaxed);
            }
        }
        rc
    }
}

/// The default VFS's file inside ours.
///
/// # Safety
/// `file` was allocated with our `szOsFile` (see the module's invariants).
unsafe fn parent(file: *mut ffi::sqlite3_file) -> *mut ffi::sqlite3_file {
    // SAFETY: the allocation is PARENT_OFFSET + the parent's size bytes long.
    unsafe { file.cast::<u8>().add(PARENT_OFFSET).cast() }
}

/// The default VFS's method table of the file inside ours.
///
/// # Safety
/// `file` is one of ours whose `pMethods` is set (SQLite calls methods only then).
unsafe fn parent_methods(file: *mut ffi::sqlite3_file) -> &'static ffi::sqlite3_io_methods {
    // SAFETY: our pMethods is set only when the parent's is (x_open), and the default VFS's
    // method tables are static.
    unsafe { &*(*parent(file)).pMethods }
}

/// The counters of one of our files, and its kind.
///
/// # Safety
/// `file` is one of ours, initialised by `x_open`.
unsafe fn shim(file: *mut ffi::sqlite3_file) -> (Option<&'static DbIo>, Kind) {
    // SAFETY: x_open wrote a ShimFile at the start of every file before opening it.
    unsafe {
        let s = &*file.cast::<ShimFile>();
        (s.io, s.kind)
    }
}

/// Which counters a call on `kind` adds to: a read of the log (WAL lookups, recovery) is not
/// a data read and is not counted.
fn file_io(io: Option<&'static DbIo>, kind: Kind) -> Option<&'static FileIo> {
    let io = io?;
    match kind {
        Kind::Data => Some(&io.data),
        Kind::Log { .. } => Some(&io.log),
        Kind::Uncounted => None,
    }
}

fn count(calls: &AtomicU64, bytes: Option<(&AtomicU64, c_int)>, ns: &AtomicU64, t: Instant) {
    calls.fetch_add(1, Relaxed);
    if let Some((b, n)) = bytes {
        b.fetch_add(u64::try_from(n).unwrap_or(0), Relaxed);
    }
    ns.fetch_add(
        u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX),
        Relaxed,
    );
}

unsafe extern "C" fn x_read(
    f: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    n: c_int,
    at: i64,
) -> c_int {
    let t = Instant::now();
    // SAFETY: SQLite calls this only on our open files (module invariants).
    let (rc, (io, kind)) = unsafe {
        let read = parent_methods(f).xRead.expect("version 1 method");
        (read(parent(f), buf, n, at), shim(f))
    };
    if let (Some(c), Kind::Data) = (file_io(io, kind), kind) {
        count(&c.reads, Some((&c.read_bytes, n)), &c.read_ns, t);
    }
    rc
}

unsafe extern "C" fn x_write(
    f: *mut ffi::sqlite3_file,
    buf: *const c_void,
    n: c_int,
    at: i64,
) -> c_int {
    let t = Instant::now();
    // SAFETY: as x_read.
    let (rc, (io, kind)) = unsafe {
        let write = parent_methods(f).xWrite.expect("version 1 method");
        (write(parent(f), buf, n, at), shim(f))
    };
    if let Some(c) = file_io(io, kind) {
        count(&c.writes, Some((&c.write_bytes, n)), &c.write_ns, t);
    }
    if let (Some(io), Kind::Data) = (io, kind)
        && io.wal_open.load(Relaxed) > 0
    {
        io.background_write_bytes
            .fetch_add(u64::try_from(n).unwrap_or(0), Relaxed);
    }
    rc
}

unsafe extern "C" fn x_sync(f: *mut ffi::sqlite3_file, flags: c_int) -> c_int {
    let t = Instant::now();
    // SAFETY: as x_read.
    let (rc, (io, kind)) = unsafe {
        let sync = parent_methods(f).xSync.expect("version 1 method");
        (sync(parent(f), flags), shim(f))
    };
    if let Some(c) = file_io(io, kind) {
        count(&c.syncs, None, &c.sync_ns, t);
    }
    rc
}

unsafe extern "C" fn x_close(f: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: as x_read; SQLite calls no method of this file after xClose.
    unsafe {
        if let (Some(io), Kind::Log { wal: true }) = shim(f) {
            io.wal_open.fetch_sub(1, Relaxed);
        }
        let close = parent_methods(f).xClose.expect("version 1 method");
        close(parent(f))
    }
}

/// Methods that only forward to the default VFS's file: `fn name(args) => field`.
macro_rules! forward {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $field:ident;)*) => {$(
        unsafe extern "C" fn $name(f: *mut ffi::sqlite3_file, $($arg: $ty),*) -> $ret {
            // SAFETY: as x_read; the parent has this method, as its version is the one we
            // advertise for this file (methods_for).
            unsafe {
                let m = parent_methods(f).$field.expect("method of the advertised version");
                m(parent(f), $($arg),*)
            }
        }
    )*};
}

forward! {
    x_truncate(size: i64) -> c_int => xTruncate;
    x_file_size(size: *mut i64) -> c_int => xFileSize;
    x_lock(level: c_int) -> c_int => xLock;
    x_unlock(level: c_int) -> c_int => xUnlock;
    x_check_reserved_lock(out: *mut c_int) -> c_int => xCheckReservedLock;
    x_file_control(op: c_int, arg: *mut c_void) -> c_int => xFileControl;
    x_sector_size() -> c_int => xSectorSize;
    x_device_characteristics() -> c_int => xDeviceCharacteristics;
    x_shm_map(page: c_int, size: c_int, extend: c_int, out: *mut *mut c_void) -> c_int => xShmMap;
    x_shm_lock(offset: c_int, n: c_int, flags: c_int) -> c_int => xShmLock;
    x_shm_barrier() -> () => xShmBarrier;
    x_shm_unmap(delete: c_int) -> c_int => xShmUnmap;
    x_fetch(at: i64, n: c_int, out: *mut *mut c_void) -> c_int => xFetch;
    x_unfetch(at: i64, p: *mut c_void) -> c_int => xUnfetch;
}

/// Our method table of `version` (1 to 3): the same version as the default VFS's file, so
/// SQLite asks for shared memory and mmap exactly when the default VFS offers them.
const fn methods(version: c_int) -> ffi::sqlite3_io_methods {
    ffi::sqlite3_io_methods {
        iVersion: version,
        xClose: Some(x_close),
        xRead: Some(x_read),
        xWrite: Some(x_write),
        xTruncate: Some(x_truncate),
        xSync: Some(x_sync),
        xFileSize: Some(x_file_size),
        xLock: Some(x_lock),
        xUnlock: Some(x_unlock),
        xCheckReservedLock: Some(x_check_reserved_lock),
        xFileControl: Some(x_file_control),
        xSectorSize: Some(x_sector_size),
        xDeviceCharacteristics: Some(x_device_characteristics),
        xShmMap: if version >= 2 { Some(x_shm_map) } else { None },
        xShmLock: if version >= 2 { Some(x_shm_lock) } else { None },
        xShmBarrier: if version >= 2 {
            Some(x_shm_barrier)
        } else {
            None
        },
        xShmUnmap: if version >= 2 {
            Some(x_shm_unmap)
        } else {
            None
        },
        xFetch: if version >= 3 { Some(x_fetch) } else { None },
        xUnfetch: if version >= 3 { Some(x_unfetch) } else { None },
    }
}

static METHODS: [ffi::sqlite3_io_methods; 3] = [methods(1), methods(2), methods(3)];

/// Our table for a parent file of method version `version` (a later version than 3 is
/// served as 3: its extra methods are never asked for).
fn methods_for(version: c_int) -> *const ffi::sqlite3_io_methods {
    let i = usize::try_from(version.clamp(1, 3) - 1).unwrap_or(0);
    &METHODS[i]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::{Connection, OpenFlags};

    fn open(path: &std::path::Path) -> Connection {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        Connection::open_with_flags_and_vfs(path, flags, register().unwrap()).unwrap()
    }

    #[test]
    fn files_are_told_apart_by_their_open_flags() {
        let (io, kind) = classify(Some("/x/a.db-wal"), ffi::SQLITE_OPEN_WAL);
        assert!(matches!(kind, Kind::Log { wal: true }));
        assert!(std::ptr::eq(io.unwrap(), counters("/x/a.db")));
        let (io, kind) = classify(Some("/x/a.db-journal"), ffi::SQLITE_OPEN_MAIN_JOURNAL);
        assert!(matches!(kind, Kind::Log { wal: false }));
        assert!(std::ptr::eq(io.unwrap(), counters("/x/a.db")));
        assert!(matches!(
            classify(Some("/x/a.db"), ffi::SQLITE_OPEN_MAIN_DB).1,
            Kind::Data
        ));
        assert!(classify(None, ffi::SQLITE_OPEN_TEMP_DB).0.is_none());
        assert!(
            classify(Some("/x/t"), ffi::SQLITE_OPEN_TEMP_JOURNAL)
                .0
                .is_none()
        );
    }

    #[test]
    fn commits_count_log_syncs_and_a_checkpoint_counts_data_writes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = open(&path);
        conn.execute_batch(
            "PRAGMA journal_mode = wal; PRAGMA synchronous = full; CREATE TABLE t (x)",
        )
        .unwrap();
        let io = counters(conn.path().unwrap());
        let before = io.value("log_flushes").unwrap();
        for i in 0..20 {
            conn.execute("INSERT INTO t VALUES (?1)", [i]).unwrap();
        }
        assert!(io.value("log_flushes").unwrap() >= before + 20);
        assert!(io.value("log_bytes").unwrap() >= 20 * 4096);
        let written = io.value("data_write_bytes").unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
        assert!(io.value("data_write_bytes").unwrap() > written);
        assert!(io.value("data_flushes").unwrap() >= 1);
        assert!(io.value("background_write_bytes").unwrap() > 0);
        assert_eq!(io.value("pending_io"), None);
    }

    #[test]
    fn a_cold_connection_reads_the_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.db");
        {
            let conn = open(&path);
            conn.execute_batch(
                "PRAGMA journal_mode = delete; CREATE TABLE t (x);
                 INSERT INTO t SELECT zeroblob(1000) FROM (WITH RECURSIVE n(i) AS
                 (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n);",
            )
            .unwrap();
        }
        let conn = open(&path);
        let io = counters(conn.path().unwrap());
        let (reads, bytes) = (
            io.value("data_reads").unwrap(),
            io.value("data_read_bytes").unwrap(),
        );
        let n: i64 = conn
            .query_row("SELECT count(*) FROM t WHERE length(x) = 1000", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, 200);
        assert!(
            io.value("data_reads").unwrap() >= reads + 40,
            "200 KB in 4 KiB pages"
        );
        assert!(io.value("data_read_bytes").unwrap() >= bytes + 40 * 4096);
        assert_eq!(
            io.value("background_write_bytes"),
            Some(0),
            "no WAL, no checkpoint"
        );
    }
}

/// What counting costs: the same work through the default VFS and through ours, in
/// alternating pairs (run by hand: `cargo test --release --lib vfs::cost -- --ignored
/// --nocapture`). Two loads: point reads through a 10-page cache, every read a file read (the
/// worst case: the most calls per unit of work), and single-row commits in WAL mode with
/// synchronous = full (a sync per commit).
#[cfg(test)]
mod cost {
    use rusqlite::{Connection, OpenFlags};
    use std::time::{Duration, Instant};

    const ROWS: i64 = 20_000;
    const PAIRS: usize = 5;

    fn open(path: &std::path::Path, counted: bool) -> Connection {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE;
        let conn = if counted {
            Connection::open_with_flags_and_vfs(path, flags, super::register().unwrap())
        } else {
            Connection::open_with_flags(path, flags)
        };
        let conn = conn.unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = wal; PRAGMA synchronous = full; PRAGMA cache_size = 10",
        )
        .unwrap();
        conn
    }

    /// Operations per CPU-second of this thread (the machine's other load moves wall time,
    /// much less a thread's own CPU time) over `secs` seconds of `work`.
    fn rate(secs: f64, mut work: impl FnMut(i64)) -> f64 {
        use rustix::time::{ClockId, clock_gettime};
        let cpu = || {
            let t = clock_gettime(ClockId::ThreadCPUTime);
            t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
        };
        let (start, cpu0, mut n) = (Instant::now(), cpu(), 0);
        while start.elapsed() < Duration::from_secs_f64(secs) {
            work(n);
            n += 1;
        }
        n as f64 / (cpu() - cpu0)
    }

    #[test]
    #[ignore = "a measurement, run by hand"]
    fn cost() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("cost.db");
        let c = open(&path, false);
        c.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, c TEXT)")
            .unwrap();
        let tx = c.unchecked_transaction().unwrap();
        for i in 1..=ROWS {
            tx.execute("INSERT INTO t VALUES (?1, printf('%.120c', 'x'))", [i])
                .unwrap();
        }
        tx.commit().unwrap();
        for (load, secs) in [("point reads", 3.0), ("commits", 3.0)] {
            let mut ratios = Vec::new();
            for pair in 0..PAIRS {
                let one = |counted: bool| {
                    let c = open(&path, counted);
                    let mut sel = c.prepare("SELECT c FROM t WHERE id = ?1").unwrap();
                    let mut upd = c.prepare("UPDATE t SET c = c WHERE id = ?1").unwrap();
                    rate(secs, |n| {
                        let id = (n * 7919) % ROWS + 1;
                        if load == "commits" {
                            upd.execute([id]).unwrap();
                        } else {
                            sel.query_row([id], |r| r.get::<_, String>(0)).unwrap();
                        }
                    })
                };
                let (with, without) = if pair % 2 == 0 {
                    let w = one(true);
                    (w, one(false))
                } else {
                    let wo = one(false);
                    (one(true), wo)
                };
                println!("{load}: counted {with:.0}/CPU-s, default VFS {without:.0}/CPU-s");
                ratios.push(with / without);
            }
            ratios.sort_by(f64::total_cmp);
            println!(
                "{load}: ratios {ratios:.4?}, median {:.4}",
                ratios[PAIRS / 2]
            );
        }
    }
}
