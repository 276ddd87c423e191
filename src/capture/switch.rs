//! The trace instance's on/off switch (`tracing_on`), shared by the run and the reader thread.
//!
//! A phase's end must not stop recording at once: the requests in flight then complete later,
//! and their completions belong in the trace. So the run only sets a deadline
//! ([`Switch::off_after`]) and goes on without waiting; the reader thread, which wakes at least
//! every poll interval, switches tracing off once the deadline has passed ([`Switch::poll`]).
//! A phase that begins before then clears the deadline, so back-to-back captured phases are
//! recorded without a gap. One lock orders the writes, so a late switch-off never lands after
//! a new phase switched tracing on.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::{CaptureError, io};

/// `tracing_on` of one instance, and when it is due to go off.
#[derive(Debug)]
pub struct Switch {
    path: PathBuf,
    /// CLOCK_MONOTONIC ns after which tracing goes off; `None` while it stays as it is.
    off_at: Mutex<Option<u64>>,
}

impl Switch {
    /// The switch of the instance whose `tracing_on` file is `path`.
    pub fn new(path: PathBuf) -> Switch {
        Switch {
            path,
            off_at: Mutex::new(None),
        }
    }

    /// Tracing on now; a pending switch-off is cancelled.
    pub fn on(&self) -> Result<(), CaptureError> {
        let mut off_at = self.lock();
        *off_at = None;
        write_file(&self.path, "1")
    }

    /// Tracing off now.
    pub fn off(&self) -> Result<(), CaptureError> {
        let mut off_at = self.lock();
        *off_at = None;
        write_file(&self.path, "0")
    }

    /// Tracing off once CLOCK_MONOTONIC passes `deadline_ns` (by [`Switch::poll`]).
    pub fn off_after(&self, deadline_ns: u64) {
        *self.lock() = Some(deadline_ns);
    }

    /// When the switch-off is due, if one is.
    pub fn due(&self) -> Option<u64> {
        *self.lock()
    }

    /// Switch off if the deadline has passed at `now_ns`; whether it did.
    pub fn poll(&self, now_ns: u64) -> Result<bool, CaptureError> {
        let mut off_at = self.lock();
        match *off_at {
            Some(deadline) if now_ns >= deadline => {
                *off_at = None;
                write_file(&self.path, "0").map(|()| true)
            }
            _ => Ok(false),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<u64>> {
        // A panic while holding the lock leaves a plain value behind: still usable.
        self.off_at.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Write a control file of tracefs (or sysfs) the way `echo VALUE > FILE` does.
pub(super) fn write_file(path: &Path, value: &str) -> Result<(), CaptureError> {
    use std::io::Write;
    let mut file = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .map_err(io("open", path))?;
    file.write_all(value.as_bytes()).map_err(io("write", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(dir: &tempfile::TempDir) -> String {
        std::fs::read_to_string(dir.path().join("tracing_on")).unwrap()
    }

    #[test]
    fn a_due_switch_off_happens_once_and_a_new_phase_cancels_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tracing_on"), "0").unwrap();
        let s = Switch::new(dir.path().join("tracing_on"));
        s.on().unwrap();
        assert_eq!(state(&dir), "1");
        s.off_after(100);
        assert!(!s.poll(99).unwrap());
        assert_eq!(state(&dir), "1");
        assert!(s.poll(100).unwrap());
        assert_eq!(state(&dir), "0");
        assert!(!s.poll(200).unwrap(), "already off");
        s.off_after(300);
        s.on().unwrap();
        assert_eq!(s.due(), None);
        assert!(!s.poll(400).unwrap());
        assert_eq!(state(&dir), "1");
        s.off().unwrap();
        assert_eq!(state(&dir), "0");
    }
}
