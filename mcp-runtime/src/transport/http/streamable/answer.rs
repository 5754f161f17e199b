//! Running a request through the chain and answering it: plain JSON when its outcome comes
//! first, else an SSE stream of its messages and then the response.

use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use mcp_core::codec;
use mcp_core::jsonrpc::{ErrorObject, RequestId};
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::chain::request_run::encode_outcome;
use crate::common::error::HandlerResult;
use crate::context::Context;
use crate::server::kernel::Started;
use crate::transport::http::session::HttpSession;
use crate::transport::http::sse::{Fin, Final, First, SseBody};
use crate::transport::http::{HttpState, empty, error_response, json_response, sse_response};

/// Cancels a token when dropped, unless disarmed.
pub(super) struct CancelOnDrop(Option<CancellationToken>);

impl CancelOnDrop {
    fn disarm(&mut self) -> Option<CancellationToken> {
        self.0.take()
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            t.cancel();
        }
    }
}

/// The refusal of a request whose session has its share of the in-flight slots running.
pub(crate) const SESSION_BUSY: &str = "Server busy: too many requests in flight for this session";

impl HttpState {
    /// Whether `session` has its share of the in-flight slots running already.
    pub(crate) fn session_busy(&self, session: &HttpSession) -> bool {
        session.in_flight.len() >= self.opts.max_in_flight_per_session.max(1)
    }

    /// Starts one request on the kernel ([`Kernel::start`]). With `inline`, the chain's
    /// first poll is here, in the connection's task: an answer that is ready at once (most
    /// are) needs no task, no channel and no wake-up of another thread. A request that has
    /// to wait (and every one without `inline`) goes on in a task of its own, so a client
    /// that leaves does not cancel it. The final frame is `None` when the request was
    /// cancelled. `after` sees the outcome first (to commit `initialize`, to forget the
    /// in-flight entry).
    ///
    /// [`Kernel::start`]: crate::server::kernel::Kernel::start
    pub(crate) async fn start_request(
        self: &Arc<Self>,
        ctx: Context,
        cancel: CancellationToken,
        id: RequestId,
        permit: Option<OwnedSemaphorePermit>,
        inline: bool,
        after: impl FnOnce(Option<&HandlerResult>) + Send + 'static,
    ) -> Fin {
        let started = if inline {
            self.kernel.start(ctx).await
        } else {
            // Not polled here: the whole request runs in its task.
            let (this, cancel, id) = (self.clone(), cancel.clone(), id.clone());
            let (tx, rx) = oneshot::channel();
            tokio::spawn(async move {
                let out = this.kernel.run(ctx, &cancel).await;
                if let Some(f) = this.final_frame(&cancel, &id, out, after, permit) {
                    let _ = tx.send(f);
                }
            });
            return Fin::Pending(rx);
        };
        let running = match started {
            Started::Done(out) => {
                return Fin::Ready(self.final_frame(&cancel, &id, Some(out), after, permit));
            }
            Started::Running(running) => running,
        };
        let this = self.clone();
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            // The handler is polled first: one that watches `ctx.cancellation()` sees the
            // cancellation and finishes (its outcome is not sent); one that does not is
            // dropped.
            let out = running.finish(&cancel).await;
            if let Some(f) = this.final_frame(&cancel, &id, out, after, permit) {
                let _ = tx.send(f);
            }
        });
        Fin::Pending(rx)
    }

    /// The frame that ends a request, filtered for the wire, once `after` has seen its
    /// outcome and its slot is free: the outcome encoded, an error when the shutdown grace
    /// cut it short, nothing when it was cancelled.
    fn final_frame(
        &self,
        cancel: &CancellationToken,
        id: &RequestId,
        out: Option<HandlerResult>,
        after: impl FnOnce(Option<&HandlerResult>),
        permit: Option<OwnedSemaphorePermit>,
    ) -> Option<Final> {
        after(out.as_ref());
        drop(permit);
        match (out, cancel.is_cancelled()) {
            (Some(out), false) => {
                let (frame, code) = encode_outcome(id, out);
                self.kernel.filters.outgoing(frame).map(|f| (f, code))
            }
            // Cut short by the end of the shutdown grace: answered with an error, not
            // left without an answer.
            _ if self.shutdown.is_cancelled() => {
                let err = crate::chain::request_run::cut_short_by_shutdown();
                let mut frame = Vec::new();
                mcp_core::jsonrpc::write_error(&mut frame, Some(id), &err);
                self.kernel
                    .filters
                    .outgoing(frame)
                    .map(|f| (f, Some(err.code)))
            }
            _ => None,
        }
    }

    /// Runs a notification through the chain (its outcome is only logged).
    pub(crate) fn spawn_notification(self: &Arc<Self>, ctx: Context) {
        let this = self.clone();
        tokio::spawn(async move {
            let cancel = ctx.cancellation().clone();
            if let Some(Err(e)) = this.kernel.run(ctx, &cancel).await {
                tracing::warn!(error = %e, "error while handling a notification");
            }
        });
    }

    /// A slot for a request of `session`: 503 when the session has its share running
    /// already, else [`Self::permit`].
    pub(super) fn permit_in(
        &self,
        session: &HttpSession,
    ) -> Result<OwnedSemaphorePermit, Response> {
        if self.session_busy(session) {
            return Err(error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                &ErrorObject::new(-32000, SESSION_BUSY),
            ));
        }
        self.permit()
    }

    pub(super) fn permit(&self) -> Result<OwnedSemaphorePermit, Response> {
        self.permits.clone().try_acquire_owned().map_err(|_| {
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                &ErrorObject::new(-32000, "Server busy: too many requests in flight"),
            )
        })
    }

    /// Answers a request: plain JSON when its outcome comes before any message, else an
    /// SSE stream of the messages and then the response.
    pub(super) async fn respond(
        &self,
        mut rx: mpsc::Receiver<Vec<u8>>,
        fin: Fin,
        status_of: fn(Option<i32>) -> StatusCode,
        extra: Vec<(HeaderName, HeaderValue)>,
        cancel_on_close: Option<CancellationToken>,
    ) -> Response {
        // Dropped with the request future (the client went away before the answer).
        let mut guard = CancelOnDrop(cancel_on_close);
        let mut resp = match fin.first(&mut rx).await {
            First::Fin(Some((frame, code))) => match rx.try_recv() {
                Err(_) => json_response(status_of(code), frame),
                Ok(m) => {
                    // Messages came before the answer: an SSE stream that ends with it.
                    let mut body = SseBody::new(rx, None, self.opts.keep_alive);
                    body.push_message(&m);
                    let mut rest = Vec::new();
                    if let Some(rx) = body.rx.as_mut() {
                        while let Ok(m) = rx.try_recv() {
                            rest.push(m);
                        }
                    }
                    for m in rest {
                        body.push_message(&m);
                    }
                    body.push_message(&frame);
                    body.closing = true;
                    sse_response(body)
                }
            },
            First::Fin(None) => {
                // Cancelled: nothing is sent for it.
                guard.disarm();
                return empty(StatusCode::NO_CONTENT);
            }
            First::Msg(None, fin) => match fin.await {
                Ok((frame, code)) => json_response(status_of(code), frame),
                Err(_) => {
                    guard.disarm();
                    return empty(StatusCode::NO_CONTENT);
                }
            },
            First::Msg(Some(m), fin) => {
                let mut body = SseBody::new(rx, None, self.opts.keep_alive);
                body.push_message(&m);
                body.fin = Some(fin);
                if let Some(t) = guard.disarm() {
                    // Closing the stream cancels the request (2026).
                    body = body.on_drop(move || t.cancel());
                }
                sse_response(body)
            }
        };
        guard.disarm();
        for (k, v) in extra {
            resp.headers_mut().insert(k, v);
        }
        resp
    }
}

/// Request-scoped message channels kept for reuse, per thread: making one allocates a
/// cache-aligned block (an expensive allocation) that most requests never send on.
pub(super) const SPARE_CHANNELS: usize = 4;

pub(super) type OutChannel = (mpsc::Sender<Vec<u8>>, mpsc::Receiver<Vec<u8>>);

thread_local! {
    static SPARE: std::cell::RefCell<Vec<OutChannel>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A request's message channel: a spare one, or a new one.
pub(super) fn out_channel() -> OutChannel {
    SPARE
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_else(|| mpsc::channel(64))
}

/// `Ok(final frame)` when the request answered at once, sent nothing and left no sender
/// behind (`tx` is the only one): its channel is as good as new and is kept for another
/// request. Else the request and its receiver, to answer as usual (the sender is dropped
/// here, so that the receiver ends with the request's own senders).
pub(super) fn recycle_if_unused(
    fin: Fin,
    tx: mpsc::Sender<Vec<u8>>,
    rx: mpsc::Receiver<Vec<u8>>,
) -> Result<Option<Final>, (Fin, mpsc::Receiver<Vec<u8>>)> {
    match fin {
        Fin::Ready(out) if tx.strong_count() == 1 && tx.weak_count() == 0 && rx.is_empty() => {
            SPARE.with(|s| {
                let mut s = s.borrow_mut();
                if s.len() < SPARE_CHANNELS {
                    s.push((tx, rx));
                }
            });
            Ok(out)
        }
        fin => Err((fin, rx)),
    }
}

/// The status of a 2026 answer: the codec's table, and 503 for a shared store that could
/// not be used ([`STORE_UNAVAILABLE`](crate::session::STORE_UNAVAILABLE): send it again).
pub(super) fn modern_status(code: Option<i32>) -> StatusCode {
    code.map_or(StatusCode::OK, |c| {
        if c == crate::session::STORE_UNAVAILABLE {
            return StatusCode::SERVICE_UNAVAILABLE;
        }
        StatusCode::from_u16(codec::http_status(c)).unwrap_or(StatusCode::OK)
    })
}

pub(super) fn legacy_status(_: Option<i32>) -> StatusCode {
    StatusCode::OK
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::STORE_UNAVAILABLE;

    #[test]
    fn a_store_that_cannot_be_used_is_a_503_to_retry_on_2026() {
        let unavailable = modern_status(Some(STORE_UNAVAILABLE));
        assert_eq!(unavailable, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(modern_status(Some(-32603)), StatusCode::OK);
        assert_eq!(modern_status(Some(-32601)), StatusCode::NOT_FOUND);
        assert_eq!(modern_status(None), StatusCode::OK);
        let r = json_response(unavailable, b"{}".to_vec());
        assert_eq!(r.headers()[axum::http::header::RETRY_AFTER], "1");
        let ok = json_response(StatusCode::OK, b"{}".to_vec());
        assert!(!ok.headers().contains_key(axum::http::header::RETRY_AFTER));
    }
}
