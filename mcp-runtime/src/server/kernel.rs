//! The kernel every transport serves a connection with: the endpoint (the chain around the
//! dispatcher), the server's identity, its options and message filters, and the one way a
//! message's chain is run to its end ([`Kernel::run`]: panics caught, under the request's
//! timeout and cancellation). The byte-stream reader (`stream.rs`) and the HTTP transport
//! each hold one; what only HTTP needs (the header schemas, the legacy change feed) is the
//! HTTP transport's, handed over by [`Server`](super::Server). [`ServerOptions`] are the
//! connection's limits and timeouts.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::chain::middleware::Endpoint;
use crate::chain::request_run;
use crate::common::error::HandlerResult;
use crate::common::panic::CatchUnwind;
use crate::context::Context;
use crate::session::ServerIdentity;
use crate::wire::filter::Filters;

/// Limits and timeouts of a connection.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Requests handled at once. At the bound more wait for a slot, in order, up to
    /// [`max_waiting_bytes`](Self::max_waiting_bytes), while responses, notifications and
    /// `ping` are still handled at once.
    pub max_in_flight: usize,
    /// How much the requests waiting for an in-flight slot may hold, in bytes (each counted
    /// with its frame and a small fixed overhead). A request that would go past it is
    /// refused at once with `-32000` "Server busy"; it can be sent again later. Default
    /// 8 MiB: tens of thousands of small calls.
    pub max_waiting_bytes: usize,
    /// The largest frame accepted, in bytes.
    pub max_frame: usize,
    /// A per-request timeout (`None`: no limit). A timed-out request answers `-32603`
    /// "Request timed out" and its handler is dropped; other requests are not held up.
    pub request_timeout: Option<Duration>,
    /// How long a server-to-client request waits for its answer.
    pub peer_request_timeout: Duration,
    /// On EOF or SIGTERM, how long in-flight requests may take to finish; those still
    /// running then are cancelled and answered `-32000` "Server shutting down". No grace
    /// once the peer is gone (its end of the output closed): they are cancelled at once.
    pub shutdown_grace: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            max_in_flight: 256,
            max_waiting_bytes: 8 * 1024 * 1024,
            max_frame: 16 * 1024 * 1024,
            request_timeout: None,
            peer_request_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Everything one connection's kernel needs, shared with its tasks.
pub(crate) struct Kernel<E> {
    pub(crate) endpoint: Arc<E>,
    pub(crate) identity: Arc<ServerIdentity>,
    pub(crate) options: ServerOptions,
    pub(crate) filters: Filters,
}

impl<E> Clone for Kernel<E> {
    fn clone(&self) -> Self {
        Self {
            endpoint: self.endpoint.clone(),
            identity: self.identity.clone(),
            options: self.options.clone(),
            filters: self.filters.clone(),
        }
    }
}

impl<E: Endpoint + 'static> Kernel<E> {
    /// Runs the chain with panic catching, the optional timeout and cancellation.
    /// `None` when the request was cancelled.
    pub(crate) async fn run(
        &self,
        ctx: Context,
        cancel: &CancellationToken,
    ) -> Option<HandlerResult> {
        let fut = CatchUnwind::new(self.endpoint.call(ctx));
        request_run::finish(fut, cancel, self.options.request_timeout).await
    }
}
