//! The two sweep values with a syntax of their own: a region ("25%" or "25") and block sizes
//! ("4k", or a mix "4k/60:64k/40" whose shares of the I/O count sum to 100).

use drivebench_core::config::units::{UnitError, parse_size};
use drivebench_system::io::Region;

/// Why a region or a block-size mix was not understood.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SweepValueError {
    #[error("invalid region {0:?}; expected a percentage of the target such as \"25%\"")]
    Region(String),
    #[error("region {0:?} must be above 0% and at most 100%")]
    RegionRange(String),
    #[error("invalid share {share:?} in {text:?}; expected e.g. \"4k/60:64k/40\"")]
    Share { share: String, text: String },
    #[error("{part:?} in {text:?} has no share; expected e.g. \"4k/60:64k/40\"")]
    NoShare { part: String, text: String },
    #[error(transparent)]
    Size(#[from] UnitError),
    #[error("block size {0:?} must be a positive multiple of 512 bytes")]
    BlockSize(String),
    #[error("the shares in {text:?} sum to {total}, not 100")]
    Total { text: String, total: u32 },
}

/// A region as "25%" or "25": a share of the target from its start, above 0 and at most 100.
pub fn parse_region(text: &str) -> Result<Region, SweepValueError> {
    let t = text.trim();
    let v: f64 = t
        .strip_suffix('%')
        .unwrap_or(t)
        .trim()
        .parse()
        .map_err(|_| SweepValueError::Region(text.into()))?;
    if !(v > 0.0 && v <= 100.0) {
        return Err(SweepValueError::RegionRange(text.into()));
    }
    Ok(Region {
        start_fraction: 0.0,
        end_fraction: v / 100.0,
    })
}

/// Block sizes as "4k" or a mix "4k/60:64k/40" (bytes, share of I/Os in %).
pub fn parse_block_sizes(text: &str) -> Result<Vec<(u64, u32)>, SweepValueError> {
    let mut out = Vec::new();
    for part in text.split(':') {
        let (size, share) =
            match part.split_once('/') {
                Some((s, w)) => {
                    let w: u32 = w.trim().trim_end_matches('%').parse().map_err(|_| {
                        SweepValueError::Share {
                            share: w.into(),
                            text: text.into(),
                        }
                    })?;
                    (s, w)
                }
                None if !text.contains(':') => (part, 100),
                None => {
                    return Err(SweepValueError::NoShare {
                        part: part.into(),
                        text: text.into(),
                    });
                }
            };
        let bytes = parse_size(size)?;
        if bytes == 0 || bytes % 512 != 0 {
            return Err(SweepValueError::BlockSize(size.into()));
        }
        out.push((bytes, share));
    }
    let total: u32 = out.iter().map(|s| s.1).sum();
    if total != 100 {
        return Err(SweepValueError::Total {
            text: text.into(),
            total,
        });
    }
    Ok(out)
}
