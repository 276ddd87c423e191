//! The fill precondition: sequential writes (128 KiB by default) over a region, once or twice,
//! before a sweep — so reads hit written blocks and writes meet a drive that has seen its
//! capacity written. Each thread writes one contiguous slice in order; the data is random with
//! every 4 KiB sector stamped with its offset, so nothing compresses or deduplicates. Progress
//! (bytes, MB/s, ETA) is reported about twice a second.

use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::direct::AlignedBuf;
use super::error::IoError;
use super::run::byte_region;
use super::spec::{BlockSizes, EngineChoice, Pacing, PointSpec, Region};
use super::target::DirectTarget;
use super::uring::fill_bytes;
use drivebench_core::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FillSpec {
    pub region: Region,
    /// Times the region is written (1 or 2 usually).
    pub passes: u32,
    /// Writers, each on its own slice of the region.
    pub threads: u32,
    pub block_bytes: u64,
    pub seed: u64,
}

impl FillSpec {
    /// One pass of 128 KiB writes from 4 threads over `region`.
    pub fn new(region: Region) -> Self {
        FillSpec {
            region,
            passes: 1,
            threads: 4,
            block_bytes: 128 << 10,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FillProgress {
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub mb_s: f64,
    pub eta_secs: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FillResult {
    pub bytes: u64,
    pub passes: u32,
    pub seconds: f64,
    pub mb_s: f64,
    pub mib_s: f64,
    pub stopped_early: bool,
}

const SECTOR: usize = 4096;
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// Write the region `spec.passes` times; `progress` is called from this thread while the
/// writers run.
pub fn fill(
    target: &DirectTarget,
    spec: &FillSpec,
    stop: &AtomicBool,
    mut progress: impl FnMut(FillProgress),
) -> Result<FillResult, IoError> {
    let check = check_spec(spec);
    check.validate()?;
    let region = byte_region(target, &check)?;
    let threads = u64::from(check.threads);
    let block = spec.block_bytes;
    // Slices of whole blocks; the last takes the remainder (a multiple of the alignment).
    let blocks = (region.end - region.start) / block;
    let per = blocks.div_ceil(threads).max(1) * block;
    let total = (region.end - region.start) * u64::from(spec.passes);
    let writers = Writers {
        target,
        spec,
        stop,
        done: AtomicU64::new(0),
        started: Instant::now(),
        align: target.alignment.memory_bytes.max(4096) as usize,
    };
    let outcome: Result<(), IoError> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for t in 0..threads {
            let from = region.start + t * per;
            let to = (from + per).min(region.end);
            if from >= to {
                continue;
            }
            let writers = &writers;
            handles.push(scope.spawn(move || writers.write_slice(t, from, to)));
        }
        let mut reported = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(50));
            if reported.elapsed() >= PROGRESS_EVERY {
                reported = Instant::now();
                progress(writers.progress(total));
            }
        }
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err(IoError::InvalidSpec("a fill writer panicked".into())))
        })
    });
    outcome?;
    target.file.sync_data().map_err(|e| IoError::Io {
        path: target.path.clone(),
        op: "fdatasync",
        offset: 0,
        len_bytes: 0,
        reason: e.to_string(),
    })?;
    let bytes = writers.done.load(Ordering::Relaxed);
    let seconds = writers.started.elapsed().as_secs_f64();
    Ok(FillResult {
        bytes,
        passes: spec.passes,
        seconds,
        mb_s: bytes as f64 / seconds.max(1e-9) / 1e6,
        mib_s: bytes as f64 / seconds.max(1e-9) / (1u64 << 20) as f64,
        stopped_early: bytes < total,
    })
}

/// The fill as a point of sequential writes, to check it as one against the target.
fn check_spec(spec: &FillSpec) -> PointSpec {
    PointSpec {
        block_sizes: BlockSizes::Fixed(spec.block_bytes),
        read_pct: 0,
        random_pct: 0,
        threads: spec.threads.max(1),
        depth: 1,
        region: spec.region,
        warmup_secs: 0.0,
        duration_secs: 1.0,
        pacing: Pacing::Uncontrolled,
        engine: EngineChoice::Psync,
        seed: spec.seed,
        submit_batch: 1,
        log_offsets: false,
    }
}

/// What the fill's writer threads share: the target, the spec, the stop flag and the bytes
/// written so far.
struct Writers<'a> {
    target: &'a DirectTarget,
    spec: &'a FillSpec,
    stop: &'a AtomicBool,
    done: AtomicU64,
    started: Instant,
    align: usize,
}

impl Writers<'_> {
    /// Writer `t`: `[from, to)` in order, `spec.passes` times, until done or stopped.
    fn write_slice(&self, t: u64, from: u64, to: u64) -> Result<(), IoError> {
        let (target, spec, block) = (self.target, self.spec, self.spec.block_bytes);
        let mut buf = AlignedBuf::new(1, block as usize, self.align).ok_or_else(|| {
            IoError::InvalidSpec(format!("cannot allocate a {block}-byte buffer"))
        })?;
        let mut rng = Rng::for_client(spec.seed, 0, t);
        fill_bytes(buf.as_mut_slice(), || rng.next_u64());
        for _ in 0..spec.passes {
            let mut offset = from;
            while offset < to {
                if self.stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let len = block.min(to - offset) as usize;
                let data = &mut buf.slot_mut(0)[..len];
                for (i, sector) in data.chunks_mut(SECTOR).enumerate() {
                    let stamp = offset + (i * SECTOR) as u64;
                    sector[..8].copy_from_slice(&stamp.to_le_bytes());
                }
                target
                    .file
                    .write_all_at(data, offset)
                    .map_err(|e| IoError::Io {
                        path: target.path.clone(),
                        op: "pwrite",
                        offset,
                        len_bytes: len as u64,
                        reason: e.to_string(),
                    })?;
                offset += len as u64;
                self.done.fetch_add(len as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Bytes written so far of `total`, the rate since the start and the time left at it.
    fn progress(&self, total: u64) -> FillProgress {
        let secs = self.started.elapsed().as_secs_f64();
        let bytes = self.done.load(Ordering::Relaxed);
        let rate = bytes as f64 / secs.max(1e-9);
        FillProgress {
            bytes_done: bytes,
            bytes_total: total,
            mb_s: rate / 1e6,
            eta_secs: (total - bytes.min(total)) as f64 / rate.max(1.0),
        }
    }
}
