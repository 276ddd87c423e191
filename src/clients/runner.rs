//! Where a session-driving future runs: on the shared async runtime for network engines, or on
//! a dedicated OS thread (with a tiny current-thread runtime for timers) for blocking engines,
//! so blocking calls never occupy async workers.

use std::future::Future;

use tokio::sync::oneshot;

use crate::engine::Execution;

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
            tokio::spawn(async move {
                let _ = tx.send(fut.await);
            });
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
