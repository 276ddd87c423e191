//! Integer options within limits, as every section of a scenario reads them.

use super::error::{Invalid, KeyPath};

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
