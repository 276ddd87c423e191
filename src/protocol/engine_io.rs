//! The engines' own I/O counters, sampled off the transaction path: per instance one session
//! of its own on the instance's connector, opened after the load, with the engine's
//! `engines::engine_io::Reader` prepared on it and served by a task of its own. At every
//! report tick (and where a span starts) every instance is asked at once, and the tick waits
//! at most [`read_timeout`] for the answers: a reading not back by then is a missed reading
//! (its interval gets a note, no figures), so a slow view never stalls a tick. The readings
//! go into the run's `EngineIoTrack`, which puts them beside the clients' work. Dropping the
//! sampler aborts the tasks and closes the sessions; the run drops it with its instances.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::engines::engine_io::{Reader, statements};
use crate::engines::{Connector, Dialect, Session};
use crate::metrics::summary::Summary;
use crate::results::engine_io::{EngineIoRow, EngineIoTrack, Missed, Reading, WorkSum};
use drivebench_core::engine_io::{EngineIoCounters, EngineIoReading};

/// The longest a tick waits for the engines' readings.
const MAX_READ_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest the session, its statements and its first reading may take to open.
const OPEN_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a tick waits for the readings: a quarter of the report interval, at most
/// [`MAX_READ_TIMEOUT`], so the tick's own figures stay on time.
pub fn read_timeout(report_interval: Duration) -> Duration {
    (report_interval / 4).min(MAX_READ_TIMEOUT)
}

type Request = oneshot::Sender<EngineIoReading>;

/// One instance's sampling task and the way to ask it.
struct Served {
    requests: mpsc::Sender<Request>,
    task: JoinHandle<()>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The run's engine I/O sampling: the served sessions (None for an instance whose engine
/// told nothing), the track of their readings, and what the clients' work counts as.
pub struct EngineIo {
    served: Vec<Option<Served>>,
    timeout: Duration,
    /// Whether the benchmark's transactions write (commits that flush the log).
    writes: bool,
    pub track: EngineIoTrack,
}

/// What opening found for one instance: its session and first reading, or none, and what its
/// engine could not tell.
struct Opened {
    served: Option<Served>,
    first: Option<EngineIoCounters>,
    missing: Vec<String>,
}

impl Opened {
    fn none(why: String) -> Self {
        Opened {
            served: None,
            first: None,
            missing: vec![why],
        }
    }
}

/// A sampler's start: the sampler when at least one instance's engine counts its I/O, and
/// each instance's missing notes (once per instance).
pub struct Started {
    pub engine_io: Option<EngineIo>,
    pub missing: Vec<Vec<String>>,
}

/// Open a session on every instance (`(name, dialect)` beside its connector) and read once.
pub async fn open<C: Connector>(
    instances: &[(String, Dialect)],
    connectors: &[Arc<C>],
    timeout: Duration,
    writes: bool,
) -> Started {
    let opening = instances
        .iter()
        .zip(connectors)
        .map(|((_, dialect), c)| open_one(c.clone(), *dialect));
    let opened = join_all(opening).await;
    let missing = opened.iter().map(|o| o.missing.clone()).collect();
    if opened.iter().all(|o| o.served.is_none()) {
        return Started {
            engine_io: None,
            missing,
        };
    }
    let first = instances
        .iter()
        .zip(&opened)
        .map(|((name, _), o)| (name.clone(), o.first.clone()))
        .collect();
    Started {
        engine_io: Some(EngineIo {
            served: opened.into_iter().map(|o| o.served).collect(),
            timeout,
            writes,
            track: EngineIoTrack::new(first),
        }),
        missing,
    }
}

/// One instance's session, statements and first reading; an engine whose first reading has
/// no counter at all is not sampled further.
async fn open_one<C: Connector>(connector: Arc<C>, dialect: Dialect) -> Opened {
    let st = match statements(dialect) {
        Ok(st) => st,
        Err(e) => return Opened::none(format!("engine I/O statements: {e}")),
    };
    let first = tokio::time::timeout(OPEN_TIMEOUT, async {
        let mut session = connector.connect().await?;
        let mut reader = Reader::prepare(&mut session, &st).await;
        let reading = reader.read(&mut session).await;
        Ok::<_, crate::engines::EngineError>((session, reader, reading))
    })
    .await;
    let (session, reader, reading) = match first {
        Err(_) => {
            return Opened::none(format!(
                "engine I/O session: no first reading within {} s",
                OPEN_TIMEOUT.as_secs()
            ));
        }
        Ok(Err(e)) => return Opened::none(format!("engine I/O session: {e}")),
        Ok(Ok(opened)) => opened,
    };
    if reading.counters == EngineIoCounters::default() {
        return Opened {
            served: None,
            first: None,
            missing: reading.missing,
        };
    }
    let (requests, rx) = mpsc::channel(1);
    Opened {
        served: Some(Served {
            requests,
            task: tokio::spawn(serve(session, reader, rx)),
        }),
        first: Some(reading.counters),
        missing: reading.missing,
    }
}

/// Answer every request with a reading, until the sampler is dropped.
async fn serve<S: Session>(mut session: S, mut reader: Reader, mut rx: mpsc::Receiver<Request>) {
    while let Some(reply) = rx.recv().await {
        let reading = reader.read(&mut session).await;
        // The tick gave up waiting: this reading is late, and dropped.
        let _ = reply.send(reading);
    }
}

impl EngineIo {
    /// Every instance's reading now, each within the timeout.
    pub async fn read(&self) -> Vec<Reading> {
        let deadline = Instant::now() + self.timeout;
        join_all(self.served.iter().map(|s| read_one(s.as_ref(), deadline))).await
    }

    /// The clock starts (or a curve point is measured): a new span from readings now.
    pub async fn restart(&mut self) {
        let readings = self.read().await;
        self.track.restart(readings);
    }

    /// An interval's end: readings now, beside each instance's clients' summary of it.
    pub async fn tick(&mut self, elapsed_s: f64, summaries: &[Summary]) -> Vec<EngineIoRow> {
        let readings = self.read().await;
        let work: Vec<WorkSum> = summaries
            .iter()
            .map(|s| WorkSum::of(s, self.writes))
            .collect();
        self.track.interval(elapsed_s, readings, &work)
    }
}

async fn read_one(served: Option<&Served>, deadline: Instant) -> Reading {
    let Some(s) = served else {
        return Err(Missed::NotCounted);
    };
    let (tx, rx) = oneshot::channel();
    if s.requests.try_send(tx).is_err() {
        return Err(Missed::StillRunning);
    }
    match tokio::time::timeout_at(deadline, rx).await {
        Ok(Ok(r)) => Ok(r.counters),
        Ok(Err(_)) => Err(Missed::SessionEnded),
        Err(_) => Err(Missed::TimedOut),
    }
}
