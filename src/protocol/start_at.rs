//! The phase clock's start: at once, or at `--start-at` so that several hosts' runs start their
//! phases together (`drivebench merge` aligns them afterwards). Loading and connecting happen
//! before; a host that is ready waits, a host that is not starts at once and records how late.

use std::time::{Duration, SystemTime};

use super::{Ending, RunCtx};
use crate::config::units::{format_seconds, format_utc_ms};
use crate::telemetry::clock::{ClockReport, ClockState, StartAtReport};

/// Wait for the run's start instant, if any (`Ending::Interrupted` when cancelled while
/// waiting). What is returned completes the clock record once the phases start ([`started`]).
pub async fn wait(ctx: &RunCtx<'_>) -> Result<Waited, Ending> {
    let state = ClockState::read();
    let Some(at) = ctx.start_at else {
        return Ok(Waited { state, at: None });
    };
    let requested = format_utc_ms(at);
    match at.duration_since(SystemTime::now()) {
        Ok(wait) => {
            ctx.console.always(&format!(
                "ready; the phases start at {requested} (in {})",
                format_seconds(wait.as_secs_f64())
            ));
            tokio::select! {
                _ = sleep_until(at) => {}
                _ = ctx.cancel.cancelled() => return Err(Ending::Interrupted),
            }
        }
        Err(late) => ctx.console.always(&format!(
            "not ready by --start-at {requested}: the phases start {} late",
            format_seconds(late.duration().as_secs_f64())
        )),
    }
    Ok(Waited {
        state,
        at: Some(at),
    })
}

/// What [`wait`] found before the clock started.
pub struct Waited {
    state: ClockState,
    at: Option<SystemTime>,
}

/// The clock record of phases that started now.
pub fn started(w: Waited) -> ClockReport {
    let now = SystemTime::now();
    ClockReport {
        phases_started_at: format_utc_ms(now),
        start_at: w.at.map(|at| StartAtReport {
            requested: format_utc_ms(at),
            late_by_s: now
                .duration_since(at)
                .map_or(0.0, |late| late.as_secs_f64()),
        }),
        state: w.state,
    }
}

/// Sleep until a wall-clock instant: in steps, so a clock stepped meanwhile is followed.
async fn sleep_until(at: SystemTime) {
    while let Ok(left) = at.duration_since(SystemTime::now()) {
        tokio::time::sleep(left.min(Duration::from_secs(1))).await;
    }
}
