//! The I/O stream of one worker: for each I/O, its length (fixed or drawn from the mix),
//! direction (read share) and offset (a random aligned slot in the region, or the next piece of
//! the worker's sequential stream, which wraps at the region's end). Pure and seeded.

use drivebench_core::rng::Rng;

use super::spec::BlockSizes;

/// One I/O to issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IoOp {
    /// Byte offset in the target.
    pub offset: u64,
    /// Length in bytes.
    pub len_bytes: u64,
    /// Write (true) or read (false).
    pub write: bool,
}

/// Byte range `[start, end)` of the target a point may touch, already aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRegion {
    /// First byte (a multiple of the offset alignment).
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// Generator of one worker's I/Os.
#[derive(Debug, Clone)]
pub struct IoStream {
    rng: Rng,
    region: ByteRegion,
    /// (length, cumulative weight out of 100).
    sizes: Vec<(u64, u32)>,
    /// Random offsets are multiples of this (the gcd of all lengths).
    random_align: u64,
    read_pct: u8,
    random_pct: u8,
    cursor: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl IoStream {
    /// Worker `worker` of `workers`: its sequential stream starts at its share of the region.
    /// Every length must fit in the region (checked by the caller).
    pub fn new(
        rng: Rng,
        region: ByteRegion,
        sizes: &BlockSizes,
        read_pct: u8,
        random_pct: u8,
        worker: u64,
        workers: u64,
    ) -> IoStream {
        let sizes: Vec<(u64, u32)> = match sizes {
            BlockSizes::Fixed(bytes) => vec![(*bytes, 100)],
            BlockSizes::Mix(shares) => shares
                .iter()
                .scan(0u32, |total, s| {
                    *total += s.weight_pct;
                    Some((s.bytes, *total))
                })
                .collect(),
        };
        let random_align = sizes.iter().fold(0, |g, &(b, _)| gcd(g, b)).max(1);
        let len = region.end - region.start;
        let share = (u128::from(len) * u128::from(worker) / u128::from(workers.max(1))) as u64;
        let cursor = region.start + share / random_align * random_align;
        IoStream {
            rng,
            region,
            sizes,
            random_align,
            read_pct,
            random_pct,
            cursor,
        }
    }

    fn chance(&mut self, pct: u8) -> bool {
        match pct {
            0 => false,
            100.. => true,
            p => self.rng.next_u64() % 100 < u64::from(p),
        }
    }

    /// The next I/O.
    pub fn next_op(&mut self) -> IoOp {
        let len_bytes = match self.sizes.as_slice() {
            [(bytes, _)] => *bytes,
            sizes => {
                let pick = (self.rng.next_u64() % 100) as u32;
                sizes
                    .iter()
                    .find(|&&(_, cumulative)| pick < cumulative)
                    .or(sizes.last())
                    .map_or(0, |&(bytes, _)| bytes)
            }
        };
        let write = !self.chance(self.read_pct);
        let ByteRegion { start, end } = self.region;
        if self.chance(self.random_pct) {
            let slots = (end - start - len_bytes) / self.random_align + 1;
            self.cursor = start + (self.rng.next_u64() % slots) * self.random_align;
        } else if self.cursor + len_bytes > end {
            self.cursor = start;
        }
        let offset = self.cursor;
        self.cursor += len_bytes;
        IoOp {
            offset,
            len_bytes,
            write,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::spec::SizeShare;

    fn stream(sizes: &BlockSizes, read_pct: u8, random_pct: u8, region: ByteRegion) -> IoStream {
        IoStream::new(
            Rng::for_client(9, 0, 0),
            region,
            sizes,
            read_pct,
            random_pct,
            0,
            1,
        )
    }

    #[test]
    fn sequential_streams_wrap_inside_the_region() {
        let region = ByteRegion {
            start: 8192,
            end: 8192 + 3 * 4096 + 100,
        };
        let mut s = stream(&BlockSizes::Fixed(4096), 100, 0, region);
        let offsets: Vec<u64> = (0..5).map(|_| s.next_op().offset).collect();
        assert_eq!(offsets, [8192, 12288, 16384, 8192, 12288]);
    }

    #[test]
    fn workers_start_their_streams_at_their_share() {
        let region = ByteRegion {
            start: 0,
            end: 1 << 20,
        };
        let starts: Vec<u64> = (0..4)
            .map(|w| {
                let rng = Rng::for_client(1, 0, w);
                IoStream::new(rng, region, &BlockSizes::Fixed(4096), 100, 0, w, 4)
                    .next_op()
                    .offset
            })
            .collect();
        assert_eq!(starts, [0, 1 << 18, 2 << 18, 3 << 18]);
    }

    #[test]
    fn mixes_random_offsets_and_directions_stay_in_the_region_and_in_proportion() {
        let mix = BlockSizes::Mix(vec![
            SizeShare {
                bytes: 4096,
                weight_pct: 70,
            },
            SizeShare {
                bytes: 65536,
                weight_pct: 30,
            },
        ]);
        let region = ByteRegion {
            start: 1 << 20,
            end: 3 << 20,
        };
        let mut s = stream(&mix, 70, 50, region);
        let n = 100_000;
        let (mut writes, mut small) = (0, 0);
        for _ in 0..n {
            let op = s.next_op();
            assert!(
                op.offset >= region.start && op.offset + op.len_bytes <= region.end,
                "{op:?}"
            );
            assert_eq!(op.offset % 4096, 0, "{op:?}");
            writes += u32::from(op.write);
            small += u32::from(op.len_bytes == 4096);
        }
        let share = |k: u32| f64::from(k) / f64::from(n);
        assert!(
            (share(writes) - 0.30).abs() < 0.01,
            "writes {}",
            share(writes)
        );
        assert!((share(small) - 0.70).abs() < 0.01, "small {}", share(small));
    }

    #[test]
    fn the_same_seed_gives_the_same_offsets() {
        let region = ByteRegion {
            start: 0,
            end: 1 << 30,
        };
        let mut a = stream(&BlockSizes::Fixed(4096), 50, 100, region);
        let mut b = stream(&BlockSizes::Fixed(4096), 50, 100, region);
        for _ in 0..100 {
            assert_eq!(a.next_op(), b.next_op());
        }
    }
}
