//! Bounds that several scenario sections share: durations above zero and scaled by
//! `--time-scale`.

use std::time::Duration;

use drivebench_core::config::units::parse_duration;
use drivebench_core::config::{Invalid, KeyPath};

/// The longest duration after `--time-scale`: the longest a scenario may write (about 31
/// years), so that the plan's sums of durations stay far from overflowing.
pub const MAX_SCALED_MS: f64 = 1e12;

/// A duration in ms, multiplied by `--time-scale`; refused when the product is longer than
/// [`MAX_SCALED_MS`] (a huge time scale).
pub fn scale_ms(d: Duration, time_scale: f64, key: &KeyPath) -> Result<u64, Invalid> {
    let ms = (d.as_secs_f64() * 1000.0 * time_scale).round();
    if ms.is_nan() || ms > MAX_SCALED_MS {
        let scale = if time_scale < 1e6 {
            time_scale.to_string()
        } else {
            format!("{time_scale:e}")
        };
        return Err(Invalid::new(
            key.clone(),
            format!(
                "{} scaled by --time-scale {scale} is longer than the longest duration drivebench runs (about 31 years)",
                drivebench_core::config::units::format_duration(d)
            ),
        ));
    }
    Ok(ms as u64)
}

/// A duration as written ("30s", "2h"), refused when zero.
pub fn positive_duration(text: &str, key: KeyPath) -> Result<Duration, Invalid> {
    let d = parse_duration(text).map_err(|m| Invalid::new(key.clone(), m))?;
    if d.is_zero() {
        return Err(Invalid::new(
            key,
            format!("must be longer than zero, got {text:?}"),
        ));
    }
    Ok(d)
}
