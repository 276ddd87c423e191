//! Live output on stderr: a sysbench-like line per report interval, and progress bars with ETA
//! for the load and the phases (only on a terminal, and never with `--quiet`). Lines also go
//! to the run's log file through `tracing`, the closing ones (error, interruption, summary)
//! included.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::units::format_duration;
use crate::metrics::summary::Summary;

/// Write a line to stderr, ignoring failure: a run whose terminal went away (SIGHUP, a dropped
/// SSH session) must still stop its servers and write its results, which `eprintln!` would
/// prevent by panicking.
pub fn stderr_line(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// A closing line on stderr (the fatal error, "interrupted ..."), also written to the run's log
/// as shown, so drivebench.log ends the way the terminal did.
pub fn closing_line(text: &str) {
    tracing::info!("{text}");
    stderr_line(text);
}

/// Closing text on stdout (the final summary, where the results are), also written to the
/// run's log as shown.
pub fn closing_text(text: &str) {
    tracing::info!("{}", text.trim());
    stdout_text(text);
}

/// Write text to stdout, ignoring failure (see [`stderr_line`]).
pub fn stdout_text(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

pub struct Console {
    quiet: bool,
    bars: Option<MultiProgress>,
}

impl Console {
    pub fn new(quiet: bool) -> Self {
        let bars = (!quiet && std::io::stderr().is_terminal())
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Console { quiet, bars }
    }

    /// A line for the user (stderr, above any bar) and the log file.
    pub fn line(&self, text: &str) {
        tracing::info!("{text}");
        if self.quiet {
            return;
        }
        match &self.bars {
            Some(m) => {
                let _ = m.println(text);
            }
            None => stderr_line(text),
        }
    }

    /// A line that must reach the user even with `--quiet` (e.g. how to reach a server left running).
    pub fn always(&self, text: &str) {
        tracing::info!("{text}");
        match &self.bars {
            Some(m) => {
                let _ = m.println(text);
            }
            None => stderr_line(text),
        }
    }

    fn bar(&self, total: u64, template: &str) -> Option<ProgressBar> {
        let m = self.bars.as_ref()?;
        let style = ProgressStyle::with_template(template)
            .ok()?
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&per_second(s.per_sec()));
                },
            )
            .progress_chars("=> ");
        let bar = m.add(ProgressBar::new(total).with_style(style));
        bar.enable_steady_tick(Duration::from_millis(250));
        Some(bar)
    }

    /// Rows loaded so far, with rows/s and ETA.
    pub fn load_bar(&self, rows: u64) -> Option<ProgressBar> {
        self.bar(
            rows,
            "load  [{bar:30}] {human_pos}/{human_len} rows {rate} ETA {eta}",
        )
    }

    /// Bytes written by a long precondition (the sweep fill), with the rate and ETA.
    pub fn bytes_bar(&self, bytes: u64) -> Option<ProgressBar> {
        self.bar(
            bytes,
            "fill  [{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta}",
        )
    }

    /// A phase's progress, advancing on its own from `started` until finished.
    pub fn phase_bar(
        &self,
        name: &str,
        ms: u64,
        started: tokio::time::Instant,
    ) -> Option<PhaseBar> {
        let bar = self.bar(ms, "{prefix:12} [{bar:30}] {msg}")?;
        bar.set_prefix(name.to_string());
        let b = bar.clone();
        let total = Duration::from_millis(ms);
        let ticker = tokio::spawn(async move {
            loop {
                let done = started.elapsed().min(total);
                b.set_position(done.as_millis() as u64);
                b.set_message(format!(
                    "{} of {}, {} left",
                    format_duration(Duration::from_secs(done.as_secs())),
                    format_duration(total),
                    format_duration(Duration::from_secs(
                        (total - done).as_secs_f64().ceil() as u64
                    ))
                ));
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
        Some(PhaseBar { bar, ticker })
    }
}

/// A phase's progress bar and the task that advances it.
pub struct PhaseBar {
    bar: ProgressBar,
    ticker: tokio::task::JoinHandle<()>,
}

impl PhaseBar {
    pub fn finish(self) {
        self.ticker.abort();
        self.bar.finish_and_clear();
    }
}

/// A rate in whole units per second with thousands separators: "252,714/s" (indicatif's own
/// `{per_sec}` shows four decimals).
fn per_second(rate: f64) -> String {
    let whole = if rate.is_finite() && rate > 0.0 {
        rate.round() as u64
    } else {
        0
    };
    format!("{}/s", crate::config::units::format_count(whole))
}

/// `[ 10s ] sample thds: 8 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,avg/p99): 6.48/12.30 err/s: 0.00`
pub fn interval_line(
    elapsed_s: f64,
    phase: &str,
    instances: usize,
    clients: u32,
    s: &Summary,
) -> String {
    let secs = s.seconds.max(1e-9);
    let mut line = format!(
        "[ {}s ] {phase} thds: {}",
        fmt_elapsed(elapsed_s),
        clients as usize * instances
    );
    if instances > 1 {
        line.push_str(&format!(" inst: {instances}"));
    }
    line.push_str(&format!(
        " tps: {:.2} qps: {:.2} (r/w/o: {:.2}/{:.2}/{:.2}) lat (ms,avg/p99): {:.2}/{:.2} err/s: {:.2}",
        s.tps,
        s.qps,
        s.queries.reads as f64 / secs,
        s.queries.writes as f64 / secs,
        s.queries.other as f64 / secs,
        s.latency_ms.avg,
        s.latency_ms.p99,
        s.errors_per_s
    ));
    if s.late_starts > 0 {
        line.push_str(&format!(
            " late: {} (max lag {:.1} ms)",
            s.late_starts, s.max_start_lag_ms
        ));
    }
    line
}

fn fmt_elapsed(s: f64) -> String {
    if (s - s.round()).abs() < 0.05 {
        format!("{}", s.round() as u64)
    } else {
        format!("{s:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Recorded;
    use crate::metrics::StatementCounts;

    #[test]
    fn progress_rates_are_whole_numbers() {
        // issue 24: the load bar showed "252,713.9677/s".
        assert_eq!(per_second(252_713.967_7), "252,714/s");
        assert_eq!(per_second(0.4), "0/s");
        assert_eq!(per_second(f64::NAN), "0/s");
    }

    #[test]
    fn the_interval_line_reads_like_sysbench() {
        let mut r = Recorded::new(1);
        for _ in 0..10 {
            r.record(
                0,
                Duration::from_millis(5),
                Duration::from_millis(5),
                StatementCounts {
                    reads: 14,
                    writes: 4,
                    other: 2,
                    rolled_back: false,
                    skipped: 0,
                },
                0,
            );
        }
        let s = Summary::from_recorded(&r, &["event"], 1.0);
        let line = interval_line(10.0, "sample", 1, 8, &s);
        assert_eq!(
            line,
            "[ 10s ] sample thds: 8 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) lat (ms,avg/p99): 5.00/5.00 err/s: 0.00"
        );
    }
}
