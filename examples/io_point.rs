//! Run one uncontrolled random-read point with the direct-I/O engine and print its figures as
//! JSON, for side-by-side runs with other tools. Not part of the CLI.
//!
//! Usage: `io_point PATH SIZE_MIB BLOCK_BYTES THREADS DEPTH SECONDS [auto|io_uring|psync]`

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use drivebench_system::io::{
    BlockSizes, EngineChoice, Pacing, PointSpec, Region, TargetSpec, open_target, run_point,
};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 6 {
        anyhow::bail!("usage: io_point PATH SIZE_MIB BLOCK_BYTES THREADS DEPTH SECONDS [ENGINE]");
    }
    let engine = match args.get(6).map(String::as_str) {
        None | Some("auto") => EngineChoice::Auto,
        Some("io_uring") => EngineChoice::IoUring,
        Some("psync") => EngineChoice::Psync,
        Some(other) => anyhow::bail!("unknown engine {other}"),
    };
    let target = open_target(&TargetSpec::File {
        path: PathBuf::from(&args[0]),
        size_bytes: args[1].parse::<u64>()? << 20,
    })?;
    let spec = PointSpec {
        block_sizes: BlockSizes::Fixed(args[2].parse()?),
        read_pct: 100,
        random_pct: 100,
        threads: args[3].parse()?,
        depth: args[4].parse()?,
        region: Region::WHOLE,
        warmup_secs: 0.0,
        duration_secs: args[5].parse()?,
        pacing: Pacing::Uncontrolled,
        engine,
        submit_batch: 1,
        seed: 1,
        log_offsets: false,
    };
    let r = run_point(&target, &spec, &AtomicBool::new(false))?;
    let summary = serde_json::json!({
        "engine": r.engine,
        "alignment": target.alignment,
        "iops": r.iops,
        "mib_s": r.mib_s,
        "lat_avg_us": r.service_latency_us.avg,
        "lat_p99_us": r.service_latency_us.p99,
        "mean_outstanding": r.mean_outstanding_ios,
        "littles_law": r.littles_law_outstanding_ios,
        "cpu_secs": r.cpu_secs,
        "cpu_ns_per_io": r.cpu_secs * 1e9 / r.ios.max(1) as f64,
    });
    println!("{summary}");
    Ok(())
}
