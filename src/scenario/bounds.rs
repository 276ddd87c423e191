//! Bounds that several scenario sections share: integer options within limits, durations
//! above zero and scaled by `--time-scale`, and the most virtual clients an instance may have.

use std::time::Duration;

use crate::config::units::parse_duration;
use crate::config::{Invalid, KeyPath};

/// Most virtual clients one instance may have.
pub const MAX_CLIENTS: i64 = 15_000;

/// An integer option with bounds; absent means `default`.
pub fn int_in(
    value: Option<i64>,
    default: i64,
    min: i64,
    max: i64,
    key: KeyPath,
) -> Result<u32, Invalid> {
    let v = value.unwrap_or(default);
    if v < min {
        return Err(Invalid::new(
            key,
            format!("must be at least {min}, got {v}"),
        ));
    }
    if v > max {
        return Err(Invalid::new(key, format!("must be at most {max}, got {v}")));
    }
    Ok(v as u32)
}

/// A duration in ms, multiplied by `--time-scale`.
pub fn scale_ms(d: Duration, time_scale: f64) -> u64 {
    (d.as_secs_f64() * 1000.0 * time_scale).round() as u64
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
