//! What one point measured, in the units its field names say: counts, rates (MiB/s and MB/s,
//! both), latency summaries for service time and schedule-relative time, outstanding I/Os
//! observed and by Little's law, backlog, CPU, and the engine that ran it.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::recorder::Recorder;
use super::spec::IoEngineKind;
use super::stream::IoOp;
use drivebench_core::histogram::encode;

/// Latency figures in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LatencySummaryUs {
    /// Mean (exact, from nanosecond sums).
    pub avg: f64,
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
}

impl LatencySummaryUs {
    fn of(h: &Histogram<u64>, sum_ns: u128, count: u64) -> LatencySummaryUs {
        if count == 0 {
            return LatencySummaryUs::default();
        }
        LatencySummaryUs {
            avg: sum_ns as f64 / count as f64 / 1000.0,
            p50: h.value_at_quantile(0.50),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
        }
    }
}

/// The result of one workload point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// The engine that carried the I/O.
    pub engine: IoEngineKind,
    /// Why io_uring was not used, when the engine was chosen automatically and fell back.
    pub engine_fallback_reason: Option<String>,
    /// OS threads that issued I/O.
    pub os_threads: u32,
    /// I/Os the point keeps in flight at most (threads × depth).
    pub outstanding_max_ios: u32,
    /// Target rate, when paced.
    pub target_iops: Option<f64>,
    /// I/Os completed in the recorded window.
    pub ios: u64,
    /// Reads among them.
    pub read_ios: u64,
    /// Writes among them.
    pub write_ios: u64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Length of the recorded window in seconds (shorter when stopped early).
    pub elapsed_secs: f64,
    /// I/Os per second.
    pub iops: f64,
    /// Throughput in MiB/s (2^20 bytes).
    pub mib_s: f64,
    /// Throughput in MB/s (10^6 bytes).
    pub mb_s: f64,
    /// Submit → complete.
    pub service_latency_us: LatencySummaryUs,
    /// Intended start → complete (coordinated-omission correct; equals service time when
    /// uncontrolled).
    pub schedule_latency_us: LatencySummaryUs,
    /// Service-time histogram (µs), HdrHistogram V2 + DEFLATE, base64.
    pub service_histogram_us: String,
    /// Schedule-relative histogram (µs), same encoding.
    pub schedule_histogram_us: String,
    /// Time-weighted mean of I/Os in flight over the window.
    pub mean_outstanding_ios: f64,
    /// IOPS × mean service time: should match `mean_outstanding_ios`.
    pub littles_law_outstanding_ios: f64,
    /// Sum over threads of the largest backlog each saw (due starts not yet issued).
    pub backlog_max_ios: u64,
    /// Backlog summed over threads at the end of the window.
    pub backlog_end_ios: u64,
    /// CPU seconds this process used during the window (all threads).
    pub cpu_secs: f64,
    /// `cpu_secs` as a percentage of one core over the window.
    pub cpu_pct: f64,
    /// Whether a stop request or a failure ended the point before its duration.
    pub stopped_early: bool,
    /// Every issued I/O (warm-up included), when the spec asked for it.
    #[serde(skip)]
    pub offset_log: Vec<IoOp>,
}

/// Facts about the run that the recorder does not hold.
pub struct RunFacts {
    /// Engine used.
    pub engine: IoEngineKind,
    /// Fallback reason, if any.
    pub engine_fallback_reason: Option<String>,
    /// OS threads started.
    pub os_threads: u32,
    /// threads × depth.
    pub outstanding_max_ios: u32,
    /// Target rate, if paced.
    pub target_iops: Option<f64>,
    /// Process CPU seconds over the window.
    pub cpu_secs: f64,
    /// Whether the point ended early.
    pub stopped_early: bool,
}

impl PointResult {
    /// Summarise the merged record of all workers.
    pub fn from_record(r: Recorder, facts: RunFacts) -> PointResult {
        let elapsed_secs = r.window_end_ns.saturating_sub(r.window_start_ns) as f64 / 1e9;
        let per_sec = |x: f64| {
            if elapsed_secs > 0.0 {
                x / elapsed_secs
            } else {
                0.0
            }
        };
        let ios = r.ios();
        let bytes = r.read_bytes + r.write_bytes;
        let service = LatencySummaryUs::of(&r.service_us, r.service_sum_ns, ios);
        let iops = per_sec(ios as f64);
        PointResult {
            engine: facts.engine,
            engine_fallback_reason: facts.engine_fallback_reason,
            os_threads: facts.os_threads,
            outstanding_max_ios: facts.outstanding_max_ios,
            target_iops: facts.target_iops,
            ios,
            read_ios: r.read_ios,
            write_ios: r.write_ios,
            bytes,
            read_bytes: r.read_bytes,
            write_bytes: r.write_bytes,
            elapsed_secs,
            iops,
            mib_s: per_sec(bytes as f64) / (1024.0 * 1024.0),
            mb_s: per_sec(bytes as f64) / 1e6,
            service_latency_us: service,
            schedule_latency_us: LatencySummaryUs::of(&r.schedule_us, r.schedule_sum_ns, ios),
            service_histogram_us: encode(&r.service_us),
            schedule_histogram_us: encode(&r.schedule_us),
            mean_outstanding_ios: per_sec(r.in_flight_ns as f64 / 1e9),
            littles_law_outstanding_ios: iops * service.avg / 1e6,
            backlog_max_ios: r.backlog_max,
            backlog_end_ios: r.backlog_last,
            cpu_secs: facts.cpu_secs,
            cpu_pct: per_sec(facts.cpu_secs) * 100.0,
            stopped_early: facts.stopped_early,
            offset_log: r.offsets.unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_littles_law_follow_from_the_record() {
        let mut r = Recorder::new(0, 2_000_000_000, false);
        let op = IoOp {
            offset: 0,
            len_bytes: 1 << 20,
            write: true,
        };
        // 100 one-MiB writes of 1 ms each, back to back over the first 100 ms.
        for i in 0..100u64 {
            r.completed(&op, i * 1_000_000, i * 1_000_000, (i + 1) * 1_000_000);
        }
        let facts = RunFacts {
            engine: IoEngineKind::Psync,
            engine_fallback_reason: None,
            os_threads: 1,
            outstanding_max_ios: 1,
            target_iops: None,
            cpu_secs: 0.5,
            stopped_early: false,
        };
        let p = PointResult::from_record(r, facts);
        assert_eq!((p.ios, p.write_ios, p.read_ios), (100, 100, 0));
        assert_eq!(p.elapsed_secs, 2.0);
        assert_eq!(p.iops, 50.0);
        assert_eq!(p.mib_s, 50.0);
        assert!((p.mb_s - 52.428_8).abs() < 1e-9, "{}", p.mb_s);
        assert_eq!(p.service_latency_us.avg, 1000.0);
        assert_eq!(p.service_latency_us.p50, 1000);
        assert!((p.mean_outstanding_ios - 0.05).abs() < 1e-12);
        assert!((p.littles_law_outstanding_ios - 0.05).abs() < 1e-12);
        assert_eq!(p.cpu_pct, 25.0);
    }
}
