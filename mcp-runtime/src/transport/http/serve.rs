//! The server loop of [`Server::serve_http_on`](crate::Server::serve_http_on): accepts
//! connections and serves each with hyper's HTTP/1.1 connection directly, the transport's
//! paths matched by string instead of through an `axum::Router` (the router stays for
//! applications that mount the transport themselves).
//!
//! At `max_connections` the oldest connection with no request in progress (an idle
//! keep-alive connection, or one still sending its request head) is closed to admit the new
//! one, so clients holding connections open without using them cannot lock others out; only
//! when every connection is busy does a new one hear 503.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{HttpState, empty};

/// Accepts connections until `stop` fires; every connection is tracked in `conns` and
/// told to finish gracefully (its request in flight answered, then closed) when
/// `closing` fires.
pub(super) async fn accept_loop(
    state: &Arc<HttpState>,
    listener: TcpListener,
    stop: &CancellationToken,
    closing: &CancellationToken,
    conns: &TaskTracker,
) {
    let slots = Arc::new(tokio::sync::Semaphore::new(
        state.opts.max_connections.max(1),
    ));
    let open = Arc::new(Open::default());
    let admitting = Arc::new(tokio::sync::Semaphore::new(ADMITTING));
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
        let (state, closing) = (state.clone(), closing.clone());
        match slots.clone().try_acquire_owned() {
            Ok(slot) => {
                // Entered now, not when its task first runs: under a flood of connections
                // the ones accepted a moment ago are the ones that can make room.
                let entered = open.enter(slot);
                conns.spawn(connection(state, tcp, closing, entered));
            }
            Err(_) => match open.evict_oldest_idle() {
                // The evicted connection hands its slot over in a moment: waited for in the
                // new connection's own task, so accepting goes on meanwhile, with at most
                // `ADMITTING` accepted sockets waiting (each holds a descriptor).
                Some(heir) => {
                    let Ok(admit) = admitting.clone().acquire_owned().await else {
                        return;
                    };
                    let open = open.clone();
                    conns.spawn(async move {
                        let slot = tokio::time::timeout(ADMIT_WAIT, heir).await;
                        drop(admit);
                        match slot {
                            Ok(Ok(slot)) => connection(state, tcp, closing, open.enter(slot)).await,
                            _ => refuse(tcp).await,
                        }
                    });
                }
                None => {
                    conns.spawn(refuse(tcp));
                }
            },
        }
    }
}

/// How long a connection admitted by evicting an idle one waits for that one's slot
/// (503 after it: the evicted connection started a request meanwhile).
const ADMIT_WAIT: Duration = Duration::from_secs(1);

/// The most accepted connections waiting for the slot of the one they evicted.
const ADMITTING: usize = 8;

/// The connections being served, oldest first, so that at the cap an idle one can make
/// room.
#[derive(Default)]
struct Open {
    conns: Mutex<(u64, BTreeMap<u64, Arc<Tracked>>)>,
}

/// One connection, as [`Open`] sees it.
#[derive(Default)]
struct Tracked {
    /// Requests in progress: from their head being read until their answer is complete
    /// (a stream's until it ends).
    busy: AtomicUsize,
    /// Fires to close the connection.
    evict: CancellationToken,
    /// Where the connection's slot goes when it ends, once evicted: to the connection that
    /// evicted it (not back to the pool, where another new connection could take it first).
    heir: Mutex<Option<oneshot::Sender<OwnedSemaphorePermit>>>,
}

impl Open {
    /// Enters a new connection, holding `slot`; it leaves (and frees the slot) when the
    /// guard drops.
    fn enter(self: &Arc<Self>, slot: OwnedSemaphorePermit) -> Entered {
        let tracked = Arc::new(Tracked::default());
        let mut conns = self.conns.lock().expect("connections lock");
        conns.0 += 1;
        let key = conns.0;
        conns.1.insert(key, tracked.clone());
        Entered {
            open: self.clone(),
            key,
            tracked,
            slot: Some(slot),
        }
    }

    /// Closes the oldest connection with no request in progress that is not closing
    /// already; its slot, once it has ended. `None` when there is none.
    fn evict_oldest_idle(&self) -> Option<oneshot::Receiver<OwnedSemaphorePermit>> {
        let conns = self.conns.lock().expect("connections lock");
        let victim = conns
            .1
            .values()
            .find(|t| t.busy.load(Ordering::Acquire) == 0 && !t.evict.is_cancelled())?;
        tracing::debug!("connection cap: closing the oldest idle connection");
        let (tx, rx) = oneshot::channel();
        *victim.heir.lock().expect("heir lock") = Some(tx);
        victim.evict.cancel();
        Some(rx)
    }
}

/// A connection's place in [`Open`] and its slot of `max_connections`, held while it is
/// served.
struct Entered {
    open: Arc<Open>,
    key: u64,
    tracked: Arc<Tracked>,
    slot: Option<OwnedSemaphorePermit>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.open
            .conns
            .lock()
            .expect("connections lock")
            .1
            .remove(&self.key);
        let heir = self.tracked.heir.lock().expect("heir lock").take();
        if let (Some(heir), Some(slot)) = (heir, self.slot.take()) {
            // A new connection that gave up waiting gives the slot back to the pool.
            let _ = heir.send(slot);
        }
    }
}

/// Counts one request of a connection as in progress while alive.
struct Busy(Arc<Tracked>);

impl Busy {
    fn new(t: &Arc<Tracked>) -> Self {
        t.busy.fetch_add(1, Ordering::AcqRel);
        Self(t.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A streamed answer's body, which keeps its request counted as in progress until the
/// stream ends (the body is dropped).
struct BusyBody {
    inner: Body,
    _busy: Busy,
}

impl http_body::Body for BusyBody {
    type Data = <Body as http_body::Body>::Data;
    type Error = <Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// A connection beyond `max_connections`: a plain 503 and the socket closed, so the client
/// hears why and the descriptor is free again at once.
async fn refuse(mut tcp: TcpStream) {
    use tokio::io::AsyncWriteExt;
    const BUSY: &[u8] =
        b"HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
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
/// flight on it is answered, or it is evicted while no request is in progress.
async fn connection(
    state: Arc<HttpState>,
    tcp: TcpStream,
    closing: CancellationToken,
    entered: Entered,
) {
    let tracked = entered.tracked.clone();
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "TCP_NODELAY failed");
    }
    let header_read_timeout = state.opts.header_read_timeout;
    let spare = Arc::new(Mutex::new(None));
    let in_progress = tracked.clone();
    // Where axum's `into_make_service_with_connect_info` puts it, so that contexts read
    // the client's address the same way whichever way the server is served.
    let peer = tcp.peer_addr().ok().map(axum::extract::ConnectInfo);
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let busy = Busy::new(&in_progress);
        let taken = spare.lock().expect("slot lock").take();
        let mut slot = taken.unwrap_or_else(|| Box::pin(None));
        let mut req = req.map(Body::new);
        if let Some(peer) = peer {
            req.extensions_mut().insert(peer);
        }
        slot.set(Some(route(state.clone(), req)));
        InSlot {
            slot: Some(slot),
            spare: spare.clone(),
            busy: Some(busy),
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
        _ = tracked.evict.cancelled() => {
            // hyper closes a connection idle between requests at once (on this poll), and
            // finishes a request that started meanwhile. One that has not sent a whole
            // request head is dropped: its slot is wanted now. (So is one whose last answer
            // is not yet all written, to a client that is not reading it.)
            conn.as_mut().graceful_shutdown();
            tokio::select! {
                biased;
                r = conn.as_mut() => r,
                _ = std::future::ready(()) => {
                    if tracked.busy.load(Ordering::Acquire) == 0 {
                        Ok(())
                    } else {
                        conn.await
                    }
                }
            }
        }
    };
    drop(entered);
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
///
/// It also counts its request as in progress on the connection ([`Busy`]) until the answer
/// is complete, or for a stream until the stream ends.
struct InSlot<F> {
    slot: Option<Slot<F>>,
    spare: Arc<Mutex<Option<Slot<F>>>>,
    busy: Option<Busy>,
}

impl<F: Future<Output = Response>> Future for InSlot<F> {
    type Output = Result<Response, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let slot = self.slot.as_mut().expect("polled after it finished");
        let fut = slot.as_mut().as_pin_mut().expect("a request future");
        let resp = std::task::ready!(fut.poll(cx));
        slot.set(None);
        let slot = self.slot.take();
        let busy = self.busy.take();
        if http_body::Body::size_hint(resp.body()).exact().is_some() {
            *self.spare.lock().expect("slot lock") = slot;
            return Poll::Ready(Ok(resp));
        }
        Poll::Ready(Ok(match busy {
            Some(busy) => resp.map(|inner| Body::new(BusyBody { inner, _busy: busy })),
            None => resp,
        }))
    }
}

/// One request: the transport's paths go to its handler, the rest is 404 (as an
/// `axum::Router` without a fallback answers).
async fn route(state: Arc<HttpState>, req: axum::extract::Request) -> Response {
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
            busy: None,
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

    #[tokio::test]
    async fn a_request_is_in_progress_until_its_answer_is_complete_or_its_stream_ends() {
        let tracked = Arc::new(Tracked::default());
        let busy = || tracked.busy.load(Ordering::Acquire);
        let spare = Arc::new(Mutex::new(None));
        let json = || super::super::json_response(StatusCode::OK, b"{}".to_vec());
        let mut call = run(&spare, json);
        call.busy = Some(Busy::new(&tracked));
        assert_eq!(busy(), 1);
        let _answer = call.await.unwrap();
        assert_eq!(busy(), 0, "a complete answer ends the request");

        let stream =
            || super::super::sse_response(super::super::sse::SseBody::new(rx_of(), None, None));
        let mut call = run(&spare, stream);
        call.busy = Some(Busy::new(&tracked));
        let streaming = call.await.unwrap();
        assert_eq!(busy(), 1, "a stream keeps its request in progress");
        drop(streaming);
        assert_eq!(busy(), 0);
    }

    #[test]
    fn the_oldest_idle_connection_is_evicted_and_hands_its_slot_to_the_newcomer() {
        let slots = Arc::new(tokio::sync::Semaphore::new(3));
        let open = Arc::new(Open::default());
        let enter = || open.enter(slots.clone().try_acquire_owned().unwrap());
        let (busy, idle, young) = (enter(), enter(), enter());
        let _request = Busy::new(&busy.tracked);
        let mut heir = open.evict_oldest_idle().expect("an idle connection");
        assert!(!busy.tracked.evict.is_cancelled(), "a busy one is kept");
        assert!(
            idle.tracked.evict.is_cancelled(),
            "the oldest idle one goes"
        );
        assert!(!young.tracked.evict.is_cancelled());
        assert!(heir.try_recv().is_err(), "its slot, once it has ended");
        drop(idle);
        let _handed = heir.try_recv().expect("handed over");
        assert_eq!(slots.available_permits(), 0, "not back in the pool");
        // The young one goes next; once none is idle, there is no room to make.
        assert!(open.evict_oldest_idle().is_some());
        assert!(open.evict_oldest_idle().is_none());
    }

    fn rx_of() -> tokio::sync::mpsc::Receiver<Vec<u8>> {
        tokio::sync::mpsc::channel(1).1
    }
}
