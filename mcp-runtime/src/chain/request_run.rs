//! Running one message's chain: inline when it completes on its first poll, in a task of its
//! own when it has to wait; and the outcome encoded as the JSON-RPC answer.
//!
//! Most requests (a `tools/call` of a synchronous tool, `ping`, the lists) finish without
//! ever waiting. The kernel polls their chain once in the reading task, with that task's
//! waker, and answers at once: no task, no in-flight entry. A chain that returns `Pending`
//! (it awaits I/O, a timer, the client) moves, as it is, into a spawned task, which then
//! owns the timeout and the cancellation; nothing it registered is lost, since every poll
//! hands the future the waker of its current task.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use mcp_core::jsonrpc::{self, ErrorObject, RequestId};
use tokio_util::sync::CancellationToken;

use crate::chain::middleware::BoxFuture;
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::common::panic::CatchUnwind;

/// An answer from this size on makes the reader yield once after sending it inline, so the
/// writer (on the same thread under a current-thread runtime) gets it moving while the next
/// frames wait; small answers keep batching into one write per read.
pub(crate) const LARGE_ANSWER: usize = 32 * 1024;

/// Guards a message's chain, started on an endpoint shared with the connection (the
/// kernel's `ErasedEndpoint::start`), against panics; nothing runs until the first poll. The
/// future is `Unpin` (the chain stays in its one box, the one the endpoint returned), so it
/// can be polled in place and then moved into a task.
pub(crate) fn start(
    chain: BoxFuture<'static, HandlerResult>,
) -> CatchUnwind<dyn Future<Output = HandlerResult> + Send + 'static> {
    CatchUnwind::boxed(chain)
}

/// Polls `fut` once with the current task's waker: `Ready` with its output, or `Pending`
/// when it has to wait (it has then registered that waker, and any later poll replaces it).
pub(crate) async fn poll_once<F: Future + Unpin>(fut: &mut F) -> Poll<F::Output> {
    std::future::poll_fn(|cx| Poll::Ready(Pin::new(&mut *fut).poll(cx))).await
}

/// Runs a chain to its end under the request's timeout and cancellation; `None` when the
/// request was cancelled.
pub(crate) async fn finish<F>(
    fut: F,
    cancel: &CancellationToken,
    timeout: Option<Duration>,
) -> Option<HandlerResult>
where
    F: Future<Output = HandlerResult>,
{
    let timed = async {
        match timeout {
            Some(t) => tokio::time::timeout(t, fut)
                .await
                .unwrap_or(Err(McpError::Timeout)),
            None => fut.await,
        }
    };
    // The handler first: one that watches its token gets to see the cancellation and
    // finish (the result is still dropped by the caller) instead of being torn down.
    tokio::select! {
        biased;
        out = timed => Some(out),
        _ = cancel.cancelled() => None,
    }
}

/// Encodes the outcome of a request; also returns the error code when it is an error.
pub(crate) fn encode_outcome(id: &RequestId, out: HandlerResult) -> (Vec<u8>, Option<i32>) {
    let mut frame = Vec::new();
    let code = match out {
        Ok(Reply::Result(raw)) => {
            // Sized once: the envelope adds the id and ~40 bytes to the result.
            frame.reserve(raw.get().len() + 64);
            jsonrpc::write_result(&mut frame, id, raw.get());
            None
        }
        Ok(Reply::None) => {
            tracing::error!(%id, "the chain produced no result for a request");
            let e = ErrorObject::internal();
            jsonrpc::write_error(&mut frame, Some(id), &e);
            Some(e.code)
        }
        Err(e) => {
            if e.as_protocol().is_none() {
                tracing::error!(%id, error = %e, "request failed");
            }
            let e = e.to_wire();
            jsonrpc::write_error(&mut frame, Some(id), &e);
            Some(e.code)
        }
    };
    (frame, code)
}

/// The answer of a request still running when the shutdown grace ended, the same on every
/// transport: an error, never silence.
pub(crate) fn cut_short_by_shutdown() -> ErrorObject {
    ErrorObject::new(
        -32000,
        "Server shutting down: the request did not finish in time",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn poll_once_reports_ready_and_pending() {
        let mut ready = std::future::ready(7);
        assert_eq!(poll_once(&mut ready).await, Poll::Ready(7));

        // A future that waits: pending on the first poll, and it finishes once woken and
        // polled again, even from another task (the waker it holds is then that task's).
        let (tx, rx) = tokio::sync::oneshot::channel::<u8>();
        let mut waiting = Box::pin(rx);
        assert!(poll_once(&mut waiting).await.is_pending());
        let task = tokio::spawn(waiting);
        tx.send(3).unwrap();
        assert_eq!(task.await.unwrap().unwrap(), 3);
    }

    #[tokio::test]
    async fn finish_returns_none_once_cancelled() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let out = finish(std::future::pending::<HandlerResult>(), &cancel, None).await;
        assert!(out.is_none());
    }

    #[tokio::test]
    async fn finish_times_out_with_an_internal_error() {
        let cancel = CancellationToken::new();
        let out = finish(
            std::future::pending::<HandlerResult>(),
            &cancel,
            Some(Duration::from_millis(5)),
        )
        .await;
        let timed_out = matches!(out, Some(Err(McpError::Timeout)));
        assert!(timed_out, "a timeout is McpError::Timeout");
    }
}
