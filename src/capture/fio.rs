//! The capture as fio replays it, so an independent engine can cross-check drivebench's
//! replay: `replay.iolog` (fio's iolog version 3) and `replay.fio` (a job file reading it).
//!
//! The iolog's first line is `fio version 3 iolog`; then `TIME FILE add`, `TIME FILE open`,
//! one line per request, `TIME FILE read|write|trim OFFSET LENGTH` (offsets remapped onto the
//! replay target by [`Remap`]), a flush as `TIME FILE datasync 0 0`, and `TIME FILE close`.
//! fio reads a version 3 action line only with all five fields (a three-field line must be
//! add, open or close), hence the zeros of a flush. TIME is in microseconds: fio's iolog
//! writer prints `utime_since_now`, and its reader sleeps the difference of two lines' TIMEs
//! as microseconds. Times start at 1 µs, not 0, because fio takes a previous TIME of 0 as
//! "no time yet" and would not wait before the second request.

use std::io::Write;
use std::path::Path;

use super::error::{CaptureError, io};
use super::model::{Op, Request};
use super::remap::Remap;

/// The iolog's name in the capture directory.
pub const IOLOG_FILE: &str = "replay.iolog";
/// The job file's name in the capture directory.
pub const JOB_FILE: &str = "replay.fio";
/// The file name the iolog uses; the job file redirects it to the target.
pub const IOLOG_TARGET_NAME: &str = "drivebench-replay-target";

/// What an iolog holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IologCounts {
    /// Read, write and trim lines.
    pub data: u64,
    /// datasync lines.
    pub flushes: u64,
    /// Requests left out because `remap` does not place them (it was built from other
    /// requests).
    pub unplaced: u64,
}

/// Write the iolog of `requests` (in issue order) to `path`, naming the file `file_name`.
pub fn write_iolog(
    path: &Path,
    requests: &[Request],
    remap: &Remap,
    file_name: &str,
) -> Result<IologCounts, CaptureError> {
    if file_name.is_empty() || file_name.chars().any(char::is_whitespace) {
        return Err(CaptureError::IologFileName {
            name: file_name.to_owned(),
        });
    }
    let file = std::fs::File::create(path).map_err(io("create", path))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let counts = iolog(&mut out, requests, remap, file_name).map_err(io("write", path))?;
    out.flush().map_err(io("write", path))?;
    Ok(counts)
}

/// The iolog's lines, into `out`.
fn iolog(
    out: &mut impl Write,
    requests: &[Request],
    remap: &Remap,
    name: &str,
) -> std::io::Result<IologCounts> {
    let origin = requests.iter().map(|r| r.issue_ns).min().unwrap_or(0);
    let at = |ns: u64| (ns - origin) / 1000 + 1;
    let mut counts = IologCounts::default();
    writeln!(out, "fio version 3 iolog")?;
    writeln!(out, "1 {name} add")?;
    writeln!(out, "1 {name} open")?;
    let mut last = 1;
    for r in requests {
        let t = at(r.issue_ns).max(last);
        last = t;
        let action = match r.op {
            Op::Flush => {
                writeln!(out, "{t} {name} datasync 0 0")?;
                counts.flushes += 1;
                continue;
            }
            Op::Read => "read",
            Op::Write => "write",
            Op::Discard => "trim",
        };
        let Some(offset) = remap.target_offset(r) else {
            counts.unplaced += 1;
            continue;
        };
        writeln!(out, "{t} {name} {action} {offset} {}", r.bytes)?;
        counts.data += 1;
    }
    writeln!(out, "{last} {name} close")?;
    Ok(counts)
}

/// The job file that replays `iolog_file` (a name relative to the job file's directory, which
/// fio must be run from) with `iodepth` requests in flight at most, onto a target of at least
/// `span_bytes` named by the environment variable `TARGET`.
pub fn job_file(iolog_file: &str, iodepth: u32, span_bytes: u64) -> String {
    format!(
        "; fio replay of a drivebench capture: every captured request at its recorded time\n\
         ; (replay_no_stall=0), with the recorded concurrency at most (iodepth), O_DIRECT.\n\
         ; The target (a block device, or an existing file) needs at least {span_bytes} bytes and\n\
         ; loses what is there. Run from this directory, naming it in TARGET:\n\
         ;\n\
         ;   TARGET=/dev/nvme1n1 fio {JOB_FILE}\n\
         ;\n\
         ; (replay_redirect sends every request of the iolog to TARGET; unset, fio would write a\n\
         ; file named {IOLOG_TARGET_NAME} here.)\n\
         [global]\n\
         ioengine=io_uring\n\
         direct=1\n\
         iodepth={iodepth}\n\
         replay_no_stall=0\n\
         replay_redirect=${{TARGET}}\n\
         \n\
         [replay]\n\
         read_iolog={iolog_file}\n",
        iodepth = iodepth.max(1)
    )
}

/// Write [`IOLOG_FILE`] and [`JOB_FILE`] into the capture directory `dir`.
pub fn export(
    dir: &Path,
    requests: &[Request],
    remap: &Remap,
    iodepth: u32,
) -> Result<IologCounts, CaptureError> {
    let counts = write_iolog(&dir.join(IOLOG_FILE), requests, remap, IOLOG_TARGET_NAME)?;
    let job = dir.join(JOB_FILE);
    std::fs::write(&job, job_file(IOLOG_FILE, iodepth, remap.span_bytes()))
        .map_err(io("write", &job))?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::remap::DEFAULT_CHUNK_BYTES;

    fn req(issue_us: u64, op: Op, sector: u64, bytes: u32) -> Request {
        Request {
            issue_ns: issue_us * 1000 + 17,
            ..Request::data(op, sector, bytes)
        }
    }

    #[test]
    fn the_iolog_has_one_line_per_request_at_its_time_in_microseconds() {
        let far = 10 << 30; // sector 20 Mi: byte 10 GiB
        let rs = [
            req(5_000, Op::Write, 8, 4096),
            req(5_250, Op::Flush, 0, 0),
            req(6_000, Op::Read, far / 512, 16384),
            req(7_500, Op::Discard, 16, 8192),
        ];
        let remap = Remap::new(&rs, DEFAULT_CHUNK_BYTES);
        let dir = tempfile::tempdir().unwrap();
        let counts = export(dir.path(), &rs, &remap, 4).unwrap();
        assert_eq!(
            counts,
            IologCounts {
                data: 3,
                flushes: 1,
                unplaced: 0
            }
        );
        let text = std::fs::read_to_string(dir.path().join(IOLOG_FILE)).unwrap();
        let n = IOLOG_TARGET_NAME;
        let want = format!(
            "fio version 3 iolog\n1 {n} add\n1 {n} open\n1 {n} write 4096 4096\n251 {n} datasync 0 0\n\
             1001 {n} read 1048576 16384\n2501 {n} trim 8192 8192\n2501 {n} close\n"
        );
        assert_eq!(text, want);
        let job = std::fs::read_to_string(dir.path().join(JOB_FILE)).unwrap();
        for line in [
            "ioengine=io_uring",
            "direct=1",
            "iodepth=4",
            "replay_no_stall=0",
            "replay_redirect=${TARGET}",
            "read_iolog=replay.iolog",
        ] {
            assert!(job.lines().any(|l| l == line), "{line} missing from\n{job}");
        }
        assert!(job.contains(&format!("{} bytes", 2 << 20)), "{job}");
    }

    #[test]
    fn a_file_name_with_spaces_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let remap = Remap::new(&[], DEFAULT_CHUNK_BYTES);
        for bad in ["", "my target"] {
            let e = write_iolog(&dir.path().join("x"), &[], &remap, bad).unwrap_err();
            assert!(matches!(e, CaptureError::IologFileName { .. }), "{e}");
        }
    }
}
