//! Turning a panic inside a handler into an error for that request only.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::common::error::McpError;

/// Polls a future, turning a panic into [`McpError::Panicked`].
pub(crate) struct CatchUnwind<F: ?Sized> {
    inner: Pin<Box<F>>,
}

impl<F> CatchUnwind<F> {
    pub(crate) fn new(inner: F) -> Self {
        Self {
            inner: Box::pin(inner),
        }
    }
}

impl<F: ?Sized> CatchUnwind<F> {
    /// Guards a future that is boxed already (a trait object's), without boxing it again.
    pub(crate) fn boxed(inner: Pin<Box<F>>) -> Self {
        Self { inner }
    }
}

impl<F, T> Future for CatchUnwind<F>
where
    F: Future<Output = Result<T, McpError>> + ?Sized,
{
    type Output = Result<T, McpError>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(p) => p,
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_owned());
                Poll::Ready(Err(McpError::Panicked(msg)))
            }
        }
    }
}
