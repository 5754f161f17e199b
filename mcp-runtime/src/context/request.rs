//! The per-message [`Context`] that middleware and handlers receive.

use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::jsonrpc::RequestId;
use mcp_core::meta::RequestMeta;
use mcp_core::params::Params;
use mcp_core::types::{ClientCapabilities, Implementation, LoggingLevel, ProgressToken};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use crate::common::extensions::Extensions;
use crate::common::telemetry::NetworkTransport;
use crate::context::peer::{Peer, PeerError};
use crate::session::{ClientView, Session};

/// What a context is built from, on any transport.
pub(crate) struct ContextParts<'a> {
    pub(crate) method: &'a str,
    /// The params, copied out of the frame once: the envelope read from them shares them.
    pub(crate) params: Option<Params>,
    pub(crate) id: Option<RequestId>,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) era: Era,
    pub(crate) meta: Option<RequestMeta>,
    /// The legacy session (inserted for the dispatcher), if any.
    pub(crate) session: Option<&'a Session>,
    pub(crate) extensions: Extensions,
    pub(crate) cancel: CancellationToken,
    pub(crate) peer: Peer,
    /// `pipe` for byte streams, `tcp` for HTTP.
    pub(crate) transport: NetworkTransport,
    /// The `Mcp-Session-Id` of a legacy HTTP session.
    pub(crate) session_id: Option<Arc<str>>,
}

/// Per-request state shared between clones of one context.
pub(crate) struct RequestShared {
    pub(crate) meta: Option<RequestMeta>,
    pub(crate) client: OnceLock<Arc<ClientView>>,
    pub(crate) session_client: Option<Arc<ClientView>>,
    /// The legacy session of the connection (none on modern requests): a field, not an
    /// extension, so building a context inserts nothing into a map.
    pub(crate) session: Option<crate::session::Session>,
    /// The last progress value sent, to keep progress strictly increasing.
    pub(crate) last_progress: Mutex<Option<f64>>,
    pub(crate) transport: NetworkTransport,
    pub(crate) session_id: Option<Arc<str>>,
}

/// Everything one message's middleware and handler can see and do.
///
/// Cloning is cheap; the method and params are copied only when rewritten.
#[derive(Clone)]
pub struct Context {
    pub(crate) method: Arc<str>,
    /// Shared with the envelope read from them; a rewrite makes new ones.
    pub(crate) params: Option<Params>,
    pub(crate) id: Option<RequestId>,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) era: Era,
    pub(crate) shared: Arc<RequestShared>,
    pub(crate) extensions: Extensions,
    pub(crate) cancel: CancellationToken,
    pub(crate) peer: Peer,
    /// The multi-round slot of a modern first attempt (`input_rounds::begin`).
    pub(crate) lazy_round: Option<Arc<dyn crate::context::interaction::DeferredInput>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("method", &self.method)
            .field("id", &self.id)
            .field("version", &self.version)
            .field("era", &self.era)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The context of one message, as every transport builds it.
    pub(crate) fn new(p: ContextParts<'_>) -> Self {
        let session = match p.era {
            Era::Legacy => p.session.cloned(),
            Era::Modern => None,
        };
        let session_client = session
            .as_ref()
            .and_then(|s| s.lock().expect("session lock").client.clone());
        Context {
            method: Arc::from(p.method),
            params: p.params,
            id: p.id,
            version: p.version,
            era: p.era,
            shared: Arc::new(RequestShared {
                meta: p.meta,
                client: Default::default(),
                session_client,
                session,
                last_progress: Mutex::new(None),
                transport: p.transport,
                session_id: p.session_id,
            }),
            extensions: p.extensions,
            cancel: p.cancel,
            peer: p.peer,
            lazy_round: None,
        }
    }

    /// The transport the message came over (`network.transport`): `pipe` for stdio and
    /// other byte streams, `tcp` for HTTP.
    pub fn network_transport(&self) -> NetworkTransport {
        self.shared.transport
    }

    /// The session the message belongs to, when the transport names one (the
    /// `Mcp-Session-Id` of a legacy Streamable HTTP session; stdio and 2026 requests have
    /// none).
    pub fn session_id(&self) -> Option<&str> {
        self.shared.session_id.as_deref()
    }

    /// The method, as sent (or as rewritten by a middleware).
    pub fn method(&self) -> &str {
        &self.method
    }

    /// Replaces the method: what lookup and the handler see from here inward.
    pub fn set_method(&mut self, method: impl Into<Arc<str>>) {
        self.method = method.into();
    }

    /// The raw, not yet validated params.
    pub fn params(&self) -> Option<&RawValue> {
        self.params.as_deref()
    }

    /// Replaces the params with `value` (rewriting).
    pub fn set_params<T: serde::Serialize>(&mut self, value: &T) -> Result<(), serde_json::Error> {
        let raw = serde_json::value::to_raw_value(value)?;
        self.params = Some(Params::new(raw));
        Ok(())
    }

    /// Decodes the params into `T`.
    pub fn decode_params<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.params().map_or("{}", RawValue::get))
    }

    /// The request id; `None` for a notification.
    pub fn request_id(&self) -> Option<&RequestId> {
        self.id.as_ref()
    }

    /// Whether this message is a notification (it gets no response).
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// The negotiated (legacy) or per-request (modern) revision; `None` before a legacy
    /// connection is initialized.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.version
    }

    /// The connection's era.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The legacy session this request belongs to, if any.
    pub(crate) fn session(&self) -> Option<&crate::session::Session> {
        self.shared.session.as_ref()
    }

    /// The parsed `_meta` of this request (modern requests always have one).
    pub fn meta(&self) -> Option<&RequestMeta> {
        self.shared.meta.as_ref()
    }

    /// What the client said about itself.
    pub fn client(&self) -> &ClientView {
        self.shared.client.get_or_init(|| {
            if let Some(c) = &self.shared.session_client {
                return c.clone();
            }
            // Decoded from the `_meta` text in place, only when asked for.
            fn decode<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> Option<T> {
                serde_json::from_str(raw?.get()).ok()
            }
            let meta = self.shared.meta.as_ref();
            Arc::new(ClientView {
                info: decode(meta.and_then(RequestMeta::client_info)),
                capabilities: decode(meta.and_then(RequestMeta::client_capabilities))
                    .unwrap_or_default(),
            })
        })
    }

    /// `clientInfo`, when known.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.client().info.as_ref()
    }

    /// The client's capabilities.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.client().capabilities
    }

    /// The settings the client declared for the protocol extension `id` (SEP-2133), raw:
    /// from `initialize` capabilities on a legacy connection, from
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` on a 2026-07-28 request.
    /// (Not to be confused with [`extensions`](Self::extensions), the typed per-request
    /// values.)
    pub fn client_extension(&self, id: &str) -> Option<&serde_json::Value> {
        self.client_capabilities().extension(id)
    }

    /// [`client_extension`](Self::client_extension) decoded as `T` (`None` when not
    /// declared, or not of that shape).
    pub fn client_extension_as<T: serde::de::DeserializeOwned>(&self, id: &str) -> Option<T> {
        self.client_capabilities().extension_as(id)
    }

    /// Whether the client renders MCP Apps: it declared `io.modelcontextprotocol/ui` with
    /// `text/html;profile=mcp-app` among its `mimeTypes`. A tool still returns meaningful
    /// `content` when it does not.
    pub fn client_supports_apps(&self) -> bool {
        self.client_capabilities().supports_apps()
    }

    /// Typed per-request state.
    pub fn extensions(&self) -> &Extensions {
        &self.extensions
    }

    /// Typed per-request state, to attach values.
    pub fn extensions_mut(&mut self) -> &mut Extensions {
        &mut self.extensions
    }

    /// Cancelled when the client cancels this request or the connection closes.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The handle on the client.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// The progress token the client sent, if it asked for progress.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.meta()?.progress_token.as_ref()
    }

    /// Reports progress, if the client asked for it. `progress` must increase on every
    /// call; a value that does not is refused (the spec requires strictly increasing).
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ProgressError> {
        let Some(token) = self.progress_token() else {
            return Ok(());
        };
        if self.on_listen_stream() {
            return Ok(());
        }
        {
            let mut last = self.shared.last_progress.lock().expect("progress lock");
            if last.is_some_and(|l| progress <= l) || !progress.is_finite() {
                return Err(ProgressError::NotIncreasing);
            }
            *last = Some(progress);
        }
        let mut params = serde_json::Map::new();
        params.insert(
            "progressToken".into(),
            serde_json::to_value(token).expect("id"),
        );
        params.insert("progress".into(), progress.into());
        if let Some(t) = total {
            params.insert("total".into(), t.into());
        }
        if let (Some(m), true) = (
            message,
            self.version
                .is_none_or(|v| v.at_least(ProtocolVersion::V2025_03_26)),
        ) {
            params.insert("message".into(), m.into());
        }
        let raw = serde_json::value::to_raw_value(&params).expect("map");
        self.peer
            .notify_raw("notifications/progress", Some(&raw))
            .await
            .map_err(ProgressError::Peer)
    }

    /// The minimum level of log messages this request may send: the session level on legacy
    /// connections, the request's `_meta` `logLevel` opt-in on modern ones.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        match self.era {
            Era::Legacy => self.session()?.lock().expect("session lock").log_level,
            Era::Modern => self
                .meta()
                .and_then(|m| m.log_level.as_deref())
                .and_then(|l| serde_json::from_value(l.into()).ok()),
        }
    }

    /// Sends a `notifications/message` log entry if the level passes the client's filter.
    /// Returns whether it was sent.
    pub async fn log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: serde_json::Value,
    ) -> Result<bool, PeerError> {
        match self.log_level() {
            Some(min) if level >= min && !self.on_listen_stream() => {}
            _ => return Ok(false),
        }
        self.send_log(level, logger, data).await
    }

    /// A log message another server sent for this request (a proxy's upstream), passed
    /// on as [`log`](Self::log) sends, except that a legacy client that set no level gets
    /// it: that server chose to send it, as it would to the client directly.
    #[cfg(feature = "proxy")]
    pub(crate) async fn relay_log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: serde_json::Value,
    ) -> Result<bool, PeerError> {
        let passes = match self.log_level() {
            Some(min) => level >= min,
            None => self.era == Era::Legacy,
        };
        if !passes || self.on_listen_stream() {
            return Ok(false);
        }
        self.send_log(level, logger, data).await
    }

    async fn send_log(
        &self,
        level: LoggingLevel,
        logger: Option<&str>,
        data: serde_json::Value,
    ) -> Result<bool, PeerError> {
        let mut params = serde_json::Map::new();
        params.insert("level".into(), serde_json::to_value(level).expect("level"));
        if let Some(l) = logger {
            params.insert("logger".into(), l.into());
        }
        params.insert("data".into(), data);
        self.name_request(&mut params);
        let raw = serde_json::value::to_raw_value(&params).expect("map");
        self.peer
            .notify_raw("notifications/message", Some(&raw))
            .await
            .map(|_| true)
    }

    /// Names this request in the `_meta` of a log message or a server-to-client request
    /// ([`RELATED_REQUEST`]) on a byte stream, where the message says nothing else of whose
    /// it is (HTTP sends it on the request's own stream): a proxy of ours in front of this
    /// server can then hand it to the right caller with other calls in flight.
    ///
    /// [`RELATED_REQUEST`]: mcp_core::meta::RELATED_REQUEST
    pub(crate) fn name_request(&self, params: &mut serde_json::Map<String, serde_json::Value>) {
        let (NetworkTransport::Pipe, Some(id)) = (self.shared.transport, &self.id) else {
            return;
        };
        let meta = (params.entry("_meta")).or_insert_with(|| serde_json::Map::new().into());
        if let serde_json::Value::Object(meta) = meta {
            let id = serde_json::to_value(id).expect("an id is JSON");
            meta.insert(mcp_core::meta::RELATED_REQUEST.to_owned(), id);
        }
    }

    /// A listen stream carries only its own notifications: never progress or log messages.
    fn on_listen_stream(&self) -> bool {
        &*self.method == mcp_core::types::methods::SUBSCRIPTIONS_LISTEN
    }

    /// Pings the client (legacy connections only).
    pub async fn ping(&self) -> Result<(), PeerError> {
        let empty = serde_json::value::to_raw_value(&serde_json::json!({})).expect("{}");
        self.peer
            .request_raw("ping", Some(&empty))
            .await
            .map(|_| ())
    }
}

/// Why a progress report was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProgressError {
    /// `progress` did not increase (or was not finite).
    NotIncreasing,
    /// The connection failed.
    Peer(PeerError),
}

impl std::fmt::Display for ProgressError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgressError::NotIncreasing => f.write_str("progress must increase on every report"),
            ProgressError::Peer(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ProgressError {}
