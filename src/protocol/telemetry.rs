//! The run's telemetry probe: a sampler of the target's drive, the host and the private
//! servers, read at every report tick; each tick gives the interval since the previous one.

use std::path::Path;

use drivebench_system::telemetry::{Devices, IntervalTelemetry, Sampler, Snapshot};

/// Whether a run samples telemetry, and its probe once the instances run.
pub enum Telemetry {
    /// Not sampled (`--no-telemetry`).
    Off,
    /// To be sampled once the instances run.
    Wanted,
    Sampling(Box<Probe>),
}

impl Telemetry {
    pub fn wanted(on: bool) -> Self {
        if on {
            Telemetry::Wanted
        } else {
            Telemetry::Off
        }
    }

    /// The probe, while sampling.
    pub fn probe(&mut self) -> Option<&mut Probe> {
        match self {
            Telemetry::Sampling(p) => Some(p),
            Telemetry::Off | Telemetry::Wanted => None,
        }
    }
}

/// A sampler and its last snapshot.
pub struct Probe {
    sampler: Sampler,
    last: Snapshot,
}

impl Probe {
    /// Sample the drive under `target`, the host, and the named server processes.
    pub fn new(target: &Path, processes: Vec<(String, u32)>) -> Self {
        let mut sampler = Sampler::new(target, processes);
        let last = sampler.sample();
        Probe { sampler, last }
    }

    /// The devices the drive's figures are read from.
    pub fn devices(&self) -> &Devices {
        self.sampler.devices()
    }

    /// Start the next interval now (the clock of the phases starts).
    pub fn restart(&mut self) {
        self.last = self.sampler.sample();
    }

    /// The interval since the last tick (or restart); the next one starts now.
    pub fn tick(&mut self) -> IntervalTelemetry {
        let now = self.sampler.sample();
        let interval = now.interval(&self.last);
        self.last = now;
        interval
    }
}
