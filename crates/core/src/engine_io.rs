//! An engine's own account of its I/O: the cumulative counters it keeps (log flushes, data
//! reads and writes, background writes, and the time spent in them where it times them), the
//! figures of an interval between two readings, per second and per transaction, and the
//! judgement of which I/O class a drive-bound interval waited on.
//!
//! Each engine reads its counters from its own views (InnoDB's status and performance_schema,
//! PostgreSQL's statistics views, SQL Server's DMVs, drivebench's timing of SQLite's syncs);
//! this module only does arithmetic on them, so every engine is judged by the same rules.
//!
//! The classes and the rule (the first that holds decides):
//!
//! 1. **log flushes** and **data reads** are foreground I/O: a transaction waits for them.
//!    Each gets a time per transaction: its requests per transaction times the time of one
//!    request, the engine's own mean when it times them, otherwise the drive's await for that
//!    kind of request. A commit waits for a whole log flush even when one flush serves several
//!    commits (group commit), so log flushes count at least one per commit. The larger decides, if it
//!    is at least [`MIN_CLASS_MS_PER_TXN`] and at least [`MIN_CLASS_SHARE_PCT`] of the
//!    transaction latency.
//! 2. **by elimination**, when neither foreground class was timed by the engine (so rule 1
//!    priced them at the drive's await, which does not show a delay the kernel adds above the
//!    device, such as a cgroup's throttle): the one foreground class the transactions issue
//!    decides. Log flushes when there are at least [`MIN_ELIMINATION_PER_TXN`] per commit and
//!    fewer data reads than that per transaction; data reads when there are at least that many
//!    per transaction and fewer log flushes than that per commit (a read-only workload flushes
//!    none). The text says that the class was found by elimination, untimed.
//! 3. **background writes** (checkpoints, page cleaners, the background writer) when neither
//!    foreground class decides and the engine wrote at least [`MIN_BACKGROUND_MIB_S`] in the
//!    background, or its clients waited for free pages: the drive is busy with writes no
//!    transaction waits for directly, and they slow the reads and flushes that are waited for.
//! 4. none otherwise: the interval's engine figures do not say which class.

use serde::{Deserialize, Serialize};

/// Foreground I/O time per transaction, ms, from which a class can decide: below it the
/// transaction hardly waits for that class on any drive.
pub const MIN_CLASS_MS_PER_TXN: f64 = 0.05;

/// Share of the mean transaction latency, %, a foreground class must reach to decide: a tenth
/// of the time waiting on one class is what a faster drive for that class would give back.
pub const MIN_CLASS_SHARE_PCT: f64 = 10.0;

/// Requests per commit (log flushes) or per transaction (data reads) from which a foreground
/// class counts as issued, for rule 2: below it the transactions hardly issue that class.
pub const MIN_ELIMINATION_PER_TXN: f64 = 0.1;

/// Background write rate, MiB/s, from which background writes can decide.
pub const MIN_BACKGROUND_MIB_S: f64 = 1.0;

/// Cumulative counters read at one instant; None where the engine, its version or its
/// settings do not count it. Times are microseconds, sizes bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EngineIoCounters {
    /// Writes to the log (WAL, redo log, transaction log).
    pub log_writes: Option<u64>,
    pub log_bytes: Option<u64>,
    /// Syncs of the log to stable storage (fsync, fdatasync, FUA writes).
    pub log_flushes: Option<u64>,
    /// Time spent in log flushes (or waiting for them), µs.
    pub log_flush_us: Option<u64>,
    /// Reads of data pages from the drive (buffer misses).
    pub data_reads: Option<u64>,
    pub data_read_bytes: Option<u64>,
    pub data_read_us: Option<u64>,
    /// Page requests, hits and misses (logical reads).
    pub data_read_requests: Option<u64>,
    /// Writes of data pages, whoever wrote them.
    pub data_writes: Option<u64>,
    pub data_write_bytes: Option<u64>,
    pub data_write_us: Option<u64>,
    /// Syncs of data files.
    pub data_flushes: Option<u64>,
    /// Bytes written by checkpoints, page cleaners and background writers.
    pub background_write_bytes: Option<u64>,
    /// Times a client waited for a free page.
    pub free_page_waits: Option<u64>,
    /// Gauges at the instant: I/Os the engine has pending, and how far its checkpoint lags.
    pub pending_io: Option<u64>,
    pub checkpoint_age_bytes: Option<u64>,
    /// Time sessions spent waiting for log flushes (SQL Server's WRITELOG waits), µs: where an
    /// engine counts it, the transactions' own wait, which `log_flush_us` (the device's time,
    /// shared by a group commit) only approximates.
    pub log_wait_us: Option<u64>,
    /// Time sessions spent waiting for data pages to be read (PAGEIOLATCH waits), µs.
    pub data_read_wait_us: Option<u64>,
}

impl EngineIoCounters {
    /// The counters by the names the engines' queries give them (the field names); the engine
    /// readers map each row `(name, value)` through this.
    pub const NAMES: [&'static str; 18] = [
        "log_writes",
        "log_bytes",
        "log_flushes",
        "log_flush_us",
        "data_reads",
        "data_read_bytes",
        "data_read_us",
        "data_read_requests",
        "data_writes",
        "data_write_bytes",
        "data_write_us",
        "data_flushes",
        "background_write_bytes",
        "free_page_waits",
        "pending_io",
        "checkpoint_age_bytes",
        "log_wait_us",
        "data_read_wait_us",
    ];

    /// Add `value` to the counter `name` (several rows may add to one: two files, two views);
    /// false for a name that is not a counter.
    pub fn add(&mut self, name: &str, value: u64) -> bool {
        let Some(slot) = self.slot(name) else {
            return false;
        };
        *slot = Some(slot.unwrap_or(0).saturating_add(value));
        true
    }

    fn slot(&mut self, name: &str) -> Option<&mut Option<u64>> {
        Some(match name {
            "log_writes" => &mut self.log_writes,
            "log_bytes" => &mut self.log_bytes,
            "log_flushes" => &mut self.log_flushes,
            "log_flush_us" => &mut self.log_flush_us,
            "data_reads" => &mut self.data_reads,
            "data_read_bytes" => &mut self.data_read_bytes,
            "data_read_us" => &mut self.data_read_us,
            "data_read_requests" => &mut self.data_read_requests,
            "data_writes" => &mut self.data_writes,
            "data_write_bytes" => &mut self.data_write_bytes,
            "data_write_us" => &mut self.data_write_us,
            "data_flushes" => &mut self.data_flushes,
            "background_write_bytes" => &mut self.background_write_bytes,
            "free_page_waits" => &mut self.free_page_waits,
            "pending_io" => &mut self.pending_io,
            "checkpoint_age_bytes" => &mut self.checkpoint_age_bytes,
            "log_wait_us" => &mut self.log_wait_us,
            "data_read_wait_us" => &mut self.data_read_wait_us,
            _ => return None,
        })
    }

    /// The sum of several instances' counters: a counter is known when every instance knows it.
    pub fn sum<'a>(all: impl IntoIterator<Item = &'a EngineIoCounters>) -> EngineIoCounters {
        let mut out: Option<EngineIoCounters> = None;
        for c in all {
            let Some(acc) = out.as_mut() else {
                out = Some(c.clone());
                continue;
            };
            let mut other = c.clone();
            for name in Self::NAMES {
                let theirs = *other.slot(name).expect("a name of NAMES");
                let mine = acc.slot(name).expect("a name of NAMES");
                *mine = mine.zip(theirs).map(|(a, b)| a.saturating_add(b));
            }
        }
        out.unwrap_or_default()
    }
}

/// What a reading holds: the counters and the names of what the engine could not tell.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EngineIoReading {
    pub counters: EngineIoCounters,
    /// e.g. "pg_stat_io (PostgreSQL 16 and later)": a view or setting that was missing.
    pub missing: Vec<String>,
}

/// What the clients did in the interval, to put the engine's figures per transaction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientWork {
    pub seconds: f64,
    pub transactions: u64,
    /// Committed transactions that wrote (a read-only transaction flushes no log).
    pub commits: u64,
    /// Mean transaction latency, ms.
    pub mean_latency_ms: f64,
}

/// The drive's await over the interval, ms per request, for the fallback of rule 1.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DriveAwait {
    pub read_ms: Option<f64>,
    pub write_ms: Option<f64>,
}

/// An interval's engine I/O figures; None where a counter is missing at either end (or the
/// denominator is zero).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EngineIoFigures {
    pub log_flushes_per_s: Option<f64>,
    pub log_flushes_per_commit: Option<f64>,
    /// Mean time of one log flush, ms.
    pub log_flush_ms: Option<f64>,
    pub log_mib_s: Option<f64>,
    pub data_reads_per_s: Option<f64>,
    pub data_reads_per_txn: Option<f64>,
    /// Mean time of one data read, ms.
    pub data_read_ms: Option<f64>,
    /// Page requests served from memory, %.
    pub buffer_hit_pct: Option<f64>,
    pub data_writes_per_s: Option<f64>,
    pub data_write_mib_s: Option<f64>,
    pub data_write_ms: Option<f64>,
    pub background_write_mib_s: Option<f64>,
    pub free_page_waits_per_s: Option<f64>,
    /// Gauges at the interval's end.
    pub pending_io: Option<u64>,
    pub checkpoint_age_mib: Option<f64>,
    /// Share of the clients' transaction time the engine spent in log flushes, %: the
    /// sessions' waits where the engine counts them, else the flushes' time.
    pub log_wait_share_pct: Option<f64>,
    /// Share of the clients' transaction time the engine spent reading data pages, %: the
    /// sessions' waits where the engine counts them, else the reads' time.
    pub data_read_wait_share_pct: Option<f64>,
}

const MIB: f64 = 1024.0 * 1024.0;

fn delta(a: Option<u64>, b: Option<u64>) -> Option<f64> {
    Some(b?.checked_sub(a?)? as f64)
}

/// A wait counter's delta in ms.
fn waited(us: Option<f64>) -> Option<f64> {
    us.map(|us| us / 1000.0)
}

fn ratio(n: Option<f64>, d: f64) -> Option<f64> {
    (d > 0.0).then_some(n? / d)
}

fn per(n: Option<f64>, d: Option<f64>) -> Option<f64> {
    let d = d.filter(|d| *d > 0.0)?;
    Some(n? / d)
}

impl EngineIoFigures {
    /// The figures between `before` and `after` for the clients' `work`.
    pub fn between(before: &EngineIoCounters, after: &EngineIoCounters, work: ClientWork) -> Self {
        let d = |f: fn(&EngineIoCounters) -> Option<u64>| delta(f(before), f(after));
        let secs = work.seconds;
        let txns = work.transactions as f64;
        let busy_ms = txns * work.mean_latency_ms;
        let flushes = d(|c| c.log_flushes);
        let flush_ms = d(|c| c.log_flush_us).map(|us| us / 1000.0);
        let reads = d(|c| c.data_reads);
        let read_ms = d(|c| c.data_read_us).map(|us| us / 1000.0);
        let requests = d(|c| c.data_read_requests);
        let writes = d(|c| c.data_writes);
        let share = |ms: Option<f64>| ratio(ms, busy_ms).map(|r| r * 100.0);
        EngineIoFigures {
            log_flushes_per_s: ratio(flushes, secs),
            log_flushes_per_commit: ratio(flushes, work.commits as f64),
            log_flush_ms: per(flush_ms, flushes),
            log_mib_s: ratio(d(|c| c.log_bytes), secs).map(|b| b / MIB),
            data_reads_per_s: ratio(reads, secs),
            data_reads_per_txn: ratio(reads, txns),
            data_read_ms: per(read_ms, reads),
            buffer_hit_pct: per(reads, requests).map(|miss| (1.0 - miss).max(0.0) * 100.0),
            data_writes_per_s: ratio(writes, secs),
            data_write_mib_s: ratio(d(|c| c.data_write_bytes), secs).map(|b| b / MIB),
            data_write_ms: per(d(|c| c.data_write_us).map(|us| us / 1000.0), writes),
            background_write_mib_s: ratio(d(|c| c.background_write_bytes), secs).map(|b| b / MIB),
            free_page_waits_per_s: ratio(d(|c| c.free_page_waits), secs),
            pending_io: after.pending_io,
            checkpoint_age_mib: after.checkpoint_age_bytes.map(|b| b as f64 / MIB),
            log_wait_share_pct: share(waited(d(|c| c.log_wait_us)).or(flush_ms)),
            data_read_wait_share_pct: share(waited(d(|c| c.data_read_wait_us)).or(read_ms)),
        }
    }
}

/// The I/O class a drive-bound interval waited on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IoClass {
    LogFlushes,
    DataReads,
    BackgroundWrites,
}

impl IoClass {
    pub fn label(self) -> &'static str {
        match self {
            IoClass::LogFlushes => "log flushes",
            IoClass::DataReads => "data reads",
            IoClass::BackgroundWrites => "background writes",
        }
    }
}

/// One figure a class judgement rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassFigure {
    pub name: String,
    pub value: f64,
    /// The limit it was held against; None when shown for context.
    pub threshold: Option<f64>,
    pub unit: String,
}

/// Which class, the sentence that says it ("log flushes: 1.02 per commit at 4.8 ms") and the
/// figures that decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassJudgement {
    pub class: IoClass,
    pub text: String,
    pub deciding: Vec<ClassFigure>,
}

fn figure(name: &str, value: f64, threshold: Option<f64>, unit: &str) -> ClassFigure {
    ClassFigure {
        name: name.to_owned(),
        value,
        threshold,
        unit: unit.to_owned(),
    }
}

/// A foreground class's time per transaction, with where its latency came from.
struct Foreground {
    class: IoClass,
    /// Requests per commit (log) or per transaction (reads).
    count: f64,
    count_unit: &'static str,
    /// Mean latency of one request, ms, and whether the engine timed it.
    latency_ms: f64,
    engine_timed: bool,
    ms_per_txn: f64,
}

fn log_flushes(f: &EngineIoFigures, work: &ClientWork, drive: DriveAwait) -> Option<Foreground> {
    let per_commit = f.log_flushes_per_commit?;
    let (latency_ms, engine_timed) = match f.log_flush_ms {
        Some(ms) => (ms, true),
        None => (drive.write_ms?, false),
    };
    let commits_per_txn = ratio(Some(work.commits as f64), work.transactions as f64)?;
    Some(Foreground {
        class: IoClass::LogFlushes,
        count: per_commit,
        count_unit: "per commit",
        latency_ms,
        engine_timed,
        // A commit waits for a whole flush even when the flush serves several commits (group
        // commit): at least one flush's time per commit.
        ms_per_txn: per_commit.max(1.0) * commits_per_txn * latency_ms,
    })
}

fn data_reads(f: &EngineIoFigures, drive: DriveAwait) -> Option<Foreground> {
    let per_txn = f.data_reads_per_txn?;
    let (latency_ms, engine_timed) = match f.data_read_ms {
        Some(ms) => (ms, true),
        None => (drive.read_ms?, false),
    };
    Some(Foreground {
        class: IoClass::DataReads,
        count: per_txn,
        count_unit: "per transaction",
        latency_ms,
        engine_timed,
        ms_per_txn: per_txn * latency_ms,
    })
}

fn foreground(fg: Foreground, work: &ClientWork) -> Option<ClassJudgement> {
    let share = ratio(Some(fg.ms_per_txn), work.mean_latency_ms)? * 100.0;
    if fg.ms_per_txn < MIN_CLASS_MS_PER_TXN || share < MIN_CLASS_SHARE_PCT {
        return None;
    }
    let source = if fg.engine_timed {
        "engine-timed"
    } else {
        "at the drive's await"
    };
    let (count_name, latency_name) = match fg.class {
        IoClass::LogFlushes => ("log_flushes_per_commit", "log_flush_ms"),
        _ => ("data_reads_per_txn", "data_read_ms"),
    };
    Some(ClassJudgement {
        class: fg.class,
        text: format!(
            "{}: {:.2} {} at {:.2} ms ({source}), {:.0} % of the transaction time{}",
            fg.class.label(),
            fg.count,
            fg.count_unit,
            fg.latency_ms,
            share,
            if share > 100.0 {
                " (over 100 %: the engine also counts requests no transaction waited for, \
                 such as read-ahead)"
            } else {
                ""
            }
        ),
        deciding: vec![
            figure(count_name, fg.count, None, fg.count_unit),
            figure(latency_name, fg.latency_ms, None, "ms"),
            figure(
                "ms_per_txn",
                fg.ms_per_txn,
                Some(MIN_CLASS_MS_PER_TXN),
                "ms",
            ),
            figure("share_of_latency", share, Some(MIN_CLASS_SHARE_PCT), "%"),
        ],
    })
}

fn background(f: &EngineIoFigures) -> Option<ClassJudgement> {
    let mib_s = f.background_write_mib_s.unwrap_or(0.0);
    let waits = f.free_page_waits_per_s.unwrap_or(0.0);
    if mib_s < MIN_BACKGROUND_MIB_S && waits <= 0.0 {
        return None;
    }
    let mut deciding = vec![figure(
        "background_write_mib_s",
        mib_s,
        Some(MIN_BACKGROUND_MIB_S),
        "MiB/s",
    )];
    let mut text = format!("background writes: {mib_s:.1} MiB/s");
    if waits > 0.0 {
        deciding.push(figure("free_page_waits_per_s", waits, None, "/s"));
        text.push_str(&format!(
            ", clients waited for a free page {waits:.1} times/s"
        ));
    }
    Some(ClassJudgement {
        class: IoClass::BackgroundWrites,
        text,
        deciding,
    })
}

/// Which class a drive-bound interval waited on, by the rules of the module documentation.
pub fn classify(
    f: &EngineIoFigures,
    work: ClientWork,
    drive: DriveAwait,
) -> Option<ClassJudgement> {
    let candidates = [log_flushes(f, &work, drive), data_reads(f, drive)];
    let timed = candidates.iter().flatten().any(|c| c.engine_timed);
    let top = candidates
        .into_iter()
        .flatten()
        .max_by(|a, b| a.ms_per_txn.total_cmp(&b.ms_per_txn));
    top.and_then(|fg| foreground(fg, &work))
        .or_else(|| (!timed).then(|| by_elimination(f)).flatten())
        .or_else(|| background(f))
}

/// Rule 2: the one foreground class the transactions issue, untimed.
fn by_elimination(f: &EngineIoFigures) -> Option<ClassJudgement> {
    let flushes = f.log_flushes_per_commit.unwrap_or(0.0);
    let reads = f.data_reads_per_txn.unwrap_or(0.0);
    let (class, count, unit, name) = match (
        flushes >= MIN_ELIMINATION_PER_TXN,
        reads >= MIN_ELIMINATION_PER_TXN,
    ) {
        (true, false) => (
            IoClass::LogFlushes,
            flushes,
            "per commit",
            "log_flushes_per_commit",
        ),
        (false, true) => (
            IoClass::DataReads,
            reads,
            "per transaction",
            "data_reads_per_txn",
        ),
        _ => return None,
    };
    let other = match class {
        IoClass::LogFlushes => figure(
            "data_reads_per_txn",
            reads,
            Some(MIN_ELIMINATION_PER_TXN),
            "per transaction",
        ),
        _ => figure(
            "log_flushes_per_commit",
            flushes,
            Some(MIN_ELIMINATION_PER_TXN),
            "per commit",
        ),
    };
    Some(ClassJudgement {
        class,
        text: format!(
            "{}: {count:.2} {unit}, the transactions' only drive I/O (by elimination: the \
             engine does not time it)",
            class.label()
        ),
        deciding: vec![
            figure(name, count, Some(MIN_ELIMINATION_PER_TXN), unit),
            other,
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(txns: u64, commits: u64, mean_ms: f64) -> ClientWork {
        ClientWork {
            seconds: 10.0,
            transactions: txns,
            commits,
            mean_latency_ms: mean_ms,
        }
    }

    fn counters(flushes: u64, flush_us: u64, reads: u64, read_us: u64) -> EngineIoCounters {
        EngineIoCounters {
            log_flushes: Some(flushes),
            log_flush_us: Some(flush_us),
            data_reads: Some(reads),
            data_read_us: Some(read_us),
            data_read_requests: Some(reads * 10),
            ..Default::default()
        }
    }

    #[test]
    fn every_name_is_a_counter_and_rows_add_up() {
        let mut c = EngineIoCounters::default();
        for (i, name) in EngineIoCounters::NAMES.iter().enumerate() {
            assert!(c.add(name, i as u64 + 1), "{name}");
        }
        assert!(c.add("data_reads", 100));
        assert_eq!(c.data_reads, Some(105));
        assert!(!c.add("fsyncs", 1));
        let mut other = EngineIoCounters::default();
        other.add("data_reads", 1);
        let total = EngineIoCounters::sum([&c, &other]);
        assert_eq!(total.data_reads, Some(106));
        assert_eq!(
            total.log_flushes, None,
            "unknown on one instance: unknown in the sum"
        );
    }

    #[test]
    fn figures_are_deltas_per_second_commit_and_request() {
        let a = counters(100, 1_000, 50, 2_000);
        let b = counters(1_120, 4_897_000, 6_150, 14_032_000);
        let f = EngineIoFigures::between(&a, &b, work(1_000, 1_000, 10.0));
        assert_eq!(f.log_flushes_per_s, Some(102.0));
        assert_eq!(f.log_flushes_per_commit, Some(1.02));
        assert!((f.log_flush_ms.unwrap() - 4.8).abs() < 1e-9);
        assert_eq!(f.data_reads_per_txn, Some(6.1));
        assert!((f.data_read_ms.unwrap() - 2.3).abs() < 1e-9);
        assert_eq!(f.buffer_hit_pct, Some(90.0));
        assert!((f.log_wait_share_pct.unwrap() - 48.96).abs() < 1e-9);
        assert_eq!(f.background_write_mib_s, None);
    }

    #[test]
    fn sessions_waits_where_counted_give_the_shares() {
        let a = counters(0, 0, 0, 0);
        let mut b = counters(1_000, 4_000_000, 100, 1_000_000);
        b.log_wait_us = Some(2_000_000);
        let mut a2 = a.clone();
        a2.log_wait_us = Some(0);
        let w = work(1_000, 1_000, 10.0);
        assert!(
            (EngineIoFigures::between(&a, &b, w)
                .log_wait_share_pct
                .unwrap()
                - 40.0)
                .abs()
                < 1e-9
        );
        let f = EngineIoFigures::between(&a2, &b, w);
        assert!(
            (f.log_wait_share_pct.unwrap() - 20.0).abs() < 1e-9,
            "the waits, not the flushes"
        );
        assert!((f.data_read_wait_share_pct.unwrap() - 10.0).abs() < 1e-9);
        assert!(a2.clone().add("data_read_wait_us", 5) && !a2.add("data_read_wait", 5));
    }

    #[test]
    fn a_counter_missing_at_either_end_or_going_backwards_gives_no_figure() {
        let a = EngineIoCounters {
            log_flushes: None,
            data_reads: Some(10),
            ..Default::default()
        };
        let b = EngineIoCounters {
            log_flushes: Some(5),
            data_reads: Some(3),
            ..Default::default()
        };
        let f = EngineIoFigures::between(&a, &b, work(10, 10, 1.0));
        assert_eq!(f.log_flushes_per_s, None);
        assert_eq!(f.data_reads_per_s, None, "a restart resets the counters");
    }

    #[test]
    fn commit_bound_work_is_log_flushes() {
        let f = EngineIoFigures::between(
            &counters(0, 0, 0, 0),
            &counters(1_020, 4_896_000, 100, 100_000),
            work(1_000, 1_000, 6.0),
        );
        let j = classify(&f, work(1_000, 1_000, 6.0), DriveAwait::default()).unwrap();
        assert_eq!(j.class, IoClass::LogFlushes);
        assert!(
            j.text
                .starts_with("log flushes: 1.02 per commit at 4.80 ms"),
            "{}",
            j.text
        );
    }

    #[test]
    fn read_bound_work_is_data_reads() {
        let w = work(1_000, 0, 15.0);
        let f = EngineIoFigures::between(
            &counters(0, 0, 0, 0),
            &counters(3, 300, 6_100, 14_030_000),
            w,
        );
        let j = classify(&f, w, DriveAwait::default()).unwrap();
        assert_eq!(j.class, IoClass::DataReads);
        assert!(
            j.text
                .starts_with("data reads: 6.10 per transaction at 2.30 ms")
        );
    }

    #[test]
    fn without_engine_timing_the_drives_await_prices_the_requests() {
        let mut a = counters(0, 0, 0, 0);
        let mut b = counters(1_000, 0, 0, 0);
        for c in [&mut a, &mut b] {
            c.log_flush_us = None;
            c.data_read_us = None;
        }
        let w = work(1_000, 1_000, 5.0);
        let f = EngineIoFigures::between(&a, &b, w);
        let drive = DriveAwait {
            read_ms: Some(1.0),
            write_ms: Some(3.0),
        };
        let j = classify(&f, w, drive).unwrap();
        assert_eq!(j.class, IoClass::LogFlushes);
        assert!(j.text.contains("at the drive's await"), "{}", j.text);
        // No await either: only elimination can tell, and says so.
        let j = classify(&f, w, DriveAwait::default()).unwrap();
        assert!(j.text.contains("by elimination"), "{}", j.text);
    }

    #[test]
    fn untimed_flushes_as_the_only_foreground_io_are_log_flushes_by_elimination() {
        let mut a = counters(0, 0, 0, 0);
        let mut b = counters(350, 0, 1, 0);
        for c in [&mut a, &mut b] {
            c.log_flush_us = None;
            c.data_read_us = None;
        }
        let w = work(1_000, 1_000, 50.0);
        let f = EngineIoFigures::between(&a, &b, w);
        // The drive's await (a throttle above the device does not show in it) prices the
        // flushes below the thresholds: elimination decides.
        let drive = DriveAwait {
            read_ms: Some(0.1),
            write_ms: Some(0.1),
        };
        let j = classify(&f, w, drive).unwrap();
        assert_eq!(j.class, IoClass::LogFlushes);
        assert!(
            j.text
                .starts_with("log flushes: 0.35 per commit, the transactions' only")
        );
        // Reads as well as flushes: elimination cannot tell.
        let b = counters(350, 0, 500, 0);
        let mut b = b;
        b.log_flush_us = None;
        b.data_read_us = None;
        let f = EngineIoFigures::between(&a, &b, w);
        assert_eq!(classify(&f, w, drive), None);
        // Timed by the engine and small: no elimination.
        let f = EngineIoFigures::between(&counters(0, 0, 0, 0), &counters(350, 1_000, 1, 0), w);
        assert_eq!(classify(&f, w, drive), None);
    }

    #[test]
    fn small_foreground_waits_leave_background_writes_or_nothing() {
        let w = work(10_000, 10_000, 20.0);
        let mut a = counters(0, 0, 0, 0);
        let mut b = counters(10, 1_000, 10, 1_000);
        assert_eq!(
            classify(
                &EngineIoFigures::between(&a, &b, w),
                w,
                DriveAwait::default()
            ),
            None
        );
        a.background_write_bytes = Some(0);
        b.background_write_bytes = Some(200 * 1024 * 1024);
        let j = classify(
            &EngineIoFigures::between(&a, &b, w),
            w,
            DriveAwait::default(),
        )
        .unwrap();
        assert_eq!(j.class, IoClass::BackgroundWrites);
        assert_eq!(j.text, "background writes: 20.0 MiB/s");
    }
}
