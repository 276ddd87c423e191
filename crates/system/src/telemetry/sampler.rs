//! Counters taken at an instant ([`Snapshot`]) and the interval between two of them.
//!
//! A sample never fails: a counter file that cannot be read leaves its part of the snapshot
//! empty (logged once per source), and the interval then lacks those figures.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

use super::devices::{DeviceLevel, Devices, resolve};
use super::diskstats::{self, DiskCounters, DiskCounts};
use super::error::TelemetryError;
use super::host::{self, Clock, CpuTicks, MemoryFigures, Pressure, ProcessStat};
use super::interval::{
    CpuFigures, DeviceTelemetry, IntervalTelemetry, PressureFigures, ProcessFigures,
};

/// The name our own process is given in the figures.
pub const OWN_PROCESS_NAME: &str = "drivebench";

/// Takes snapshots of the counters that matter for one target directory and some processes.
#[derive(Debug)]
pub struct Sampler {
    devices: Devices,
    processes: Vec<(String, u32)>,
    clock: Clock,
    /// Sources whose failure was already logged.
    warned: BTreeSet<&'static str>,
}

/// Every counter at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub at: Instant,
    pub clock: Clock,
    /// The level `disks` were read at; None when the target has no devices.
    pub device_level: Option<DeviceLevel>,
    /// The counters of each physical member found in `/proc/diskstats`.
    pub disks: Vec<(String, DiskCounters)>,
    pub cpu: Option<CpuTicks>,
    pub memory: Option<MemoryFigures>,
    pub cpu_pressure: Option<Pressure>,
    pub io_pressure: Option<Pressure>,
    pub own_process: Option<ProcessStat>,
    /// Each named process, None when it could not be read (it may have exited).
    pub processes: Vec<((String, u32), Option<ProcessStat>)>,
}

impl Sampler {
    /// A sampler for the drive under `target` (resolved now, once) and the named processes
    /// (e.g. `("mariadb-1", pid)`). A target whose devices cannot be found is sampled for host
    /// figures only; [`Sampler::devices`] says why.
    pub fn new(target: &Path, processes: Vec<(String, u32)>) -> Sampler {
        let devices = resolve(target).unwrap_or_else(|err| {
            tracing::warn!(target = %target.display(), %err, "telemetry: cannot find the devices under the target; host figures only");
            Devices::Unresolved {
                reason: err.to_string(),
            }
        });
        Sampler {
            devices,
            processes,
            clock: Clock::system(),
            warned: BTreeSet::new(),
        }
    }

    /// The devices under the target, as resolved when the sampler was made.
    pub fn devices(&self) -> &Devices {
        &self.devices
    }

    /// Read every counter now.
    pub fn sample(&mut self) -> Snapshot {
        let at = Instant::now();
        let disks = self.disks();
        let cpu = self.ok("/proc/stat", host::read_cpu());
        let memory = self.ok("/proc/meminfo", host::read_meminfo());
        let cpu_pressure = self
            .ok("/proc/pressure/cpu", host::read_pressure("cpu"))
            .flatten();
        let io_pressure = self
            .ok("/proc/pressure/io", host::read_pressure("io"))
            .flatten();
        let own_process = self.ok("/proc/self/stat", host::read_process(None, &self.clock));
        let pids: Vec<u32> = self.processes.iter().map(|(_, pid)| *pid).collect();
        let processes = self
            .processes
            .iter()
            .zip(host::read_servers(&pids, &self.clock))
            .map(|((name, pid), stat)| ((name.clone(), *pid), stat.ok()))
            .collect();
        Snapshot {
            at,
            clock: self.clock,
            device_level: self.devices.stack().map(|s| s.read_level()),
            disks,
            cpu,
            memory,
            cpu_pressure,
            io_pressure,
            own_process,
            processes,
        }
    }

    /// The counters of the physical members, in stack order.
    fn disks(&mut self) -> Vec<(String, DiskCounters)> {
        let Some(stack) = self.devices.stack() else {
            return Vec::new();
        };
        let names: Vec<String> = stack.members().map(|m| m.name.clone()).collect();
        let Some(lines) = self.ok("/proc/diskstats", diskstats::read()) else {
            return Vec::new();
        };
        let found: Vec<(String, DiskCounters)> = names
            .iter()
            .filter_map(|name| {
                let line = lines.iter().find(|l| &l.name == name)?;
                Some((name.clone(), line.counters))
            })
            .collect();
        if found.len() < names.len() && self.warned.insert("diskstats members") {
            tracing::warn!(
                ?names,
                "telemetry: a device is missing from /proc/diskstats"
            );
        }
        found
    }

    /// The value, or None after logging the error (a warning the first time for `source`).
    fn ok<T>(&mut self, source: &'static str, result: Result<T, TelemetryError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(err) if self.warned.insert(source) => {
                tracing::warn!(%err, "telemetry: {source} unavailable; its figures are left out");
                None
            }
            Err(err) => {
                tracing::debug!(%err, "telemetry: {source} unavailable");
                None
            }
        }
    }
}

impl Snapshot {
    /// The figures of the interval from `earlier` to this snapshot.
    pub fn interval(&self, earlier: &Snapshot) -> IntervalTelemetry {
        let elapsed_ms = self.at.saturating_duration_since(earlier.at).as_secs_f64() * 1000.0;
        let cpu = both(&self.cpu, &earlier.cpu)
            .map(|(now, before)| CpuFigures::from_ticks(now.delta(before), self.clock.ticks_per_s));
        let host_ms = cpu.as_ref().map(CpuFigures::total_time_ms);
        let process = |name: (String, u32), now: &ProcessStat, before: &ProcessStat| {
            let ticks = now.cpu_ticks().saturating_sub(before.cpu_ticks());
            let cpu_ms = ticks as f64 * 1000.0 / self.clock.ticks_per_s as f64;
            ProcessFigures::from_time(name, cpu_ms, host_ms, now.rss_bytes, elapsed_ms)
        };
        let own_process = both(&self.own_process, &earlier.own_process).map(|(now, before)| {
            process(
                (OWN_PROCESS_NAME.to_owned(), std::process::id()),
                now,
                before,
            )
        });
        let processes = self
            .processes
            .iter()
            .filter_map(|(name, now)| {
                let before = earlier.processes.iter().find(|(n, _)| n == name)?;
                Some(process(name.clone(), now.as_ref()?, before.1.as_ref()?))
            })
            .collect();
        IntervalTelemetry {
            elapsed_ms,
            device: self.device(earlier, elapsed_ms),
            cpu,
            memory: self.memory,
            pressure: self.pressure(earlier, elapsed_ms),
            own_process,
            processes,
        }
    }

    fn device(&self, earlier: &Snapshot, elapsed_ms: f64) -> Option<DeviceTelemetry> {
        let level = self.device_level?;
        let per_device: Vec<(String, DiskCounts)> = self
            .disks
            .iter()
            .filter_map(|(name, now)| {
                let (_, before) = earlier.disks.iter().find(|(n, _)| n == name)?;
                Some((name.clone(), now.delta(before)))
            })
            .collect();
        (!per_device.is_empty())
            .then(|| DeviceTelemetry::from_counts(level, &per_device, elapsed_ms))
    }

    fn pressure(&self, earlier: &Snapshot, elapsed_ms: f64) -> PressureFigures {
        let stall = |now: Option<u64>, before: Option<u64>| Some(now?.saturating_sub(before?));
        let (cpu_now, cpu_before) = (self.cpu_pressure, earlier.cpu_pressure);
        let (io_now, io_before) = (self.io_pressure, earlier.io_pressure);
        let some = |p: Option<Pressure>| p.map(|p| p.some_total_us);
        let full = |p: Option<Pressure>| p.and_then(|p| p.full_total_us);
        PressureFigures::from_stalls(
            stall(some(cpu_now), some(cpu_before)),
            stall(some(io_now), some(io_before)),
            stall(full(io_now), full(io_before)),
            elapsed_ms,
        )
    }
}

fn both<'a, T>(a: &'a Option<T>, b: &'a Option<T>) -> Option<(&'a T, &'a T)> {
    a.as_ref().zip(b.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_of_the_real_host_has_cpu_memory_and_own_process_figures() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut sampler = Sampler::new(dir.path(), vec![("me".into(), std::process::id())]);
        let first = sampler.sample();
        // Burn some CPU so that our own process shows up.
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed().as_millis() < 100 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let second = sampler.sample();
        let t = second.interval(&first);
        assert!(t.elapsed_ms >= 100.0, "{t:?}");
        let cpu = t.cpu.expect("cpu figures");
        let shares = cpu.user_pct + cpu.system_pct + cpu.iowait_pct + cpu.steal_pct + cpu.idle_pct;
        assert!(
            (shares - 100.0).abs() < 1e-6 || cpu.ticks.total() == 0,
            "{cpu:?}"
        );
        let own = t.own_process.expect("own process");
        assert_eq!(own.name, OWN_PROCESS_NAME);
        assert!(own.rss_bytes > 0);
        assert_eq!(t.processes.len(), 1);
        assert_eq!(t.processes[0].name, "me");
        assert!(t.memory.is_some());
        if let Some(stack) = sampler.devices().stack() {
            let device = t.device.expect("device figures");
            assert_eq!(device.level, DeviceLevel::PhysicalMember);
            let members: Vec<&str> = stack.members().map(|m| m.name.as_str()).collect();
            assert_eq!(device.total.devices, members);
        }
    }

    #[test]
    fn a_process_that_is_gone_is_left_out() {
        let mut sampler = Sampler::new(Path::new("/proc"), vec![("gone".into(), u32::MAX)]);
        let first = sampler.sample();
        let t = sampler.sample().interval(&first);
        assert!(t.processes.is_empty());
        assert!(t.device.is_none(), "procfs has no device");
        assert!(matches!(sampler.devices(), Devices::NoDevice { .. }));
    }
}
