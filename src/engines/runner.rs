//! Where a session-driving future runs: on the client shards for network engines, or on a
//! dedicated OS thread (with a tiny current-thread runtime for timers) for blocking engines, so
//! blocking calls never occupy async workers.
//!
//! Client shards are one OS thread per core, each driving a current-thread runtime; async
//! clients are dealt round-robin across them, so a client's socket, timers and wake-ups stay on
//! one thread (no work stealing, no cross-thread wake-ups per query). Inside a current-thread
//! runtime (tests under paused time), futures are spawned on that runtime instead.

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

/// The next client shard, starting the shards on first use.
fn shard() -> std::io::Result<Handle> {
    if SHARDS.get().is_none() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut handles = Vec::with_capacity(cores);
        for i in 0..cores {
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
