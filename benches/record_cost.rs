//! Cost of recording one transaction the way a virtual client does: lock its shard, record
//! response and service time into the HDR histograms, add the statement counters. Run with
//! `cargo bench --bench record_cost` (or bench/record_cost.sh); prints ns per recorded sample.

use std::hint::black_box;
use std::time::{Duration, Instant};

use drivebench::metrics::InstanceRecorder;
use drivebench::metrics::StatementCounts;

fn per_sample_ns(threads: u32, samples_per_thread: u64) -> f64 {
    let rec = InstanceRecorder::new(threads.max(1), 1);
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let shard = rec.shard_for(t);
            s.spawn(move || {
                let counts = StatementCounts {
                    reads: 14,
                    writes: 4,
                    other: 2,
                    rolled_back: false,
                    skipped: 0,
                };
                for i in 0..samples_per_thread {
                    // spread values over the whole 1 µs .. 100 ms range as real latencies do
                    let us = 1 + (i.wrapping_mul(2_654_435_761) % 100_000);
                    let d = Duration::from_micros(black_box(us));
                    shard.lock().unwrap().record(0, d, d, counts, 0);
                }
            });
        }
    });
    let elapsed = started.elapsed();
    elapsed.as_nanos() as f64 / samples_per_thread as f64
}

fn main() {
    let n = 20_000_000;
    per_sample_ns(1, 1_000_000); // warm-up
    let one = per_sample_ns(1, n);
    println!("record cost, 1 thread:  {one:.1} ns per sample ({n} samples)");
    let cores = std::thread::available_parallelism().map_or(2, |c| c.get()) as u32;
    let many = per_sample_ns(cores, n);
    println!("record cost, {cores} threads on separate shards: {many:.1} ns per sample per thread");
    println!("target: under 50 ns per sample");
}
