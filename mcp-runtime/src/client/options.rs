//! What a connection and a request are configured with, and what the connection
//! negotiated: [`ConnectMode`], [`RequestOptions`], [`ServerSession`].

use std::time::Duration;

use mcp_core::types::{
    Implementation, LoggingLevel, LoggingMessageParams, ProgressParams, ServerCapabilities,
};
use mcp_core::version::{Era, ProtocolVersion};

/// How a connection picks its protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConnectMode {
    /// The `initialize` handshake offering this (legacy) revision.
    Legacy(ProtocolVersion),
    /// A modern connection pinned to this revision: `server/discover` must succeed.
    Modern(ProtocolVersion),
    /// Probe `server/discover` (newest modern revision); fall back to `initialize` at the
    /// newest legacy revision on any error other than a recognized modern one, or on no
    /// answer within the probe timeout (protocol.md §4.3, stdio).
    #[default]
    Auto,
}

/// Per-request options.
#[derive(Default)]
pub struct RequestOptions {
    /// Overrides the client's request timeout.
    pub timeout: Option<Duration>,
    /// Called with each `notifications/progress` for this request (a progress token is put
    /// in `_meta`). Each progress notification restarts the timeout, up to
    /// [`RequestOptions::max_total`].
    pub on_progress: Option<Box<dyn FnMut(ProgressParams) + Send>>,
    /// The hard cap on the whole request when progress extends the timeout (default: ten
    /// times the timeout).
    pub max_total: Option<Duration>,
    /// Called with each `notifications/message` the server relates to this request: over
    /// Streamable HTTP, the ones on the request's own stream. Those are then not given to
    /// the [`ClientHandler`](super::ClientHandler) (so several requests in flight each hear
    /// their own); over stdio a log message names no request and goes to the handler.
    pub on_log: Option<Box<dyn FnMut(LoggingMessageParams) + Send>>,
    /// Answers the server-to-client requests (elicitation, sampling, roots) the server
    /// relates to this request: over Streamable HTTP, the ones on the request's own stream;
    /// over stdio, the ones naming it in `_meta` (our servers do:
    /// [`RELATED_REQUEST`](mcp_core::meta::RELATED_REQUEST)). The others go to the
    /// connection's [`ClientHandler`](super::ClientHandler). A proxy sets it so that each
    /// call's own caller is asked, however many calls are in flight.
    pub handler: Option<super::RequestHandler>,
    /// The 2026 per-request log level (`_meta` `io.modelcontextprotocol/logLevel`); ignored
    /// on legacy connections (use [`Client::set_log_level`](super::Client::set_log_level)).
    pub log_level: Option<LoggingLevel>,
    /// How this call uses the response cache (default: the handle's mode, see
    /// [`Client::with_cache_mode`](super::Client::with_cache_mode)); only the cacheable
    /// 2026 methods are concerned.
    pub cache: Option<super::CacheMode>,
    /// How many 2026 `input_required` rounds this request answers with the handler
    /// (default [`MAX_INPUT_ROUNDS`](super::MAX_INPUT_ROUNDS)). `Some(0)` answers none: the
    /// first `input_required` result comes back as
    /// [`ClientError::InputRequired`](super::ClientError::InputRequired) holding it, for a
    /// caller that passes the rounds on (`mcp bridge` relays them to its own client).
    pub input_rounds: Option<usize>,
}

impl RequestOptions {
    /// Options with a progress callback.
    pub fn with_progress(f: impl FnMut(ProgressParams) + Send + 'static) -> Self {
        Self {
            on_progress: Some(Box::new(f)),
            ..Self::default()
        }
    }

    /// The same options with a cache mode for this call.
    pub fn cache(mut self, mode: super::CacheMode) -> Self {
        self.cache = Some(mode);
        self
    }

    /// The same options with a timeout.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = Some(t);
        self
    }
}

/// What the connection negotiated.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSession {
    /// The revision in use.
    pub version: ProtocolVersion,
    /// The server's capabilities (from `InitializeResult` or `DiscoverResult`).
    pub capabilities: ServerCapabilities,
    /// The server's implementation (`serverInfo`, or 2026 `_meta` serverInfo when given).
    pub server_info: Option<Implementation>,
    /// The server's instructions.
    pub instructions: Option<String>,
}

impl ServerSession {
    /// The era of the revision in use.
    pub fn era(&self) -> Era {
        self.version.era()
    }
}
