//! The server loop of [`Server::serve_http_on`](crate::Server::serve_http_on): accepts
//! connections and serves each with hyper's HTTP/1.1 connection directly, the transport's
//! paths matched by string instead of through an `axum::Router` (the router stays for
//! applications that mount the transport themselves).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{HttpState, empty};
use crate::chain::middleware::Endpoint;

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
    let slots = Arc::new(tokio::sync::Semaphore::new(
        state.opts.max_connections.max(1),
    ));
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
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            conns.spawn(refuse(tcp));
            continue;
        };
        let (state, closing) = (state.clone(), closing.clone());
        conns.spawn(async move {
            connection(state, tcp, closing).await;
            drop(slot);
        });
    }
}

/// A connection beyond `max_connections`: a plain 503 and the socket closed, so the client
/// hears why and the descriptor is free again at once.
async fn refuse(mut tcp: TcpStream) {
    use tokio::io::AsyncWriteExt;
    const BUSY: &[u8] =
        b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
    let _ = tokio::time::timeout(Duration::from_secs(1), tcp.write_all(BUSY)).await;
    let _ = tcp.shutdown().await;
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
    let header_read_timeout = state.opts.header_read_timeout;
    let spare = Arc::new(Mutex::new(None));
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let taken = spare.lock().expect("slot lock").take();
        let mut slot = taken.unwrap_or_else(|| Box::pin(None));
        slot.set(Some(route(state.clone(), req.map(Body::new))));
        InSlot {
            slot: Some(slot),
            spare: spare.clone(),
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .serve_connection(TokioIo::new(tcp), service);
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

/// A connection's box for its request futures, kept between requests.
type Slot<F> = Pin<Box<Option<F>>>;

/// One request's future, run in the connection's [`Slot`].
///
/// hyper keeps a slot the size of the service's future for a connection's whole life, and
/// the request future (`route`, several KiB) would be that big; a listen stream's connection
/// lives as long as the stream. So hyper's slot holds only this, and the request future
/// runs in a box that goes back to the connection for its next request once the response
/// is complete, or is freed when the response is a stream (which may stay open for hours).
struct InSlot<F> {
    slot: Option<Slot<F>>,
    spare: Arc<Mutex<Option<Slot<F>>>>,
}

impl<F: Future<Output = Response>> Future for InSlot<F> {
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let slot = self.slot.as_mut().expect("polled after it finished");
        let fut = slot.as_mut().as_pin_mut().expect("a request future");
        let resp = std::task::ready!(fut.poll(cx));
        slot.set(None);
        let slot = self.slot.take();
        if http_body::Body::size_hint(resp.body()).exact().is_some() {
            *self.spare.lock().expect("slot lock") = slot;
        }
        Poll::Ready(Ok(resp))
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

#[cfg(test)]
mod tests {
    use super::*;

    type Fut = Pin<Box<dyn Future<Output = Response> + Send>>;

    fn run(spare: &Arc<Mutex<Option<Slot<Fut>>>>, resp: fn() -> Response) -> InSlot<Fut> {
        let mut slot = spare
            .lock()
            .unwrap()
            .take()
            .unwrap_or_else(|| Box::pin(None));
        slot.set(Some(Box::pin(async move { resp() })));
        InSlot {
            slot: Some(slot),
            spare: spare.clone(),
        }
    }

    #[tokio::test]
    async fn a_complete_answer_gives_the_slot_back_and_a_stream_keeps_none() {
        let spare = Arc::new(Mutex::new(None));
        let json = || super::super::json_response(StatusCode::OK, b"{}".to_vec());
        let resp = run(&spare, json).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        let kept = spare.lock().unwrap().as_ref().map(|s| &**s as *const _);
        assert!(kept.is_some(), "the slot is back for the next request");
        // The next request runs in that same box.
        let again = run(&spare, json);
        assert_eq!(again.slot.as_ref().map(|s| &**s as *const _), kept);
        again.await.unwrap();

        let stream =
            || super::super::sse_response(super::super::sse::SseBody::new(rx_of(), None, None));
        let resp = run(&spare, stream).await.unwrap();
        assert_eq!(
            resp.headers()[axum::http::header::CONTENT_TYPE],
            "text/event-stream"
        );
        assert!(spare.lock().unwrap().is_none(), "a stream's box is freed");
    }

    fn rx_of() -> tokio::sync::mpsc::Receiver<Vec<u8>> {
        tokio::sync::mpsc::channel(1).1
    }
}
