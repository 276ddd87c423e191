//! Live metrics for long runs: gauges and counters updated at every report tick (and at every
//! curve point), served over HTTP in the OpenMetrics text format, which Prometheus scrapes
//! (`serve`). The format is written by `prometheus-client`; this module only keeps the
//! figures: the current phase, each instance's TPS, latency quantiles, transactions, errors
//! and retries of the last interval, its engine's own I/O figures (`engine_io`), and the
//! drive's and the host's figures.
//!
//! Names follow Prometheus conventions: base units (seconds, bytes, ratios 0–1), `_total` on
//! counters. Each database instance is an `instance` label (Prometheus renames it
//! `exported_instance` unless the scrape sets `honor_labels`).

mod engine_io;
mod labels;
pub mod serve;

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::metrics::summary::Summary;
use drivebench_system::telemetry::IntervalTelemetry;
use labels::{
    DeviceLabels, DirectionLabels, InstanceLabels, KindLabels, ModeLabels, PhaseLabels,
    ProcessLabels, QuantileLabels,
};

type F64Gauge = Gauge<f64, AtomicU64>;

/// The run's live figures.
pub struct LiveMetrics {
    registry: Registry,
    phase: Family<PhaseLabels, Gauge>,
    elapsed: F64Gauge,
    per_instance: InstanceMetrics,
    engine_io: engine_io::EngineIoMetrics,
    device: DeviceMetrics,
    host: HostMetrics,
}

/// What each database instance did in the last interval, and since the start.
#[derive(Default)]
struct InstanceMetrics {
    tps: Family<InstanceLabels, F64Gauge>,
    latency: Family<QuantileLabels, F64Gauge>,
    latency_avg: Family<InstanceLabels, F64Gauge>,
    transactions: Family<InstanceLabels, Counter>,
    errors: Family<InstanceLabels, Counter>,
    retries: Family<InstanceLabels, Counter>,
}

/// The drive under the target, its physical members summed.
#[derive(Default)]
struct DeviceMetrics {
    ops: Family<DirectionLabels, F64Gauge>,
    bytes: Family<DirectionLabels, F64Gauge>,
    await_s: Family<DirectionLabels, F64Gauge>,
    queue: Family<DeviceLabels, F64Gauge>,
    util: Family<DeviceLabels, F64Gauge>,
    flushes: Family<DeviceLabels, F64Gauge>,
}

/// The host's CPU shares and page cache, and the CPU and memory of named processes.
#[derive(Default)]
struct HostMetrics {
    cpu: Family<ModeLabels, F64Gauge>,
    memory: Family<KindLabels, F64Gauge>,
    process_cpu: Family<ProcessLabels, F64Gauge>,
    process_rss: Family<ProcessLabels, F64Gauge>,
}

impl InstanceMetrics {
    fn register(&self, r: &mut Registry) {
        let i = self;
        r.register(
            "tps",
            "Transactions per second in the last interval",
            i.tps.clone(),
        );
        r.register(
            "latency_seconds",
            "Response time quantiles of the last interval (from the intended start)",
            i.latency.clone(),
        );
        r.register(
            "latency_avg_seconds",
            "Mean response time of the last interval",
            i.latency_avg.clone(),
        );
        r.register(
            "transactions",
            "Committed transactions",
            i.transactions.clone(),
        );
        r.register("errors", "Failed attempts", i.errors.clone());
        r.register(
            "retries",
            "Attempts re-run until they committed",
            i.retries.clone(),
        );
    }
}

impl DeviceMetrics {
    fn register(&self, r: &mut Registry) {
        let d = self;
        r.register("device_iops", "Device operations per second", d.ops.clone());
        r.register(
            "device_bytes_per_second",
            "Device throughput",
            d.bytes.clone(),
        );
        r.register(
            "device_await_seconds",
            "Average time per device request",
            d.await_s.clone(),
        );
        r.register(
            "device_queue_depth",
            "Average requests in flight (aqu-sz)",
            d.queue.clone(),
        );
        r.register(
            "device_utilisation_ratio",
            "Share of time with I/O in flight",
            d.util.clone(),
        );
        r.register(
            "device_flushes_per_second",
            "Cache flushes per second",
            d.flushes.clone(),
        );
    }
}

impl HostMetrics {
    fn register(&self, r: &mut Registry) {
        let h = self;
        r.register(
            "cpu_ratio",
            "Share of all CPUs' time by mode",
            h.cpu.clone(),
        );
        r.register(
            "memory_bytes",
            "Page cache, dirty and writeback memory",
            h.memory.clone(),
        );
        r.register(
            "process_cpu_cores",
            "CPU used by drivebench and each private server, in cores",
            h.process_cpu.clone(),
        );
        r.register(
            "process_rss_bytes",
            "Resident memory of each process",
            h.process_rss.clone(),
        );
    }
}

impl Default for LiveMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveMetrics {
    pub fn new() -> Self {
        let mut m = LiveMetrics {
            registry: Registry::with_prefix("drivebench"),
            phase: Family::default(),
            elapsed: F64Gauge::default(),
            per_instance: InstanceMetrics::default(),
            engine_io: engine_io::EngineIoMetrics::default(),
            device: DeviceMetrics::default(),
            host: HostMetrics::default(),
        };
        m.register();
        m
    }

    fn register(&mut self) {
        let r = &mut self.registry;
        r.register(
            "phase",
            "The phase (or curve point) running now: 1 for it, no other series",
            self.phase.clone(),
        );
        r.register(
            "elapsed_seconds",
            "Seconds since the first phase started, at the last report tick",
            self.elapsed.clone(),
        );
        self.per_instance.register(r);
        self.engine_io.register(r);
        self.device.register(r);
        self.host.register(r);
    }

    /// The phase (or step) running from now on.
    pub fn set_phase(&self, name: &str, recorded: bool) {
        self.phase.clear();
        self.phase
            .get_or_create(&PhaseLabels {
                phase: name.to_owned(),
                recorded: recorded.to_string(),
            })
            .set(1);
    }

    /// The end of a report interval `elapsed_s` into the run.
    pub fn tick(&self, elapsed_s: f64) {
        self.elapsed.set(elapsed_s);
    }

    /// One instance's figures for the last interval.
    pub fn interval(&self, instance: &str, s: &Summary) {
        let m = &self.per_instance;
        let who = InstanceLabels {
            instance: instance.to_owned(),
        };
        m.tps.get_or_create(&who).set(s.tps);
        m.latency_avg
            .get_or_create(&who)
            .set(s.latency_ms.avg / 1000.0);
        let l = &s.latency_ms;
        for (q, ms) in [
            ("0.5", l.p50),
            ("0.95", l.p95),
            ("0.99", l.p99),
            ("1", l.max),
        ] {
            let labels = QuantileLabels {
                instance: instance.to_owned(),
                quantile: q.to_owned(),
            };
            m.latency.get_or_create(&labels).set(ms / 1000.0);
        }
        m.transactions.get_or_create(&who).inc_by(s.transactions);
        m.errors.get_or_create(&who).inc_by(s.errors);
        m.retries.get_or_create(&who).inc_by(s.retries);
    }

    /// One instance's engine I/O figures of the last interval.
    pub fn engine_io(&self, instance: &str, f: &drivebench_core::engine_io::EngineIoFigures) {
        self.engine_io.set(instance, f);
    }

    /// The drive's and the host's figures of the last interval.
    pub fn telemetry(&self, t: &IntervalTelemetry) {
        if let Some(dev) = &t.device {
            self.device_figures(&dev.total);
        }
        let h = &self.host;
        if let Some(c) = &t.cpu {
            for (mode, pct) in [
                ("user", c.user_pct),
                ("system", c.system_pct),
                ("iowait", c.iowait_pct),
                ("steal", c.steal_pct),
                ("idle", c.idle_pct),
            ] {
                let mode = mode.to_owned();
                h.cpu.get_or_create(&ModeLabels { mode }).set(pct / 100.0);
            }
        }
        if let Some(m) = &t.memory {
            for (kind, bytes) in [
                ("cached", m.cached_bytes),
                ("dirty", m.dirty_bytes),
                ("writeback", m.writeback_bytes),
            ] {
                let kind = kind.to_owned();
                h.memory
                    .get_or_create(&KindLabels { kind })
                    .set(bytes as f64);
            }
        }
        for p in t.own_process.iter().chain(&t.processes) {
            let who = ProcessLabels {
                process: p.name.clone(),
            };
            h.process_cpu.get_or_create(&who).set(p.cpu_pct / 100.0);
            h.process_rss.get_or_create(&who).set(p.rss_bytes as f64);
        }
    }

    fn device_figures(&self, d: &drivebench_system::telemetry::DeviceFigures) {
        let m = &self.device;
        let name = d.devices.join("+");
        for (direction, ops, mib, await_ms) in [
            ("read", d.read_ops_per_s, d.read_mib_per_s, d.read_await_ms),
            (
                "write",
                d.write_ops_per_s,
                d.write_mib_per_s,
                d.write_await_ms,
            ),
        ] {
            let labels = DirectionLabels {
                device: name.clone(),
                direction: direction.to_owned(),
            };
            m.ops.get_or_create(&labels).set(ops);
            m.bytes.get_or_create(&labels).set(mib * 1024.0 * 1024.0);
            // No request completed in that direction: no await, rather than a made-up zero.
            match await_ms {
                Some(ms) => {
                    m.await_s.get_or_create(&labels).set(ms / 1000.0);
                }
                None => {
                    m.await_s.remove(&labels);
                }
            }
        }
        let who = DeviceLabels { device: name };
        m.queue.get_or_create(&who).set(d.aqu_sz);
        m.util.get_or_create(&who).set(d.util_pct / 100.0);
        m.flushes.get_or_create(&who).set(d.flushes_per_s);
    }

    /// The page a scrape gets.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Recorded;

    #[test]
    fn only_the_current_phase_is_shown_and_counters_add_up() {
        let live = LiveMetrics::new();
        live.set_phase("precondition", false);
        live.set_phase("sample", true);
        let s = Summary::from_recorded(&Recorded::new(1), &["tx"], 1.0);
        let mut busy = s.clone();
        busy.transactions = 40;
        busy.errors = 2;
        live.interval("a", &busy);
        live.interval("a", &busy);
        live.interval("b", &s);
        let page = live.encode();
        assert!(page.contains("drivebench_phase{phase=\"sample\",recorded=\"true\"} 1\n"));
        assert!(!page.contains("precondition"), "{page}");
        assert!(page.contains("drivebench_transactions_total{instance=\"a\"} 80\n"));
        assert!(page.contains("drivebench_errors_total{instance=\"a\"} 4\n"));
        assert!(page.contains("drivebench_transactions_total{instance=\"b\"} 0\n"));
        assert!(page.ends_with("# EOF\n"));
    }

    #[test]
    fn engine_io_gauges_are_per_instance_and_absent_when_not_given() {
        let live = LiveMetrics::new();
        let f = drivebench_core::engine_io::EngineIoFigures {
            log_flushes_per_s: Some(102.0),
            log_flush_ms: Some(4.8),
            ..Default::default()
        };
        live.engine_io("a", &f);
        let page = live.encode();
        assert!(
            page.contains("drivebench_engine_log_flushes_per_second{instance=\"a\"} 102.0\n"),
            "{page}"
        );
        assert!(page.contains("drivebench_engine_log_flush_seconds{instance=\"a\"} 0.0048"));
        assert!(
            !page.contains("drivebench_engine_data_read_seconds{"),
            "{page}"
        );
    }
}
