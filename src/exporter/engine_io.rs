//! The engines' own I/O figures of the last interval as gauges, one series per instance
//! (label `instance`), in base units: seconds, bytes, ratios. A figure the engine did not give
//! in the interval has no series rather than a made-up zero.

use prometheus_client::registry::Registry;

use super::F64Gauge;
use super::labels::InstanceLabels;
use drivebench_core::engine_io::EngineIoFigures;
use prometheus_client::metrics::family::Family;

type Figure = fn(&EngineIoFigures) -> Option<f64>;

/// The gauges: name, help, the figure in base units.
const GAUGES: [(&str, &str, Figure); 8] = [
    (
        "engine_log_flushes_per_second",
        "Log flushes (syncs of the WAL or redo log) per second, by the engine's count",
        |f| f.log_flushes_per_s,
    ),
    (
        "engine_log_flushes_per_commit",
        "Log flushes per committed writing transaction",
        |f| f.log_flushes_per_commit,
    ),
    (
        "engine_log_flush_seconds",
        "Mean time of one log flush, as the engine timed it",
        |f| f.log_flush_ms.map(|ms| ms / 1000.0),
    ),
    (
        "engine_data_reads_per_second",
        "Data page reads from the drive (buffer misses) per second",
        |f| f.data_reads_per_s,
    ),
    (
        "engine_data_reads_per_transaction",
        "Data page reads from the drive per transaction",
        |f| f.data_reads_per_txn,
    ),
    (
        "engine_data_read_seconds",
        "Mean time of one data page read, as the engine timed it",
        |f| f.data_read_ms.map(|ms| ms / 1000.0),
    ),
    (
        "engine_buffer_hit_ratio",
        "Share of page requests served from memory",
        |f| f.buffer_hit_pct.map(|p| p / 100.0),
    ),
    (
        "engine_background_write_bytes_per_second",
        "Bytes written by checkpoints, page cleaners and background writers per second",
        |f| f.background_write_mib_s.map(|m| m * 1024.0 * 1024.0),
    ),
];

/// One gauge family per figure of [`GAUGES`].
pub(super) struct EngineIoMetrics {
    gauges: Vec<Family<InstanceLabels, F64Gauge>>,
}

impl Default for EngineIoMetrics {
    fn default() -> Self {
        EngineIoMetrics {
            gauges: GAUGES.iter().map(|_| Family::default()).collect(),
        }
    }
}

impl EngineIoMetrics {
    pub(super) fn register(&self, r: &mut Registry) {
        for ((name, help, _), g) in GAUGES.iter().zip(&self.gauges) {
            r.register(*name, *help, g.clone());
        }
    }

    /// One instance's figures of the last interval.
    pub(super) fn set(&self, instance: &str, f: &EngineIoFigures) {
        let who = InstanceLabels {
            instance: instance.to_owned(),
        };
        for ((_, _, figure), g) in GAUGES.iter().zip(&self.gauges) {
            match figure(f) {
                Some(v) => {
                    g.get_or_create(&who).set(v);
                }
                None => {
                    g.remove(&who);
                }
            }
        }
    }
}
