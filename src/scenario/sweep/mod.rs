//! Synthetic I/O sweeps as scenarios write them (`[[sweep]]`, run after the database phases)
//! and as `drivebench sweep` takes them from its flags: one entry is one target (a file under
//! the target directory, or a block device), an optional fill, and one or more profiles, each
//! swept as a curve (or run at one fixed rate). Resolution checks every key once and yields a
//! `PlanSweep`; durations are scaled like the phases'.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use drivebench_core::config::error::{Invalid, KeyPath};
use drivebench_core::config::units::{parse_duration, parse_size};
use drivebench_core::curve::CurveSpec;
use drivebench_core::curve::steady::SteadyRule;
use drivebench_system::io::{Arrivals, EngineChoice, PROFILES, Profile, Region, profile};

mod describe;
mod parse;
#[cfg(test)]
mod tests;

pub use parse::{parse_block_sizes, parse_region};

/// The sweep file created under the target directory when `file` is not given.
pub const DEFAULT_FILE: &str = "drivebench-sweep.dat";

/// One `[[sweep]]` entry: a target, its fill, and the profiles to sweep on it.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SweepSection {
    /// Built-in profiles by name, e.g. ["4k-random-read-128"]; or give bs, read_pct and random_pct.
    pub profiles: Option<Vec<String>>,
    /// Block size ("4k") or a size mix ("4k/60:64k/40", shares summing to 100).
    pub bs: Option<String>,
    /// Share of reads in percent (with bs).
    pub read_pct: Option<i64>,
    /// Share of random I/Os in percent; the rest are sequential (with bs).
    pub random_pct: Option<i64>,
    /// Worker threads (overrides a profile's). Default 1 with bs.
    pub threads: Option<i64>,
    /// Outstanding I/Os per thread (overrides a profile's). Default 1 with bs.
    pub depth: Option<i64>,
    /// Part of the target touched, from its start, e.g. "25%". Default "100%".
    pub region: Option<String>,
    /// Warm-up before each point's recorded window. Default "5s".
    pub warmup: Option<String>,
    /// Recorded length of each point. Default "30s".
    pub duration: Option<String>,
    /// Curve points in % of the measured maximum; [] runs the max run only.
    /// Default [10, 50, 70, 80, 90, 100].
    pub curve: Option<Vec<f64>>,
    /// Run one point at this many IOPS instead of a curve.
    pub rate: Option<f64>,
    /// Spacing of I/O start times at a target rate: uniform | poisson. Default uniform.
    pub arrivals: Option<Arrivals>,
    /// Stop a curve after a point whose mean latency passes this many milliseconds.
    pub stop_curve_ms: Option<f64>,
    /// Sequential 128 KiB write passes over the whole target before the first profile (0..4).
    /// Default 1 for a file (a fresh file's blocks are unwritten and reads of them never reach
    /// the drive), 0 for a device.
    pub fill: Option<i64>,
    /// SNIA-style steady state before each profile's max run. Default false.
    pub steady: Option<bool>,
    /// auto | io_uring | psync. Default auto.
    pub io_engine: Option<EngineChoice>,
    /// io_uring: submit once this many I/Os are queued (1 = each at once, as fio's default;
    /// the depth or more = each refill in one call). Default 1.
    pub submit_batch: Option<i64>,
    /// The file to sweep, relative to the target directory. Default "drivebench-sweep.dat".
    pub file: Option<String>,
    /// Size of the file, e.g. "4GiB" (required for a file target).
    pub size: Option<String>,
    /// A block device to sweep instead of a file, e.g. "/dev/nvme1n1". Its data is destroyed.
    pub device: Option<String>,
    /// Must be true with `device`: consent to overwrite it.
    pub destroy: Option<bool>,
}

/// Where a sweep runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SweepTarget {
    /// A file, relative to the run's target directory (or absolute), allocated to `size_bytes`.
    File { file: String, size_bytes: u64 },
    /// A whole block device (or partition) behind the destructive-write guard.
    Device { device: String, destroy_data: bool },
}

/// A resolved sweep entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlanSweep {
    pub target: SweepTarget,
    /// Sequential write passes over the whole target before the first profile.
    pub fill_passes: u32,
    pub profiles: Vec<Profile>,
    pub region: Region,
    pub warmup_ms: u64,
    pub duration_ms: u64,
    pub curve: CurveSpec,
    /// One point at this rate instead of the max run and the curve.
    pub rate: Option<f64>,
    pub arrivals: Arrivals,
    /// Steady-state rounds (each `duration_ms` long) before each profile's max run.
    pub steady: Option<SteadyRule>,
    pub io_engine: EngineChoice,
    /// io_uring submission batch (see `SweepSection::submit_batch`); 1 in results written
    /// before it existed.
    #[serde(default = "one")]
    pub submit_batch: u32,
    /// Measuring time of all profiles, without the fill and steady-state rounds.
    pub estimated_ms: u64,
}

impl PlanSweep {
    /// Points each profile runs (the max run included).
    pub fn points_per_profile(&self) -> usize {
        match self.rate {
            Some(_) => 1,
            None => 1 + self.curve.points_pct.len(),
        }
    }
}

/// Shortest warm-up-free point after time scaling.
const MIN_POINT_MS: u64 = 100;

/// Resolve every `[[sweep]]` entry.
pub fn resolve_all(
    sections: &[SweepSection],
    key: &KeyPath,
    time_scale: f64,
) -> Result<Vec<PlanSweep>, Invalid> {
    sections
        .iter()
        .enumerate()
        .map(|(i, s)| resolve(s, &key.index(i), time_scale))
        .collect()
}

fn one() -> u32 {
    1
}

fn bad(key: &KeyPath, name: &str, message: impl std::fmt::Display) -> Invalid {
    Invalid::new(key.key(name), message)
}

fn int(
    v: Option<i64>,
    default: i64,
    min: i64,
    max: i64,
    key: &KeyPath,
    name: &str,
) -> Result<u32, Invalid> {
    let v = v.unwrap_or(default);
    if !(min..=max).contains(&v) {
        return Err(bad(
            key,
            name,
            format!("must be between {min} and {max}, got {v}"),
        ));
    }
    Ok(v as u32)
}

fn scaled_ms(
    text: Option<&str>,
    default: &str,
    time_scale: f64,
    zero_ok: bool,
    key: &KeyPath,
    name: &str,
) -> Result<u64, Invalid> {
    let d: Duration = parse_duration(text.unwrap_or(default)).map_err(|m| bad(key, name, m))?;
    if d.is_zero() && !zero_ok {
        return Err(bad(key, name, "must be longer than zero"));
    }
    let ms = super::bounds::scale_ms(d, time_scale, &key.key(name))?;
    Ok(if zero_ok { ms } else { ms.max(MIN_POINT_MS) })
}

fn profiles(s: &SweepSection, key: &KeyPath) -> Result<Vec<Profile>, Invalid> {
    let custom = [
        ("bs", s.bs.is_some()),
        ("read_pct", s.read_pct.is_some()),
        ("random_pct", s.random_pct.is_some()),
    ];
    let threads = |d: u32| int(s.threads, d.into(), 1, 4096, key, "threads");
    let depth = |d: u32| {
        int(
            s.depth,
            d.into(),
            1,
            drivebench_system::io::MAX_DEPTH.into(),
            key,
            "depth",
        )
    };
    match &s.profiles {
        Some(names) => {
            if let Some((name, _)) = custom.iter().find(|(_, set)| *set) {
                return Err(bad(
                    key,
                    name,
                    "give either profiles or bs, read_pct and random_pct, not both",
                ));
            }
            if names.is_empty() {
                return Err(bad(key, "profiles", "must name at least one profile"));
            }
            let mut out: Vec<Profile> = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let p = profile(name).ok_or_else(|| {
                    let known: Vec<&str> = PROFILES.iter().map(|p| p.name.as_ref()).collect();
                    Invalid::new(
                        key.key("profiles").index(i),
                        format!("unknown profile {name:?}; known: {}", known.join(", ")),
                    )
                })?;
                let p = p.with_load(threads(p.threads)?, depth(p.depth)?);
                if out.iter().any(|q| q.name == p.name) {
                    return Err(Invalid::new(
                        key.key("profiles").index(i),
                        format!("profile {name:?} is listed twice"),
                    ));
                }
                out.push(p);
            }
            Ok(out)
        }
        None => {
            if let Some((name, _)) = custom.iter().find(|(_, set)| !*set) {
                return Err(bad(
                    key,
                    name,
                    "needed: give profiles, or bs, read_pct and random_pct",
                ));
            }
            let sizes = parse_block_sizes(s.bs.as_deref().unwrap_or_default())
                .map_err(|m| bad(key, "bs", m))?;
            let read = int(s.read_pct, 0, 0, 100, key, "read_pct")?;
            let random = int(s.random_pct, 0, 0, 100, key, "random_pct")?;
            Ok(vec![Profile::custom(
                sizes,
                read as u8,
                random as u8,
                threads(1)?,
                depth(1)?,
            )])
        }
    }
}

fn target(s: &SweepSection, key: &KeyPath) -> Result<SweepTarget, Invalid> {
    match &s.device {
        Some(device) => {
            for (name, set) in [("file", s.file.is_some()), ("size", s.size.is_some())] {
                if set {
                    return Err(bad(
                        key,
                        name,
                        "only for a file target; a device is used whole",
                    ));
                }
            }
            if device.trim().is_empty() {
                return Err(bad(key, "device", "must not be empty"));
            }
            if s.destroy != Some(true) {
                return Err(bad(
                    key,
                    "destroy",
                    format!(
                        "writing to {device} destroys its data: set destroy = true to allow it"
                    ),
                ));
            }
            Ok(SweepTarget::Device {
                device: device.clone(),
                destroy_data: true,
            })
        }
        None => {
            if s.destroy.is_some() {
                return Err(bad(key, "destroy", "only with device"));
            }
            let file = s.file.clone().unwrap_or_else(|| DEFAULT_FILE.to_string());
            if file.trim().is_empty() {
                return Err(bad(key, "file", "must not be empty"));
            }
            let size = s.size.as_deref().ok_or_else(|| {
                bad(
                    key,
                    "size",
                    "needed for a file target, e.g. size = \"4GiB\"",
                )
            })?;
            let size_bytes = parse_size(size).map_err(|m| bad(key, "size", m))?;
            if size_bytes < 1 << 20 {
                return Err(bad(
                    key,
                    "size",
                    format!("must be at least 1 MiB, got {size:?}"),
                ));
            }
            Ok(SweepTarget::File { file, size_bytes })
        }
    }
}

/// The curve's points (percent of the maximum), after the checks of `rate`, `curve` and
/// `stop_curve_ms`: a fixed rate runs one point and takes none of the curve keys.
fn curve_points(s: &SweepSection, key: &KeyPath) -> Result<Vec<f64>, Invalid> {
    if let Some(rate) = s.rate {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(bad(
                key,
                "rate",
                format!("must be a positive number of IOPS, got {rate}"),
            ));
        }
        for (name, set) in [
            ("curve", s.curve.is_some()),
            ("stop_curve_ms", s.stop_curve_ms.is_some()),
            ("steady", s.steady == Some(true)),
        ] {
            if set {
                return Err(bad(
                    key,
                    name,
                    "not with rate: a fixed rate runs one point, not a curve",
                ));
            }
        }
    }
    let points_pct = s
        .curve
        .clone()
        .unwrap_or_else(|| CurveSpec::DEFAULT_POINTS.to_vec());
    if let Some(p) = points_pct
        .iter()
        .find(|p| !(p.is_finite() && **p > 0.0 && **p <= 1000.0))
    {
        return Err(bad(
            key,
            "curve",
            format!("points are percentages of the maximum above 0 and at most 1000, got {p}"),
        ));
    }
    if let Some(ms) = s.stop_curve_ms
        && !(ms.is_finite() && ms > 0.0)
    {
        return Err(bad(
            key,
            "stop_curve_ms",
            format!("must be a positive number of milliseconds, got {ms}"),
        ));
    }
    Ok(points_pct)
}

/// Resolve one entry.
pub fn resolve(s: &SweepSection, key: &KeyPath, time_scale: f64) -> Result<PlanSweep, Invalid> {
    let profiles = profiles(s, key)?;
    let target = target(s, key)?;
    let region = match &s.region {
        Some(text) => parse_region(text).map_err(|m| bad(key, "region", m))?,
        None => Region::WHOLE,
    };
    let warmup_ms = scaled_ms(s.warmup.as_deref(), "5s", time_scale, true, key, "warmup")?;
    let duration_ms = scaled_ms(
        s.duration.as_deref(),
        "30s",
        time_scale,
        false,
        key,
        "duration",
    )?;
    let points_pct = curve_points(s, key)?;
    let default_fill = if matches!(target, SweepTarget::File { .. }) {
        1
    } else {
        0
    };
    let fill_passes = int(s.fill, default_fill, 0, 4, key, "fill")?;
    let mut out = PlanSweep {
        target,
        fill_passes,
        region,
        warmup_ms,
        duration_ms,
        curve: CurveSpec {
            points_pct,
            stop_mean_ms: s.stop_curve_ms,
            stop_p99_ms: None,
            slo_p99_ms: None,
            slo_steps: 0,
        },
        rate: s.rate,
        arrivals: s.arrivals.unwrap_or(Arrivals::Uniform),
        steady: s.steady.unwrap_or(false).then(SteadyRule::default),
        io_engine: s.io_engine.unwrap_or_default(),
        submit_batch: int(
            s.submit_batch,
            1,
            1,
            drivebench_system::io::MAX_DEPTH.into(),
            key,
            "submit_batch",
        )?,
        estimated_ms: 0,
        profiles,
    };
    out.estimated_ms =
        out.profiles.len() as u64 * out.points_per_profile() as u64 * (warmup_ms + duration_ms);
    Ok(out)
}
