//! How a resolved sweep reads in `drivebench plan` and at the start of `drivebench sweep`:
//! target and fill, the load, one line per profile, and the time it takes.

use std::time::Duration;

use super::{PlanSweep, SweepTarget};

impl PlanSweep {
    /// The sweep's file or device, with the file placed under `target_dir`.
    pub fn target_path(&self, target_dir: &str) -> std::path::PathBuf {
        match &self.target {
            SweepTarget::File { file, .. } => std::path::Path::new(target_dir).join(file),
            SweepTarget::Device { device, .. } => device.into(),
        }
    }

    /// What `plan` and `sweep` print: target and fill, then one line per profile, then time.
    pub fn describe(&self, target_dir: &str) -> Vec<String> {
        use drivebench_core::config::units::format_bytes;
        use drivebench_core::config::units::format_duration;
        let ms = |ms: u64| format_duration(Duration::from_millis(ms));
        let path = self.target_path(target_dir);
        let mut lines = vec![match &self.target {
            SweepTarget::File { size_bytes, .. } => format!(
                "file {} of {}, fill {} pass(es) ({} of sequential writes)",
                path.display(),
                format_bytes(*size_bytes),
                self.fill_passes,
                format_bytes(size_bytes * u64::from(self.fill_passes))
            ),
            SweepTarget::Device { .. } => format!(
                "device {} (its data is destroyed), fill {} pass(es) over the whole device",
                path.display(),
                self.fill_passes
            ),
        }];
        let load = match self.rate {
            Some(rate) => format!("one point at {rate} IOPS"),
            None if self.curve.points_pct.is_empty() => "the max run only".to_string(),
            None => {
                let pts: Vec<String> = self
                    .curve
                    .points_pct
                    .iter()
                    .map(|p| p.to_string())
                    .collect();
                let stop = self
                    .curve
                    .stop_mean_ms
                    .map(|m| format!(", stop once mean latency > {m} ms"))
                    .unwrap_or_default();
                format!("max run, then {} % of it{stop}", pts.join(", "))
            }
        };
        lines.push(format!(
            "region first {}% of the target, {load}; each point {} warm-up + {} recorded, {:?} arrivals, engine {:?}",
            self.region.end_fraction * 100.0,
            ms(self.warmup_ms),
            ms(self.duration_ms),
            self.arrivals,
            self.io_engine
        )
        .to_lowercase());
        if self.submit_batch != 1 {
            lines.push(format!(
                "io_uring submits in batches of up to {} I/Os",
                self.submit_batch
            ));
        }
        for p in &self.profiles {
            lines.push(format!("{}: {}", p.name, p.definition()));
        }
        let steady = match self.steady {
            Some(rule) => format!(
                ", plus up to {} of steady-state rounds",
                ms(rule.max_rounds as u64 * self.duration_ms * self.profiles.len() as u64)
            ),
            None => String::new(),
        };
        lines.push(format!(
            "about {} of measuring ({} profile(s) x {} point(s)){steady}, plus the fill",
            ms(self.estimated_ms),
            self.profiles.len(),
            self.points_per_profile()
        ));
        lines
    }
}
