//! Feeding one table from a generator of row chunks, for every workload's loader: through the
//! engine's streamed bulk path (the rows generated while the engine loads, a few chunks in
//! flight) or, where there is none, as multi-row INSERTs with a transaction per chunk.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;

use crate::engines::{BulkPath, BulkText, EngineError, Session, Value};

/// The INSERT path's statements for one table.
pub struct InsertSql {
    /// "INSERT INTO t (a, b) VALUES", followed by `row` repeated.
    pub prefix: String,
    /// One row's parameters, e.g. "(?, ?)".
    pub row: String,
    pub rows_per_insert: usize,
    pub begin: String,
    pub commit: String,
}

/// How a feed ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fed {
    /// Every chunk was handed over: the rows the engine says it wrote, and those generated.
    Done { written: u64, generated: u64 },
    /// The cancel token fired; the table is incomplete.
    Interrupted,
}

/// Feed `table` (with `columns`) from `next` until it returns None; `rows_done` advances as
/// rows are handed over.
#[allow(clippy::too_many_arguments)]
pub async fn feed<S: Session>(
    s: &mut S,
    path: BulkPath,
    table: &str,
    columns: &[&str],
    text: BulkText,
    insert: &InsertSql,
    mut next: impl FnMut() -> Option<Vec<Value>> + Send,
    rows_done: &AtomicU64,
    cancel: &CancellationToken,
) -> Result<Fed, EngineError> {
    let width = columns.len().max(1);
    let generated = AtomicU64::new(0);
    let hand_over = |n: usize| {
        generated.fetch_add(n as u64, Ordering::Relaxed);
        rows_done.fetch_add(n as u64, Ordering::Relaxed);
    };
    if path == BulkPath::None {
        let sql = |n: usize| {
            format!(
                "{} {}",
                insert.prefix,
                vec![insert.row.as_str(); n].join(", ")
            )
        };
        // SQL Server caps the parameters of one request, and a VALUES list at 1,000 rows.
        let per = insert
            .rows_per_insert
            .min(s.max_params() / width)
            .clamp(1, 1_000);
        let full = s.prepare(&sql(per)).await?;
        let begin = s.prepare(&insert.begin).await?;
        let commit = s.prepare(&insert.commit).await?;
        let mut written = 0;
        while let Some(rows) = next() {
            if cancel.is_cancelled() {
                return Ok(Fed::Interrupted);
            }
            s.execute(begin, &[]).await?;
            for part in rows.chunks(per * width) {
                let stmt = if part.len() == per * width {
                    full
                } else {
                    s.prepare(&sql(part.len() / width)).await?
                };
                written += s.execute(stmt, part).await?;
            }
            s.execute(commit, &[]).await?;
            hand_over(rows.len() / width);
        }
        return Ok(Fed::Done {
            written,
            generated: generated.load(Ordering::Relaxed),
        });
    }
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let produce = async move {
        while let Some(rows) = next() {
            if cancel.is_cancelled() {
                return false;
            }
            let n = rows.len() / width;
            if tx.send(rows).await.is_err() {
                break; // the load failed; its error is reported
            }
            hand_over(n);
        }
        true
    };
    let (finished, loaded) = tokio::join!(produce, s.bulk_load(table, columns, text, rx));
    let written = loaded?;
    Ok(if finished {
        Fed::Done {
            written,
            generated: generated.load(Ordering::Relaxed),
        }
    } else {
        Fed::Interrupted
    })
}
