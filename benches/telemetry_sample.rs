//! Cost of one telemetry tick as a run takes it at every report interval: read every counter
//! (drive, CPU, pressure, page cache, drivebench's and a server's process) and turn the pair of
//! snapshots into an interval. Run with `cargo bench --bench telemetry_sample` (or
//! bench/telemetry-cost.sh); prints µs per tick and what that is, as % of one core, at a 1 s
//! report interval.

use std::time::Instant;

use drivebench_system::telemetry::Sampler;

fn main() {
    let target = std::env::temp_dir();
    // Our own process stands in for a server: the same /proc/PID/stat read.
    let mut sampler = Sampler::new(&target, vec![("server".into(), std::process::id())]);
    let mut last = sampler.sample();
    let ticks = 2_000u32;
    let started = Instant::now();
    for _ in 0..ticks {
        let now = sampler.sample();
        std::hint::black_box(now.interval(&last));
        last = now;
    }
    let per_tick_us = started.elapsed().as_secs_f64() * 1e6 / f64::from(ticks);
    println!(
        "telemetry tick: {per_tick_us:.1} us; at a 1 s report interval {:.4} % of one core",
        per_tick_us / 1e6 * 100.0
    );
}
