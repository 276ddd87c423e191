//! The tracer: every block request the traced devices saw while a phase was on, from the
//! kernel's `block_rq_issue` and `block_rq_complete` tracepoints in a private tracefs instance.
//!
//! Why tracefs and not the blktrace ioctls: a private instance (`instances/drivebench-<pid>`)
//! has its own ring buffer, clock, filters and on/off switch, so a capture disturbs neither the
//! global trace buffer nor another tool's blktrace on the same disk (the blktrace interface allows
//! one trace per device), it needs no debugfs, and a crashed run leaves a directory that the next
//! run recognises by its name and removes ([`clean_orphans`]).
//!
//! How: the instance gets `trace_clock` = `mono` (CLOCK_MONOTONIC, the clock of
//! `std::time::Instant`), [`BUFFER_KB_PER_CPU`] of buffer per CPU, a filter `dev == N || ...` on
//! the traced whole disks (kernel dev_t, `(major << 20) | minor`), and `block_rq_issue`,
//! `block_rq_complete` and `block_rq_requeue` enabled; `tracing_on` is 1 only while a phase is
//! on (and [`DRAIN`] after it, so the completions of requests in flight at its end arrive; the
//! run does not wait for that, see [`super::switch`]). A dedicated thread reads the instance's
//! text `trace_pipe` in non-blocking reads of up to [`READ_BUFFER`] bytes, sleeping [`POLL`]
//! whenever it is empty, parses each line in place into a 32-byte event (the only allocation
//! is a new task name), and keeps them; pairing, phases and ordering are done once the capture
//! is finished, off the measured path.
//!
//! Timestamps: the text pipe prints `seconds.microseconds`, so times are kept in ns but have
//! microsecond resolution. Completions are paired with issues per (device, sector) in FIFO
//! order; flushes (no address: issued at sector 0, completed at sector `u64::MAX`) per device.
//! A completion of 0 sectors for a read or write is the end of a request whose data already
//! completed (the kernel's flush sequence finishing a FUA or preflush write with separate
//! flushes), so it is not a request of its own. A requeued request is counted at its last
//! issue. Requests issued outside every phase window are dropped.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use super::error::{CaptureError, Unavailable, io};
use super::model::{CaptureMeta, CapturedDevice, CapturedPhase, Flags, NO_COMPLETION, Op, Request};
use super::switch::{Switch, write_file};
use drivebench_system::sysfs::BlockDevice;

/// Where tracefs is mounted on current systems, and where older ones had it.
const TRACEFS_ROOTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];
/// The name of this process's instances: `drivebench-<pid>`, then `drivebench-<pid>-<n>`.
const INSTANCE_PREFIX: &str = "drivebench-";
/// Ring buffer per CPU: about 250,000 events, several seconds of a busy NVMe drive even if the
/// reader were stalled.
pub const BUFFER_KB_PER_CPU: u32 = 16384;
/// How long tracing stays on after a phase ends, so that requests in flight complete in the
/// trace (requests issued in this time are not part of the phase and are dropped).
pub const DRAIN: Duration = Duration::from_millis(50);
/// How long the reader sleeps when the pipe is empty.
pub const POLL: Duration = Duration::from_millis(20);
/// The reader's buffer; the kernel hands out at most a page of text per read.
pub const READ_BUFFER: usize = 64 * 1024;
/// The events enabled in the instance; the requeue event is optional.
const EVENTS: [&str; 3] = ["block_rq_issue", "block_rq_complete", "block_rq_requeue"];
/// A phase index is one byte in the trace format.
const MAX_PHASES: usize = 256;
/// The pairing key of flushes, which have no address.
const FLUSH_KEY: u64 = u64::MAX;

/// Instances made by this process so far (for the `-<n>` suffix).
static INSTANCES: AtomicU32 = AtomicU32::new(0);

/// Whether block I/O can be captured here: running as root, tracefs mounted (it is mounted at
/// /sys/kernel/tracing when absent, the one change this makes), and the kernel has the block
/// tracepoints and trace instances.
pub fn available() -> Result<(), CaptureError> {
    tracefs().map(|_| ())
}

/// The tracefs root, after the checks of [`available`].
fn tracefs() -> Result<PathBuf, CaptureError> {
    if !rustix::process::geteuid().is_root() {
        return Err(Unavailable::NotRoot.into());
    }
    let root = match tracefs_root() {
        Some(root) => root,
        None => mount_tracefs()?,
    };
    for event in &EVENTS[..2] {
        let path = root.join("events/block").join(event);
        if !path.is_dir() {
            return Err(Unavailable::NoBlockEvents { path }.into());
        }
    }
    let instances = root.join("instances");
    if !instances.is_dir() {
        return Err(Unavailable::NoInstances { path: instances }.into());
    }
    Ok(root)
}

/// A mounted tracefs: the first root with an `events` directory.
fn tracefs_root() -> Option<PathBuf> {
    TRACEFS_ROOTS
        .iter()
        .map(PathBuf::from)
        .find(|root| root.join("events").is_dir())
}

/// Mount tracefs at its usual place.
fn mount_tracefs() -> Result<PathBuf, CaptureError> {
    let target = c"/sys/kernel/tracing";
    // SAFETY: every pointer is a NUL-terminated string that outlives the call; no data is passed.
    let rc = unsafe {
        libc::mount(
            c"nodev".as_ptr(),
            target.as_ptr(),
            c"tracefs".as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        let detail = std::io::Error::last_os_error().to_string();
        return Err(Unavailable::NoTracefs { detail }.into());
    }
    tracefs_root().ok_or_else(|| {
        let detail = "mounted, but it has no events directory".to_owned();
        Unavailable::NoTracefs { detail }.into()
    })
}

/// Remove the trace instances of drivebench processes that no longer run (a crash or a kill
/// left them), and return their names. An instance whose files are still open (its reader is
/// alive, e.g. in another PID namespace) is left alone: the kernel refuses to remove it.
pub fn clean_orphans() -> Vec<String> {
    let Some(root) = tracefs_root() else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(root.join("instances")) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(pid) = instance_pid(&name) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if remove_orphan(&entry.path()) {
            removed.push(name);
        }
    }
    removed
}

/// Switch off this process's own trace instances (their reader may still hold them open, so
/// they are only switched off; the next run's [`clean_orphans`] removes them). For an abort
/// that exits at once, without the tracer's own teardown.
pub fn switch_off_own() {
    let Some(root) = tracefs_root() else {
        return;
    };
    let Ok(entries) = fs::read_dir(root.join("instances")) else {
        return;
    };
    let own = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if instance_pid(&name.to_string_lossy()) == Some(own) {
            switch_off(&entry.path());
        }
    }
}

/// The pid in an instance name `drivebench-<pid>` or `drivebench-<pid>-<n>`.
fn instance_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(INSTANCE_PREFIX)?;
    let pid = rest.split('-').next()?;
    pid.parse().ok()
}

/// Remove an orphaned instance: at once if nothing holds it open, else switched off first.
fn remove_orphan(dir: &Path) -> bool {
    match fs::remove_dir(dir) {
        Ok(()) => true,
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => false,
        Err(_) => {
            switch_off(dir);
            fs::remove_dir(dir).is_ok()
        }
    }
}

/// Stop recording in an instance and disable its block events; failures are left to rmdir.
fn switch_off(dir: &Path) {
    let _ = write_file(&dir.join("tracing_on"), "0");
    for event in EVENTS {
        let enable = dir.join("events/block").join(event).join("enable");
        if enable.exists() {
            let _ = write_file(&enable, "0");
        }
    }
}

/// The device `major:minor` as sysfs describes it. For a partition the logical block size is
/// its disk's (a partition has no `queue/`); note that a partition cannot be traced itself
/// (see [`whole_disk`]).
pub fn device(major: u32, minor: u32) -> Result<CapturedDevice, CaptureError> {
    let node = BlockDevice::open(Path::new("/sys"), major, minor)?;
    let sectors = node.number("size")?;
    let block = node.disk().number("queue/logical_block_size")?;
    Ok(CapturedDevice {
        name: node.name(),
        major,
        minor,
        logical_block_bytes: u32::try_from(block).unwrap_or(u32::MAX),
        size_bytes: sectors.saturating_mul(512),
    })
}

/// The whole disk of `major:minor`: itself, or for a partition the disk it is on. Block
/// requests are traced on whole disks, with whole-disk sectors.
pub fn whole_disk(major: u32, minor: u32) -> Result<CapturedDevice, CaptureError> {
    let node = BlockDevice::open(Path::new("/sys"), major, minor)?;
    let (major, minor) = node.disk().number_pair()?;
    device(major, minor)
}

/// Whether block requests of `device` can be traced: it must be a whole disk (a partition's
/// requests are reported on its disk) with a request queue (`mq/` in sysfs): bio-based devices
/// such as zram, brd, device-mapper and md never see a block request.
pub fn traceable(device: &CapturedDevice) -> Result<(), CaptureError> {
    let (name, major, minor) = (device.name.clone(), device.major, device.minor);
    let node = BlockDevice::open(Path::new("/sys"), major, minor)?;
    if node.is_partition() {
        return Err(CaptureError::Partition { name, major, minor });
    }
    if !node.dir().join("mq").is_dir() {
        return Err(CaptureError::BioBased { name, major, minor });
    }
    Ok(())
}

/// CLOCK_MONOTONIC now, in ns: the clock of `trace_clock` = `mono`.
fn mono_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    (t.tv_sec.max(0) as u64) * 1_000_000_000 + t.tv_nsec.max(0) as u64
}

/// A phase's window, in CLOCK_MONOTONIC ns.
#[derive(Debug, Clone)]
struct Window {
    name: String,
    start: u64,
    end: Option<u64>,
}

/// A running capture. Dropping it unfinished still switches tracing off and removes the
/// instance.
pub struct Tracer {
    /// The instance directory.
    dir: PathBuf,
    devices: Vec<CapturedDevice>,
    /// CLOCK_MONOTONIC at the start: time 0 of the capture.
    start_ns: u64,
    windows: Vec<Window>,
    stop: Arc<AtomicBool>,
    switch: Arc<Switch>,
    reader: Option<JoinHandle<Reading>>,
    torn_down: bool,
}

impl Tracer {
    /// Set up a private trace instance for `devices` (whole disks) and start its reader;
    /// tracing stays off until [`Tracer::begin_phase`].
    pub fn start(devices: Vec<CapturedDevice>) -> Result<Tracer, CaptureError> {
        if devices.is_empty() {
            return Err(CaptureError::NoDevices);
        }
        devices.iter().try_for_each(traceable)?;
        let root = tracefs()?;
        let n = INSTANCES.fetch_add(1, Ordering::Relaxed);
        let name = match n {
            0 => format!("{INSTANCE_PREFIX}{}", std::process::id()),
            n => format!("{INSTANCE_PREFIX}{}-{n}", std::process::id()),
        };
        let dir = root.join("instances").join(name);
        if let Err(e) = fs::create_dir(&dir) {
            // Left by an earlier process that had this pid: it is dead, as the name is ours.
            if e.kind() != std::io::ErrorKind::AlreadyExists || !remove_orphan(&dir) {
                return Err(io("create", &dir)(e));
            }
            fs::create_dir(&dir).map_err(io("create", &dir))?;
        }
        let switch = Arc::new(Switch::new(dir.join("tracing_on")));
        let mut tracer = Tracer {
            dir,
            switch,
            devices,
            start_ns: mono_ns(),
            windows: Vec::new(),
            stop: Arc::new(AtomicBool::new(false)),
            reader: None,
            torn_down: false,
        };
        tracer.configure()?;
        tracer.spawn_reader()?;
        tracer.start_ns = mono_ns();
        Ok(tracer)
    }

    /// The instance's clock, buffer, filters and events; tracing off.
    fn configure(&self) -> Result<(), CaptureError> {
        self.control("tracing_on", "0")?;
        self.control("trace_clock", "mono")?;
        self.control("buffer_size_kb", &BUFFER_KB_PER_CPU.to_string())?;
        if self.dir.join("options/irq-info").exists() {
            // Shorter lines: the interrupt-context column is not read.
            self.control("options/irq-info", "0")?;
        }
        let filter = dev_filter(&self.devices);
        for event in EVENTS {
            let dir = format!("events/block/{event}");
            if !self.dir.join(&dir).is_dir() {
                continue;
            }
            self.control(&format!("{dir}/filter"), &filter)?;
            self.control(&format!("{dir}/enable"), "1")?;
        }
        Ok(())
    }

    fn spawn_reader(&mut self) -> Result<(), CaptureError> {
        let pipe_path = self.dir.join("trace_pipe");
        let pipe = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&pipe_path)
            .map_err(io("open", &pipe_path))?;
        let stop = Arc::clone(&self.stop);
        let switch = Arc::clone(&self.switch);
        let devices: Vec<(u32, u32)> = self.devices.iter().map(|d| (d.major, d.minor)).collect();
        let handle = std::thread::Builder::new()
            .name("capture-reader".into())
            .spawn(move || read_loop(pipe, (&stop, &switch), devices))
            .map_err(io("start the reader thread of", pipe_path))?;
        self.reader = Some(handle);
        Ok(())
    }

    fn control(&self, file: &str, value: &str) -> Result<(), CaptureError> {
        write_file(&self.dir.join(file), value)
    }

    /// The instance directory, e.g. /sys/kernel/tracing/instances/drivebench-4242.
    pub fn instance_dir(&self) -> &Path {
        &self.dir
    }

    /// CLOCK_MONOTONIC (ns) of the capture's time 0, to align it with other clocks.
    pub fn start_mono_ns(&self) -> u64 {
        self.start_ns
    }

    /// Start recording a phase (ending the one still on, if any).
    pub fn begin_phase(&mut self, name: &str) -> Result<(), CaptureError> {
        self.end_phase();
        if self.windows.len() >= MAX_PHASES {
            return Err(CaptureError::TooManyPhases { max: MAX_PHASES });
        }
        self.windows.push(Window {
            name: name.to_owned(),
            start: mono_ns(),
            end: None,
        });
        self.switch.on()
    }

    /// End the phase that is on: its requests are those issued until now; tracing stays on
    /// for [`DRAIN`] more so their completions are recorded, switched off by the reader thread
    /// (this call does not wait). Does nothing when no phase is on.
    pub fn end_phase(&mut self) {
        let Some(open) = self.windows.last_mut().filter(|w| w.end.is_none()) else {
            return;
        };
        let now = mono_ns();
        open.end = Some(now);
        self.switch.off_after(now + DRAIN.as_nanos() as u64);
    }

    /// Wait until a pending switch-off is due (the last phase's drain).
    fn wait_drain(&self) {
        if let Some(due) = self.switch.due() {
            let left = due.saturating_sub(mono_ns());
            std::thread::sleep(Duration::from_nanos(left));
        }
    }

    /// Stop: end the phase that is on, read what the buffer still holds, count lost events,
    /// remove the instance, and return the capture's tables and its requests in issue order.
    pub fn finish(mut self) -> Result<(CaptureMeta, Vec<Request>), CaptureError> {
        self.end_phase();
        self.wait_drain();
        let reading = self.stop_reader()?;
        let lost_events = lost_events(&self.dir);
        self.teardown();
        if let Some(source) = reading.error {
            let path = self.dir.join("trace_pipe");
            return Err(CaptureError::Io {
                action: "read",
                path,
                source,
            });
        }
        if reading.ignored > 0 || reading.malformed > 0 {
            tracing::debug!(
                ignored = reading.ignored,
                malformed = reading.malformed,
                "capture: trace lines not taken as requests"
            );
        }
        let windows: Vec<(u64, u64)> = self
            .windows
            .iter()
            .map(|w| (w.start, w.end.unwrap_or(w.start)))
            .collect();
        let requests = assemble(&reading.events, &windows, self.start_ns);
        let meta = CaptureMeta {
            devices: self.devices.clone(),
            tasks: reading.tasks,
            phases: self.captured_phases(),
            lost_events,
            reader_cpu_s: reading.cpu_s,
        };
        Ok((meta, requests))
    }

    fn captured_phases(&self) -> Vec<CapturedPhase> {
        let s = |ns: u64| ns.saturating_sub(self.start_ns) as f64 / 1e9;
        self.windows
            .iter()
            .map(|w| CapturedPhase {
                name: w.name.clone(),
                start_s: s(w.start),
                seconds: w.end.unwrap_or(w.start).saturating_sub(w.start) as f64 / 1e9,
            })
            .collect()
    }

    /// Switch tracing off and let the reader drain the pipe and stop.
    fn stop_reader(&mut self) -> Result<Reading, CaptureError> {
        let off = self.switch.off();
        self.stop.store(true, Ordering::Release);
        let Some(handle) = self.reader.take() else {
            return Ok(Reading::default());
        };
        let reading = handle.join().map_err(|_| CaptureError::ReaderPanicked {
            path: self.dir.join("trace_pipe"),
        })?;
        off.map(|()| reading)
    }

    /// Disable the events and remove the instance; a failure is logged (the next run's
    /// [`clean_orphans`] removes what is left).
    fn teardown(&mut self) {
        if self.torn_down {
            return;
        }
        self.torn_down = true;
        switch_off(&self.dir);
        if let Err(e) = fs::remove_dir(&self.dir) {
            tracing::warn!(
                "capture: cannot remove the trace instance {}: {e}",
                self.dir.display()
            );
        }
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        if self.torn_down {
            return;
        }
        let _ = self.stop_reader();
        self.teardown();
    }
}

/// The event filter for `devices`: `dev == N || dev == M`, N the kernel's dev_t.
fn dev_filter(devices: &[CapturedDevice]) -> String {
    devices
        .iter()
        .map(|d| format!("dev == {}", (u64::from(d.major) << 20) | u64::from(d.minor)))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// Events the kernel dropped in the instance: `overrun` (overwritten before being read) and
/// `dropped events` of every CPU's `stats`.
fn lost_events(dir: &Path) -> u64 {
    let Ok(cpus) = fs::read_dir(dir.join("per_cpu")) else {
        return 0;
    };
    let mut lost = 0;
    for cpu in cpus.flatten() {
        let Ok(text) = fs::read_to_string(cpu.path().join("stats")) else {
            continue;
        };
        for line in text.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            if matches!(key.trim(), "overrun" | "dropped events") {
                lost += value.trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    lost
}

/// Which tracepoint a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EventKind {
    Issue,
    Complete,
    Requeue,
}

/// One trace line, parsed in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TraceLine<'a> {
    pub kind: EventKind,
    /// The trace timestamp, in ns (printed with microsecond resolution).
    pub ts_ns: u64,
    pub major: u32,
    pub minor: u32,
    /// The `rwbs` letters, as printed.
    pub rwbs: &'a [u8],
    /// `bytes` of an issue; 0 on other events.
    pub bytes: u32,
    pub sector: u64,
    pub nr_sectors: u32,
    /// The issuing task (`comm`) of an issue; empty on other events.
    pub comm: &'a [u8],
}

/// Parse one line of `trace_pipe`. Lines of other events, or that do not follow the
/// tracepoints' print formats, give `None`:
///
/// ```text
/// <task>-<pid> [cpu] <flags> <secs.usecs>: block_rq_issue: MAJ,MIN RWBS BYTES (CMD) SECTOR + NR [IOPRIO] [COMM]
/// <task>-<pid> [cpu] <flags> <secs.usecs>: block_rq_complete: MAJ,MIN RWBS (CMD) SECTOR + NR [IOPRIO] [ERROR]
/// ```
///
/// IOPRIO (`be,0,4`) is printed by newer kernels only; COMM may contain spaces and brackets.
pub(super) fn parse_line(line: &[u8]) -> Option<TraceLine<'_>> {
    const MARK: &[u8] = b": block_rq_";
    let at = memchr::memmem::find(line, MARK)?;
    let rest = &line[at + MARK.len()..];
    let (kind, fields) = if let Some(f) = rest.strip_prefix(b"issue: ") {
        (EventKind::Issue, f)
    } else if let Some(f) = rest.strip_prefix(b"complete: ") {
        (EventKind::Complete, f)
    } else if let Some(f) = rest.strip_prefix(b"requeue: ") {
        (EventKind::Requeue, f)
    } else {
        return None;
    };
    let prefix = line[..at].trim_ascii_end();
    let ts = prefix.rsplit(|&b| b == b' ').next()?;
    let ts_ns = parse_timestamp(ts)?;
    let mut c = Cursor(fields);
    let dev = c.token()?;
    let comma = memchr::memchr(b',', dev)?;
    let (major, minor) = (number(&dev[..comma])?, number(&dev[comma + 1..])?);
    let rwbs = c.token()?;
    let bytes = match kind {
        EventKind::Issue => number(c.token()?)?,
        _ => 0,
    };
    c.skip_parenthesised()?;
    let sector = number(c.token()?)?;
    (c.token()? == b"+").then_some(())?;
    let nr_sectors = number(c.token()?)?;
    let comm = match kind {
        EventKind::Issue => c.bracketed_tail()?,
        _ => &[][..],
    };
    Some(TraceLine {
        kind,
        ts_ns,
        major,
        minor,
        rwbs,
        bytes,
        sector,
        nr_sectors,
        comm,
    })
}

/// A position in a line's fields.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// The next space-separated token.
    fn token(&mut self) -> Option<&'a [u8]> {
        let s = self.0.trim_ascii_start();
        let end = memchr::memchr(b' ', s).unwrap_or(s.len());
        (end > 0).then(|| {
            self.0 = &s[end..];
            &s[..end]
        })
    }

    /// Skip `(CMD)`; CMD (a command's bytes in hex, often empty) has no parentheses.
    fn skip_parenthesised(&mut self) -> Option<()> {
        let s = self.0.trim_ascii_start().strip_prefix(b"(")?;
        let close = memchr::memchr(b')', s)?;
        self.0 = &s[close + 1..];
        Some(())
    }

    /// What is between the first `[` left and the line's closing `]`: the task name, which
    /// may itself contain spaces and brackets.
    fn bracketed_tail(&mut self) -> Option<&'a [u8]> {
        let s = self.0.trim_ascii();
        let open = memchr::memchr(b'[', s)?;
        s[open + 1..].strip_suffix(b"]")
    }
}

/// A decimal number of ASCII digits.
fn number<T: TryFrom<u64>>(digits: &[u8]) -> Option<T> {
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    T::try_from(v).ok()
}

/// `12345.678901` seconds as ns (any number of fraction digits up to 9).
pub(super) fn parse_timestamp(ts: &[u8]) -> Option<u64> {
    let ts = ts.strip_suffix(b":").unwrap_or(ts);
    let (secs, frac) = match memchr::memchr(b'.', ts) {
        Some(dot) => (&ts[..dot], &ts[dot + 1..]),
        None => (ts, &[][..]),
    };
    if frac.len() > 9 {
        return None;
    }
    let secs: u64 = number(secs)?;
    let fraction: u64 = if frac.is_empty() { 0 } else { number(frac)? };
    let scale = 10u64.pow(9 - frac.len() as u32);
    secs.checked_mul(1_000_000_000)?
        .checked_add(fraction * scale)
}

/// The operation and modifiers of an `rwbs` string: a leading `F` (before an operation
/// letter) is a preflush; then `R`, `W`, `D` (or `DE`, `E`: discard), `F` (a flush request,
/// newer kernels) or `N` (no data: a flush when preflushed, otherwise not a request this
/// capture models: `None`); then `F` (FUA), `A`, `S`, `M`; other letters are ignored.
pub fn parse_rwbs(rwbs: &[u8]) -> Option<(Op, Flags)> {
    let is_op = |b: u8| matches!(b, b'R' | b'W' | b'D' | b'E' | b'F' | b'N');
    let mut bits = 0u8;
    let mut i = 0;
    if rwbs.len() >= 2 && rwbs[0] == b'F' && is_op(rwbs[1]) {
        bits |= Flags::PREFLUSH;
        i = 1;
    }
    let op = match *rwbs.get(i)? {
        b'R' => Op::Read,
        b'W' => Op::Write,
        b'D' | b'E' => Op::Discard,
        b'F' => Op::Flush,
        b'N' if bits & Flags::PREFLUSH != 0 => Op::Flush,
        _ => return None,
    };
    i += 1;
    if op == Op::Discard && rwbs.get(i) == Some(&b'E') {
        i += 1;
    }
    for &b in &rwbs[i..] {
        bits |= match b {
            b'F' => Flags::FUA,
            b'A' => Flags::READAHEAD,
            b'S' => Flags::SYNC,
            b'M' => Flags::META,
            _ => 0,
        };
    }
    Some((op, Flags(bits)))
}

/// One event as the reader keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RawEvent {
    /// CLOCK_MONOTONIC ns.
    pub ts_ns: u64,
    pub sector: u64,
    pub bytes: u32,
    pub nr_sectors: u32,
    pub device: u16,
    pub task: u16,
    pub op: Op,
    pub flags: Flags,
    pub kind: EventKind,
}

/// What the reader thread gathered.
#[derive(Debug, Default)]
struct Reading {
    events: Vec<RawEvent>,
    tasks: Vec<String>,
    /// Events of other devices or of operations not modelled (`N`).
    ignored: u64,
    /// Lines that mention a block event but could not be parsed.
    malformed: u64,
    error: Option<std::io::Error>,
    /// The reader thread's CPU time, in seconds.
    cpu_s: f64,
}

/// Turns lines into events, interning task names.
pub(super) struct LineReader {
    devices: Vec<(u32, u32)>,
    names: HashMap<Vec<u8>, u16>,
    reading: Reading,
}

impl LineReader {
    pub(super) fn new(devices: Vec<(u32, u32)>) -> LineReader {
        LineReader {
            devices,
            names: HashMap::new(),
            reading: Reading::default(),
        }
    }

    /// Take one line (without its newline).
    pub(super) fn line(&mut self, line: &[u8]) {
        let Some(t) = parse_line(line) else {
            if memchr::memmem::find(line, b": block_rq_").is_some() {
                self.reading.malformed += 1;
            }
            return;
        };
        let device = self.devices.iter().position(|&d| d == (t.major, t.minor));
        let (Some(device), Some((op, flags))) = (device, parse_rwbs(t.rwbs)) else {
            self.reading.ignored += 1;
            return;
        };
        let task = match t.kind {
            EventKind::Issue => self.intern(t.comm),
            _ => 0,
        };
        let data_bytes = if t.bytes > 0 {
            t.bytes
        } else {
            t.nr_sectors.saturating_mul(512)
        };
        self.reading.events.push(RawEvent {
            ts_ns: t.ts_ns,
            sector: t.sector,
            bytes: if op == Op::Flush { 0 } else { data_bytes },
            nr_sectors: t.nr_sectors,
            device: device as u16,
            task,
            op,
            flags,
            kind: t.kind,
        });
    }

    /// The index of a task name; past 65,535 names every new one shares the last index.
    fn intern(&mut self, comm: &[u8]) -> u16 {
        if let Some(&i) = self.names.get(comm) {
            return i;
        }
        let tasks = &mut self.reading.tasks;
        if tasks.len() > usize::from(u16::MAX) {
            return u16::MAX;
        }
        let i = tasks.len() as u16;
        let name = if tasks.len() == usize::from(u16::MAX) {
            "(other tasks)".to_owned()
        } else {
            String::from_utf8_lossy(comm).into_owned()
        };
        tasks.push(name);
        self.names.insert(comm.to_vec(), i);
        i
    }

    /// Take every whole line of `buf[..len]`; move the unfinished tail to the front and
    /// return its length.
    fn consume(&mut self, buf: &mut [u8], len: usize) -> usize {
        let mut start = 0;
        while let Some(nl) = memchr::memchr(b'\n', &buf[start..len]) {
            self.line(&buf[start..start + nl]);
            start += nl + 1;
        }
        if start == 0 && len == buf.len() {
            self.reading.malformed += 1;
            return 0;
        }
        buf.copy_within(start..len, 0);
        len - start
    }

    #[cfg(test)]
    pub(super) fn into_parts(self) -> (Vec<RawEvent>, Vec<String>) {
        (self.reading.events, self.reading.tasks)
    }
}

/// The reader thread: read the pipe until told to stop and found empty.
fn read_loop(
    mut pipe: File,
    (stop, switch): (&AtomicBool, &Switch),
    devices: Vec<(u32, u32)>,
) -> Reading {
    let mut lines = LineReader::new(devices);
    let mut buf = vec![0u8; READ_BUFFER];
    let mut filled = 0;
    loop {
        if let Err(e) = switch.poll(mono_ns()) {
            tracing::warn!("capture: tracing stays on after a phase: {e}");
        }
        match pipe.read(&mut buf[filled..]) {
            Ok(n) if n > 0 => filled = lines.consume(&mut buf, filled + n),
            Ok(_) => {
                if idle(stop) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if idle(stop) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                lines.reading.error = Some(e);
                break;
            }
        }
    }
    let cpu = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    lines.reading.cpu_s = cpu.tv_sec as f64 + cpu.tv_nsec as f64 / 1e9;
    lines.reading
}

/// The pipe is empty: stop if asked to, else sleep a while.
fn idle(stop: &AtomicBool) -> bool {
    if stop.load(Ordering::Acquire) {
        return true;
    }
    std::thread::sleep(POLL);
    false
}

/// Pair completions with issues and keep the requests issued inside a phase window
/// (`(start, end)` in CLOCK_MONOTONIC ns, in order), in issue order, times relative to
/// `origin_ns`.
pub(super) fn assemble(
    events: &[RawEvent],
    windows: &[(u64, u64)],
    origin_ns: u64,
) -> Vec<Request> {
    let mut issued: Vec<(RawEvent, u64, bool)> = Vec::new();
    let mut pending: HashMap<(u16, u64), VecDeque<usize>> = HashMap::new();
    for e in events {
        match e.kind {
            EventKind::Issue => {
                pending
                    .entry(pair_key(e))
                    .or_default()
                    .push_back(issued.len());
                issued.push((*e, NO_COMPLETION, true));
            }
            EventKind::Complete => {
                if let Some(i) = completion_key(e).and_then(|k| take(&mut pending, k, true)) {
                    issued[i].1 = e.ts_ns.max(issued[i].0.ts_ns);
                }
            }
            EventKind::Requeue => {
                if let Some(i) = completion_key(e).and_then(|k| take(&mut pending, k, false)) {
                    issued[i].2 = false;
                }
            }
        }
    }
    let mut requests: Vec<Request> = issued
        .into_iter()
        .filter(|(_, _, live)| *live)
        .filter_map(|(e, done, _)| {
            let phase = phase_of(e.ts_ns, windows)?;
            Some(Request {
                issue_ns: e.ts_ns.saturating_sub(origin_ns),
                complete_ns: match done {
                    NO_COMPLETION => NO_COMPLETION,
                    t => t.saturating_sub(origin_ns),
                },
                sector: if e.op == Op::Flush { 0 } else { e.sector },
                bytes: e.bytes,
                device: e.device,
                task: e.task,
                op: e.op,
                flags: e.flags,
                class: super::model::FileClass::Unknown,
                phase,
            })
        })
        .collect();
    requests.sort_by_key(|r| r.issue_ns);
    requests
}

fn pair_key(e: &RawEvent) -> (u16, u64) {
    match e.op {
        Op::Flush => (e.device, FLUSH_KEY),
        _ => (e.device, e.sector),
    }
}

/// The key a completion (or requeue) pairs on; `None` for the 0-sector end of a request
/// whose data completed before.
fn completion_key(e: &RawEvent) -> Option<(u16, u64)> {
    match e.op {
        Op::Flush => Some((e.device, FLUSH_KEY)),
        _ if e.nr_sectors == 0 => None,
        _ => Some((e.device, e.sector)),
    }
}

/// The oldest (or, for a requeue, newest) pending issue at `key`.
fn take(
    pending: &mut HashMap<(u16, u64), VecDeque<usize>>,
    key: (u16, u64),
    oldest: bool,
) -> Option<usize> {
    let queue = pending.get_mut(&key)?;
    let i = if oldest {
        queue.pop_front()
    } else {
        queue.pop_back()
    };
    if queue.is_empty() {
        pending.remove(&key);
    }
    i
}

/// The phase whose window holds `ts`.
fn phase_of(ts: u64, windows: &[(u64, u64)]) -> Option<u8> {
    let after = windows.partition_point(|w| w.0 <= ts);
    let i = after.checked_sub(1)?;
    (ts < windows[i].1).then_some(i as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines read from this machine's trace_pipe (kernel 6.18) while `dd oflag=direct,dsync`,
    /// `dd iflag=direct` and `mkfs.ext4` ran on /dev/loop0.
    const CAPTURED: &str = "\
              dd-12569   [000] .....   532.568597: block_rq_issue: 7,0 WS 4096 () 0 + 8 be,0,4 [dd]
     ksoftirqd/0-14      [000] ..s..   532.568688: block_rq_complete: 7,0 WS () 0 + 8 be,0,4 [0]
    kworker/0:1H-44      [000] .....   532.568705: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [kworker/0:1H]
     ksoftirqd/0-14      [000] ..s..   532.569509: block_rq_complete: 7,0 FF () 18446744073709551615 + 0 none,0,0 [0]
     ksoftirqd/0-14      [000] d.s1.   532.569512: block_rq_complete: 7,0 WS () 0 + 0 be,0,4 [0]
              dd-12569   [000] .....   532.569666: block_rq_issue: 7,0 WS 4096 () 8 + 8 be,0,4 [dd]
     ksoftirqd/0-14      [000] ..s..   532.569690: block_rq_complete: 7,0 WS () 8 + 8 be,0,4 [0]
              dd-12570   [000] .....   532.574216: block_rq_issue: 7,0 RS 16384 () 0 + 32 be,0,4 [dd]
     ksoftirqd/0-14      [000] ..s..   532.574279: block_rq_complete: 7,0 RS () 0 + 32 be,0,4 [0]
      blkdiscard-12571   [000] .....   532.578016: block_rq_issue: 7,0 RA 4096 () 130944 + 8 be,0,4 [blkdiscard]
";

    #[test]
    fn rwbs_letters_give_the_operation_and_flags() {
        let p = Flags::PREFLUSH;
        let cases: &[(&str, Option<(Op, u8)>)] = &[
            ("R", Some((Op::Read, 0))),
            ("RA", Some((Op::Read, Flags::READAHEAD))),
            ("RM", Some((Op::Read, Flags::META))),
            ("RS", Some((Op::Read, Flags::SYNC))),
            ("W", Some((Op::Write, 0))),
            ("WS", Some((Op::Write, Flags::SYNC))),
            ("WFS", Some((Op::Write, Flags::FUA | Flags::SYNC))),
            ("FWS", Some((Op::Write, p | Flags::SYNC))),
            (
                "FWFSM",
                Some((Op::Write, p | Flags::FUA | Flags::SYNC | Flags::META)),
            ),
            ("FN", Some((Op::Flush, p))),
            ("FF", Some((Op::Flush, p))),
            ("F", Some((Op::Flush, 0))),
            ("FS", Some((Op::Flush, Flags::SYNC))),
            ("D", Some((Op::Discard, 0))),
            ("DE", Some((Op::Discard, 0))),
            ("E", Some((Op::Discard, 0))),
            ("WU", Some((Op::Write, 0))),
            ("N", None),
            ("", None),
            ("X", None),
        ];
        for (rwbs, want) in cases {
            let got = parse_rwbs(rwbs.as_bytes()).map(|(op, f)| (op, f.0));
            assert_eq!(got, *want, "rwbs {rwbs:?}");
        }
    }

    #[test]
    fn captured_lines_parse() {
        let lines: Vec<TraceLine> = CAPTURED
            .lines()
            .map(|l| parse_line(l.as_bytes()).unwrap())
            .collect();
        let first = lines[0];
        assert_eq!(first.kind, EventKind::Issue);
        assert_eq!(first.ts_ns, 532_568_597_000);
        assert_eq!((first.major, first.minor), (7, 0));
        assert_eq!(first.rwbs, b"WS");
        assert_eq!((first.bytes, first.sector, first.nr_sectors), (4096, 0, 8));
        assert_eq!(first.comm, b"dd");
        assert_eq!(lines[2].comm, b"kworker/0:1H");
        assert_eq!(lines[3].kind, EventKind::Complete);
        assert_eq!(lines[3].sector, u64::MAX);
        assert_eq!(lines[3].comm, b"");
        assert_eq!(lines[9].comm, b"blkdiscard");
        assert_eq!(lines[9].sector, 130944);
    }

    #[test]
    fn task_names_with_spaces_and_brackets_and_old_formats_parse() {
        let spaced = b"  my task-77 [001] d..1. 10.000001: block_rq_issue: 259,1 W 8192 () 64 + 16 be,0,4 [my [odd] task]";
        let t = parse_line(spaced).unwrap();
        assert_eq!(t.comm, b"my [odd] task");
        assert_eq!((t.major, t.minor, t.sector, t.bytes), (259, 1, 64, 8192));
        assert_eq!(t.ts_ns, 10_000_001_000);
        // Kernels before the I/O priority field; a passthrough command's bytes.
        let old = b"mysqld-5 [000] .... 3.5: block_rq_issue: 8,0 WS 4096 (2a 00 00) 8 + 8 [mysqld]";
        let t = parse_line(old).unwrap();
        assert_eq!(
            (t.comm, t.sector, t.ts_ns),
            (&b"mysqld"[..], 8, 3_500_000_000)
        );
        for bad in [
            &b"x-1 [000] .... 1.0: block_rq_issue: 8,0 WS 4096 () 8 + [x]"[..],
            b"x-1 [000] .... 1.0: block_rq_issue: 8 WS 4096 () 8 + 8 [x]",
            b"x-1 [000] .... 1.0: block_rq_insert: 8,0 WS 4096 () 8 + 8 [x]",
            b"CPU:1 [LOST 12 EVENTS]",
            b"",
        ] {
            assert_eq!(parse_line(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    fn read(lines: &str, devices: Vec<(u32, u32)>) -> (Vec<RawEvent>, Vec<String>) {
        let mut r = LineReader::new(devices);
        let mut buf = lines.as_bytes().to_vec();
        buf.resize(buf.len() + 16, 0);
        let len = lines.len();
        let tail = r.consume(&mut buf, len);
        assert_eq!(tail, 0);
        r.into_parts()
    }

    #[test]
    fn completions_pair_with_issues_and_flush_ends_are_not_requests() {
        let (events, tasks) = read(CAPTURED, vec![(7, 0)]);
        assert_eq!(tasks, ["dd", "kworker/0:1H", "blkdiscard"]);
        let origin = 532_000_000_000;
        let rs = assemble(&events, &[(origin, origin + 10_000_000_000)], origin);
        assert_eq!(rs.len(), 5);
        let us = |r: &Request| (r.issue_ns / 1000, r.latency_ns().map(|l| l / 1000));
        assert_eq!(us(&rs[0]), (568_597, Some(91)));
        assert_eq!(
            (rs[1].op, rs[1].sector, rs[1].bytes, rs[1].task),
            (Op::Flush, 0, 0, 1)
        );
        assert_eq!(us(&rs[1]), (568_705, Some(804)));
        assert_eq!((rs[2].sector, us(&rs[2])), (8, (569_666, Some(24))));
        assert_eq!(
            (rs[3].op, rs[3].bytes, us(&rs[3])),
            (Op::Read, 16384, (574_216, Some(63)))
        );
        assert_eq!(rs[4].complete_ns, NO_COMPLETION);
        assert!(rs[4].flags.has(Flags::READAHEAD));
    }

    #[test]
    fn pairing_is_fifo_per_sector_and_requeues_keep_the_last_issue() {
        let line = |ts: u32, ev: &str, rest: &str| {
            format!("t-1 [000] ..... 1.{ts:06}: block_rq_{ev}: 8,0 {rest}\n")
        };
        let text = [
            line(1, "issue", "W 4096 () 100 + 8 [a]"),
            line(2, "issue", "W 4096 () 100 + 8 [b]"),
            line(3, "issue", "R 4096 () 200 + 8 [a]"),
            line(4, "requeue", "R () 200 + 8 [0]"),
            line(5, "issue", "R 4096 () 200 + 8 [a]"),
            line(6, "complete", "W () 100 + 8 [0]"),
            line(7, "complete", "R () 200 + 8 [0]"),
            line(8, "complete", "W () 100 + 8 [0]"),
            line(9, "complete", "W () 300 + 8 [0]"),
            line(10, "issue", "W 4096 () 400 + 8 [a]"),
        ]
        .concat();
        let (events, _) = read(&text, vec![(8, 0)]);
        let s = 1_000_000_000;
        // The last issue is after the window's end.
        let rs = assemble(&events, &[(s, s + 9_500)], s);
        let got: Vec<(u64, u64, u16)> = rs
            .iter()
            .map(|r| (r.issue_ns, r.complete_ns, r.task))
            .collect();
        assert_eq!(got, [(1000, 6000, 0), (2000, 8000, 1), (5000, 7000, 0)]);
    }

    #[test]
    fn a_kept_event_is_small() {
        assert_eq!(std::mem::size_of::<RawEvent>(), 32);
    }

    #[test]
    fn phases_are_found_by_issue_time() {
        let w = [(10, 20), (30, 40)];
        assert_eq!(phase_of(5, &w), None);
        assert_eq!(phase_of(10, &w), Some(0));
        assert_eq!(phase_of(20, &w), None);
        assert_eq!(phase_of(39, &w), Some(1));
        assert_eq!(phase_of(40, &w), None);
    }

    #[test]
    fn timestamps_and_instance_names() {
        assert_eq!(parse_timestamp(b"532.568597:"), Some(532_568_597_000));
        assert_eq!(parse_timestamp(b"1.5"), Some(1_500_000_000));
        assert_eq!(parse_timestamp(b"7"), Some(7_000_000_000));
        assert_eq!(parse_timestamp(b"1.0000000001"), None);
        assert_eq!(parse_timestamp(b"x.1"), None);
        assert_eq!(instance_pid("drivebench-4242"), Some(4242));
        assert_eq!(instance_pid("drivebench-4242-3"), Some(4242));
        assert_eq!(instance_pid("drivebench-x"), None);
        assert_eq!(instance_pid("other-1"), None);
    }

    #[test]
    fn a_partial_line_waits_for_its_end() {
        let mut r = LineReader::new(vec![(7, 0)]);
        let first = CAPTURED.lines().next().unwrap();
        let mut buf = vec![0u8; 4096];
        let (a, b) = first.split_at(40);
        buf[..a.len()].copy_from_slice(a.as_bytes());
        let tail = r.consume(&mut buf, a.len());
        assert_eq!(tail, a.len());
        buf[tail..tail + b.len()].copy_from_slice(b.as_bytes());
        buf[tail + b.len()] = b'\n';
        assert_eq!(r.consume(&mut buf, tail + b.len() + 1), 0);
        assert_eq!(r.into_parts().0.len(), 1);
    }

    #[test]
    fn the_filter_names_kernel_dev_t() {
        let d = |major, minor| CapturedDevice {
            name: String::new(),
            major,
            minor,
            logical_block_bytes: 512,
            size_bytes: 0,
        };
        assert_eq!(
            dev_filter(&[d(7, 0), d(259, 3)]),
            "dev == 7340032 || dev == 271581187"
        );
    }
}
