//! The connection's handle on its peer: outgoing notifications and, on legacy connections,
//! server-to-client requests with correlated responses and timeouts.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_core::jsonrpc::{self, ErrorObject, RequestId};
use mcp_core::version::Era;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::wire::pending::{IdStyle, Pending, WaitError};

/// Why a server-to-client request could not be completed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PeerError {
    /// 2026-07-28 connections carry no server-to-client requests.
    ModernConnection,
    /// The request was made while `initialize` was being handled; the client cannot answer
    /// before it has the `InitializeResult`, so waiting would deadlock.
    DuringInitialize,
    /// No answer came within the timeout.
    Timeout,
    /// The connection closed first.
    Disconnected,
    /// The client answered with an error.
    Rejected(ErrorObject),
    /// The client's answer did not decode as the expected result.
    InvalidResponse(String),
    /// The client did not declare the capability this request needs.
    NotDeclared(&'static str),
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PeerError::ModernConnection => {
                f.write_str("server-to-client requests are not allowed on 2026-07-28 connections")
            }
            PeerError::DuringInitialize => {
                f.write_str("server-to-client requests cannot be awaited while handling initialize")
            }
            PeerError::Timeout => f.write_str("the client did not answer in time"),
            PeerError::Disconnected => f.write_str("the connection closed"),
            PeerError::Rejected(e) => write!(f, "the client answered with an error: {e}"),
            PeerError::InvalidResponse(e) => write!(f, "the client's answer is invalid: {e}"),
            PeerError::NotDeclared(c) => {
                write!(f, "the client did not declare the `{c}` capability")
            }
        }
    }
}

impl std::error::Error for PeerError {}

impl From<PeerError> for crate::common::error::McpError {
    fn from(e: PeerError) -> Self {
        crate::common::error::McpError::Internal(Box::new(e))
    }
}

/// State shared by everything that writes to one connection.
pub(crate) struct ConnShared {
    pub(crate) out: mpsc::Sender<Vec<u8>>,
    /// Server-to-client requests waiting for their answers (ids `srv-1`, `srv-2`, ...; on
    /// an HTTP session from a random start).
    pending: Pending<Result<Box<RawValue>, ErrorObject>>,
    pub(crate) request_timeout: Duration,
    pub(crate) filters: crate::wire::filter::Filters,
    /// Fires when the connection stops reading (EOF, stop, the session ending): long-lived
    /// work (listen streams, change-notification forwarders) ends on it.
    pub(crate) closing: tokio_util::sync::CancellationToken,
    /// The legacy session's resource subscriptions (`resources/subscribe`).
    /// (Held for `features::subscriptions`.)
    pub(crate) subscriptions: crate::common::slot::Slot,
    /// The server's handle for `Context::server`, set by the dispatcher on first use.
    /// (Held for `features::handle`.)
    pub(crate) server: crate::common::slot::Slot,
    /// A stateless legacy HTTP request: nothing outlives it, so the server can promise no
    /// notifications of its own (`resources/subscribe`, `listChanged`).
    sessionless: std::sync::atomic::AtomicBool,
}

impl ConnShared {
    pub(crate) fn new(
        out: mpsc::Sender<Vec<u8>>,
        request_timeout: Duration,
        filters: crate::wire::filter::Filters,
    ) -> Self {
        Self {
            out,
            pending: Pending::new(IdStyle::Prefixed("srv-"), 1),
            request_timeout,
            filters,
            closing: Default::default(),
            subscriptions: Default::default(),
            server: Default::default(),
            sessionless: Default::default(),
        }
    }

    /// Starts the server-to-client request ids at a random number (`srv-<n>`), for a
    /// session other processes may hold too: an answer forwarded between them then
    /// completes only the request it answers.
    #[cfg(feature = "http")]
    pub(crate) fn random_request_ids(&self) {
        let mut b = [0u8; 8];
        getrandom::fill(&mut b).expect("the OS random source failed");
        // 40 bits: short ids, and room to count on.
        self.pending.mint_from(1 + (u64::from_le_bytes(b) >> 24));
    }

    /// Marks the connection as one stateless legacy HTTP request.
    #[cfg(feature = "http")]
    pub(crate) fn mark_sessionless(&self) {
        self.sessionless.store(true, Ordering::Relaxed);
    }

    /// Whether the connection is one stateless legacy HTTP request.
    pub(crate) fn is_sessionless(&self) -> bool {
        self.sessionless.load(Ordering::Relaxed)
    }

    /// Sends one encoded message through the outgoing filters to the writer.
    pub(crate) async fn send(&self, frame: Vec<u8>) -> bool {
        self.send_via(&self.out, frame).await
    }

    /// Sends one encoded message through the outgoing filters to `out` (a request-scoped
    /// stream on HTTP, the connection's writer otherwise).
    pub(crate) async fn send_via(&self, out: &mpsc::Sender<Vec<u8>>, frame: Vec<u8>) -> bool {
        let frame = match self.filters.outgoing(frame) {
            Some(f) => f,
            None => return true,
        };
        out.send(frame).await.is_ok()
    }

    /// Routes a response from the client to the request waiting for it.
    pub(crate) fn complete(
        &self,
        id: &RequestId,
        outcome: Result<Box<RawValue>, ErrorObject>,
    ) -> bool {
        self.pending.complete(id, outcome)
    }

    /// Fails every waiting request (the connection is closing).
    pub(crate) fn fail_all(&self) {
        self.closing.cancel();
        self.pending.fail_all();
    }

    pub(crate) async fn request(
        &self,
        out: Option<&mpsc::Sender<Vec<u8>>>,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, PeerError> {
        let (_, id) = self.pending.next_id();
        let mut frame = Vec::new();
        jsonrpc::write_request(&mut frame, &id, method, params.map(RawValue::get));
        // Registered before sending, so that a fast answer finds it; never refused, as
        // the server's table is failed, not closed.
        let Some(waiter) = self.pending.register(id) else {
            return Err(PeerError::Disconnected);
        };
        if !self.send_via(out.unwrap_or(&self.out), frame).await {
            return Err(PeerError::Disconnected); // the waiter's drop removes its entry
        }
        match waiter.within(self.request_timeout).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(PeerError::Rejected(e)),
            Err(WaitError::Closed) => Err(PeerError::Disconnected),
            Err(WaitError::Timeout) => Err(PeerError::Timeout),
        }
    }
}

/// What a request may do towards the client, as the context exposes it.
#[derive(Clone)]
pub struct Peer {
    pub(crate) conn: std::sync::Arc<ConnShared>,
    /// Where this request's messages go when not to the connection's writer: the
    /// request-scoped stream of an HTTP POST.
    pub(crate) out: Option<mpsc::Sender<Vec<u8>>>,
    pub(crate) era: Era,
    pub(crate) in_initialize: bool,
    /// Set inside a 2025-11-25 task: its messages carry the related-task `_meta`.
    pub(crate) task: Option<std::sync::Arc<dyn PeerScope>>,
}

/// What a peer's messages belong to, when they belong to more than their request: a
/// 2025-11-25 task (`features::tasks`) tags each message with its `_meta` and is
/// `input_required` while a server-to-client request of its waits.
pub(crate) trait PeerScope: Send + Sync {
    /// Adds the scope's `_meta` to a params object.
    fn tag_map(&self, params: &mut serde_json::Map<String, serde_json::Value>);

    /// `params` with the scope's `_meta` added (`None`: params that are not an object are
    /// sent as they are).
    fn tag(&self, params: Option<&RawValue>) -> Option<Box<RawValue>> {
        let mut map = match params {
            None => serde_json::Map::new(),
            Some(raw) => serde_json::from_str(raw.get()).ok()?,
        };
        self.tag_map(&mut map);
        serde_json::value::to_raw_value(&map).ok()
    }

    /// Called when a server-to-client request starts waiting for its answer (`true`) and
    /// when it stops (`false`).
    fn waiting(&self, begins: bool) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

impl Peer {
    /// Sends a request to the client and waits for its result (legacy connections only).
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, PeerError> {
        if self.era == Era::Modern {
            return Err(PeerError::ModernConnection);
        }
        if self.in_initialize {
            return Err(PeerError::DuringInitialize);
        }
        let Some(scope) = &self.task else {
            return self.conn.request(self.out.as_ref(), method, params).await;
        };
        let tagged = scope.tag(params);
        scope.waiting(true).await;
        let answer = (self.conn)
            .request(self.out.as_ref(), method, tagged.as_deref().or(params))
            .await;
        scope.waiting(false).await;
        answer
    }

    /// Sends a typed request and decodes the typed result.
    pub async fn request<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, PeerError> {
        let raw = serde_json::value::to_raw_value(params)
            .map_err(|e| PeerError::InvalidResponse(e.to_string()))?;
        let out = self.request_raw(method, Some(&raw)).await?;
        serde_json::from_str(out.get()).map_err(|e| PeerError::InvalidResponse(e.to_string()))
    }

    /// Sends a notification to the client.
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), PeerError> {
        let tagged = self.task.as_ref().and_then(|t| t.tag(params));
        let params = tagged.as_deref().or(params);
        let mut frame = Vec::new();
        jsonrpc::write_notification(&mut frame, method, params.map(RawValue::get));
        let sent = match &self.out {
            Some(out) => self.conn.send_via(out, frame).await,
            None => self.conn.send(frame).await,
        };
        if sent {
            Ok(())
        } else {
            Err(PeerError::Disconnected)
        }
    }
}
