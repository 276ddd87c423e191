//! The run's block I/O capture (`[capture]`, `--capture`): the tracer starts once the instances
//! run, on the physical members of the target's device stack (the devices telemetry reads); it
//! is switched on for each captured phase and off after it; when the phases are over, and
//! before the instances stop (their files must still be there), the instances' files are
//! mapped to device extents, every request is tagged with its file class, and `capture/` is
//! written. An interrupted or failed run keeps what was captured up to then.

use std::path::{Path, PathBuf};

use crate::capture::trace::Tracer;
use crate::capture::{CaptureError, CaptureSummary, CapturedDevice};
use crate::scenario::capture::PlanCapture;
use drivebench_system::telemetry::Devices;

/// The directory of a run directory that holds the capture.
pub const CAPTURE_DIR: &str = "capture";

/// Whether the run captures, and its tracer while it does.
#[derive(Default)]
pub enum Capture {
    /// No capture asked for, or it is over.
    #[default]
    Off,
    /// Tracing the devices; on only during the captured phases.
    Tracing(Box<Session>),
}

/// A capture in progress.
pub struct Session {
    tracer: Tracer,
    plan: PlanCapture,
    /// Whether the current phase is being captured.
    on: bool,
    /// Tracing that could not be switched on or off, for the run's warnings.
    problems: Vec<String>,
}

/// The devices a capture of `target` traces: the physical members of its stack.
pub fn devices_of(devices: &Devices, target: &Path) -> Result<Vec<CapturedDevice>, CaptureError> {
    let Some(stack) = devices.stack() else {
        return Err(CaptureError::NoBlockDevice {
            path: target.to_path_buf(),
        });
    };
    stack
        .members()
        .map(|m| {
            let device = crate::capture::trace::device(m.major, m.minor)?;
            crate::capture::traceable(&device)?;
            Ok(device)
        })
        .collect()
}

impl Capture {
    /// Start tracing `devices` (off until the first captured phase begins).
    pub fn start(
        plan: &PlanCapture,
        devices: Vec<CapturedDevice>,
    ) -> Result<Capture, CaptureError> {
        crate::capture::trace::clean_orphans();
        let tracer = Tracer::start(devices)?;
        Ok(Capture::Tracing(Box::new(Session {
            tracer,
            plan: plan.clone(),
            on: false,
            problems: Vec::new(),
        })))
    }

    /// A phase begins: tracing on when it is captured.
    pub fn phase_begins(&mut self, name: &str) {
        if let Capture::Tracing(s) = self
            && s.plan.covers(name)
        {
            match s.tracer.begin_phase(name) {
                Ok(()) => s.on = true,
                Err(e) => s
                    .problems
                    .push(format!("capture of {name} did not start: {e}")),
            }
        }
    }

    /// The current phase ended: tracing off once its requests in flight completed (without
    /// waiting for that: the clients go on into the next phase).
    pub fn phase_ends(&mut self) {
        if let Capture::Tracing(s) = self
            && s.on
        {
            s.tracer.end_phase();
            s.on = false;
        }
    }

    /// Stop tracing, tag the requests with the files under `instance_dirs`, and write
    /// `capture/` in `run_dir`: its summary and the problems met on the way. `None` when the
    /// run did not capture.
    pub fn finish(
        &mut self,
        instance_dirs: &[PathBuf],
        run_dir: &Path,
    ) -> Result<Option<(CaptureSummary, Vec<String>)>, CaptureError> {
        let Capture::Tracing(session) = std::mem::take(self) else {
            return Ok(None);
        };
        let Session {
            tracer, problems, ..
        } = *session;
        let (meta, requests) = tracer.finish()?;
        let summary = crate::capture::write_capture(
            &run_dir.join(CAPTURE_DIR),
            meta,
            requests,
            instance_dirs,
        )?;
        Ok(Some((summary, problems)))
    }
}

/// Finish the run's capture after the phases (whatever their ending): `capture/` written and
/// its summary in the report. An ending to report when the capture could not be written.
pub fn finish(
    plan: crate::scenario::plan::DbPlan<'_>,
    ctx: &mut super::RunCtx<'_>,
) -> Option<super::Ending> {
    let dirs: Vec<PathBuf> = plan
        .db
        .instances
        .iter()
        .map(|i| Path::new(plan.target_path()).join(&i.name))
        .collect();
    let run_dir = ctx.dir.path.clone();
    match ctx.capture.finish(&dirs, &run_dir) {
        Ok(None) => None,
        Ok(Some((summary, problems))) => {
            ctx.console.always(&format!("capture: {}", summary.line()));
            ctx.report.warnings.extend(problems);
            ctx.report.capture = Some(summary);
            ctx.dir
                .write_result(ctx.report)
                .err()
                .map(|e| super::Ending::failed(super::Stage::Results, e))
        }
        Err(e) => Some(super::Ending::failed(super::Stage::Capture, e)),
    }
}
