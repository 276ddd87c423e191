//! The stop signals of a run: the first cancels it, the second aborts it at once.

/// The signals that end a run the way Ctrl-C does: SIGINT (Ctrl-C), SIGTERM (`kill`, `timeout`,
/// a cancelled CI job) and SIGHUP (a dropped SSH session or closed terminal).
const STOP_SIGNALS: [(tokio::signal::unix::SignalKind, &str); 3] = [
    (tokio::signal::unix::SignalKind::interrupt(), "SIGINT"),
    (tokio::signal::unix::SignalKind::terminate(), "SIGTERM"),
    (tokio::signal::unix::SignalKind::hangup(), "SIGHUP"),
];

/// What a second stop signal does besides killing the servers and exiting.
pub(super) enum OnAbort {
    /// Mark the run directory's result.json interrupted and write its summary.
    CloseResults(std::path::PathBuf),
    /// Nothing more (`up`: no results).
    Exit,
}

/// First stop signal (SIGINT, SIGTERM or SIGHUP): cancel the run (`what` says what stops) so
/// partial results are written and the servers we started are stopped; second: kill the
/// servers we started (when `kill_servers`), do `on_abort`, and exit with `abort_exit`.
pub(super) fn stop_on_signal(
    cancel: tokio_util::sync::CancellationToken,
    what: &'static str,
    kill_servers: bool,
    on_abort: OnAbort,
    abort_exit: i32,
) -> tokio::task::JoinHandle<()> {
    // Installed before the task starts, so a signal that arrives right after this call is seen.
    let streams: Vec<_> = STOP_SIGNALS
        .iter()
        .filter_map(|&(kind, name)| match tokio::signal::unix::signal(kind) {
            Ok(s) => Some((s, name)),
            Err(e) => {
                tracing::warn!("cannot listen for {name}: {e}");
                None
            }
        })
        .collect();
    tokio::spawn(async move {
        let mut streams = streams;
        let Some(name) = next_signal(&mut streams).await else {
            return;
        };
        crate::console::closing_line(&format!(
            "interrupted ({name}): {what} and writing partial results (again to abort at once)"
        ));
        cancel.cancel();
        if let Some(second) = next_signal(&mut streams).await {
            abort(second, kill_servers, &on_abort, abort_exit);
        }
    })
}

/// Stop at once on a second signal: servers killed, the results closed as far as they got.
fn abort(signal: &str, kill_servers: bool, on_abort: &OnAbort, exit: i32) -> ! {
    crate::capture::switch_off_own();
    drivebench_system::target::device_state::unmount_all_registered();
    let why = if kill_servers {
        crate::engines::server::kill_all_registered();
        format!(
            "aborted by a second {signal}: the private servers were killed without a clean shutdown; \
             the data they left on the target may be incomplete (reload it with --set workload.prepare=always)"
        )
    } else {
        format!("aborted by a second {signal}")
    };
    match on_abort {
        OnAbort::CloseResults(run_dir) => {
            if let Err(e) = crate::report::close_aborted(run_dir, &why) {
                crate::console::stderr_line(&format!("error: closing the results: {e}"));
            }
            crate::console::stderr_line(&format!("{why}; results in {}", run_dir.display()));
        }
        OnAbort::Exit => crate::console::stderr_line(&why),
    }
    std::process::exit(exit);
}

/// The name of the next signal that arrives on any of `streams`; `None` if none can arrive.
async fn next_signal(
    streams: &mut [(tokio::signal::unix::Signal, &'static str)],
) -> Option<&'static str> {
    if streams.is_empty() {
        return None;
    }
    let waits = streams.iter_mut().map(|(s, name)| {
        let name: &'static str = name;
        Box::pin(async move { s.recv().await.map(|()| name) })
    });
    futures_util::future::select_all(waits).await.0
}
