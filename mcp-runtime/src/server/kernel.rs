//! The kernel every transport serves a connection with: the endpoint (the chain around the
//! dispatcher), the server's identity, its options and message filters, and the one way a
//! message's chain runs ([`Kernel::start`], and [`Kernel::run`] to its end: panics caught,
//! under the request's timeout and cancellation). The byte-stream reader (`stream.rs`) and the HTTP transport
//! each hold one; what only HTTP needs (the header schemas, the legacy change feed) is the
//! HTTP transport's, handed over by [`Server`](super::Server). [`ServerOptions`] are the
//! connection's limits and timeouts.
//!
//! Every message's chain starts through [`Kernel::start`], on every transport: polled once
//! where the message was read (most answers are ready then, with no task and no channel),
//! else handed back as [`Running`] for the transport to finish where it keeps its waiting
//! work (the stream's task tracker, an HTTP request's task).
//!
//! Every message enters the same way: its transport reads the era from its framing (a
//! stream's first request, an HTTP POST's routing), [`Kernel::admit_message`] checks the message
//! for that era (the envelope, the revision, what the transport's framing mirrors of it),
//! and the transport turns what it read into one [`Incoming`] (the params copied out of
//! the frame once, with their one scan; what the admission found; where it came from, as
//! an [`Origin`]) that [`Kernel::context`] makes the message's [`Context`]. Admission and
//! context are two steps because legacy HTTP admits a message before it finds the session
//! it runs in (a probe without a session learns what the server speaks).
//!
//! The serving boundary: the kernel holds the endpoint as an [`ErasedEndpoint`] trait
//! object, so the kernel, the stream reader and the HTTP transports are not generic over
//! the user's chain and handler and are compiled once, here, instead of in every user's
//! crate on every rebuild. Each message crosses it with one dynamic call, which returns the
//! one boxed future a message always had (the panic guard keeps the chain in a box); inside
//! it the static chain and the dispatcher stay one monomorphic future.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use mcp_core::headers::{self, HeaderSource};
use mcp_core::jsonrpc::RequestId;
use mcp_core::params::Params;
use mcp_core::version::{Era, ProtocolVersion};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::chain::middleware::{BoxFuture, DynEndpoint, Endpoint};
use crate::chain::request_run;
use crate::common::error::HandlerResult;
use crate::common::extensions::Extensions;
use crate::common::panic::CatchUnwind;
use crate::common::telemetry::NetworkTransport;
use crate::context::peer::{ConnShared, Peer};
use crate::context::{Context, ContextParts};
use crate::session::intake::{self, Admission, Admitted};
use crate::session::{ServerIdentity, Session};
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

/// The endpoint as the kernel and every transport see it: object safe, so that what serves
/// it is compiled once in this crate. Every [`Endpoint`] is one (the composed chain of a
/// built server is the only one served).
pub(crate) trait ErasedEndpoint: DynEndpoint {
    /// Starts handling one message on an endpoint shared with the connection: the chain's
    /// future, owning its handle on the endpoint, in the one box a message costs.
    fn start(self: Arc<Self>, ctx: Context) -> BoxFuture<'static, HandlerResult>;
}

impl<E: Endpoint + 'static> ErasedEndpoint for E {
    fn start(self: Arc<Self>, ctx: Context) -> BoxFuture<'static, HandlerResult> {
        Box::pin(async move { self.call(ctx).await })
    }
}

/// Everything one connection's kernel needs, shared with its tasks.
#[derive(Clone)]
pub(crate) struct Kernel {
    pub(crate) endpoint: Arc<dyn ErasedEndpoint>,
    pub(crate) identity: Arc<ServerIdentity>,
    pub(crate) options: ServerOptions,
    pub(crate) filters: Filters,
}

/// What a transport's framing says beside a message and must agree with it: 2026 HTTP's
/// headers, which mirror the body's method, revision, tool name and chosen arguments
/// (`Mcp-Param-*`, checked against the tool's `inputSchema` annotations).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Mirror<'a> {
    pub(crate) headers: &'a dyn HeaderSource,
    pub(crate) schemas: &'a crate::handler::cell::HeaderSchemas,
}

/// One message on its way into the kernel, as its transport read and admitted it.
pub(crate) struct Incoming<'a> {
    pub(crate) method: &'a str,
    pub(crate) id: Option<RequestId>,
    /// Copied out of the frame once: the admission's envelope and the context share this
    /// copy and its one scan.
    pub(crate) params: Option<Params>,
    pub(crate) era: Era,
    /// What the admission found: the revision the message runs under, its envelope.
    pub(crate) admitted: Admitted,
    pub(crate) from: Origin<'a>,
}

/// Where a message came from: what its context reaches back through (the connection to
/// the client, the session) and what the transport knows of it (the HTTP request and
/// its principal, in `extensions`).
pub(crate) struct Origin<'a> {
    session: Option<&'a Session>,
    session_id: Option<Arc<str>>,
    conn: Arc<ConnShared>,
    /// A request's own stream (an HTTP request's answer); `None`: the connection's.
    out: Option<mpsc::Sender<Vec<u8>>>,
    transport: NetworkTransport,
    extensions: Extensions,
}

impl<'a> Origin<'a> {
    /// A byte stream (stdio, a socket, memory): its session and its one connection.
    pub(crate) fn stream(session: &'a Session, conn: Arc<ConnShared>) -> Self {
        Origin {
            session: Some(session),
            session_id: None,
            conn,
            out: None,
            transport: NetworkTransport::Pipe,
            extensions: Extensions::default(),
        }
    }

    #[cfg(feature = "http")]
    /// A legacy HTTP session named `id`: its state and connection; `out` routes the
    /// message's own messages to its request's stream (else they go to the session's).
    pub(crate) fn http_session(
        session: &'a Session,
        id: &str,
        conn: Arc<ConnShared>,
        out: Option<mpsc::Sender<Vec<u8>>>,
        extensions: Extensions,
    ) -> Self {
        Origin {
            session: Some(session),
            session_id: Some(Arc::from(id)),
            conn,
            out,
            transport: NetworkTransport::Tcp,
            extensions,
        }
    }

    #[cfg(feature = "http")]
    /// A 2026 HTTP request, in no session: a connection of its own whose messages go to
    /// `out`, the request's stream.
    pub(crate) fn http_request(
        kernel: &Kernel,
        out: mpsc::Sender<Vec<u8>>,
        extensions: Extensions,
    ) -> Self {
        let conn = ConnShared::new(
            out,
            kernel.options.peer_request_timeout,
            kernel.filters.clone(),
        );
        Origin {
            session: None,
            session_id: None,
            conn: Arc::new(conn),
            out: None,
            transport: NetworkTransport::Tcp,
            extensions,
        }
    }
}

/// The checks of what 2026 HTTP's headers mirror of a message, from its params' scan.
fn check_mirror(
    m: &Mirror<'_>,
    request: bool,
    method: &str,
    params: Option<&Params>,
) -> Result<(), mcp_core::jsonrpc::ErrorObject> {
    let fields = headers::RequestFields::of_params(params);
    let checked = if request {
        let schema = match fields.name() {
            Some(n) if method == "tools/call" => m.schemas.get(n),
            _ => None,
        };
        headers::validate_request_fields(m.headers, method, &fields, schema.as_deref())
    } else {
        headers::validate_notification_headers(m.headers, method, fields.protocol_version())
    };
    checked.map_err(|e| e.to_error_object())
}

/// A message's chain after its first poll: done, or still running.
pub(crate) enum Started {
    /// The chain's outcome, ready at once (nobody else saw the message, so nothing can
    /// have cancelled it, and no timeout can have passed).
    Done(HandlerResult),
    /// The chain has to wait: finish it where waiting work belongs.
    Running(Running),
}

/// A chain that returned `Pending` on its first poll, with the waker of the task that
/// polled it; [`finish`](Self::finish) it in any task (every poll hands it that task's).
pub(crate) struct Running {
    chain: CatchUnwind<dyn Future<Output = HandlerResult> + Send + 'static>,
    timeout: Option<Duration>,
}

impl Running {
    /// Runs the chain to its end under the request's timeout and `cancel`; `None` when the
    /// request was cancelled.
    pub(crate) async fn finish(self, cancel: &CancellationToken) -> Option<HandlerResult> {
        request_run::finish(self.chain, cancel, self.timeout).await
    }
}

impl Kernel {
    /// The one admission of a message, for every transport, before the chain: an error is
    /// the answer to send (the chain never sees the message; a notification's is dropped).
    ///
    /// - legacy ([`intake::admit_legacy`]): a request carrying the 2026 envelope is
    ///   refused; `session_version` is the revision the message runs under;
    /// - 2026 request: a legacy `initialize` is refused first (so a legacy client's probe
    ///   learns the revisions served, whatever else is wrong), then what the framing
    ///   mirrors (`mirror`), then the envelope and its revision;
    /// - 2026 notification: checked as strictly as a request where the framing mirrors its
    ///   envelope (HTTP: its headers name the revision, so the body must carry it); on a
    ///   stream it needs none, and the revision defaults to the latest.
    ///
    /// `params`: the copy the context will hold; every check reads its one scan.
    pub(crate) fn admit_message(
        &self,
        era: Era,
        session_version: Option<ProtocolVersion>,
        id: Option<&RequestId>,
        method: &str,
        params: Option<&Params>,
        mirror: Option<Mirror<'_>>,
    ) -> Admission {
        let supported = self.identity.supported;
        if era == Era::Legacy {
            return intake::admit_legacy(supported, session_version, id, method, params);
        }
        if id.is_none() && mirror.is_none() {
            return Ok(intake::notification_meta(params));
        }
        if id.is_some()
            && let Some(refused) = intake::refuse_initialize(supported, method, params)
        {
            return Err(refused);
        }
        if let Some(m) = mirror {
            check_mirror(&m, id.is_some(), method, params)?;
        }
        intake::check_envelope(supported, params).map(|(version, meta)| Admitted {
            version: Some(version),
            meta: Some(meta),
        })
    }

    /// The one place a message's [`Context`] is made, for every transport: what the
    /// transport read and admitted ([`Incoming`]), reaching back to where it came from.
    pub(crate) fn context(msg: Incoming<'_>, cancel: CancellationToken) -> Context {
        let Incoming {
            method,
            id,
            params,
            era,
            admitted,
            from,
        } = msg;
        Context::new(ContextParts {
            method,
            params,
            id,
            version: admitted.version,
            era,
            meta: admitted.meta,
            session: from.session,
            extensions: from.extensions,
            cancel,
            peer: Peer {
                conn: from.conn,
                out: from.out,
                era,
                in_initialize: method == "initialize",
                task: None,
            },
            transport: from.transport,
            session_id: from.session_id,
        })
    }

    /// The one way a message's chain runs: started on the endpoint under the panic guard
    /// and polled once, here, with the current task's waker.
    pub(crate) async fn start(&self, ctx: Context) -> Started {
        let mut chain = request_run::start(self.endpoint.clone().start(ctx));
        match request_run::poll_once(&mut chain).await {
            Poll::Ready(out) => Started::Done(out),
            Poll::Pending => Started::Running(Running {
                chain,
                timeout: self.options.request_timeout,
            }),
        }
    }

    /// [`start`](Self::start), then [`Running::finish`] in this task: the chain to its
    /// end. `None` when the request was cancelled.
    pub(crate) async fn run(
        &self,
        ctx: Context,
        cancel: &CancellationToken,
    ) -> Option<HandlerResult> {
        match self.start(ctx).await {
            Started::Done(out) => Some(out),
            Started::Running(running) => running.finish(cancel).await,
        }
    }
}
