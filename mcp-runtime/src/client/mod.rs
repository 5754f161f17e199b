//! The MCP client: one connection to a server over any byte stream or a child process.
//!
//! A [`Client`] owns a reader task, which routes responses to the pending requests by id,
//! progress notifications to the request that asked for them, other notifications to the
//! [`ClientHandler`] and to [`Client::notifications`], and the server's own requests (`ping`,
//! sampling, elicitation, roots) to the handler; and a writer task.
//!
//! Connecting negotiates the revision ([`ConnectMode`]): the legacy `initialize`
//! handshake, a pinned 2026-07-28 connection (every request carries the `_meta` envelope and
//! every result is checked by the 2026 codec), or automatic detection as the stdio transport
//! prescribes (probe `server/discover`, fall back to `initialize`).
//!
//! On 2026-07-28 connections an `input_required` result is answered with the same
//! handler ([`MAX_INPUT_ROUNDS`] rounds at most) and [`Client::listen`] opens a
//! `subscriptions/listen` [`Subscription`]. Over HTTP a [`TokenProvider`] supplies bearer
//! tokens; [`oauth::OAuth`] is the full OAuth 2.1 flow of the MCP authorization spec.
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::Client;
//!
//! let mut cmd = tokio::process::Command::new("my-server");
//! cmd.arg("--stdio");
//! let client = Client::spawn(cmd).await?;
//! let tools = client.list_all_tools().await?;
//! let result = client.call_tool("add", serde_json::json!({"a": 1, "b": 2})).await?;
//! client.shutdown().await?;
//! # let _ = (tools, result); Ok(()) }
//! ```

mod builder;
pub mod cache;
mod calls;
mod conn;
mod error;
mod handler;
mod handshake;
#[cfg(feature = "http")]
mod http;
mod listen;
mod mrtr;
#[cfg(feature = "http")]
pub mod oauth;
mod options;
#[cfg(feature = "schema-validation")]
mod output_schema;
mod process;
mod request;
#[cfg(feature = "http")]
mod sse;
mod telemetry;

use std::process::ExitStatus;
#[cfg(feature = "http")]
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::types::{ClientCapabilities, Implementation, ServerCapabilities};
use mcp_core::version::ProtocolVersion;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{broadcast, mpsc};

use cache::CacheMode;
use conn::{Outgoing, Shared};
pub use error::ClientError;
pub use handler::{ClientHandler, RequestHandler, ServerNotification};
pub use listen::Subscription;
pub use mrtr::MAX_INPUT_ROUNDS;
pub use process::{ShutdownTimeouts, StderrMode};

pub use builder::ClientBuilder;
#[cfg(feature = "tls")]
pub use http::tls::TlsConfig;
#[cfg(feature = "http")]
pub use http::{Credentials, MAX_STEP_UPS, StaticToken, TokenProvider, hyper_util};
/// The request sender `openapi` shares (one HTTP request on hyper, any scheme).
#[cfg(feature = "openapi")]
pub(crate) use http::{HttpSend, any_scheme_sender};
pub use options::{ConnectMode, RequestOptions, ServerSession};

/// What every handle on one connection shares.
struct Inner {
    shared: Arc<Shared>,
    out: mpsc::UnboundedSender<Outgoing>,
    info: Implementation,
    capabilities: ClientCapabilities,
    /// `capabilities` and `info` as JSON, for the 2026 `_meta` envelope of every request.
    caps_json: Box<serde_json::value::RawValue>,
    info_json: Box<serde_json::value::RawValue>,
    request_timeout: Duration,
    session: Mutex<Option<ServerSession>>,
    /// The `server/discover` result the 2026 connection runs on, and whether it came over
    /// the wire (rather than from the builder or the cache).
    discovered: Mutex<Option<(String, bool)>>,
    /// [`ClientBuilder::prior_discover`]'s result, until connecting uses it.
    prior: Mutex<Option<Box<serde_json::value::RawValue>>>,
    /// The output schemas of the listed tools, which tool results are checked against.
    #[cfg(feature = "schema-validation")]
    output_schemas: output_schema::OutputSchemas,
    process: Option<process::Process>,
    #[cfg(feature = "http")]
    http: Option<Arc<http::HttpConn>>,
    /// When the connection opened, until `mcp.client.session.duration` is recorded (on
    /// [`Client::close`] or when the last handle goes).
    #[cfg(feature = "otel")]
    session_started: Mutex<Option<std::time::Instant>>,
}

impl Drop for Inner {
    /// The last handle of a spawned server's client is gone: its stdin closes (the writer
    /// ends with the last sender) and, off this thread, the usual shutdown sequence makes
    /// sure the process does not outlive us.
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        self.end_session();
        if let Some(p) = self.process.take()
            && p.status().is_none()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            rt.spawn(async move {
                let _ = p.shutdown().await;
            });
        }
    }
}

/// A connection to one MCP server. Cloning gives another handle on the same connection;
/// the connection closes when every handle is dropped (or on [`Client::close`]).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
    /// How this handle's calls use the response cache ([`Client::with_cache_mode`]).
    cache_mode: CacheMode,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("transport", &self.transport())
            .field("version", &self.current_version())
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A builder with the defaults: auto mode, no capabilities, no handler.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Connects over a byte stream with the defaults ([`ConnectMode::Auto`]).
    pub async fn connect<S>(stream: S) -> Result<Client, ClientError>
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        ClientBuilder::default().connect(stream).await
    }

    /// Connects to a Streamable HTTP endpoint with the defaults ([`ConnectMode::Auto`]:
    /// 2026, else legacy Streamable HTTP, else 2024-11-05 HTTP+SSE).
    #[cfg(feature = "http")]
    pub async fn connect_http(url: &str) -> Result<Client, ClientError> {
        ClientBuilder::default().connect_http(url).await
    }

    /// Connects over the 2024-11-05 HTTP+SSE transport with the defaults.
    #[cfg(feature = "http")]
    pub async fn connect_sse(url: &str) -> Result<Client, ClientError> {
        ClientBuilder::default().connect_sse(url).await
    }

    /// Spawns a server process with the defaults ([`ConnectMode::Auto`], stderr inherited).
    pub async fn spawn(cmd: impl Into<tokio::process::Command>) -> Result<Client, ClientError> {
        ClientBuilder::default().spawn(cmd).await
    }

    /// Another handle on the same connection whose calls use the response cache as `mode`
    /// says ([`CacheMode::Refresh`]: ask the server and store its answer;
    /// [`CacheMode::Bypass`]: ask the server, store nothing). One call can also choose with
    /// [`RequestOptions::cache`]. See [`cache`] for the rules.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// use mcp_runtime::client::cache::CacheMode;
    ///
    /// let tools = client.with_cache_mode(CacheMode::Refresh).list_all_tools().await?;
    /// # let _ = tools; Ok(()) }
    /// ```
    pub fn with_cache_mode(&self, mode: CacheMode) -> Client {
        Client {
            inner: self.inner.clone(),
            cache_mode: mode,
        }
    }

    /// Names the server in the cache's keys, unless the builder did.
    fn default_cache_origin(&self, origin: String) {
        if let Some(c) = self.inner.shared.cache.get() {
            c.default_origin(origin);
        }
    }

    /// What the connection negotiated.
    pub fn session(&self) -> ServerSession {
        self.inner
            .session
            .lock()
            .expect("session lock")
            .clone()
            .expect("a connected client has a session")
    }

    /// The revision in use.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.session().version
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> ServerCapabilities {
        self.session().capabilities
    }

    /// The server's implementation, when it named one.
    pub fn server_info(&self) -> Option<Implementation> {
        self.session().server_info
    }

    /// The client's own implementation and capabilities.
    pub fn client_info(&self) -> (&Implementation, &ClientCapabilities) {
        (&self.inner.info, &self.inner.capabilities)
    }

    /// A stream of the server's notifications from now on (lagging receivers lose the
    /// oldest).
    pub fn notifications(&self) -> broadcast::Receiver<ServerNotification> {
        self.inner.shared.notifications.subscribe()
    }

    /// Whether the connection has closed.
    pub fn is_closed(&self) -> bool {
        self.inner
            .shared
            .state
            .lock()
            .expect("client state lock")
            .closed
            .is_some()
    }

    /// The spawned server's captured stderr ([`StderrMode::Capture`]), lossily decoded.
    pub fn stderr(&self) -> Option<String> {
        let p = self.inner.process.as_ref()?;
        let buf = p.stderr.as_ref()?;
        Some(String::from_utf8_lossy(&buf.lock().expect("stderr lock")).into_owned())
    }

    /// The spawned server's process id.
    pub fn pid(&self) -> Option<u32> {
        self.inner.process.as_ref().and_then(|p| p.pid)
    }

    /// The spawned server's exit status, once it has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.inner
            .process
            .as_ref()
            .and_then(process::Process::status)
    }

    /// Closes the writing side (the server sees EOF). Pending requests fail when the server
    /// closes its side. For a spawned server prefer [`Client::shutdown`].
    pub async fn close(&self) -> Result<(), ClientError> {
        #[cfg(feature = "otel")]
        self.inner.end_session();
        #[cfg(feature = "http")]
        if let Some(h) = &self.inner.http {
            // Aborts what is in flight, DELETEs a legacy session.
            h.shutdown().await;
            return Ok(());
        }
        let _ = self.inner.out.send(Outgoing::Close);
        Ok(())
    }

    /// Shuts a spawned server down: closes its stdin, waits, then SIGTERM, waits, then
    /// SIGKILL, waits (each with its [`ShutdownTimeouts`]); returns its exit status. On a
    /// stream connection this is [`Client::close`] and returns `None`.
    pub async fn shutdown(&self) -> Result<Option<ExitStatus>, ClientError> {
        self.close().await?;
        match &self.inner.process {
            Some(p) => p.shutdown().await.map(Some),
            None => Ok(None),
        }
    }
}

impl Client {
    /// The transport the connection runs on.
    pub fn transport(&self) -> Transport {
        #[cfg(feature = "http")]
        if let Some(h) = &self.inner.http {
            return match h.kind() {
                http::Kind::Streamable => Transport::StreamableHttp,
                http::Kind::Sse { .. } => Transport::HttpSse,
            };
        }
        Transport::Stream
    }

    /// The `Mcp-Session-Id` of a legacy Streamable HTTP session.
    #[cfg(feature = "http")]
    pub fn http_session_id(&self) -> Option<String> {
        self.inner.http.as_ref().and_then(|h| h.session_id_pub())
    }

    /// How many times the legacy HTTP session was re-initialized after the server forgot
    /// it (`404`).
    #[cfg(feature = "http")]
    pub fn http_reinitializations(&self) -> u64 {
        self.inner
            .http
            .as_ref()
            .map_or(0, |h| h.reinitialized.load(Ordering::Relaxed))
    }
}

/// The transport of a [`Client`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// A byte stream (stdio of a child process, the in-memory pipe, a socket).
    Stream,
    /// Streamable HTTP (either era).
    StreamableHttp,
    /// The 2024-11-05 HTTP+SSE transport.
    HttpSse,
}
