//! The `drivebench` binary: parse the command line, set up logging and the runtime, call the
//! library, exit with its code.

use clap::Parser;

// The client allocates per received row (driver row decoding); mimalloc makes that cheap.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let cli = drivebench::cli::Cli::parse();
    drivebench::cli::logging::init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            std::process::exit(drivebench::cli::EXIT_FAILED);
        }
    };
    let code = runtime.block_on(drivebench::cli::main(cli));
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    std::process::exit(code);
}
