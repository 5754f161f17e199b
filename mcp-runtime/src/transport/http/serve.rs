//! The server loop of [`Server::serve_http_on`](crate::Server::serve_http_on): accepts
//! connections and serves each with hyper's HTTP/1.1 connection directly, the transport's
//! paths matched by string instead of through an `axum::Router` (the router stays for
//! applications that mount the transport themselves).

use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{HttpState, empty};
use crate::middleware::Endpoint;

/// Accepts connections until `stop` fires; every connection is tracked in `conns` and
/// told to finish gracefully (its request in flight answered, then closed) when
/// `closing` fires.
pub(super) async fn accept_loop<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    listener: TcpListener,
    stop: &CancellationToken,
    closing: &CancellationToken,
    conns: &TaskTracker,
) {
    loop {
        let tcp = tokio::select! {
            biased;
            _ = stop.cancelled() => return,
            r = listener.accept() => match r {
                Ok((tcp, _)) => tcp,
                Err(e) => {
                    accept_error(e).await;
                    continue;
                }
            },
        };
        conns.spawn(connection(state.clone(), tcp, closing.clone()));
    }
}

/// A failed `accept`: a connection that went away before it was accepted is skipped; any
/// other error (out of file descriptors, ...) pauses accepting for a moment.
async fn accept_error(e: io::Error) {
    if matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accept failed");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

/// Serves one connection until the client closes it, or `closing` fires and what is in
/// flight on it is answered.
async fn connection<E: Endpoint + 'static>(
    state: Arc<HttpState<E>>,
    tcp: TcpStream,
    closing: CancellationToken,
) {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY failed");
    }
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(route(state, req.map(Body::new)).await) }
    });
    let conn =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tcp), service);
    let mut conn = std::pin::pin!(conn);
    let served = tokio::select! {
        biased;
        r = conn.as_mut() => r,
        _ = closing.cancelled() => {
            conn.as_mut().graceful_shutdown();
            conn.await
        }
    };
    if let Err(e) = served {
        tracing::trace!(error = %e, "connection ended with an error");
    }
}

/// One request: the transport's paths go to its handler, the rest is 404 (as an
/// `axum::Router` without a fallback answers).
async fn route<E: Endpoint + 'static>(
    state: Arc<HttpState<E>>,
    req: axum::extract::Request,
) -> Response {
    if state.serves_path(req.uri().path()) {
        state.handle(req).await
    } else {
        empty(StatusCode::NOT_FOUND)
    }
}
