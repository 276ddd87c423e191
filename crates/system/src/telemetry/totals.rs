//! Intervals added up over a phase: sums of counts, stall and busy times, so that shares,
//! rates and per-transaction figures can be computed over the whole phase.
//!
//! Each part keeps the time it covers: an interval lacking a part (a file unreadable for a
//! moment, a process not yet started) does not dilute that part's shares.

use serde::{Deserialize, Serialize};

use super::devices::DeviceLevel;
use super::diskstats::{DiskCounts, ratio_f};
use super::host::{CpuTicks, MemoryFigures};
use super::interval::{
    CpuFigures, DeviceTelemetry, IntervalTelemetry, PressureFigures, ProcessFigures,
};

/// The sum of a phase's intervals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Totals {
    /// Intervals added.
    pub intervals: u64,
    /// Their total length, ms.
    pub elapsed_ms: f64,
    pub device: Option<DeviceTotals>,
    pub cpu: Option<CpuTotals>,
    pub pressure: PressureTotals,
    pub own_process: Option<ProcessTotals>,
    pub processes: Vec<ProcessTotals>,
    /// The highest page-cache figures seen, each on its own.
    pub memory_peak: Option<MemoryFigures>,
}

/// Device counts over a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceTotals {
    pub level: DeviceLevel,
    /// Time the counts cover, ms.
    pub elapsed_ms: f64,
    /// Each member's counts; their sum is the device's.
    pub per_device: Vec<NamedCounts>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NamedCounts {
    pub device: String,
    pub counts: DiskCounts,
}

impl DeviceTotals {
    /// All members' counts summed: bytes written per transaction is
    /// `total().written_bytes / transactions`.
    pub fn total(&self) -> DiskCounts {
        let mut sum = DiskCounts::default();
        for member in &self.per_device {
            sum.add(&member.counts);
        }
        sum
    }
}

/// Host CPU ticks over a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuTotals {
    pub elapsed_ms: f64,
    pub ticks: CpuTicks,
    pub ticks_per_s: u64,
}

/// One stall total over the time it covers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StallTotal {
    pub elapsed_ms: f64,
    pub stall_us: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PressureTotals {
    pub cpu_some: Option<StallTotal>,
    pub io_some: Option<StallTotal>,
    pub io_full: Option<StallTotal>,
}

/// One process over a phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessTotals {
    pub name: String,
    pub pid: u32,
    /// Time the process was sampled over, ms.
    pub elapsed_ms: f64,
    pub cpu_time_ms: f64,
    /// The host's CPU time over the intervals where both were known, ms, and the process's
    /// CPU time over those same intervals.
    pub host_cpu_time_ms: Option<f64>,
    pub cpu_time_with_host_ms: f64,
    pub peak_rss_bytes: u64,
}

impl Totals {
    /// Add one interval.
    pub fn add(&mut self, t: &IntervalTelemetry) {
        self.intervals += 1;
        self.elapsed_ms += t.elapsed_ms;
        if let Some(device) = &t.device {
            add_device(&mut self.device, device, t.elapsed_ms);
        }
        if let Some(cpu) = &t.cpu {
            let total = self.cpu.get_or_insert(CpuTotals {
                elapsed_ms: 0.0,
                ticks: CpuTicks::default(),
                ticks_per_s: cpu.ticks_per_s,
            });
            total.elapsed_ms += t.elapsed_ms;
            total.ticks.add(&cpu.ticks);
        }
        let p = &t.pressure;
        add_stall(
            &mut self.pressure.cpu_some,
            p.cpu_some_stall_us,
            t.elapsed_ms,
        );
        add_stall(&mut self.pressure.io_some, p.io_some_stall_us, t.elapsed_ms);
        add_stall(&mut self.pressure.io_full, p.io_full_stall_us, t.elapsed_ms);
        if let Some(own) = &t.own_process {
            add_process(
                self.own_process.get_or_insert_with(|| empty(own)),
                own,
                t.elapsed_ms,
            );
        }
        for process in &t.processes {
            let i = match self.processes.iter().position(|p| same(p, process)) {
                Some(i) => i,
                None => {
                    self.processes.push(empty(process));
                    self.processes.len() - 1
                }
            };
            add_process(&mut self.processes[i], process, t.elapsed_ms);
        }
        if let Some(m) = &t.memory {
            let peak = self.memory_peak.get_or_insert(*m);
            peak.cached_bytes = peak.cached_bytes.max(m.cached_bytes);
            peak.dirty_bytes = peak.dirty_bytes.max(m.dirty_bytes);
            peak.writeback_bytes = peak.writeback_bytes.max(m.writeback_bytes);
        }
    }

    /// The phase's figures, computed from the sums with the same formulas as one interval's;
    /// memory and RSS are peaks.
    pub fn summary(&self) -> IntervalTelemetry {
        let device = self.device.as_ref().map(|d| {
            let per_device: Vec<(String, DiskCounts)> = d
                .per_device
                .iter()
                .map(|m| (m.device.clone(), m.counts))
                .collect();
            DeviceTelemetry::from_counts(d.level, &per_device, d.elapsed_ms)
        });
        let p = &self.pressure;
        // Stall shares over the time each covers: scale each to the phase's length.
        let over_phase =
            |s: Option<StallTotal>| s.map(|s| scale(s.stall_us, s.elapsed_ms, self.elapsed_ms));
        IntervalTelemetry {
            elapsed_ms: self.elapsed_ms,
            device,
            cpu: self
                .cpu
                .as_ref()
                .map(|c| CpuFigures::from_ticks(c.ticks, c.ticks_per_s)),
            memory: self.memory_peak,
            pressure: PressureFigures::from_stalls(
                over_phase(p.cpu_some),
                over_phase(p.io_some),
                over_phase(p.io_full),
                self.elapsed_ms,
            ),
            own_process: self.own_process.as_ref().map(process_summary),
            processes: self.processes.iter().map(process_summary).collect(),
        }
    }
}

fn add_device(totals: &mut Option<DeviceTotals>, device: &DeviceTelemetry, elapsed_ms: f64) {
    let totals = totals.get_or_insert_with(|| DeviceTotals {
        level: device.level,
        elapsed_ms: 0.0,
        per_device: Vec::new(),
    });
    totals.elapsed_ms += elapsed_ms;
    for figures in &device.per_device {
        let name = figures.devices.join("+");
        match totals.per_device.iter_mut().find(|m| m.device == name) {
            Some(member) => member.counts.add(&figures.counts),
            None => totals.per_device.push(NamedCounts {
                device: name,
                counts: figures.counts,
            }),
        }
    }
}

fn add_stall(total: &mut Option<StallTotal>, stall_us: Option<u64>, elapsed_ms: f64) {
    if let Some(us) = stall_us {
        let t = total.get_or_insert(StallTotal {
            elapsed_ms: 0.0,
            stall_us: 0,
        });
        t.elapsed_ms += elapsed_ms;
        t.stall_us = t.stall_us.saturating_add(us);
    }
}

fn same(total: &ProcessTotals, figures: &ProcessFigures) -> bool {
    total.name == figures.name && total.pid == figures.pid
}

fn empty(figures: &ProcessFigures) -> ProcessTotals {
    ProcessTotals {
        name: figures.name.clone(),
        pid: figures.pid,
        elapsed_ms: 0.0,
        cpu_time_ms: 0.0,
        host_cpu_time_ms: None,
        cpu_time_with_host_ms: 0.0,
        peak_rss_bytes: 0,
    }
}

fn add_process(total: &mut ProcessTotals, figures: &ProcessFigures, elapsed_ms: f64) {
    total.elapsed_ms += elapsed_ms;
    total.cpu_time_ms += figures.cpu_time_ms;
    if let Some(host) = figures.host_cpu_time_ms {
        *total.host_cpu_time_ms.get_or_insert(0.0) += host;
        total.cpu_time_with_host_ms += figures.cpu_time_ms;
    }
    total.peak_rss_bytes = total.peak_rss_bytes.max(figures.rss_bytes);
}

fn process_summary(total: &ProcessTotals) -> ProcessFigures {
    let mut figures = ProcessFigures::from_time(
        (total.name.clone(), total.pid),
        total.cpu_time_ms,
        None,
        total.peak_rss_bytes,
        total.elapsed_ms,
    );
    figures.host_cpu_time_ms = total.host_cpu_time_ms;
    figures.host_share_pct = total
        .host_cpu_time_ms
        .map(|host| (100.0 * ratio_f(total.cpu_time_with_host_ms, host)).min(100.0));
    figures
}

/// `value` measured over `covered_ms`, scaled to `phase_ms` (the same share of a longer time).
fn scale(value: u64, covered_ms: f64, phase_ms: f64) -> u64 {
    if covered_ms > 0.0 {
        (value as f64 * phase_ms / covered_ms).round() as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(elapsed_ms: f64, written_bytes: u64, busy_ms: u64) -> IntervalTelemetry {
        let counts = DiskCounts {
            writes: written_bytes / 4096,
            written_bytes,
            write_time_ms: written_bytes / 4096,
            busy_time_ms: busy_ms,
            queue_time_ms: 2 * busy_ms,
            ..DiskCounts::default()
        };
        let ticks = CpuTicks {
            user_ticks: 60,
            idle_ticks: 40,
            ..CpuTicks::default()
        };
        let cpu = CpuFigures::from_ticks(ticks, 100);
        let host_ms = cpu.total_time_ms();
        IntervalTelemetry {
            elapsed_ms,
            device: Some(DeviceTelemetry::from_counts(
                DeviceLevel::PhysicalMember,
                &[("loop0".to_owned(), counts)],
                elapsed_ms,
            )),
            cpu: Some(cpu),
            memory: Some(MemoryFigures {
                cached_bytes: written_bytes,
                dirty_bytes: 5,
                writeback_bytes: 0,
            }),
            pressure: PressureFigures::from_stalls(None, Some(100_000), Some(50_000), elapsed_ms),
            own_process: Some(ProcessFigures::from_time(
                ("drivebench".into(), 1),
                100.0,
                Some(host_ms),
                10,
                elapsed_ms,
            )),
            processes: Vec::new(),
        }
    }

    #[test]
    fn a_phase_sums_counts_and_recomputes_its_figures() {
        let mut totals = Totals::default();
        totals.add(&interval(1000.0, 4096 * 100, 500));
        totals.add(&interval(1000.0, 4096 * 300, 1000));
        assert_eq!(totals.intervals, 2);
        let device = totals.device.as_ref().expect("device totals");
        assert_eq!(device.total().written_bytes, 4096 * 400);
        let s = totals.summary();
        let d = s.device.expect("device figures").total;
        assert_eq!(d.write_ops_per_s, 200.0);
        assert_eq!((d.util_pct, d.aqu_sz), (75.0, 1.5));
        assert_eq!(d.write_await_ms, Some(1.0));
        let cpu = s.cpu.expect("cpu");
        assert_eq!((cpu.busy_pct, cpu.ticks.user_ticks), (60.0, 120));
        assert_eq!(s.pressure.io_full_pct, Some(5.0));
        assert_eq!(s.pressure.cpu_some_pct, None);
        let own = s.own_process.expect("own process");
        assert_eq!((own.cpu_pct, own.cpu_time_ms), (10.0, 200.0));
        assert_eq!(own.host_share_pct, Some(10.0));
        assert_eq!(s.memory.map(|m| m.cached_bytes), Some(4096 * 300));
    }

    #[test]
    fn a_part_missing_from_some_intervals_is_judged_over_the_time_it_covers() {
        let mut totals = Totals::default();
        totals.add(&interval(1000.0, 0, 0));
        let mut without = interval(1000.0, 0, 0);
        without.pressure = PressureFigures::default();
        totals.add(&without);
        let s = totals.summary();
        assert_eq!(s.elapsed_ms, 2000.0);
        assert_eq!(s.pressure.io_full_pct, Some(5.0), "{:?}", s.pressure);
        let json = serde_json::to_string(&totals).expect("serialise");
        let back: Totals = serde_json::from_str(&json).expect("deserialise");
        assert_eq!(back, totals);
    }
}
