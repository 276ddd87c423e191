//! Running one workload point: check it against the target, choose the engine, start the
//! worker threads, let them all set up before the clock starts, start them together, take the
//! CPU reading over the recorded window, stop, join and merge.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use super::direct::AlignedBuf;
use super::error::IoError;
use super::psync;
use super::recorder::Recorder;
use super::result::{PointResult, RunFacts};
use super::schedule::Schedule;
use super::spec::{EngineChoice, IoEngineKind, MAX_OS_THREADS, Pacing, PointSpec};
use super::stream::{ByteRegion, IoStream};
use super::target::DirectTarget;
use super::uring::{self, Ring, fill_bytes};
use super::worker::{Clock, HALT_POLL_NS, Worker};
use drivebench_core::rng::Rng;

/// The byte range of the point's region on `target`, checked against its alignment and the
/// largest block size.
pub fn byte_region(target: &DirectTarget, spec: &PointSpec) -> Result<ByteRegion, IoError> {
    let align = target.alignment.offset_bytes.max(1);
    for bytes in spec.block_sizes.sizes_bytes() {
        if bytes % align != 0 {
            return Err(IoError::Misaligned {
                path: target.path.clone(),
                block_size_bytes: bytes,
                align_bytes: align,
            });
        }
    }
    let at = |fraction: f64| (target.size_bytes as f64 * fraction) as u64;
    let start = at(spec.region.start_fraction).div_ceil(align) * align;
    let end = (at(spec.region.end_fraction).min(target.size_bytes) / align) * align;
    let max_bytes = spec.block_sizes.max_bytes();
    if end < start || end - start < max_bytes {
        return Err(IoError::RegionTooSmall {
            path: target.path.clone(),
            region_bytes: end.saturating_sub(start),
            block_size_bytes: max_bytes,
        });
    }
    Ok(ByteRegion { start, end })
}

/// Check a point against a target without running it: its settings, the block sizes against
/// the direct-I/O alignment, and the region against the largest block size.
pub fn check_point(target: &DirectTarget, spec: &PointSpec) -> Result<(), IoError> {
    spec.validate()?;
    byte_region(target, spec).map(|_| ())
}

/// The engine for `choice`, and why io_uring was passed over when it was chosen automatically.
fn choose_engine(
    target: &DirectTarget,
    choice: EngineChoice,
) -> Result<(IoEngineKind, Option<String>), IoError> {
    if choice == EngineChoice::Psync {
        return Ok((IoEngineKind::Psync, None));
    }
    let align = target.alignment.memory_bytes as usize;
    match (Ring::new(&target.file, 1, align.max(4096), align), choice) {
        (Ok(_), _) => Ok((IoEngineKind::IoUring, None)),
        (Err(e), EngineChoice::IoUring) => Err(IoError::UringUnavailable(e.to_string())),
        (Err(e), _) => Ok((
            IoEngineKind::Psync,
            Some(format!("io_uring setup failed: {e}")),
        )),
    }
}

/// What a worker set up before the clock started.
enum Prepared {
    Uring(Box<Ring>),
    Psync(AlignedBuf),
}

fn process_cpu_secs() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Wait until `at_ns`, or until a stop request (which then halts the workers) or a halt.
fn wait_until(clock: &Clock, at_ns: u64, stop: &AtomicBool, halt: &AtomicBool) {
    loop {
        if stop.load(Ordering::Relaxed) {
            halt.store(true, Ordering::Relaxed);
        }
        let now = clock.now_ns();
        if now >= at_ns || halt.load(Ordering::Relaxed) {
            return;
        }
        clock.sleep_until(at_ns.min(now + HALT_POLL_NS));
    }
}

/// Run one workload point on `target`. `stop` ends it early with what was measured so far.
pub fn run_point(
    target: &DirectTarget,
    spec: &PointSpec,
    stop: &AtomicBool,
) -> Result<PointResult, IoError> {
    spec.validate()?;
    let region = byte_region(target, spec)?;
    let (mut engine, mut engine_fallback_reason) = choose_engine(target, spec.engine)?;
    let mut ran = run_workers(target, spec, region, engine, stop);
    if let Err(IoError::UringUnavailable(reason)) = &ran
        && spec.engine == EngineChoice::Auto
    {
        // A worker's ring could not be set up (nothing was issued yet): psync instead.
        engine_fallback_reason = Some(format!("io_uring setup failed in a worker: {reason}"));
        engine = IoEngineKind::Psync;
        ran = run_workers(target, spec, region, engine, stop);
    }
    let ran = ran?;
    let mut records = ran.records.into_iter();
    let mut merged = records
        .next()
        .ok_or_else(|| IoError::Worker("no worker ran".to_owned()))?;
    for r in records {
        merged.merge(r);
    }
    let facts = RunFacts {
        engine,
        engine_fallback_reason,
        os_threads: ran.workers,
        outstanding_max_ios: ran.workers * ran.depth,
        target_iops: match spec.pacing {
            Pacing::Uncontrolled => None,
            Pacing::Rate { iops, .. } => Some(iops),
        },
        cpu_secs: ran.cpu_secs,
        stopped_early: ran.halted,
    };
    Ok(PointResult::from_record(merged, facts))
}

/// What the worker threads of one point left behind.
struct WorkersRan {
    records: Vec<Recorder>,
    cpu_secs: f64,
    halted: bool,
    workers: u32,
    depth: u32,
}

/// Start the workers on `engine`, run them together, join them.
fn run_workers(
    target: &DirectTarget,
    spec: &PointSpec,
    region: ByteRegion,
    engine: IoEngineKind,
    stop: &AtomicBool,
) -> Result<WorkersRan, IoError> {
    let (workers, depth) = match engine {
        IoEngineKind::IoUring => (spec.threads, spec.depth),
        IoEngineKind::Psync => (spec.threads.saturating_mul(spec.depth), 1),
    };
    if workers > MAX_OS_THREADS {
        return Err(IoError::InvalidSpec(format!(
            "{workers} OS threads for psync (threads × depth) is over {MAX_OS_THREADS}"
        )));
    }
    let warmup_ns = (spec.warmup_secs * 1e9) as u64;
    let crew = Crew {
        target,
        spec,
        region,
        engine,
        workers,
        depth,
        warmup_ns,
        end_ns: warmup_ns.saturating_add((spec.duration_secs * 1e9) as u64),
        slot_bytes: spec.block_sizes.max_bytes() as usize,
        align: target.alignment.memory_bytes as usize,
        halt: AtomicBool::new(false),
    };
    let (records, cpu_secs) = std::thread::scope(|scope| crew.run(scope, stop));
    Ok(WorkersRan {
        records: records?,
        cpu_secs,
        halted: crew.halt.load(Ordering::Relaxed),
        workers,
        depth,
    })
}

/// What the worker threads of one point share: the target, the point, the engine and how
/// many workers of which depth, the recorded window, and the halt flag.
struct Crew<'a> {
    target: &'a DirectTarget,
    spec: &'a PointSpec,
    region: ByteRegion,
    engine: IoEngineKind,
    workers: u32,
    depth: u32,
    warmup_ns: u64,
    end_ns: u64,
    slot_bytes: usize,
    align: usize,
    halt: AtomicBool,
}

/// A worker's handle, as `join_all` takes it.
type Handle<'scope> = std::thread::ScopedJoinHandle<'scope, Result<Recorder, IoError>>;

impl Crew<'_> {
    /// Spawn every worker, start them together once all are set up, take the CPU reading over
    /// the recorded window, and join them: their records and the CPU seconds.
    fn run<'scope>(
        &'scope self,
        scope: &'scope std::thread::Scope<'scope, '_>,
        stop: &AtomicBool,
    ) -> (Result<Vec<Recorder>, IoError>, f64) {
        let (ready_tx, ready_rx) = mpsc::channel::<bool>();
        let mut handles: Vec<Handle<'scope>> = Vec::new();
        let mut starts = Vec::new();
        for id in 0..self.workers {
            let (start_tx, start_rx) = mpsc::channel::<Option<Instant>>();
            let ready = ready_tx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("drivebench-io-{id}"))
                .spawn_scoped(scope, move || self.worker(id, ready, start_rx));
            match spawned {
                Ok(handle) => {
                    handles.push(handle);
                    starts.push(start_tx);
                }
                Err(e) => {
                    self.halt.store(true, Ordering::Relaxed);
                    drop(starts);
                    let spawn_error = Err(IoError::Worker(format!("spawn: {e}")));
                    return (join_all(handles, spawn_error), 0.0);
                }
            }
        }
        drop(ready_tx);
        let all_ready = (0..self.workers).all(|_| ready_rx.recv() == Ok(true));
        if !all_ready {
            drop(starts);
            return (join_all(handles, Ok(())), 0.0);
        }
        let start = Instant::now();
        for tx in &starts {
            let _ = tx.send(Some(start));
        }
        let clock = Clock::new(start);
        wait_until(&clock, self.warmup_ns, stop, &self.halt);
        let cpu_before = process_cpu_secs();
        wait_until(&clock, self.end_ns, stop, &self.halt);
        let cpu_secs = process_cpu_secs() - cpu_before;
        (join_all(handles, Ok(())), cpu_secs)
    }

    /// Worker `id`: set up, say whether that worked on `ready`, wait for the common start on
    /// `start_rx` (none when another worker failed to set up), then run its engine.
    fn worker(
        &self,
        id: u32,
        ready: mpsc::Sender<bool>,
        start_rx: mpsc::Receiver<Option<Instant>>,
    ) -> Result<Recorder, IoError> {
        let prepared = self.prepare(id);
        let _ = ready.send(prepared.is_ok());
        let prepared = prepared?;
        let Ok(Some(start)) = start_rx.recv() else {
            // Another worker failed to set up and reports why; this one did nothing.
            return Ok(Recorder::new(self.warmup_ns, self.end_ns, false));
        };
        let mut w = self.inputs(id, start);
        let ran = match prepared {
            Prepared::Uring(ring) => uring::run(&mut w, *ring, self.spec.submit_batch),
            Prepared::Psync(buf) => psync::run(&mut w, buf),
        };
        if ran.is_err() {
            self.halt.store(true, Ordering::Relaxed);
        }
        ran.map(|()| w.recorder)
    }

    /// Worker `id`'s ring or buffer, filled with data that does not compress.
    fn prepare(&self, id: u32) -> Result<Prepared, IoError> {
        let (spec, slot_bytes, align) = (self.spec, self.slot_bytes, self.align);
        let mut fill_rng = Rng::for_client(spec.seed ^ 0x5eed_f111, 1, u64::from(id));
        match self.engine {
            IoEngineKind::IoUring => Ring::new(&self.target.file, self.depth, slot_bytes, align)
                .map(|mut ring| {
                    ring.fill(|| fill_rng.next_u64());
                    Prepared::Uring(Box::new(ring))
                })
                .map_err(|e| IoError::UringUnavailable(e.to_string())),
            IoEngineKind::Psync => AlignedBuf::new(1, slot_bytes, align)
                .map(|mut buf| {
                    fill_bytes(buf.as_mut_slice(), || fill_rng.next_u64());
                    Prepared::Psync(buf)
                })
                .ok_or_else(|| IoError::Worker("out of memory for buffers".to_owned())),
        }
    }

    /// Worker `id`'s inputs on a clock started at `start`: its share of the I/O stream, its
    /// schedule under a target rate, and an empty record.
    fn inputs(&self, id: u32, start: Instant) -> Worker<'_> {
        let (spec, workers) = (self.spec, self.workers);
        let rng = Rng::for_client(spec.seed, 0, u64::from(id));
        let stream = IoStream::new(
            rng.clone(),
            self.region,
            &spec.block_sizes,
            spec.read_pct,
            spec.random_pct,
            u64::from(id),
            u64::from(workers),
        );
        let schedule = match spec.pacing {
            Pacing::Uncontrolled => None,
            Pacing::Rate { iops, arrivals } => Some(Schedule::new(
                iops,
                arrivals,
                Rng::for_client(spec.seed, 2, u64::from(id)),
                id,
                workers,
            )),
        };
        Worker {
            file: &self.target.file,
            path: &self.target.path,
            clock: Clock::new(start),
            end_ns: self.end_ns,
            halt: &self.halt,
            stream,
            schedule,
            recorder: Recorder::new(self.warmup_ns, self.end_ns, spec.log_offsets),
        }
    }
}

/// Join every worker; the first error wins (`first` goes before the workers' own).
fn join_all(
    handles: Vec<Handle<'_>>,
    first: Result<(), IoError>,
) -> Result<Vec<Recorder>, IoError> {
    let mut outcome = first.map(|()| Vec::with_capacity(handles.len()));
    for handle in handles {
        let joined = handle
            .join()
            .unwrap_or_else(|_| Err(IoError::Worker("a worker thread panicked".to_owned())));
        match (&mut outcome, joined) {
            (Ok(records), Ok(r)) => records.push(r),
            (Ok(_), Err(e)) => outcome = Err(e),
            (Err(_), _) => {}
        }
    }
    outcome
}
