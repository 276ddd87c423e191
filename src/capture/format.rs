//! The capture on disk, and its reader's checks.
//!
//! A capture is a directory `capture/` (in a run directory) holding:
//!
//! - `trace.dbc`: the requests. A 64-byte header, then one 40-byte record per request, in
//!   issue order; every integer little-endian.
//!
//!   | header bytes | field | value |
//!   |---|---|---|
//!   | 0..8 | magic | `DBCAPTR1` (ASCII) |
//!   | 8..12 | version | u32, 1 |
//!   | 12..16 | record size | u32, 40 |
//!   | 16..24 | record count | u64 |
//!   | 24..64 | reserved | zero |
//!
//!   | record bytes | field | meaning |
//!   |---|---|---|
//!   | 0..8 | issue_ns | u64: ns since the capture started when the request reached the driver |
//!   | 8..16 | complete_ns | u64: ns since the start when it completed; `u64::MAX`: not seen |
//!   | 16..24 | sector | u64: first 512-byte sector on the whole device; 0 for a flush |
//!   | 24..28 | bytes | u32: length; 0 for a flush |
//!   | 28..30 | device | u16: index into `meta.devices` of capture.json |
//!   | 30..32 | task | u16: index into `meta.tasks` (the issuing task's name) |
//!   | 32 | op | u8: 0 read, 1 write, 2 flush, 3 discard |
//!   | 33 | flags | u8 bits: 1 preflush, 2 FUA, 4 sync, 8 metadata, 16 readahead |
//!   | 34 | class | u8: 0 log, 1 data, 2 temp, 3 filesystem, 4 unknown |
//!   | 35 | phase | u8: index into `meta.phases` |
//!   | 36..40 | reserved | zero |
//!
//!   The file is exactly 64 + 40 × count bytes.
//! - `capture.json`: the manifest: `format_version` (1), `meta` (devices, tasks, phases with
//!   their start and length in seconds, lost events), `records` (the count), `trace_sha256`
//!   (lowercase hex SHA-256 of the whole of trace.dbc), `files` (the mapped files with their
//!   class, extent count and bytes; the count of skipped and off-device files) and `summary`.
//! - `per_second.csv`: the per-second rows of the summary.
//!
//! Each file is written under a temporary name and renamed into place, capture.json last, so a
//! directory with a capture.json holds a complete capture. The reader checks, in order: the
//! manifest parses and is version 1; the trace's magic, version and record size; its length
//! against its record count; that count against the manifest's; the checksum; then every
//! record: op, class and flags defined, device, task and phase indices inside the manifest's
//! tables, reserved bytes zero, a completion not before its issue, a flush without bytes, and
//! the request inside its device. Each failure names the file, and the record when it is one.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::classify::{MappedFiles, classify};
use super::error::{CaptureError, io};
use super::fiemap::FileMap;
use super::fio;
use super::model::{CaptureMeta, FileClass, Flags, NO_COMPLETION, Op, Request};
use super::remap::{DEFAULT_CHUNK_BYTES, Remap};
use super::summary::{CaptureSummary, per_second, per_second_csv, summarize};

/// The directory of a capture inside a run directory.
pub const CAPTURE_DIR: &str = "capture";
pub const TRACE_FILE: &str = "trace.dbc";
pub const MANIFEST_FILE: &str = "capture.json";
pub const PER_SECOND_FILE: &str = "per_second.csv";
pub const MAGIC: [u8; 8] = *b"DBCAPTR1";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: u64 = 64;
pub const RECORD_BYTES: u32 = 40;

/// capture.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CaptureManifest {
    pub format_version: u32,
    pub meta: CaptureMeta,
    /// Records in trace.dbc.
    pub records: u64,
    /// SHA-256 of trace.dbc, lowercase hex.
    pub trace_sha256: String,
    /// Bytes of replay target the capture needs ([`Remap`] with [`DEFAULT_CHUNK_BYTES`]).
    #[serde(default)]
    pub span_bytes: u64,
    pub files: MappedFiles,
    pub summary: CaptureSummary,
}

/// A capture read back and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// The capture directory (the one holding trace.dbc).
    pub dir: PathBuf,
    pub meta: CaptureMeta,
    /// SHA-256 of trace.dbc, lowercase hex (checked): replays of one capture share it.
    pub trace_sha256: String,
    pub requests: Vec<Request>,
    pub files: MappedFiles,
    pub summary: CaptureSummary,
}

/// Write a capture into `dir` (created if missing): trace.dbc, per_second.csv, then
/// capture.json. Refuses requests that the reader would refuse.
pub fn write(
    dir: &Path,
    meta: &CaptureMeta,
    requests: &[Request],
    files: &MappedFiles,
    summary: &CaptureSummary,
) -> Result<(), CaptureError> {
    std::fs::create_dir_all(dir).map_err(io("create", dir))?;
    let trace = dir.join(TRACE_FILE);
    for (n, r) in requests.iter().enumerate() {
        check_record(&trace, n as u64, &encode(r), meta)?;
    }
    let sha = write_trace(&temp(&trace), requests)?;
    let csv = per_second_csv(&per_second(meta, requests));
    let per_second_path = dir.join(PER_SECOND_FILE);
    write_file(&temp(&per_second_path), csv.as_bytes())?;
    let manifest = CaptureManifest {
        format_version: VERSION,
        meta: meta.clone(),
        records: requests.len() as u64,
        trace_sha256: sha,
        span_bytes: Remap::new(requests, DEFAULT_CHUNK_BYTES).span_bytes(),
        files: files.clone(),
        summary: summary.clone(),
    };
    let manifest_path = dir.join(MANIFEST_FILE);
    let json = serde_json::to_vec_pretty(&manifest).map_err(|source| CaptureError::Manifest {
        path: manifest_path.clone(),
        source,
    })?;
    write_file(&temp(&manifest_path), &json)?;
    for path in [&trace, &per_second_path, &manifest_path] {
        std::fs::rename(temp(path), path).map_err(io("rename into", path))?;
    }
    Ok(())
}

/// The end of a capture: map the files under `instance_dirs` (while they still exist), tag
/// every request with its file class, summarize, and write the capture into `dir` with its fio
/// export ([`fio::export`], remapped with [`DEFAULT_CHUNK_BYTES`] chunks and the recorded
/// maximum queue depth). Returns the summary for result.json.
pub fn write_capture(
    dir: &Path,
    meta: CaptureMeta,
    mut requests: Vec<Request>,
    instance_dirs: &[PathBuf],
) -> Result<CaptureSummary, CaptureError> {
    let map = FileMap::build(instance_dirs, &meta.devices);
    let files = classify(&mut requests, &map, &meta.tasks);
    let summary = summarize(&meta, &requests);
    write(dir, &meta, &requests, &files, &summary)?;
    let remap = Remap::new(&requests, DEFAULT_CHUNK_BYTES);
    fio::export(dir, &requests, &remap, summary.shape.queue_depth.max)?;
    Ok(summary)
}

/// The temporary name a file is written under.
fn temp(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// Write a whole small file and flush it to the device.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CaptureError> {
    let mut f = File::create(path).map_err(io("create", path))?;
    f.write_all(bytes).map_err(io("write", path))?;
    f.sync_all().map_err(io("sync", path))
}

/// Write trace.dbc at `path`; returns its SHA-256 in hex.
fn write_trace(path: &Path, requests: &[Request]) -> Result<String, CaptureError> {
    let file = File::create(path).map_err(io("create", path))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut sha = Sha256::new();
    let mut put = |bytes: &[u8]| {
        sha.update(bytes);
        out.write_all(bytes)
    };
    put(&header(requests.len() as u64)).map_err(io("write", path))?;
    for r in requests {
        put(&encode(r)).map_err(io("write", path))?;
    }
    let file = out
        .into_inner()
        .map_err(|e| e.into_error())
        .map_err(io("write", path))?;
    file.sync_all().map_err(io("sync", path))?;
    Ok(hex(&sha.finalize()))
}

fn header(count: u64) -> [u8; HEADER_BYTES as usize] {
    let mut h = [0u8; HEADER_BYTES as usize];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&RECORD_BYTES.to_le_bytes());
    h[16..24].copy_from_slice(&count.to_le_bytes());
    h
}

/// A request's record.
fn encode(r: &Request) -> [u8; RECORD_BYTES as usize] {
    let mut b = [0u8; RECORD_BYTES as usize];
    b[0..8].copy_from_slice(&r.issue_ns.to_le_bytes());
    b[8..16].copy_from_slice(&r.complete_ns.to_le_bytes());
    b[16..24].copy_from_slice(&r.sector.to_le_bytes());
    b[24..28].copy_from_slice(&r.bytes.to_le_bytes());
    b[28..30].copy_from_slice(&r.device.to_le_bytes());
    b[30..32].copy_from_slice(&r.task.to_le_bytes());
    b[32] = r.op as u8;
    b[33] = r.flags.0;
    b[34] = r.class as u8;
    b[35] = r.phase;
    b
}

fn le_u64(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap_or_default())
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap_or_default())
}

fn le_u16(b: &[u8]) -> u16 {
    u16::from_le_bytes(b[..2].try_into().unwrap_or_default())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Read and check the capture in `dir`: a capture directory, or a run directory with a
/// `capture/` inside.
pub fn read(dir: &Path) -> Result<Capture, CaptureError> {
    let dir = if !dir.join(MANIFEST_FILE).exists() && dir.join(CAPTURE_DIR).is_dir() {
        dir.join(CAPTURE_DIR)
    } else {
        dir.to_owned()
    };
    let manifest = read_manifest(&dir.join(MANIFEST_FILE))?;
    let trace = dir.join(TRACE_FILE);
    let count = check_trace_file(&trace, &manifest)?;
    let requests = read_records(&trace, count, &manifest.meta)?;
    Ok(Capture {
        dir,
        trace_sha256: manifest.trace_sha256,
        meta: manifest.meta,
        requests,
        files: manifest.files,
        summary: manifest.summary,
    })
}

fn read_manifest(path: &Path) -> Result<CaptureManifest, CaptureError> {
    let bytes = std::fs::read(path).map_err(io("read", path))?;
    let manifest: CaptureManifest =
        serde_json::from_slice(&bytes).map_err(|source| CaptureError::Manifest {
            path: path.to_owned(),
            source,
        })?;
    if manifest.format_version != VERSION {
        return Err(CaptureError::UnsupportedVersion {
            path: path.to_owned(),
            found: u64::from(manifest.format_version),
            supported: VERSION,
        });
    }
    Ok(manifest)
}

/// Check the trace's header, length, count and checksum; returns the record count.
fn check_trace_file(path: &Path, manifest: &CaptureManifest) -> Result<u64, CaptureError> {
    let mut file = File::open(path).map_err(io("open", path))?;
    let actual = file.metadata().map_err(io("stat", path))?.len();
    let mut h = [0u8; HEADER_BYTES as usize];
    if actual < HEADER_BYTES {
        return Err(CaptureError::Truncated {
            path: path.to_owned(),
            records: 0,
            expected: HEADER_BYTES,
            actual,
        });
    }
    file.read_exact(&mut h).map_err(io("read", path))?;
    if h[0..8] != MAGIC {
        let found = h[0..8].escape_ascii().to_string();
        return Err(CaptureError::BadMagic {
            path: path.to_owned(),
            found,
        });
    }
    let (version, size, count) = (le_u32(&h[8..]), le_u32(&h[12..]), le_u64(&h[16..]));
    if version != VERSION {
        return Err(CaptureError::UnsupportedVersion {
            path: path.to_owned(),
            found: u64::from(version),
            supported: VERSION,
        });
    }
    if size != RECORD_BYTES {
        return Err(CaptureError::RecordSize {
            path: path.to_owned(),
            found: size,
            expected: RECORD_BYTES,
        });
    }
    let expected = count
        .checked_mul(u64::from(RECORD_BYTES))
        .and_then(|b| b.checked_add(HEADER_BYTES))
        .unwrap_or(u64::MAX);
    if actual != expected {
        return Err(CaptureError::Truncated {
            path: path.to_owned(),
            records: count,
            expected,
            actual,
        });
    }
    if count != manifest.records {
        return Err(CaptureError::CountMismatch {
            path: path.to_owned(),
            header: count,
            manifest: manifest.records,
        });
    }
    check_sha(path, &manifest.trace_sha256)?;
    Ok(count)
}

fn check_sha(path: &Path, expected: &str) -> Result<(), CaptureError> {
    let file = File::open(path).map_err(io("open", path))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut sha = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buf).map_err(io("read", path))?;
        if n == 0 {
            break;
        }
        sha.update(&buf[..n]);
    }
    let actual = hex(&sha.finalize());
    if !actual.eq_ignore_ascii_case(expected) {
        return Err(CaptureError::ChecksumMismatch {
            path: path.to_owned(),
            expected: expected.to_owned(),
            actual,
        });
    }
    Ok(())
}

/// Decode and check every record.
fn read_records(path: &Path, count: u64, meta: &CaptureMeta) -> Result<Vec<Request>, CaptureError> {
    let file = File::open(path).map_err(io("open", path))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut skip = [0u8; HEADER_BYTES as usize];
    reader.read_exact(&mut skip).map_err(io("read", path))?;
    let mut requests = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(1 << 24));
    let mut b = [0u8; RECORD_BYTES as usize];
    for n in 0..count {
        reader.read_exact(&mut b).map_err(io("read", path))?;
        requests.push(check_record(path, n, &b, meta)?);
    }
    Ok(requests)
}

/// A field out of range: its name, its value, and what it must be.
type Bad = (&'static str, u64, String);

/// A record's request, if every field is in range.
fn check_record(
    path: &Path,
    record: u64,
    b: &[u8; RECORD_BYTES as usize],
    meta: &CaptureMeta,
) -> Result<Request, CaptureError> {
    decode(b)
        .and_then(|r| check_fields(&r, le_u32(&b[36..]), meta).map(|()| r))
        .map_err(|(field, value, limit)| CaptureError::OutOfRange {
            path: path.to_owned(),
            record,
            field,
            value,
            limit,
        })
}

/// The request of a record whose op, class and flags are defined.
fn decode(b: &[u8; RECORD_BYTES as usize]) -> Result<Request, Bad> {
    let op = Op::from_u8(b[32]).ok_or(("op", b[32].into(), "0 to 3".to_owned()))?;
    let class = FileClass::from_u8(b[34]).ok_or(("class", b[34].into(), "0 to 4".to_owned()))?;
    if b[33] & !Flags::ALL != 0 {
        return Err(("flags", b[33].into(), format!("bits of {}", Flags::ALL)));
    }
    Ok(Request {
        issue_ns: le_u64(&b[0..]),
        complete_ns: le_u64(&b[8..]),
        sector: le_u64(&b[16..]),
        bytes: le_u32(&b[24..]),
        device: le_u16(&b[28..]),
        task: le_u16(&b[30..]),
        op,
        flags: Flags(b[33]),
        class,
        phase: b[35],
    })
}

/// The checks of a decoded request against the capture's tables and its device.
fn check_fields(r: &Request, reserved: u32, meta: &CaptureMeta) -> Result<(), Bad> {
    let below = |field, value: u64, len: usize, table: &str| {
        if value < len as u64 {
            Ok(())
        } else {
            Err((
                field,
                value,
                format!("below the {len} {table} of capture.json"),
            ))
        }
    };
    below("device", r.device.into(), meta.devices.len(), "devices")?;
    below("task", r.task.into(), meta.tasks.len(), "tasks")?;
    below("phase", r.phase.into(), meta.phases.len(), "phases")?;
    if reserved != 0 {
        return Err(("reserved bytes", reserved.into(), "zero".into()));
    }
    if r.complete_ns != NO_COMPLETION && r.complete_ns < r.issue_ns {
        let limit = format!("at least issue_ns {}", r.issue_ns);
        return Err(("complete_ns", r.complete_ns, limit));
    }
    if r.op == Op::Flush && r.bytes != 0 {
        return Err(("bytes of a flush", r.bytes.into(), "0".into()));
    }
    if r.op == Op::Flush && r.sector != 0 {
        return Err(("sector of a flush", r.sector, "0".into()));
    }
    let size = meta.devices[usize::from(r.device)].size_bytes;
    let end = r
        .sector
        .saturating_mul(512)
        .saturating_add(u64::from(r.bytes));
    if size > 0 && end > size {
        return Err((
            "end byte",
            end,
            format!("at most the device's {size} bytes"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::classify::MappedFile;
    use crate::capture::model::{CapturedDevice, CapturedPhase};
    use crate::capture::summary::summarize;

    fn meta() -> CaptureMeta {
        CaptureMeta {
            devices: vec![CapturedDevice {
                name: "loop0".into(),
                major: 7,
                minor: 0,
                logical_block_bytes: 512,
                size_bytes: 256 << 20,
            }],
            tasks: vec!["mariadbd".into(), "kworker/0:1H".into()],
            phases: vec![CapturedPhase {
                name: "sample".into(),
                start_s: 0.1,
                seconds: 2.0,
            }],
            lost_events: 0,
            reader_cpu_s: 0.0,
        }
    }

    fn requests() -> Vec<Request> {
        (0..100u64)
            .map(|i| Request {
                issue_ns: 100_000_000 + i * 1_000_000,
                complete_ns: if i == 99 {
                    NO_COMPLETION
                } else {
                    100_000_000 + i * 1_000_000 + 80_000
                },
                sector: if i % 10 == 9 { 0 } else { i * 8 },
                bytes: if i % 10 == 9 { 0 } else { 4096 },
                device: 0,
                task: (i % 10 == 9) as u16,
                op: if i % 10 == 9 { Op::Flush } else { Op::Write },
                flags: Flags(if i % 10 == 9 {
                    Flags::PREFLUSH
                } else {
                    Flags::SYNC | Flags::FUA
                }),
                class: if i % 2 == 0 {
                    FileClass::Log
                } else {
                    FileClass::Data
                },
                phase: 0,
            })
            .collect()
    }

    fn files() -> MappedFiles {
        MappedFiles {
            files: vec![MappedFile {
                instance: "/data/i0".into(),
                path: "ib_logfile0".into(),
                class: FileClass::Log,
                extents: 1,
                bytes: 1 << 20,
            }],
            skipped: 1,
            off_device: 0,
        }
    }

    fn written() -> (tempfile::TempDir, PathBuf) {
        let run = tempfile::tempdir().unwrap();
        let dir = run.path().join(CAPTURE_DIR);
        let rs = requests();
        write(&dir, &meta(), &rs, &files(), &summarize(&meta(), &rs)).unwrap();
        (run, dir)
    }

    #[test]
    fn a_capture_reads_back_as_written_from_its_run_directory() {
        let (run, dir) = written();
        let c = read(run.path()).unwrap();
        assert_eq!(c.dir, dir);
        assert_eq!(c.meta, meta());
        assert_eq!(c.requests, requests());
        assert_eq!(c.files, files());
        assert_eq!(c.summary, summarize(&meta(), &requests()));
        let len = std::fs::metadata(dir.join(TRACE_FILE)).unwrap().len();
        assert_eq!(len, 64 + 100 * 40);
        let csv = std::fs::read_to_string(dir.join(PER_SECOND_FILE)).unwrap();
        assert!(csv.starts_with("second,iops,"));
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    #[test]
    fn the_header_and_first_record_are_laid_out_as_documented() {
        let (_run, dir) = written();
        let b = std::fs::read(dir.join(TRACE_FILE)).unwrap();
        assert_eq!(&b[..8], b"DBCAPTR1");
        assert_eq!(le_u32(&b[8..]), 1);
        assert_eq!(le_u32(&b[12..]), 40);
        assert_eq!(le_u64(&b[16..]), 100);
        assert!(b[24..64].iter().all(|&x| x == 0));
        let r = &b[64..104];
        assert_eq!(le_u64(r), 100_000_000);
        assert_eq!(le_u64(&r[8..]), 100_080_000);
        assert_eq!(
            (r[32], r[33], r[34], r[35]),
            (1, Flags::SYNC | Flags::FUA, 0, 0)
        );
    }

    fn tamper(dir: &Path, f: impl FnOnce(&mut Vec<u8>), fix_checksum: bool) {
        let path = dir.join(TRACE_FILE);
        let mut b = std::fs::read(&path).unwrap();
        f(&mut b);
        std::fs::write(&path, &b).unwrap();
        if fix_checksum {
            let mpath = dir.join(MANIFEST_FILE);
            let mut m: CaptureManifest =
                serde_json::from_slice(&std::fs::read(&mpath).unwrap()).unwrap();
            m.trace_sha256 = hex(&Sha256::digest(&b));
            std::fs::write(&mpath, serde_json::to_vec(&m).unwrap()).unwrap();
        }
    }

    #[test]
    fn each_corruption_is_named() {
        let (_run, dir) = written();
        tamper(&dir, |b| b.truncate(b.len() - 7), false);
        match read(&dir) {
            Err(CaptureError::Truncated {
                expected,
                actual,
                records,
                ..
            }) => {
                assert_eq!((records, expected, actual), (100, 4064, 4057));
            }
            other => panic!("{other:?}"),
        }

        let (_run, dir) = written();
        tamper(&dir, |b| b[64 + 40 * 7 + 3] ^= 0x10, false);
        assert!(matches!(
            read(&dir),
            Err(CaptureError::ChecksumMismatch { .. })
        ));

        let (_run, dir) = written();
        tamper(&dir, |b| b[0] = b'X', false);
        let e = read(&dir).unwrap_err();
        assert!(matches!(e, CaptureError::BadMagic { .. }), "{e}");
        assert!(e.to_string().contains("XBCAPTR1"), "{e}");

        let (_run, dir) = written();
        tamper(&dir, |b| b[64 + 40 * 5 + 32] = 9, true);
        match read(&dir) {
            Err(
                e @ CaptureError::OutOfRange {
                    record: 5,
                    field: "op",
                    value: 9,
                    ..
                },
            ) => {
                assert!(e.to_string().contains("record 5"), "{e}");
            }
            other => panic!("{other:?}"),
        }

        let (_run, dir) = written();
        tamper(&dir, |b| b[64 + 40 * 2 + 29] = 1, true);
        assert!(matches!(
            read(&dir),
            Err(CaptureError::OutOfRange {
                record: 2,
                field: "device",
                ..
            })
        ));

        let (_run, dir) = written();
        tamper(&dir, |b| b[8] = 2, true);
        assert!(matches!(
            read(&dir),
            Err(CaptureError::UnsupportedVersion { found: 2, .. })
        ));
    }

    #[test]
    fn a_missing_or_broken_manifest_is_named() {
        let (_run, dir) = written();
        std::fs::write(dir.join(MANIFEST_FILE), b"{\"format_version\": 1").unwrap();
        assert!(matches!(read(&dir), Err(CaptureError::Manifest { .. })));
        std::fs::remove_file(dir.join(MANIFEST_FILE)).unwrap();
        assert!(matches!(
            read(&dir),
            Err(CaptureError::Io { action: "read", .. })
        ));
    }

    #[test]
    fn requests_the_reader_would_refuse_are_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut rs = requests();
        rs[3].task = 7;
        let e = write(dir.path(), &meta(), &rs, &files(), &summarize(&meta(), &rs)).unwrap_err();
        assert!(
            matches!(
                e,
                CaptureError::OutOfRange {
                    record: 3,
                    field: "task",
                    ..
                }
            ),
            "{e}"
        );
    }
}
