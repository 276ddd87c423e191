//! Connections shared by more virtual clients than the server can take: a client holds one
//! only while a transaction runs (TPC-C's 15,000 terminals on a few hundred connections).
//! Waiting clients are served first come, first served, so the wait shows up fairly as start
//! lateness. A connection is handed back when its lease drops, also on cancellation.

use std::sync::Mutex;

use tokio::sync::Semaphore;

/// Open connections with their prepared state.
pub struct Pool<S, C> {
    free: Mutex<Vec<(S, C)>>,
    available: Semaphore,
    size: usize,
}

impl<S, C> Pool<S, C> {
    pub fn new(connections: Vec<(S, C)>) -> Self {
        Pool {
            available: Semaphore::new(connections.len()),
            size: connections.len(),
            free: Mutex::new(connections),
        }
    }

    /// Connections in the pool, leased or not.
    pub fn size(&self) -> usize {
        self.size
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(S, C)>> {
        self.free.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait for a free connection.
    pub async fn acquire(&self) -> Lease<'_, S, C> {
        // The semaphore is never closed, so acquiring cannot fail.
        if let Ok(permit) = self.available.acquire().await {
            permit.forget();
        }
        let conn = self.lock().pop();
        Lease { pool: self, conn }
    }
}

/// A connection held for one transaction; back in the pool when dropped.
pub struct Lease<'a, S, C> {
    pool: &'a Pool<S, C>,
    conn: Option<(S, C)>,
}

impl<S, C> Lease<'_, S, C> {
    /// The session and its prepared state.
    pub fn parts(&mut self) -> Option<(&mut S, &mut C)> {
        self.conn.as_mut().map(|(s, c)| (s, c))
    }

    /// Replace a connection that was lost (after a reconnect).
    pub fn replace(&mut self, conn: (S, C)) {
        self.conn = Some(conn);
    }
}

impl<S, C> Drop for Lease<'_, S, C> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.pool.lock().push(conn);
            self.pool.available.add_permits(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn clients_wait_for_a_connection_in_arrival_order() {
        let pool = Arc::new(Pool::new(vec![(1u32, ()), (2u32, ())]));
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for i in 0..6u32 {
            let (pool, order) = (pool.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(u64::from(i))).await;
                let mut lease = pool.acquire().await;
                assert!(lease.parts().is_some());
                order.lock().unwrap().push(i);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4, 5]);
        assert_eq!(pool.lock().len(), 2, "every connection came back");
    }

    #[tokio::test(start_paused = true)]
    async fn a_cancelled_holder_gives_its_connection_back() {
        let pool = Arc::new(Pool::new(vec![(1u32, ())]));
        let p = pool.clone();
        let holder = tokio::spawn(async move {
            let _lease = p.acquire().await;
            tokio::time::sleep(Duration::from_secs(3600)).await;
        });
        tokio::time::sleep(Duration::from_millis(1)).await;
        holder.abort();
        let _ = holder.await;
        let mut lease = tokio::time::timeout(Duration::from_secs(1), pool.acquire())
            .await
            .expect("the aborted holder's connection is free again");
        assert_eq!(lease.parts().map(|(s, _)| *s), Some(1));
    }
}
