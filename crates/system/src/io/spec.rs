//! What one workload point asks for: block size or size mix, read and random shares,
//! threads × depth, the region of the target, warm-up and duration, pacing and engine. Plain
//! data (serde); [`PointSpec::validate`] checks it once before anything runs.

use serde::{Deserialize, Serialize};

use super::error::IoError;

/// The submission path that carries the I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoEngineKind {
    /// io_uring with registered buffers and files, `depth` I/Os in flight per thread.
    IoUring,
    /// pread/pwrite, one I/O at a time per OS thread.
    Psync,
}

/// Which engine a point asks for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EngineChoice {
    /// io_uring when it can be set up, else psync (the reason is reported).
    #[default]
    Auto,
    /// io_uring or an error.
    IoUring,
    /// psync even where io_uring works.
    Psync,
}

/// One entry of a size mix: I/Os of `bytes` make up `weight_pct` % of all I/Os.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeShare {
    /// I/O length in bytes.
    pub bytes: u64,
    /// Share of the I/O count, in percent.
    pub weight_pct: u32,
}

/// The length of each I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizes {
    /// Every I/O has this length in bytes.
    Fixed(u64),
    /// Lengths drawn from a mix whose weights sum to 100 (like fio's bssplit).
    Mix(Vec<SizeShare>),
}

impl BlockSizes {
    /// Every length the mix can produce.
    pub fn sizes_bytes(&self) -> Vec<u64> {
        match self {
            BlockSizes::Fixed(bytes) => vec![*bytes],
            BlockSizes::Mix(shares) => shares.iter().map(|s| s.bytes).collect(),
        }
    }

    /// The largest length, which sizes each I/O buffer.
    pub fn max_bytes(&self) -> u64 {
        self.sizes_bytes().into_iter().max().unwrap_or(0)
    }
}

/// The part of the target a point touches, as fractions of its size: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Region {
    /// Start as a fraction of the target size (0.0 = first byte).
    pub start_fraction: f64,
    /// End as a fraction of the target size (1.0 = whole target), exclusive.
    pub end_fraction: f64,
}

impl Region {
    /// The whole target.
    pub const WHOLE: Region = Region {
        start_fraction: 0.0,
        end_fraction: 1.0,
    };
}

/// How intended start times are spaced under a target rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Arrivals {
    /// Evenly spaced.
    Uniform,
    /// Exponential gaps (a Poisson process).
    Poisson,
}

/// When I/Os are issued.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pacing {
    /// Keep every slot busy: the next I/O as soon as one completes.
    Uncontrolled,
    /// An open schedule of `iops` in total, split evenly over the OS threads.
    Rate {
        /// Target I/Os per second for the whole point.
        iops: f64,
        /// Spacing of intended start times.
        arrivals: Arrivals,
    },
}

/// One workload point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointSpec {
    /// I/O length or length mix.
    pub block_sizes: BlockSizes,
    /// Share of reads in percent (the rest are writes).
    pub read_pct: u8,
    /// Share of I/Os that seek to a random offset, in percent; the others continue the
    /// thread's sequential stream, which wraps inside the region.
    pub random_pct: u8,
    /// Workers. With io_uring one OS thread per worker, each with `depth` I/Os in flight; with
    /// psync `threads × depth` OS threads, so the outstanding I/O count is the same.
    pub threads: u32,
    /// Outstanding I/Os per worker.
    pub depth: u32,
    /// The part of the target touched.
    pub region: Region,
    /// Run before recording starts, in seconds.
    pub warmup_secs: f64,
    /// Recorded span, in seconds.
    pub duration_secs: f64,
    /// Uncontrolled or a target rate.
    pub pacing: Pacing,
    /// Which engine to use.
    pub engine: EngineChoice,
    /// io_uring: submit once this many I/Os are queued, or when no more can be queued now
    /// (1 = each I/O at once, as fio's default; `depth` or more = each refill in one call).
    /// psync issues one I/O per call whatever this is.
    pub submit_batch: u32,
    /// Seed of the offset and size streams (with the worker id), for reproducible runs.
    pub seed: u64,
    /// Keep every issued (offset, length, write) in the result, for tests and audits.
    pub log_offsets: bool,
}

/// Most I/Os one worker keeps in flight (an io_uring ring size).
pub const MAX_DEPTH: u32 = 4096;
/// Most OS threads one point may start.
pub const MAX_OS_THREADS: u32 = 4096;

impl PointSpec {
    /// Check the settings that do not depend on the target; each error names the setting.
    pub fn validate(&self) -> Result<(), IoError> {
        let bad = |msg: String| Err(IoError::InvalidSpec(msg));
        if self.read_pct > 100 {
            return bad(format!("read_pct {} is over 100", self.read_pct));
        }
        if self.random_pct > 100 {
            return bad(format!("random_pct {} is over 100", self.random_pct));
        }
        if self.threads == 0 || self.depth == 0 {
            return bad("threads and depth must be at least 1".to_owned());
        }
        if self.submit_batch == 0 {
            return bad("submit_batch must be at least 1".to_owned());
        }
        if self.depth > MAX_DEPTH {
            return bad(format!("depth {} is over {MAX_DEPTH}", self.depth));
        }
        if self.threads.saturating_mul(self.depth) > MAX_OS_THREADS
            && self.engine == EngineChoice::Psync
        {
            return bad(format!(
                "psync needs threads × depth OS threads, over {MAX_OS_THREADS}"
            ));
        }
        let Region {
            start_fraction: start,
            end_fraction: end,
        } = self.region;
        if !((0.0..1.0).contains(&start) && end > start && end <= 1.0) {
            return bad(format!(
                "region {start}..{end} is not within 0..1 with start < end"
            ));
        }
        if !(self.warmup_secs.is_finite() && self.warmup_secs >= 0.0) {
            return bad(format!("warmup_secs {} is not >= 0", self.warmup_secs));
        }
        if !(self.duration_secs.is_finite() && self.duration_secs > 0.0) {
            return bad(format!("duration_secs {} is not > 0", self.duration_secs));
        }
        if let Pacing::Rate { iops, .. } = self.pacing
            && !(iops.is_finite() && iops > 0.0)
        {
            return bad(format!("target rate {iops} IOPS is not > 0"));
        }
        match &self.block_sizes {
            BlockSizes::Fixed(0) => return bad("block size 0".to_owned()),
            BlockSizes::Fixed(_) => {}
            BlockSizes::Mix(shares) => {
                if shares.is_empty() {
                    return bad("empty size mix".to_owned());
                }
                if shares.iter().any(|s| s.bytes == 0) {
                    return bad("size mix has a 0-byte entry".to_owned());
                }
                let total: u64 = shares.iter().map(|s| u64::from(s.weight_pct)).sum();
                if total != 100 {
                    return bad(format!("size mix weights sum to {total}, not 100"));
                }
            }
        }
        if self.block_sizes.max_bytes() > u64::from(u32::MAX) {
            return bad("block size over 4 GiB".to_owned());
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A valid 4 KiB random-read point.
    pub(crate) fn point() -> PointSpec {
        PointSpec {
            block_sizes: BlockSizes::Fixed(4096),
            read_pct: 100,
            random_pct: 100,
            threads: 1,
            depth: 1,
            region: Region::WHOLE,
            warmup_secs: 0.0,
            duration_secs: 1.0,
            pacing: Pacing::Uncontrolled,
            engine: EngineChoice::Auto,
            submit_batch: 1,
            seed: 1,
            log_offsets: false,
        }
    }

    /// An edit that makes a valid point invalid.
    type Change = Box<dyn Fn(&mut PointSpec)>;

    #[test]
    fn invalid_points_name_the_setting() {
        let mix = |w: &[(u64, u32)]| {
            BlockSizes::Mix(
                w.iter()
                    .map(|&(bytes, weight_pct)| SizeShare { bytes, weight_pct })
                    .collect(),
            )
        };
        let region = |start_fraction, end_fraction| Region {
            start_fraction,
            end_fraction,
        };
        // (change, expected fragment of the message)
        let cases: Vec<(Change, &str)> = vec![
            (Box::new(|p| p.read_pct = 101), "read_pct 101"),
            (Box::new(|p| p.random_pct = 200), "random_pct 200"),
            (Box::new(|p| p.threads = 0), "threads and depth"),
            (Box::new(|p| p.depth = 0), "threads and depth"),
            (Box::new(|p| p.depth = 5000), "depth 5000"),
            (Box::new(|p| p.submit_batch = 0), "submit_batch"),
            (Box::new(move |p| p.region = region(0.5, 0.5)), "region"),
            (Box::new(move |p| p.region = region(-0.1, 0.5)), "region"),
            (Box::new(move |p| p.region = region(0.0, 1.5)), "region"),
            (Box::new(|p| p.duration_secs = 0.0), "duration_secs"),
            (Box::new(|p| p.warmup_secs = f64::NAN), "warmup_secs"),
            (
                Box::new(|p| p.block_sizes = BlockSizes::Fixed(0)),
                "block size 0",
            ),
            (
                Box::new(move |p| p.block_sizes = mix(&[])),
                "empty size mix",
            ),
            (
                Box::new(move |p| p.block_sizes = mix(&[(4096, 50), (8192, 40)])),
                "sum to 90",
            ),
            (
                Box::new(|p| {
                    p.pacing = Pacing::Rate {
                        iops: 0.0,
                        arrivals: Arrivals::Uniform,
                    }
                }),
                "target rate 0",
            ),
        ];
        for (change, fragment) in cases {
            let mut p = point();
            change(&mut p);
            let err = p.validate().expect_err(fragment).to_string();
            assert!(err.contains(fragment), "{err:?} lacks {fragment:?}");
        }
        assert!(point().validate().is_ok());
        let mut ok_mix = point();
        ok_mix.block_sizes = mix(&[(4096, 60), (65536, 40)]);
        assert!(ok_mix.validate().is_ok());
    }
}
