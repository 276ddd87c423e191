//! Logging: warnings and errors on stderr (or as `RUST_LOG` says), and everything from `info`
//! up into the run directory's log file once it exists.

use std::fs::File;
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

static LOG_FILE: OnceLock<Mutex<Option<File>>> = OnceLock::new();

fn slot() -> &'static Mutex<Option<File>> {
    LOG_FILE.get_or_init(|| Mutex::new(None))
}

/// Send log records to `file` from now on.
pub fn set_log_file(file: File) {
    *slot().lock().unwrap_or_else(|p| p.into_inner()) = Some(file);
}

#[derive(Clone, Copy)]
struct FileWriter;

impl Write for FileWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match slot().lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            Some(f) => f.write(buf),
            None => Ok(buf.len()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match slot().lock().unwrap_or_else(|p| p.into_inner()).as_mut() {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl<'a> MakeWriter<'a> for FileWriter {
    type Writer = FileWriter;
    fn make_writer(&'a self) -> Self::Writer {
        FileWriter
    }
}

/// Install the subscriber (once per process; later calls do nothing).
pub fn init() {
    let stderr_filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_filter(stderr_filter);
    let file = tracing_subscriber::fmt::layer()
        .with_writer(FileWriter)
        .with_ansi(false)
        .with_target(false)
        .with_filter(EnvFilter::new("info"));
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
}
