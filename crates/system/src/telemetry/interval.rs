//! The figures of one interval between two samples (or of a whole phase, from the `Totals`
//! of the totals module): what the drive, the CPUs, the page cache and the named processes
//! did, with the counts they come from so that intervals add up.

use serde::{Deserialize, Serialize};

use super::devices::DeviceLevel;
use super::diskstats::{DeviceFigures, DiskCounts, ratio_f};
use super::host::{CpuTicks, MemoryFigures};

/// Everything telemetry measured over one interval. Field names carry their units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntervalTelemetry {
    /// Length of the interval, ms.
    pub elapsed_ms: f64,
    /// The drive under the target; None when the target has no block device (tmpfs,
    /// overlay) or the counters could not be read.
    pub device: Option<DeviceTelemetry>,
    /// The host's CPUs, all together; None when `/proc/stat` could not be read.
    pub cpu: Option<CpuFigures>,
    /// Page-cache state at the end of the interval (peaks, in a phase summary).
    pub memory: Option<MemoryFigures>,
    /// Pressure stall figures; each None when the kernel does not report it.
    pub pressure: PressureFigures,
    /// drivebench's own process.
    pub own_process: Option<ProcessFigures>,
    /// The named processes (database servers) that were alive at both ends of the interval;
    /// a server's CPU holds its worker processes' (PostgreSQL's backends).
    pub processes: Vec<ProcessFigures>,
}

/// Device figures, read at the physical members of the target's device stack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeviceTelemetry {
    /// The level of the stack the counters were read at.
    pub level: DeviceLevel,
    /// All members summed (one member: its own figures).
    pub total: DeviceFigures,
    /// Each member on its own.
    pub per_device: Vec<DeviceFigures>,
}

impl DeviceTelemetry {
    /// Figures of each member's counts and of their sum over `elapsed_ms`.
    pub fn from_counts(
        level: DeviceLevel,
        per_device: &[(String, DiskCounts)],
        elapsed_ms: f64,
    ) -> Self {
        let mut sum = DiskCounts::default();
        for (_, counts) in per_device {
            sum.add(counts);
        }
        let names = per_device.iter().map(|(name, _)| name.clone()).collect();
        DeviceTelemetry {
            level,
            total: DeviceFigures::from_counts(names, sum, elapsed_ms),
            per_device: per_device
                .iter()
                .map(|(name, c)| DeviceFigures::from_counts(vec![name.clone()], *c, elapsed_ms))
                .collect(),
        }
    }
}

/// How the host's CPU time was spent, as shares of all CPUs' time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuFigures {
    /// User time, nice included (and guest time, which the kernel counts as user).
    pub user_pct: f64,
    /// Kernel time, interrupts (irq and softirq) included.
    pub system_pct: f64,
    /// Idle with I/O outstanding: a hint of waiting for I/O, not a measure of it.
    pub iowait_pct: f64,
    /// Taken by the hypervisor for something else.
    pub steal_pct: f64,
    pub idle_pct: f64,
    /// 100 − idle − iowait.
    pub busy_pct: f64,
    /// The ticks the shares come from, for sums over a phase.
    pub ticks: CpuTicks,
    /// Ticks per second of every CPU (`USER_HZ`).
    pub ticks_per_s: u64,
}

impl CpuFigures {
    /// Shares of an interval's ticks.
    pub fn from_ticks(ticks: CpuTicks, ticks_per_s: u64) -> Self {
        let total = ticks.total() as f64;
        let pct = |n: u64| 100.0 * ratio_f(n as f64, total);
        let t = &ticks;
        let idle_pct = pct(t.idle_ticks);
        let iowait_pct = pct(t.iowait_ticks);
        CpuFigures {
            user_pct: pct(t.user_ticks + t.nice_ticks),
            system_pct: pct(t.system_ticks + t.irq_ticks + t.softirq_ticks),
            iowait_pct,
            steal_pct: pct(t.steal_ticks),
            idle_pct,
            busy_pct: if total > 0.0 {
                100.0 - idle_pct - iowait_pct
            } else {
                0.0
            },
            ticks,
            ticks_per_s,
        }
    }

    /// CPU time of all CPUs together over the interval, ms.
    pub fn total_time_ms(&self) -> f64 {
        ratio_f(self.ticks.total() as f64 * 1000.0, self.ticks_per_s as f64)
    }
}

/// What one process used over an interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ProcessFigures {
    /// The name it was given ("drivebench" for our own process, "mariadb-1", …).
    pub name: String,
    pub pid: u32,
    /// CPU used, % of one core (200 means two cores' worth).
    pub cpu_pct: f64,
    /// Its part of all the host's CPU time, %; None when the host's CPU time is unknown.
    pub host_share_pct: Option<f64>,
    /// CPU time used, user and system, ms.
    pub cpu_time_ms: f64,
    /// The host's CPU time over the same interval, all CPUs, ms.
    pub host_cpu_time_ms: Option<f64>,
    /// Resident memory at the end of the interval (the peak, in a phase summary).
    pub rss_bytes: u64,
}

impl ProcessFigures {
    /// Figures of `cpu_time_ms` used over `elapsed_ms`, against the host's CPU time.
    pub fn from_time(
        (name, pid): (String, u32),
        cpu_time_ms: f64,
        host_cpu_time_ms: Option<f64>,
        rss_bytes: u64,
        elapsed_ms: f64,
    ) -> Self {
        ProcessFigures {
            name,
            pid,
            cpu_pct: 100.0 * ratio_f(cpu_time_ms, elapsed_ms),
            host_share_pct: host_cpu_time_ms
                .map(|host| (100.0 * ratio_f(cpu_time_ms, host)).min(100.0)),
            cpu_time_ms,
            host_cpu_time_ms,
            rss_bytes,
        }
    }
}

/// Pressure stall figures: the share of the interval tasks were stalled on a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PressureFigures {
    /// At least one runnable task waited for a CPU.
    pub cpu_some_pct: Option<f64>,
    /// At least one task waited for I/O.
    pub io_some_pct: Option<f64>,
    /// Every non-idle task waited for I/O at once: the drive held up all work.
    pub io_full_pct: Option<f64>,
    pub cpu_some_stall_us: Option<u64>,
    pub io_some_stall_us: Option<u64>,
    pub io_full_stall_us: Option<u64>,
}

impl PressureFigures {
    /// Shares of stall times over `elapsed_ms`.
    pub fn from_stalls(
        cpu_some_us: Option<u64>,
        io_some_us: Option<u64>,
        io_full_us: Option<u64>,
        elapsed_ms: f64,
    ) -> Self {
        let pct = |us: Option<u64>| {
            us.map(|us| (100.0 * ratio_f(us as f64 / 1000.0, elapsed_ms)).min(100.0))
        };
        PressureFigures {
            cpu_some_pct: pct(cpu_some_us),
            io_some_pct: pct(io_some_us),
            io_full_pct: pct(io_full_us),
            cpu_some_stall_us: cpu_some_us,
            io_some_stall_us: io_some_us,
            io_full_stall_us: io_full_us,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_shares_group_nice_with_user_and_interrupts_with_system() {
        let ticks = CpuTicks {
            user_ticks: 50,
            nice_ticks: 10,
            system_ticks: 20,
            irq_ticks: 5,
            softirq_ticks: 5,
            idle_ticks: 60,
            iowait_ticks: 40,
            steal_ticks: 10,
        };
        let f = CpuFigures::from_ticks(ticks, 100);
        assert_eq!((f.user_pct, f.system_pct, f.steal_pct), (30.0, 15.0, 5.0));
        assert_eq!((f.idle_pct, f.iowait_pct, f.busy_pct), (30.0, 20.0, 50.0));
        assert_eq!(f.total_time_ms(), 2000.0);
        let none = CpuFigures::from_ticks(CpuTicks::default(), 100);
        assert_eq!((none.busy_pct, none.idle_pct), (0.0, 0.0));
    }

    #[test]
    fn process_and_pressure_shares() {
        let p = ProcessFigures::from_time(("db".into(), 7), 1500.0, Some(2000.0), 1, 1000.0);
        assert_eq!((p.cpu_pct, p.host_share_pct), (150.0, Some(75.0)));
        let s = PressureFigures::from_stalls(Some(250_000), None, Some(500_000), 1000.0);
        assert_eq!((s.cpu_some_pct, s.io_some_pct), (Some(25.0), None));
        assert_eq!(s.io_full_pct, Some(50.0));
    }
}
