//! The HTTP side: `GET /metrics` answers the live figures in the OpenMetrics text format;
//! anything else gets 404 (or 405 for another method). One task accepts, one task per
//! connection answers, all of them end with the run.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::LiveMetrics;

/// The content type of the OpenMetrics text format, which Prometheus asks for and reads.
pub const CONTENT_TYPE_OPENMETRICS: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Why the metrics address was refused.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error(
        "--metrics-listen {0}: not a loopback address; anyone who reaches it sees the run's \
         figures, so add --metrics-listen-public to serve there"
    )]
    Public(SocketAddr),
    #[error("--metrics-listen {0}: cannot listen there: {1}")]
    Bind(SocketAddr, std::io::Error),
}

/// Bind `addr` for the metrics (before the run starts, so a refusal costs nothing);
/// `public` allows an address other than loopback.
pub fn bind(addr: SocketAddr, public: bool) -> Result<TcpListener, ListenError> {
    if !addr.ip().is_loopback() && !public {
        return Err(ListenError::Public(addr));
    }
    let listener = std::net::TcpListener::bind(addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| ListenError::Bind(addr, e))?;
    TcpListener::from_std(listener).map_err(|e| ListenError::Bind(addr, e))
}

/// Answer scrapes on `listener` until `stop`.
pub async fn serve(listener: TcpListener, live: Arc<LiveMetrics>, stop: CancellationToken) {
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::debug!("metrics: accept failed: {e}");
                    continue;
                }
            },
            _ = stop.cancelled() => return,
        };
        let live = live.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let page = respond(&live, &req);
                async move { Ok::<_, Infallible>(page) }
            });
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                r = conn => if let Err(e) = r {
                    tracing::debug!("metrics: connection ended: {e}");
                },
                _ = stop.cancelled() => {}
            }
        });
    }
}

fn respond(live: &LiveMetrics, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    let (status, body, kind) = match (req.method(), req.uri().path()) {
        (&Method::GET, "/metrics") => (StatusCode::OK, live.encode(), CONTENT_TYPE_OPENMETRICS),
        (_, "/metrics") => (
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET\n".into(),
            "text/plain; charset=utf-8",
        ),
        _ => (
            StatusCode::NOT_FOUND,
            "drivebench serves its live metrics at /metrics\n".into(),
            "text/plain; charset=utf-8",
        ),
    };
    let mut page = Response::new(Full::new(Bytes::from(body)));
    *page.status_mut() = status;
    page.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    page
}
