//! The HTTP transports, on hyper 1 through axum.
//!
//! - **Streamable HTTP**, both eras on one endpoint, routed per request: a POST whose body
//!   carries the 2026-07-28 `_meta` envelope (or whose `MCP-Protocol-Version` header names
//!   a 2026 revision) is served statelessly (header validation before the chain, a plain
//!   JSON answer or a request-scoped SSE stream, closing the stream cancels the handler);
//!   everything else follows the 2025 rules (sessions, the GET stream, DELETE, batches on
//!   2025-03-26).
//! - **HTTP+SSE (2024-11-05)**, optional, beside it: `GET /sse` opens the session stream
//!   whose first event is `endpoint`; `POST /messages?sessionId=…` is answered 202 and the
//!   responses arrive as `message` events.
//!
//! [`Server::http_router`] gives an [`axum::Router`] (a tower `Service`) to mount in your
//! own application; [`Server::serve_http`] binds and serves until SIGTERM/SIGINT. The
//! `axum` this module is built on is re-exported here as `axum`
//! (`use mcp::transport::http::axum::Router;`), so a router of yours is of the same version.
//!
//! Security defaults: `Host`/`Origin` checks against a localhost allow-list (DNS
//! rebinding, 403), a body limit (413), caps on sessions and in-flight requests (503), an
//! idle timeout for sessions, SSE keep-alive comments every 15 s.
//!
//! Resumability (legacy Streamable HTTP, on by default): every event of an SSE stream
//! carries an id naming its stream and is kept in an [`EventStore`] (the default
//! [`InMemoryEventStore`] is bounded per session); a client that lost a connection sends
//! `GET` + `Last-Event-ID` and gets exactly what it missed, then the live events (the
//! response last, for a POST's stream). Streams of 2025-11-25 sessions start with a
//! priming event (id, empty data, `retry:`), and the server may close their connection
//! early ([`HttpOptions::sse_close_after`], [`SseStreamControl`]). 2026-07-28 requests
//! ignore `Last-Event-ID`.
//!
//! Authorization ([`HttpOptions::auth`], see [`AuthOptions`]): bearer tokens checked by a
//! [`TokenValidator`] on every MCP path, 401/403 challenges pointing at the RFC 9728
//! metadata document, which is served at the well-known paths.
//!
//! Handlers see the HTTP request as a typed extension: `ctx.extensions().get::<HttpRequest>()`,
//! and the authenticated caller: `ctx.extensions().get::<Principal>()`.

// An early `Response` is the error path of many helpers here; it is built once per
// request, so its size does not matter.
#![allow(clippy::result_large_err)]

mod auth;
#[cfg(feature = "jwt")]
pub mod jwt;
mod lane;
mod legacy_sse;
mod loopback;
mod operator;
mod resume;
mod serve;
mod session;
pub(crate) mod sse;
mod stored;
mod streamable;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use mcp_core::jsonrpc::{self, ErrorObject, RequestId};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::chain::middleware::{BoxFuture, Chain};
use crate::handler::ServerHandler;
use crate::server::Server;
use crate::server::kernel::Kernel;
use crate::server::serving::ErasedServer;
use crate::server::serving::HttpInputs;
use crate::session::{
    AnswerRelay, EventStore, InMemoryEventStore, InMemorySessionStore, SessionStore,
};

// A module of the crate's items rather than `pub use axum;`: the facade inlines this
// module, and rustdoc would then copy the whole crate into our pages (links it cannot resolve
// included), whatever the `use` says; a hidden module stays out. The docs name it (this module's docs).
#[doc(hidden)]
pub mod axum {
    pub use ::axum::*;
}

use self::session::HttpSession;

pub use self::auth::{
    AuthError, AuthFuture, AuthOptions, FnValidator, TokenValidator, WELL_KNOWN, validator_fn,
};
pub use self::loopback::LoopbackHttp;
pub use self::operator::Operator;
pub use self::resume::SseStreamControl;

/// How `Host` and `Origin` are checked (DNS-rebinding protection).
#[derive(Debug, Clone, Default)]
pub enum DnsRebinding {
    /// Localhost only (`localhost`, `127.0.0.1`, `[::1]`, any port) — except that
    /// [`Server::serve_http`] turns the check off when bound to a non-loopback address.
    #[default]
    Auto,
    /// No check.
    Off,
    /// Only these hosts (`Host` without port, and the host of `Origin`), and these exact
    /// origins (`scheme://host[:port]`).
    Allow {
        /// Allowed host names (compared case-insensitively, port ignored).
        hosts: Vec<String>,
        /// Allowed origins, exactly.
        origins: Vec<String>,
    },
}

/// Options of the HTTP transports.
#[derive(Clone)]
pub struct HttpOptions {
    /// The Streamable HTTP endpoint (default `/mcp`).
    pub path: String,
    /// The 2024-11-05 HTTP+SSE endpoints (`GET` stream path, `POST` path), for clients of
    /// that revision only: opt in with `Some(("/sse".into(), "/messages".into()))`.
    /// Default: `None` (off), so a router mounted in an app adds no paths it was not asked
    /// for; [`Server::serve_http`] turns it on (the table in [`crate::transport`] lists each entry point's default).
    pub legacy_sse: Option<(String, String)>,
    /// The largest request body accepted (413 above).
    pub max_body: usize,
    /// The most legacy sessions held at once, new or adopted from the session store: one
    /// more evicts the least recently used idle session (no stream, nothing in flight),
    /// which leaves a store that is not [`shared`](SessionStore::shared) too (404
    /// afterwards; a shared store keeps it until its time to live is over). A new session
    /// gets 503 only when every session is busy.
    pub max_sessions: usize,
    /// A legacy session with no stream and nothing in flight ends after this long.
    pub session_idle_timeout: Duration,
    /// How long a request's headers may take to arrive, counted from when the connection
    /// is ready for a request (so also how long an idle keep-alive connection stays open);
    /// past it the connection is closed. Only for [`Server::serve_http_on`] (an
    /// application serving the router sets its own server's timeouts).
    pub header_read_timeout: Duration,
    /// The longest pause between two chunks of a request body (408 past it).
    pub body_idle_timeout: Duration,
    /// The longest a whole request body may take to arrive (408 past it).
    pub body_total_timeout: Duration,
    /// The most connections served at once by [`Server::serve_http_on`]. One more closes
    /// the oldest connection with no request in progress (idle between requests, or still
    /// sending its request head) to take its place; when every connection is busy it is
    /// answered 503 and closed at once. Default: what the process's file-descriptor limit
    /// (`RLIMIT_NOFILE`) leaves after a quarter of it (at least 64) is kept for files,
    /// upstream connections and the like, at most 10,000; 10,000 where there is no such
    /// limit to read.
    pub max_connections: usize,
    /// Requests handled at once over HTTP (503 above).
    pub max_in_flight: usize,
    /// Requests one legacy session may have running at once (503 above), so that one
    /// session cannot take every slot of `max_in_flight`.
    pub max_in_flight_per_session: usize,
    /// SSE keep-alive comment interval (`None`: none).
    pub keep_alive: Option<Duration>,
    /// `Host`/`Origin` validation.
    pub dns_rebinding: DnsRebinding,
    /// Legacy Streamable HTTP without sessions: every request stands alone (no GET
    /// stream, no DELETE, no server-to-client requests).
    pub stateless_legacy: bool,
    /// On shutdown, how long open requests may take before connections are closed; those
    /// still running then are cancelled and answered `-32000` "Server shutting down".
    pub shutdown_grace: Duration,
    /// Resumability of legacy Streamable HTTP streams (`None`: off): events carry ids
    /// that name their stream, are kept here, and a client that lost a connection
    /// resumes with `GET` + `Last-Event-ID` (2026-07-28 requests ignore it). Default: an
    /// [`InMemoryEventStore`] of 1024 events per session.
    pub event_store: Option<Arc<dyn EventStore>>,
    /// The `retry:` field of the priming event that starts each resumable stream of a
    /// 2025-11-25 session (how long the client waits before resuming). Default 1 s.
    pub sse_retry: Option<Duration>,
    /// 2025-11-25 polling: a POST's SSE stream closes its connection this long after
    /// the priming event (`Some(ZERO)`: right after it); the request goes on, and the
    /// client resumes with `GET` + `Last-Event-ID`. Needs an event store. Default `None`.
    pub sse_close_after: Option<Duration>,
    /// Bearer-token authorization of every MCP path, and the protected resource
    /// metadata document (see [`AuthOptions`]). Default `None`: no authorization.
    pub auth: Option<AuthOptions>,
    /// Where legacy Streamable HTTP sessions are kept beyond this process: what
    /// `initialize` committed, the log level, resource subscriptions and owner, with
    /// `session_idle_timeout` as their time to live. A request naming a session this
    /// process does not hold loads it from here, so processes sharing a store serve each
    /// other's sessions. Default: an [`InMemorySessionStore`] (this process only).
    pub session_store: Arc<dyn SessionStore>,
    /// How a client's answer to a server-to-client request of a legacy session reaches the
    /// process that sent the request, and its `notifications/cancelled` the process that
    /// runs the request, when the client posts them to another process (see
    /// [`AnswerRelay`]). Default `None`: such a message is dropped (one process, or a
    /// sticky load balancer).
    pub answer_relay: Option<Arc<dyn AnswerRelay>>,
    /// `/healthz`, `/readyz` and `/metrics` beside the MCP path ([`Operator`]). Default
    /// `None`: not served.
    pub operator: Option<Operator>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("legacy_sse", &self.legacy_sse)
            .field("max_body", &self.max_body)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("header_read_timeout", &self.header_read_timeout)
            .field("body_idle_timeout", &self.body_idle_timeout)
            .field("body_total_timeout", &self.body_total_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_in_flight", &self.max_in_flight)
            .field("max_in_flight_per_session", &self.max_in_flight_per_session)
            .field("keep_alive", &self.keep_alive)
            .field("dns_rebinding", &self.dns_rebinding)
            .field("stateless_legacy", &self.stateless_legacy)
            .field("shutdown_grace", &self.shutdown_grace)
            .field("event_store", &self.event_store.is_some())
            .field("sse_retry", &self.sse_retry)
            .field("sse_close_after", &self.sse_close_after)
            .field("auth", &self.auth)
            .field("answer_relay", &self.answer_relay.is_some())
            .field("operator", &self.operator)
            .finish_non_exhaustive()
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            legacy_sse: None,
            max_body: 4 * 1024 * 1024,
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(30 * 60),
            header_read_timeout: Duration::from_secs(30),
            body_idle_timeout: Duration::from_secs(30),
            body_total_timeout: Duration::from_secs(120),
            max_connections: default_max_connections(),
            max_in_flight: 1024,
            max_in_flight_per_session: 256,
            keep_alive: Some(Duration::from_secs(15)),
            dns_rebinding: DnsRebinding::Auto,
            stateless_legacy: false,
            shutdown_grace: Duration::from_secs(10),
            event_store: Some(Arc::new(InMemoryEventStore::default())),
            sse_retry: Some(Duration::from_secs(1)),
            sse_close_after: None,
            auth: None,
            session_store: Arc::new(InMemorySessionStore::default()),
            answer_relay: None,
            operator: None,
        }
    }
}

/// The HTTP request a message arrived in, as a typed extension of its [`crate::Context`]:
/// `ctx.extensions().get::<HttpRequest>()`.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// `POST`, `GET`, ...
    pub method: Method,
    /// The request target.
    pub uri: Uri,
    /// Every request header.
    pub headers: HeaderMap,
}

/// Live counts of the HTTP transports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HttpStats {
    /// Legacy sessions open.
    pub sessions: usize,
    /// Requests being handled.
    pub in_flight: usize,
    /// Events held for resumption by the event store.
    pub events_buffered: usize,
}

/// A handle on a running HTTP transport: stats and shutdown.
#[derive(Clone)]
pub struct HttpHandle {
    stats: Arc<dyn Fn() -> HttpStats + Send + Sync>,
    draining: CancellationToken,
    shutdown: CancellationToken,
}

impl HttpHandle {
    /// The live counts.
    pub fn stats(&self) -> HttpStats {
        (self.stats)()
    }

    /// Starts draining: new requests get `503` (`Connection: close`), the standalone
    /// streams (the legacy GET stream; a 2024-11-05 SSE stream once the requests it
    /// carries are answered) end cleanly, and requests in flight go on to their answer.
    /// Graceful shutdown does this first.
    pub fn drain(&self) {
        self.draining.cancel();
    }

    /// Ends every stream and session at once, cancelling what is in flight (graceful
    /// shutdown does this when the drain is over or its grace period is).
    pub fn shutdown(&self) {
        self.draining.cancel();
        self.shutdown.cancel();
    }
}

impl std::fmt::Debug for HttpHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpHandle")
            .field("stats", &self.stats())
            .finish()
    }
}

/// State shared by every request of one HTTP transport.
pub(crate) struct HttpState {
    pub(crate) kernel: Kernel,
    /// What only HTTP reads of the server: the header schemas, the legacy change feed.
    pub(crate) inputs: HttpInputs,
    pub(crate) opts: HttpOptions,
    pub(crate) sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    pub(crate) permits: Arc<Semaphore>,
    pub(crate) shutdown: CancellationToken,
    /// Fires when draining starts (before `shutdown`).
    pub(crate) draining: CancellationToken,
    reaper: std::sync::Once,
}

impl HttpState {
    fn new(kernel: Kernel, inputs: HttpInputs, opts: HttpOptions) -> Arc<Self> {
        let state = Arc::new(Self {
            kernel,
            inputs,
            permits: Arc::new(Semaphore::new(opts.max_in_flight.max(1))),
            opts,
            sessions: Mutex::new(HashMap::new()),
            shutdown: CancellationToken::new(),
            draining: CancellationToken::new(),
            reaper: std::sync::Once::new(),
        });
        if let Some(relay) = &state.opts.answer_relay {
            let weak = Arc::downgrade(&state);
            relay.on_message(Box::new(move |message| {
                if let Some(st) = weak.upgrade() {
                    st.apply_relayed(message);
                }
            }));
        }
        state
    }

    fn stats(&self) -> HttpStats {
        HttpStats {
            sessions: self.sessions.lock().expect("sessions lock").len(),
            in_flight: self.opts.max_in_flight.max(1) - self.permits.available_permits(),
            events_buffered: self.opts.event_store.as_ref().map_or(0, |s| s.buffered()),
        }
    }

    /// Starts the idle-session reaper (once, from inside the runtime).
    fn start_reaper(self: &Arc<Self>) {
        self.reaper.call_once(|| {
            let weak: Weak<Self> = Arc::downgrade(self);
            let period = (self.opts.session_idle_timeout / 4).max(Duration::from_millis(50));
            let stop = self.shutdown.clone();
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = tokio::time::sleep(period) => {}
                        _ = stop.cancelled() => break,
                    }
                    let Some(state) = weak.upgrade() else { break };
                    state.reap();
                }
            });
        });
    }

    /// Ends sessions idle for longer than the timeout.
    pub(crate) fn reap(&self) {
        let timeout = self.opts.session_idle_timeout;
        let expired: Vec<_> = {
            let mut map = self.sessions.lock().expect("sessions lock");
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, s)| s.expired(timeout))
                .map(|(k, _)| k.clone())
                .collect();
            ids.iter().filter_map(|k| map.remove(k)).collect()
        };
        for s in expired {
            tracing::debug!(session = %s.id, "session expired");
            self.forget(&s);
        }
    }

    /// Ends `s` in this process, which no longer holds it; a store that is not
    /// [`shared`](SessionStore::shared) is this process's alone, so the session leaves it
    /// too (it would otherwise be adopted again, and an abandoned session would cost memory
    /// until it expired). A shared store keeps it until its time to live is over.
    fn forget(&self, s: &HttpSession) {
        if self.opts.session_store.shared() {
            // Other replicas may serve it: its record and its stored events stay (issue
            // 45's chaos run lost acknowledged events to evictions at the cap).
            s.close_here();
            return;
        }
        s.close();
        let store = self.opts.session_store.clone();
        let id = s.id.clone();
        let mut removal = Box::pin(async move {
            if let Err(e) = store.remove(&id).await {
                tracing::debug!(session = %id, error = %e, "evicted session not removed");
            }
        });
        // The in-memory store is done on the first poll (so the session is gone before the
        // next request can adopt it); only a slower store needs a task.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        if removal.as_mut().poll(&mut cx).is_pending() {
            tokio::spawn(removal);
        }
    }

    /// Makes room for one more session in `map` (holding `max_sessions`): the least
    /// recently used idle session (no stream, nothing in flight) is evicted. `false` when
    /// every session is busy.
    pub(crate) fn make_room(&self, map: &mut HashMap<String, Arc<HttpSession>>) -> bool {
        while map.len() >= self.opts.max_sessions.max(1) {
            let Some(idlest) = map
                .iter()
                .filter_map(|(k, s)| s.idle_for().map(|idle| (idle, k)))
                .max_by_key(|(idle, _)| *idle)
                .map(|(_, k)| k.clone())
            else {
                return false;
            };
            if let Some(s) = map.remove(&idlest) {
                tracing::info!(session = %s.id, "session cap: evicting the least recently used idle session");
                self.forget(&s);
            }
        }
        true
    }

    /// A new legacy session, or `None` when every session is busy at the cap; `sse_2024`:
    /// a 2024-11-05 HTTP+SSE session (`message` events, not resumable).
    ///
    /// At the cap the expired sessions go first, then the least recently used idle one (no
    /// stream, nothing in flight), so sessions opened and abandoned cannot lock new clients
    /// out until they expire. An evicted session is gone from this process and from a store
    /// that is not shared (404 afterwards); a shared store still holding it lets its next
    /// request adopt it again.
    pub(crate) fn create_session(&self, sse_2024: bool) -> Option<Arc<HttpSession>> {
        let mut map = self.sessions.lock().expect("sessions lock");
        if map.len() >= self.opts.max_sessions {
            drop(map);
            self.reap();
            map = self.sessions.lock().expect("sessions lock");
        }
        if !self.make_room(&mut map) {
            return None;
        }
        let id = session::new_session_id();
        let s = self.new_http_session(id.clone(), sse_2024);
        map.insert(id, s.clone());
        Some(s)
    }

    fn new_http_session(&self, id: String, sse_2024: bool) -> Arc<HttpSession> {
        let s = HttpSession::new(
            id,
            self.kernel.options.peer_request_timeout,
            self.kernel.filters.clone(),
            self.shutdown.child_token(),
            if sse_2024 {
                None
            } else {
                self.opts.event_store.clone()
            },
            sse_2024.then_some("message"),
        );
        if !sse_2024 {
            self.follow_stored_subscriptions(&s);
        }
        s
    }

    /// The live session `id`; an expired one is ended and not found.
    pub(crate) fn session(&self, id: &str) -> Option<Arc<HttpSession>> {
        let mut map = self.sessions.lock().expect("sessions lock");
        let s = map.get(id)?.clone();
        if s.closed.is_cancelled() || !s.touch_unless_expired(self.opts.session_idle_timeout) {
            map.remove(id);
            drop(map);
            self.forget(&s);
            return None;
        }
        Some(s)
    }

    pub(crate) fn remove_session(&self, id: &str) -> Option<Arc<HttpSession>> {
        let s = self.sessions.lock().expect("sessions lock").remove(id)?;
        s.close();
        Some(s)
    }

    /// A token that fires with `parent` or when draining starts: the end of a standalone
    /// stream.
    pub(crate) fn until_drain(&self, parent: &CancellationToken) -> CancellationToken {
        let end = parent.child_token();
        let (drain, e) = (self.draining.clone(), end.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = drain.cancelled() => e.cancel(),
                _ = e.cancelled() => {}
            }
        });
        end
    }

    /// The step-up refusal (`403 insufficient_scope`) for requests (method, params)
    /// that need scopes the caller's token lacks.
    pub(crate) fn step_up<'a>(
        &self,
        parts: &axum::http::request::Parts,
        requests: impl IntoIterator<Item = (&'a str, Option<&'a serde_json::value::RawValue>)>,
    ) -> Option<Response> {
        self.opts.auth.as_ref()?.step_up(parts, requests)
    }

    /// [`step_up`](Self::step_up) for one request, the called tool given by `tool`.
    pub(crate) fn step_up_one(
        &self,
        parts: &axum::http::request::Parts,
        method: &str,
        tool: impl FnOnce() -> Option<String>,
    ) -> Option<Response> {
        self.opts.auth.as_ref()?.step_up_one(parts, method, tool)
    }

    /// Host/Origin validation; `Some(403)` when refused. Runs on every request, so the
    /// allow-lists are borrowed, never built.
    fn check_origin(&self, headers: &HeaderMap) -> Option<Response> {
        const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];
        let (hosts, origins): (&[String], &[String]) = match &self.opts.dns_rebinding {
            DnsRebinding::Off => return None,
            DnsRebinding::Auto => (&[], &[]),
            DnsRebinding::Allow { hosts, origins } => (hosts, origins),
        };
        let auto = matches!(self.opts.dns_rebinding, DnsRebinding::Auto);
        let host_ok = |h: &str| {
            if auto {
                LOOPBACK.iter().any(|a| a.eq_ignore_ascii_case(h))
            } else {
                hosts.iter().any(|a| a.eq_ignore_ascii_case(h))
            }
        };
        // One pass over the headers (a handful) instead of two hashed lookups; a bad
        // `Host` is reported before a bad `Origin`, as the checks are ordered.
        let mut bad_origin = false;
        for (name, value) in headers {
            if name == header::HOST {
                if !value.to_str().ok().map(host_of).is_some_and(host_ok) {
                    return Some(forbidden("Forbidden: invalid Host header"));
                }
            } else if name == header::ORIGIN && !bad_origin {
                bad_origin = !value.to_str().ok().is_some_and(|o| {
                    origins.iter().any(|a| a == o)
                        || o.split_once("://")
                            .map(|(_, rest)| host_of(rest))
                            .is_some_and(host_ok)
                });
            }
        }
        bad_origin.then(|| forbidden("Forbidden: invalid Origin header"))
    }

    /// Whether `path` is one this transport serves (the direct server answers 404 to the
    /// rest, as the router does).
    fn serves_path(&self, path: &str) -> bool {
        path == self.opts.path
            || self
                .opts
                .legacy_sse
                .as_ref()
                .is_some_and(|(a, b)| path == a || path == b)
            || self
                .opts
                .auth
                .as_ref()
                .is_some_and(|auth| auth.is_metadata_path(&self.opts.path, path))
            || (self.opts.operator.is_some() && Operator::serves(path))
    }

    async fn handle(self: Arc<Self>, req: axum::extract::Request) -> Response {
        self.start_reaper();
        let path = req.uri().path();
        if let Some(auth) = &self.opts.auth
            && auth.is_metadata_path(&self.opts.path, path)
        {
            // Public: no token, readable cross-origin.
            return auth::metadata_response(auth, req.method());
        }
        if let Some(op) = &self.opts.operator
            && Operator::serves(path)
        {
            // Public, and answered while draining: a probe carries no token or Origin.
            return op.respond(req.method(), path, self.draining.is_cancelled());
        }
        if let Some(r) = self.check_origin(req.headers()) {
            return r;
        }
        if self.draining.is_cancelled() {
            let mut r = error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                &ErrorObject::new(-32000, "Server shutting down"),
            );
            r.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
        let req = match &self.opts.auth {
            None => req,
            Some(auth) => {
                let (mut parts, body) = req.into_parts();
                match auth.authenticate(&parts).await {
                    Ok(Some(p)) => {
                        parts.extensions.insert(p);
                    }
                    Ok(None) => {}
                    Err(r) => return r,
                }
                axum::extract::Request::from_parts(parts, body)
            }
        };
        if let Some((sse_path, post_path)) = &self.opts.legacy_sse {
            let path = req.uri().path();
            if path == *sse_path {
                return legacy_sse::stream(&self, req).await;
            }
            if path == *post_path {
                return legacy_sse::post(&self, req).await;
            }
        }
        streamable::handle(&self, req).await
    }
}

/// The default [`HttpOptions::max_connections`]: below the descriptor limit, so that the
/// cap is met (and idle connections evicted) before `accept` starts failing.
fn default_max_connections() -> usize {
    const MOST: usize = 10_000;
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` only writes the struct it is given.
        let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
        if read && limit.rlim_cur != libc::RLIM_INFINITY {
            let fds = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
            let headroom = (fds / 4).max(64);
            return fds.saturating_sub(headroom).clamp(1, MOST);
        }
    }
    MOST
}

/// The host part of a `Host` value or an origin's authority, without the port.
fn host_of(authority: &str) -> &str {
    // Byte searches: this runs on every request, and `split` with a char pattern costs
    // several times more.
    let upto = |s: &str, c: u8| s.bytes().position(|b| b == c).unwrap_or(s.len());
    let a = &authority[..upto(authority, b'/')];
    if a.starts_with('[') {
        return match a.find(']') {
            Some(i) => &a[..=i],
            None => a,
        };
    }
    &a[..upto(a, b':')]
}

fn forbidden(msg: &str) -> Response {
    error_response(StatusCode::FORBIDDEN, None, &ErrorObject::new(-32000, msg))
}

/// A JSON-RPC error answer with an HTTP status.
pub(crate) fn error_response(
    status: StatusCode,
    id: Option<&RequestId>,
    error: &ErrorObject,
) -> Response {
    let mut out = Vec::new();
    jsonrpc::write_error(&mut out, id, error);
    json_response(status, out)
}

/// A JSON body with an HTTP status. A 503 (busy, shutting down, a shared store unreachable
/// or failing over) says when to come back: `Retry-After: 1`.
pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    r
}

pub(crate) fn empty(status: StatusCode) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = status;
    r
}

pub(crate) fn sse_response(body: sse::SseBody) -> Response {
    let mut r = Response::new(Body::new(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// Reads a body up to the limit; `Err` is the 413 (or 400) to send. A body whose declared
/// `Content-Length` is above the limit is refused at once, before any of it is read.
pub(crate) async fn read_body(body: Body, opts: &HttpOptions) -> Result<Vec<u8>, Response> {
    use http_body::Body as _;
    use http_body_util::BodyExt;
    let limit = opts.max_body;
    let too_large = || {
        error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            None,
            &ErrorObject::invalid_request(format!(
                "Invalid Request: body exceeds the limit of {limit} bytes"
            )),
        )
    };
    // One buffer, sized from Content-Length when the client sent it: the body's chunks are
    // copied once, not gathered and then copied again for the filters. The claim is only
    // trusted up to 1 MiB before the bytes arrive.
    let hint = usize::try_from(body.size_hint().lower()).unwrap_or(usize::MAX);
    if hint > limit {
        return Err(too_large());
    }
    let mut out = Vec::with_capacity(hint.min(limit).min(1 << 20));
    let mut body = http_body_util::Limited::new(body, limit);
    // A body that stalls (no byte for `body_idle_timeout`) or trickles (not complete after
    // `body_total_timeout`) is answered 408, so slow clients cannot hold connections.
    let deadline = tokio::time::Instant::now() + opts.body_total_timeout;
    loop {
        let next = tokio::time::Instant::now() + opts.body_idle_timeout;
        let frame = match tokio::time::timeout_at(next.min(deadline), body.frame()).await {
            Ok(Some(frame)) => frame,
            Ok(None) => break,
            Err(_) => {
                return Err(error_response(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    &ErrorObject::invalid_request("Invalid Request: the body arrived too slowly"),
                ));
            }
        };
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    out.extend_from_slice(data);
                }
                // Most bodies arrive in one chunk that completes the Content-Length: no
                // second poll for an end that is already known.
                if body.is_end_stream() {
                    break;
                }
            }
            Err(e) => {
                return Err(
                    if e.downcast_ref::<http_body_util::LengthLimitError>()
                        .is_some()
                    {
                        too_large()
                    } else {
                        empty(StatusCode::BAD_REQUEST)
                    },
                );
            }
        }
    }
    Ok(out)
}

impl<C: Chain, H: ServerHandler> Server<C, H> {
    /// The HTTP transports as an [`axum::Router`] to mount in your application (or wrap
    /// in any tower layer), with the default [`HttpOptions`]: the routes of
    /// [`Server::http_router`]. How it differs from the other entry points (HTTP+SSE off):
    /// the table in [`crate::transport`].
    pub fn http_service(&self) -> axum::Router {
        self.erased.http_router(HttpOptions::default()).0
    }

    /// The HTTP transports as an [`axum::Router`], and a handle for stats and shutdown.
    ///
    /// The router answers these paths, and nothing else (each is logged at `info` when the
    /// router is made):
    ///
    /// - [`HttpOptions::path`] (`/mcp`): Streamable HTTP, both eras;
    /// - [`HttpOptions::legacy_sse`] when set (off by default): the 2024-11-05 HTTP+SSE
    ///   transport;
    /// - with [`HttpOptions::auth`] naming an authorization server, the OAuth protected
    ///   resource metadata at `/.well-known/oauth-protected-resource` and its path forms.
    ///
    /// With the default [`DnsRebinding::Auto`], requests whose `Host` is not a loopback
    /// name are refused with 403 (the router cannot know where your app listens): an app
    /// served to other hosts, or behind a reverse proxy, sets
    /// [`HttpOptions::dns_rebinding`] to [`DnsRebinding::Allow`] with its public host names
    /// (or [`DnsRebinding::Off`]). Every difference from the other entry points (HTTP+SSE,
    /// paths, `Host` check) is in the table in [`crate::transport`].
    pub fn http_router(&self, opts: HttpOptions) -> (axum::Router, HttpHandle) {
        self.erased.http_router(opts)
    }

    /// Serves Streamable HTTP at `/mcp`, and the 2024-11-05 HTTP+SSE transport at `/sse`
    /// and `/messages` (the server owns the port, so every client revision is served), on
    /// `addr` until SIGTERM/SIGINT, then shuts down gracefully. The only entry point with
    /// HTTP+SSE on by default; every difference is in the table in [`crate::transport`].
    pub async fn serve_http(&self, addr: impl Into<SocketAddr>) -> std::io::Result<()> {
        self.erased.serve_http(addr.into()).await
    }

    /// Serves on a bound listener with `opts` until `stop` fires, then shuts down
    /// gracefully: no new connections or requests, standalone streams end, requests in
    /// flight get `shutdown_grace` to send their answers (on their SSE streams too), then
    /// everything still open is closed.
    ///
    /// Each connection is served by hyper's HTTP/1.1 connection directly (with
    /// `TCP_NODELAY`), not through [`Self::http_router`]: the paths are the same, matched
    /// by string; everything else is 404. HTTP+SSE is as `opts.legacy_sse` says (off by
    /// default, unlike [`Server::serve_http`]); every difference is in the table in [`crate::transport`].
    pub async fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        opts: HttpOptions,
        stop: CancellationToken,
    ) -> std::io::Result<()> {
        self.erased.serve_http_on(listener, opts, stop).await
    }
}

/// The HTTP transports, compiled once: `Server<C, H>`'s methods above hand over to these.
impl ErasedServer {
    /// See [`Server::http_router`].
    pub(crate) fn http_router(&self, opts: HttpOptions) -> (axum::Router, HttpHandle) {
        let (state, handle) = self.http_state(opts);
        let mut paths = vec![state.opts.path.clone()];
        if let Some((a, b)) = &state.opts.legacy_sse {
            paths.push(a.clone());
            paths.push(b.clone());
        }
        if let Some(auth) = &state.opts.auth {
            for p in auth.metadata_paths(&state.opts.path) {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
        if state.opts.operator.is_some() {
            for p in [operator::HEALTHZ, operator::READYZ, operator::METRICS] {
                if !paths.iter().any(|q| q == p) {
                    paths.push(p.to_owned());
                }
            }
        }
        tracing::info!(?paths, "MCP HTTP routes");
        let mut router = axum::Router::new();
        for p in paths {
            let st = state.clone();
            router = router.route(
                &p,
                axum::routing::any(move |req: axum::extract::Request| {
                    let st = st.clone();
                    async move { st.handle(req).await }
                }),
            );
        }
        (router, handle)
    }

    /// The shared state of one HTTP transport, and its handle.
    fn http_state(&self, opts: HttpOptions) -> (Arc<HttpState>, HttpHandle) {
        let state = HttpState::new(self.kernel.clone(), self.http.clone(), opts);
        let weak = Arc::downgrade(&state);
        let handle = HttpHandle {
            stats: Arc::new(move || weak.upgrade().map(|s| s.stats()).unwrap_or_default()),
            draining: state.draining.clone(),
            shutdown: state.shutdown.clone(),
        };
        (state, handle)
    }

    /// See [`Server::serve_http`].
    /// Boxed, as the stream's ways of serving are (`server/serving.rs`).
    pub(crate) fn serve_http(&self, addr: SocketAddr) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            let stop = CancellationToken::new();
            crate::server::stdio::stop_on_signals(stop.clone());
            let listener = tokio::net::TcpListener::bind(addr).await?;
            let opts = HttpOptions {
                legacy_sse: Some(("/sse".into(), "/messages".into())),
                ..HttpOptions::default()
            };
            self.serve_http_on(listener, opts, stop).await
        })
    }

    /// See [`Server::serve_http_on`].
    pub(crate) fn serve_http_on(
        &self,
        listener: tokio::net::TcpListener,
        opts: HttpOptions,
        stop: CancellationToken,
    ) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(self.serve_http_on_inner(listener, opts, stop))
    }

    async fn serve_http_on_inner(
        &self,
        listener: tokio::net::TcpListener,
        mut opts: HttpOptions,
        stop: CancellationToken,
    ) -> std::io::Result<()> {
        let local = listener.local_addr()?;
        if matches!(opts.dns_rebinding, DnsRebinding::Auto) && !local.ip().is_loopback() {
            opts.dns_rebinding = DnsRebinding::Off;
        }
        let grace = opts.shutdown_grace;
        let (state, handle) = self.http_state(opts);
        tracing::info!(%local, "serving MCP over HTTP");
        let closing = CancellationToken::new();
        let conns = tokio_util::task::TaskTracker::new();
        serve::accept_loop(&state, listener, &stop, &closing, &conns).await;
        // No new connections; new requests get 503; standalone streams end; listen
        // streams end with their closing result instead of holding the grace.
        handle.drain();
        self.handle.end_listens();
        closing.cancel();
        conns.close();
        if tokio::time::timeout(grace, conns.wait()).await.is_err() {
            tracing::warn!("shutdown grace period over; closing connections");
            handle.shutdown();
            // What was cut short is answered "shutting down": a moment for that to go out.
            let _ = tokio::time::timeout(Duration::from_secs(1), conns.wait()).await;
        }
        handle.shutdown();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connection_cap_leaves_descriptors_to_spare() {
        let cap = default_max_connections();
        assert!((1..=10_000).contains(&cap), "{cap}");
        #[cfg(unix)]
        {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: as in `default_max_connections`.
            assert_eq!(
                unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
                0
            );
            if limit.rlim_cur != libc::RLIM_INFINITY {
                assert!((cap as u64) < limit.rlim_cur, "{cap} of {}", limit.rlim_cur);
            }
        }
    }

    #[test]
    fn host_of_drops_port_and_path() {
        for (authority, host) in [
            ("localhost", "localhost"),
            ("localhost:8080", "localhost"),
            ("127.0.0.1:3000/mcp", "127.0.0.1"),
            ("example.com/a:b", "example.com"),
            ("[::1]:8080", "[::1]"),
            ("[::1]", "[::1]"),
            ("[::1", "[::1"),
            ("", ""),
        ] {
            assert_eq!(host_of(authority), host, "{authority}");
        }
    }
}
