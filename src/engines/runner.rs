//! Where a session-driving future runs: on the client shards for network engines, or on a
//! dedicated OS thread (with a tiny current-thread runtime for timers) for blocking engines, so
//! blocking calls never occupy async workers.
//!
//! Client shards are OS threads (as many as `use_client_threads` asked before the first client
//! started, else `default_client_threads`), each driving a current-thread runtime; async clients are dealt
//! round-robin across them, so a client's socket, timers and wake-ups stay on one thread (no
//! work stealing, no cross-thread wake-ups per query). Inside a current-thread runtime (tests
//! under paused time), futures are spawned on that runtime instead.

use std::future::Future;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::runtime::{Handle, RuntimeFlavor};

use tokio::sync::oneshot;

use crate::engines::Execution;

/// Run `fut` according to `execution`; the receiver yields its output (or an error if the
/// thread running it panicked).
pub fn spawn_on<F>(
    execution: Execution,
    name: String,
    fut: F,
) -> std::io::Result<oneshot::Receiver<F::Output>>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (tx, rx) = oneshot::channel();
    match execution {
        Execution::Async => {
            let task = async move {
                let _ = tx.send(fut.await);
            };
            match Handle::try_current().map(|h| h.runtime_flavor()) {
                Ok(RuntimeFlavor::CurrentThread) => {
                    tokio::spawn(task);
                }
                _ => {
                    shard()?.spawn(task);
                }
            }
        }
        Execution::DedicatedThread => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .enable_io()
                .build()?;
            std::thread::Builder::new()
                .name(name)
                .stack_size(512 * 1024)
                .spawn(move || {
                    let out = rt.block_on(fut);
                    let _ = tx.send(out);
                })?;
        }
    }
    Ok(rx)
}

struct Shards {
    handles: Vec<Handle>,
    next: AtomicUsize,
}

static SHARDS: OnceLock<Shards> = OnceLock::new();

/// The shard count asked for before the shards started (0: nobody asked).
static ASKED: AtomicUsize = AtomicUsize::new(0);

/// The client threads of a plan that names none: one per core of this host. With fewer, a
/// client thread that is ready to run waits behind a server process on its core while another
/// core idles: at saturation on a 2-core host, one thread left 6-7 % of it idle and two about
/// 2 % (PostgreSQL, sysbench's oltp_read_write at 8 clients; MariaDB alike).
pub fn default_client_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Run `threads` client shards in this process, if no client has started yet. The shards live
/// as long as the process, so a later, different count cannot take effect; it is logged.
pub fn use_client_threads(threads: usize) {
    if let Some(running) = SHARDS.get() {
        let n = running.handles.len();
        if n != threads {
            tracing::warn!("{n} client threads are already running; {threads} asked for later");
        }
        return;
    }
    ASKED.store(threads, Ordering::Relaxed);
}

/// The shards to start when `asked` were asked for (0: nobody asked, the default).
fn shard_count(asked: usize) -> usize {
    match asked {
        0 => default_client_threads(),
        n => n,
    }
}

/// The next client shard, starting the shards on first use.
fn shard() -> std::io::Result<Handle> {
    if SHARDS.get().is_none() {
        let count = shard_count(ASKED.load(Ordering::Relaxed));
        tracing::info!("{count} client threads");
        let mut handles = Vec::with_capacity(count);
        for i in 0..count {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            handles.push(rt.handle().clone());
            std::thread::Builder::new()
                .name(format!("clients-{i}"))
                .spawn(move || rt.block_on(std::future::pending::<()>()))?;
        }
        // A concurrent first call may have won: its shards serve everyone, these idle.
        let _ = SHARDS.set(Shards {
            handles,
            next: AtomicUsize::new(0),
        });
    }
    let shards = SHARDS
        .get()
        .ok_or_else(|| std::io::Error::other("no client shards"))?;
    let i = shards.next.fetch_add(1, Ordering::Relaxed) % shards.handles.len();
    Ok(shards.handles[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_asked_thread_count_wins_over_the_cores() {
        assert_eq!(shard_count(3), 3);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert_eq!(shard_count(0), cores);
    }

    #[tokio::test]
    async fn both_executions_deliver_the_output() {
        for ex in [Execution::Async, Execution::DedicatedThread] {
            let rx = spawn_on(ex, "t".into(), async {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                std::thread::current().name().map(str::to_string)
            })
            .unwrap();
            let name = rx.await.unwrap();
            if ex == Execution::DedicatedThread {
                assert_eq!(name.as_deref(), Some("t"));
            }
        }
    }
}
