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

mod conn;
mod error;
mod handler;
#[cfg(feature = "http")]
mod http;
mod listen;
mod mrtr;
#[cfg(feature = "http")]
pub mod oauth;
mod process;
#[cfg(feature = "http")]
mod sse;

use std::process::ExitStatus;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::codec::WireCodec;
use mcp_core::jsonrpc::{self, ErrorObject, RequestId, UNSUPPORTED_PROTOCOL_VERSION};
use mcp_core::meta;
use mcp_core::types::{
    Adapt, CallToolParams, CallToolResult, ClientCapabilities, DiscoverResult, GetPromptParams,
    GetPromptResult, Implementation, InitializeParams, InitializeResult, ListPromptsParams,
    ListPromptsResult, ListResourceTemplatesParams, ListResourceTemplatesResult,
    ListResourcesParams, ListResourcesResult, ListToolsParams, ListToolsResult, LoggingLevel,
    ProgressParams, ReadResourceParams, ReadResourceResult, ResultType, ServerCapabilities,
    SetLevelParams, Tool,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{broadcast, mpsc};

use crate::wire::pending::Waiter;
use conn::{EofHook, Outcome, Outgoing, Shared};
pub use error::ClientError;
pub use handler::{ClientHandler, ServerNotification};
pub use listen::Subscription;
pub use mrtr::MAX_INPUT_ROUNDS;
pub use process::{ShutdownTimeouts, StderrMode};

#[cfg(feature = "http")]
pub use http::{BoxFuture, Credentials, MAX_STEP_UPS, StaticToken, TokenProvider, hyper_util};

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
    /// The 2026 per-request log level (`_meta` `io.modelcontextprotocol/logLevel`); ignored
    /// on legacy connections (use [`Client::set_log_level`]).
    pub log_level: Option<LoggingLevel>,
}

impl RequestOptions {
    /// Options with a progress callback.
    pub fn with_progress(f: impl FnMut(ProgressParams) + Send + 'static) -> Self {
        Self {
            on_progress: Some(Box::new(f)),
            ..Self::default()
        }
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

/// Configures and connects a [`Client`].
pub struct ClientBuilder {
    info: Implementation,
    capabilities: ClientCapabilities,
    handler: Arc<dyn handler::DynHandler>,
    mode: ConnectMode,
    request_timeout: Duration,
    probe_timeout: Duration,
    stderr: StderrMode,
    shutdown: ShutdownTimeouts,
    max_frame: usize,
    #[cfg(feature = "http")]
    http: http::HttpSettings,
}

impl Default for ClientBuilder {
    fn default() -> Self {
        Self {
            info: Implementation::new("mcp-rust-client", env!("CARGO_PKG_VERSION")),
            capabilities: ClientCapabilities::default(),
            handler: Arc::new(()),
            mode: ConnectMode::Auto,
            request_timeout: Duration::from_secs(60),
            probe_timeout: Duration::from_secs(5),
            stderr: StderrMode::Inherit,
            shutdown: ShutdownTimeouts::default(),
            max_frame: conn::MAX_FRAME,
            #[cfg(feature = "http")]
            http: http::HttpSettings::default(),
        }
    }
}

impl ClientBuilder {
    /// The client's `Implementation` (name and version).
    pub fn info(mut self, info: Implementation) -> Self {
        self.info = info;
        self
    }

    /// The capabilities to declare (declare `sampling`, `elicitation`, `roots` only when the
    /// handler implements them).
    pub fn capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The handler of the server's requests and notifications.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// How the revision is picked (default: [`ConnectMode::Auto`]).
    pub fn mode(mut self, mode: ConnectMode) -> Self {
        self.mode = mode;
        self
    }

    /// The default timeout of every request (default 60 s).
    pub fn request_timeout(mut self, t: Duration) -> Self {
        self.request_timeout = t;
        self
    }

    /// How long the `server/discover` probe of [`ConnectMode::Auto`] waits (default 5 s).
    pub fn probe_timeout(mut self, t: Duration) -> Self {
        self.probe_timeout = t;
        self
    }

    /// What happens to a spawned server's stderr (default: inherited).
    pub fn stderr(mut self, mode: StderrMode) -> Self {
        self.stderr = mode;
        self
    }

    /// The timeouts of [`Client::shutdown`] for a spawned server.
    pub fn shutdown_timeouts(mut self, t: ShutdownTimeouts) -> Self {
        self.shutdown = t;
        self
    }

    /// The largest frame read (default 64 MiB): a line of a byte stream or child process,
    /// an HTTP body, an SSE event. A larger one is never held in memory whole: it is
    /// skipped, and when it answered a pending request that request fails with
    /// [`ClientError::InvalidResponse`].
    pub fn max_frame_size(mut self, bytes: usize) -> Self {
        self.max_frame = bytes;
        self
    }

    /// An extra header on every HTTP request (HTTP transports only). An invalid name or
    /// value is ignored with a warning.
    #[cfg(feature = "http")]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        match (
            ::hyper::header::HeaderName::from_bytes(name.as_bytes()),
            ::hyper::header::HeaderValue::from_str(value),
        ) {
            (Ok(n), Ok(v)) => self.http.headers.push((n, v)),
            _ => tracing::warn!(name, "invalid HTTP header ignored"),
        }
        self
    }

    /// A fixed bearer token on every HTTP request.
    #[cfg(feature = "http")]
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.token_provider(StaticToken(token.into()))
    }

    /// Where the bearer token of every HTTP request comes from (asked before each
    /// request; told about each `401`).
    #[cfg(feature = "http")]
    pub fn token_provider(mut self, provider: impl TokenProvider) -> Self {
        self.http.token = Some(Arc::new(provider));
        self
    }

    /// How long opening a TCP connection, and waiting for the `endpoint` event of a
    /// 2024-11-05 SSE stream, may take (default 10 s).
    #[cfg(feature = "http")]
    pub fn connect_timeout(mut self, t: Duration) -> Self {
        self.http.connect_timeout = t;
        self
    }

    /// The connector of the HTTP client (default: plain TCP, `http://` only). Any
    /// `hyper-util` connector works, e.g. an HTTPS one wrapping an `HttpConnector`; the
    /// connect timeout is then the connector's business.
    #[cfg(feature = "http")]
    pub fn http_connector<C>(mut self, connector: C) -> Self
    where
        C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
    {
        self.http.sender = Some(http::sender_for(connector));
        self
    }

    #[cfg(feature = "http")]
    fn http_settings(&self) -> http::HttpSettings {
        let mut s = self.http.clone();
        s.max_frame = self.max_frame;
        s
    }

    /// Connects to a Streamable HTTP endpoint (`http://host:port/mcp`). The mode picks
    /// the era: [`ConnectMode::Legacy`] (sessions, the GET stream),
    /// [`ConnectMode::Modern`] (stateless 2026-07-28), or [`ConnectMode::Auto`]: a
    /// modern probe, then the legacy `initialize`, then (on 400/404/405 without a modern
    /// error body) the 2024-11-05 HTTP+SSE transport on the same URL (protocol.md §4.3).
    /// The era found is remembered per URL for later auto connections.
    #[cfg(feature = "http")]
    pub async fn connect_http(self, url: &str) -> Result<Client, ClientError> {
        let (shared, out, conn) = http::start(
            url,
            self.http_settings(),
            self.handler.clone(),
            self.request_timeout,
        )?;
        let mode = self.mode;
        let probe = self.probe_timeout;
        let client = self.into_client(shared, out, None, Some(conn.clone()));
        let res = match mode {
            ConnectMode::Auto => client.auto_http(url, probe).await,
            other => client.negotiate(other, probe).await,
        };
        match res {
            Ok(()) => Ok(client),
            Err(e) => {
                conn.shutdown().await;
                Err(e)
            }
        }
    }

    /// Connects over the 2024-11-05 HTTP+SSE transport: `GET url` opens the stream, its
    /// `endpoint` event names where to POST. The handshake offers the revision of
    /// [`ConnectMode::Legacy`], else the newest legacy one (a modern mode is refused).
    #[cfg(feature = "http")]
    pub async fn connect_sse(self, url: &str) -> Result<Client, ClientError> {
        let version = match self.mode {
            ConnectMode::Legacy(v) => v,
            ConnectMode::Auto => ProtocolVersion::LATEST_HANDSHAKE,
            ConnectMode::Modern(v) => {
                return Err(ClientError::Unsupported(format!(
                    "{v} does not run over the 2024-11-05 HTTP+SSE transport"
                )));
            }
        };
        let (shared, out, conn) = http::start(
            url,
            self.http_settings(),
            self.handler.clone(),
            self.request_timeout,
        )?;
        let client = self.into_client(shared, out, None, Some(conn.clone()));
        let res = async {
            conn.open_sse().await?;
            client.initialize(version).await
        }
        .await;
        match res {
            Ok(()) => Ok(client),
            Err(e) => {
                conn.shutdown().await;
                Err(e)
            }
        }
    }

    /// Connects over a byte stream (newline-delimited JSON both ways).
    pub async fn connect<S>(self, stream: S) -> Result<Client, ClientError>
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (r, w) = tokio::io::split(stream);
        self.connect_split(r, w).await
    }

    /// Connects over a separate reader and writer.
    pub async fn connect_split<R, W>(self, reader: R, writer: W) -> Result<Client, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.finish(reader, writer, None, None).await
    }

    /// Spawns `cmd` (its args, env and working directory as configured) as the server and
    /// connects over its stdin/stdout. A spawn failure or a failed handshake is an error
    /// (the child is then shut down).
    pub async fn spawn(
        self,
        cmd: impl Into<tokio::process::Command>,
    ) -> Result<Client, ClientError> {
        let spawned = process::spawn(cmd.into(), self.stderr, self.shutdown)?;
        self.finish(
            spawned.stdout,
            spawned.stdin,
            Some(spawned.eof_hook),
            Some(spawned.process),
        )
        .await
    }

    async fn finish<R, W>(
        self,
        reader: R,
        writer: W,
        eof_hook: Option<EofHook>,
        process: Option<process::Process>,
    ) -> Result<Client, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (shared, out) = conn::start(
            reader,
            writer,
            self.handler.clone(),
            eof_hook,
            self.max_frame,
        );
        let mode = self.mode;
        let probe = self.probe_timeout;
        #[cfg(feature = "http")]
        let client = self.into_client(shared, out, process, None);
        #[cfg(not(feature = "http"))]
        let client = self.into_client(shared, out, process);
        match client.negotiate(mode, probe).await {
            Ok(()) => Ok(client),
            Err(e) => {
                let e = client.inner.shared.explain_handshake(e);
                // A spawned server is shut down (at once if it already died).
                let _ = client.shutdown().await;
                Err(e)
            }
        }
    }

    fn into_client(
        self,
        shared: Arc<Shared>,
        out: mpsc::UnboundedSender<Outgoing>,
        process: Option<process::Process>,
        #[cfg(feature = "http")] http: Option<Arc<http::HttpConn>>,
    ) -> Client {
        let caps_map = match serde_json::to_value(&self.capabilities) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let info_map = match serde_json::to_value(&self.info) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        Client {
            inner: Arc::new(Inner {
                shared,
                out,
                info: self.info,
                capabilities: self.capabilities,
                caps_map,
                info_map,
                request_timeout: self.request_timeout,
                session: Mutex::new(None),
                process,
                #[cfg(feature = "http")]
                http,
            }),
        }
    }
}

impl Client {
    async fn negotiate(&self, mode: ConnectMode, probe: Duration) -> Result<(), ClientError> {
        let client = self;
        match mode {
            ConnectMode::Legacy(v) => client.initialize(v).await,
            ConnectMode::Modern(v) => match client.discover(v, None).await? {
                Discovery::Modern => Ok(()),
                // -32022 listing the pinned revision itself: the one retry the spec allows.
                Discovery::Retry(supported) if supported.iter().any(|s| s == v.as_str()) => {
                    match client.discover(v, None).await? {
                        Discovery::Modern => Ok(()),
                        Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                            requested: v.as_str().to_owned(),
                            supported,
                        }),
                    }
                }
                Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                    requested: v.as_str().to_owned(),
                    supported,
                }),
            },
            ConnectMode::Auto => client.auto(probe).await,
        }
    }
}

struct Inner {
    shared: Arc<Shared>,
    out: mpsc::UnboundedSender<Outgoing>,
    info: Implementation,
    capabilities: ClientCapabilities,
    caps_map: Map<String, Value>,
    info_map: Map<String, Value>,
    request_timeout: Duration,
    session: Mutex<Option<ServerSession>>,
    process: Option<process::Process>,
    #[cfg(feature = "http")]
    http: Option<Arc<http::HttpConn>>,
}

impl Drop for Inner {
    /// The last handle of a spawned server's client is gone: its stdin closes (the writer
    /// ends with the last sender) and, off this thread, the usual shutdown sequence makes
    /// sure the process does not outlive us.
    fn drop(&mut self) {
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

enum Discovery {
    Modern,
    /// -32022: the versions the server listed.
    Retry(Vec<String>),
}

/// Fails every pending wait of a request that is dropped: removes it from the tables and,
/// when it was still unanswered, tells the server with `notifications/cancelled`.
struct PendingGuard<'a> {
    inner: &'a Inner,
    id: RequestId,
    waiter: Waiter<'a, Outcome>,
    token: Option<RequestId>,
    cancellable: bool,
    reason: &'static str,
    modern: Option<ProtocolVersion>,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        let was_pending = {
            let mut st = self.inner.shared.state.lock().expect("client state lock");
            if let Some(t) = &self.token {
                st.progress.remove(t);
            }
            st.subscriptions.remove(&self.id);
            self.waiter.forget()
        };
        if was_pending && self.cancellable {
            let mut params = Map::new();
            params.insert(
                "requestId".into(),
                serde_json::to_value(&self.id).expect("ids"),
            );
            params.insert("reason".into(), self.reason.into());
            // 2026 notifications need no envelope, but stamping one is harmless and some
            // servers (ours, today) only apply a modern-era notification that carries it.
            if let Some(v) = self.modern {
                params = meta::stamp_request(
                    Some(params),
                    v,
                    Some(&self.inner.info_map),
                    &self.inner.caps_map,
                );
            }
            let text = Value::Object(params).to_string();
            let mut buf = Vec::new();
            jsonrpc::write_notification(&mut buf, "notifications/cancelled", Some(&text));
            let _ = self.inner.out.send(Outgoing::Cancel {
                id: self.id.clone(),
                frame: buf,
            });
        }
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

    // -----------------------------------------------------------------------------------
    // Raw requests
    // -----------------------------------------------------------------------------------

    /// Sends a notification (`params` must be an object or absent).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let text = params.map(|p| p.to_string());
        let mut buf = Vec::new();
        jsonrpc::write_notification(&mut buf, method, text.as_deref());
        self.inner
            .out
            .send(Outgoing::Frame(buf))
            .map_err(|_| self.inner.shared.closed_error())
    }

    /// Sends a request and returns its raw result. On a modern connection the params are
    /// stamped with the `_meta` envelope and the result checked by the 2026 codec; an
    /// `input_required` result is answered with the handler and the request retried (a
    /// new id each round, `requestState` echoed) up to [`MAX_INPUT_ROUNDS`] times, after
    /// which it fails with [`ClientError::InputRequired`].
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        mut opts: RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        self.round_trips(method, params, &mut opts).await
    }

    /// [`Client::request_raw`] with the options borrowed (a retry reuses them).
    async fn round_trips(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &mut RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        let version = self.current_version();
        let original = match params {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(ClientError::Encode(format!(
                    "params must be an object, not {other}"
                )));
            }
        };
        let mut round = original.clone().map(Value::Object);
        for _ in 0..MAX_INPUT_ROUNDS {
            match self.send_request(method, round, opts, version, None).await {
                Err(ClientError::InputRequired(raw)) if version.is_some() => {
                    let v = version.expect("checked");
                    let next =
                        mrtr::next_round(&self.inner.shared.handler, &original, &raw, v).await?;
                    round = Some(Value::Object(next));
                }
                other => return other,
            }
        }
        self.send_request(method, round, opts, version, None).await
    }

    /// Sends a request and decodes its result as `R`.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<R, ClientError> {
        let raw = self.request_raw(method, params, opts).await?;
        decode_result(method, &raw)
    }

    fn current_version(&self) -> Option<ProtocolVersion> {
        self.inner
            .session
            .lock()
            .expect("session lock")
            .as_ref()
            .map(|s| s.version)
    }

    /// `version`: `Some(modern)` stamps the envelope; `None` (before the handshake) or
    /// legacy sends the params as they are.
    async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        opts: &mut RequestOptions,
        version: Option<ProtocolVersion>,
        listen: Option<mpsc::UnboundedSender<ServerNotification>>,
    ) -> Result<Box<RawValue>, ClientError> {
        let inner = &*self.inner;
        let (n, id) = inner.shared.pending.next_id();
        let mut params = match params {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(ClientError::Encode(format!(
                    "params must be an object, not {other}"
                )));
            }
        };
        let modern = version.filter(|v| v.era() == Era::Modern);
        let token = opts
            .on_progress
            .as_ref()
            .map(|_| RequestId::String(format!("progress-{n}").into()));
        if let Some(t) = &token {
            meta_mut(&mut params).insert(
                meta::PROGRESS_TOKEN.into(),
                serde_json::to_value(t).expect("ids serialize"),
            );
        }
        if let (Some(_), Some(level)) = (modern, opts.log_level) {
            meta_mut(&mut params).insert(
                meta::LOG_LEVEL.into(),
                serde_json::to_value(level).expect("levels serialize"),
            );
        }
        if let Some(v) = modern {
            params = Some(meta::stamp_request(
                params,
                v,
                Some(&inner.info_map),
                &inner.caps_map,
            ));
        }
        let params_text = params
            .map(|p| serde_json::to_string(&p))
            .transpose()
            .map_err(|e| ClientError::Encode(e.to_string()))?;
        let mut buf = Vec::new();
        jsonrpc::write_request(&mut buf, &id, method, params_text.as_deref());

        // Refused once the connection is closed (`closed_error` then says why).
        let Some(waiter) = inner.shared.pending.register(id.clone()) else {
            return Err(inner.shared.closed_error());
        };
        let (ptx, mut prx) = mpsc::unbounded_channel();
        {
            let mut st = inner.shared.state.lock().expect("client state lock");
            if let Some(t) = &token {
                st.progress.insert(t.clone(), ptx);
            }
            if let Some(l) = listen {
                st.subscriptions.insert(id.clone(), l);
            }
        }
        let mut guard = PendingGuard {
            inner,
            id: id.clone(),
            waiter,
            token,
            cancellable: method != "initialize",
            reason: "the request was dropped",
            modern,
        };
        if inner.out.send(Outgoing::Frame(buf)).is_err() {
            return Err(inner.shared.closed_error());
        }

        let timeout = opts.timeout.unwrap_or(inner.request_timeout);
        let start = tokio::time::Instant::now();
        let cap = start + opts.max_total.unwrap_or(timeout.saturating_mul(10));
        let mut deadline = start + timeout;
        let outcome = loop {
            tokio::select! {
                r = guard.waiter.recv() => break r,
                Some(p) = prx.recv() => {
                    if let Some(cb) = opts.on_progress.as_mut() {
                        cb(p);
                    }
                    deadline = (tokio::time::Instant::now() + timeout).min(cap);
                }
                _ = tokio::time::sleep_until(deadline) => {
                    guard.reason = "timeout";
                    return Err(ClientError::Timeout);
                }
            }
        };
        // Progress that raced the response is still delivered.
        while let Ok(p) = prx.try_recv() {
            if let Some(cb) = opts.on_progress.as_mut() {
                cb(p);
            }
        }
        drop(guard);
        let raw = match outcome {
            Ok(Ok(raw)) => raw,
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(inner.shared.closed_error()),
        };
        let codec = WireCodec::new(version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE));
        if modern.is_some() && raw.get().starts_with('{') && !has_result_type(&raw) {
            // SEP-2322: a client assumes `complete` when a result names no resultType.
            return Ok(raw);
        }
        match codec.validate_result(method, &raw) {
            Ok(ResultType::Complete) => Ok(raw),
            Ok(ResultType::InputRequired) => Err(ClientError::InputRequired(raw.get().to_owned())),
            Ok(other) => Err(ClientError::InvalidResponse(format!(
                "unexpected resultType {} for {method}",
                other.as_str()
            ))),
            Err(e) => Err(ClientError::InvalidResponse(e.to_string())),
        }
    }

    fn set_session(&self, s: ServerSession) {
        *self.inner.shared.version.lock().expect("version lock") = s.version;
        *self.inner.session.lock().expect("session lock") = Some(s);
    }

    // -----------------------------------------------------------------------------------
    // Connecting
    // -----------------------------------------------------------------------------------

    async fn initialize(&self, version: ProtocolVersion) -> Result<(), ClientError> {
        if version.era() != Era::Legacy {
            return Err(ClientError::Unsupported(format!(
                "{version} has no initialize handshake"
            )));
        }
        let mut params = InitializeParams::new(
            version,
            self.inner.capabilities.clone(),
            self.inner.info.clone(),
        );
        params.adapt(version);
        let value =
            serde_json::to_value(&params).map_err(|e| ClientError::Encode(e.to_string()))?;
        let raw = self
            .send_request(
                "initialize",
                Some(value),
                &mut RequestOptions::default(),
                None,
                None,
            )
            .await?;
        let result: InitializeResult = decode_result("initialize", &raw)?;
        let Some(chosen) = result.known_version().filter(|v| v.era() == Era::Legacy) else {
            return Err(ClientError::UnsupportedVersion {
                requested: version.as_str().to_owned(),
                supported: vec![result.protocol_version],
            });
        };
        self.set_session(ServerSession {
            version: chosen,
            capabilities: result.capabilities,
            server_info: Some(result.server_info),
            instructions: result.instructions,
        });
        self.notify("notifications/initialized", None).await
    }

    async fn discover(
        &self,
        version: ProtocolVersion,
        timeout: Option<Duration>,
    ) -> Result<Discovery, ClientError> {
        if version.era() != Era::Modern {
            return Err(ClientError::Unsupported(format!(
                "{version} is not a modern revision"
            )));
        }
        let mut opts = RequestOptions {
            timeout,
            ..RequestOptions::default()
        };
        let raw = match self
            .send_request("server/discover", None, &mut opts, Some(version), None)
            .await
        {
            Ok(raw) => raw,
            Err(ClientError::Rpc(e)) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                return Ok(Discovery::Retry(supported_of(&e)));
            }
            Err(e) => return Err(e),
        };
        let result: DiscoverResult = decode_result("server/discover", &raw)?;
        if !result
            .supported_versions
            .iter()
            .any(|s| s == version.as_str())
        {
            return Ok(Discovery::Retry(result.supported_versions));
        }
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(meta::SERVER_INFO))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        self.set_session(ServerSession {
            version,
            capabilities: result.capabilities,
            server_info,
            instructions: result.instructions,
        });
        Ok(Discovery::Modern)
    }

    async fn auto(&self, probe_timeout: Duration) -> Result<(), ClientError> {
        let preferred = ProtocolVersion::LATEST;
        match self.discover(preferred, Some(probe_timeout)).await {
            Ok(Discovery::Modern) => return Ok(()),
            Ok(Discovery::Retry(supported)) => {
                // A recognized modern answer: retry once with a listed version we speak.
                if let Some(r) = self.discover_listed(&supported, Some(probe_timeout)).await {
                    return r;
                }
                // No modern revision in common: the legacy handshake is the only way left.
                tracing::debug!(?supported, "no common modern revision: trying initialize");
            }
            Err(
                e @ (ClientError::Closed(_) | ClientError::ProcessExited(_) | ClientError::Io(_)),
            ) => {
                return Err(e);
            }
            Err(e) => tracing::debug!(error = %e, "server/discover failed: trying initialize"),
        }
        match self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await {
            // A slow-starting modern server answered the timed-out probe after all, which
            // fixed the connection as modern: `initialize` gets the recognized modern error.
            // Discover again (no probe timeout now: the server is up and modern).
            Err(ClientError::Rpc(e)) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                let mut supported = supported_of(&e);
                if supported.is_empty() {
                    supported.push(preferred.as_str().to_owned());
                }
                tracing::debug!(
                    ?supported,
                    "initialize refused as modern: discovering again"
                );
                match self.discover_listed(&supported, None).await {
                    Some(r) => r,
                    None => Err(ClientError::Rpc(e)),
                }
            }
            other => other,
        }
    }

    /// `server/discover` at the newest modern revision of `supported` we speak (`None`
    /// when there is none); a refusal of that one too is final.
    async fn discover_listed(
        &self,
        supported: &[String],
        timeout: Option<Duration>,
    ) -> Option<Result<(), ClientError>> {
        let v = supported
            .iter()
            .filter_map(|s| ProtocolVersion::parse(s))
            .filter(|v| v.era() == Era::Modern)
            .max()?;
        Some(match self.discover(v, timeout).await {
            Ok(Discovery::Modern) => Ok(()),
            Ok(Discovery::Retry(supported)) => Err(ClientError::UnsupportedVersion {
                requested: v.as_str().to_owned(),
                supported,
            }),
            Err(e) => Err(e),
        })
    }

    /// Auto mode over HTTP (protocol.md §4.3), remembering the era per URL.
    #[cfg(feature = "http")]
    async fn auto_http(&self, url: &str, probe: Duration) -> Result<(), ClientError> {
        let cached = http_eras().lock().expect("era cache").get(url).copied();
        if let Some(era) = cached {
            let r = match era {
                HttpEra::Modern(v) => self.discover(v, Some(probe)).await.and_then(|d| match d {
                    Discovery::Modern => Ok(()),
                    Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                        requested: v.as_str().to_owned(),
                        supported,
                    }),
                }),
                HttpEra::Legacy => self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await,
                HttpEra::Sse => {
                    self.http_conn()?.open_sse().await?;
                    self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await
                }
            };
            match r {
                Ok(()) => return Ok(()),
                Err(e) => {
                    http_eras().lock().expect("era cache").remove(url);
                    if era == HttpEra::Sse || matches!(e, ClientError::Io(_)) {
                        return Err(e);
                    }
                    tracing::debug!(error = %e, "the remembered era failed: probing again");
                }
            }
        }
        let era = self.probe_http(probe).await?;
        http_eras()
            .lock()
            .expect("era cache")
            .insert(url.to_owned(), era);
        Ok(())
    }

    #[cfg(feature = "http")]
    fn http_conn(&self) -> Result<&Arc<http::HttpConn>, ClientError> {
        self.inner
            .http
            .as_ref()
            .ok_or_else(|| ClientError::Unsupported("not an HTTP connection".into()))
    }

    #[cfg(feature = "http")]
    async fn probe_http(&self, probe: Duration) -> Result<HttpEra, ClientError> {
        let preferred = ProtocolVersion::LATEST;
        match self.discover(preferred, Some(probe)).await {
            Ok(Discovery::Modern) => return Ok(HttpEra::Modern(preferred)),
            Ok(Discovery::Retry(supported)) => {
                let pick = supported
                    .iter()
                    .filter_map(|s| ProtocolVersion::parse(s))
                    .filter(|v| v.era() == Era::Modern)
                    .max();
                if let Some(v) = pick {
                    return match self.discover(v, Some(probe)).await? {
                        Discovery::Modern => Ok(HttpEra::Modern(v)),
                        Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                            requested: v.as_str().to_owned(),
                            supported,
                        }),
                    };
                }
                tracing::debug!(?supported, "no common modern revision: trying initialize");
            }
            Err(e @ ClientError::Io(_)) => return Err(e),
            Err(e) if e.code().is_some_and(modern_error_code) => return Err(e),
            Err(e) => tracing::debug!(error = %e, "modern probe failed: trying initialize"),
        }
        match self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await {
            Ok(()) => Ok(HttpEra::Legacy),
            Err(ClientError::Http { status, error, .. })
                if matches!(status, 400 | 404 | 405)
                    && !error.as_ref().is_some_and(|e| modern_error_code(e.code)) =>
            {
                tracing::debug!(
                    status,
                    "initialize refused: trying the 2024-11-05 HTTP+SSE transport"
                );
                self.http_conn()?.open_sse().await?;
                self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await?;
                Ok(HttpEra::Sse)
            }
            Err(e) => Err(e),
        }
    }

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

    // -----------------------------------------------------------------------------------
    // Typed calls
    // -----------------------------------------------------------------------------------

    fn shaped<T: Adapt + Serialize>(&self, mut params: T) -> Result<Value, ClientError> {
        if let Some(v) = self.current_version() {
            params.adapt(v);
        }
        serde_json::to_value(&params).map_err(|e| ClientError::Encode(e.to_string()))
    }

    /// `ping`. 2026-07-28 has no `ping`: there a `server/discover` round trip stands in.
    pub async fn ping(&self) -> Result<(), ClientError> {
        let method = match self.current_version().map(ProtocolVersion::era) {
            Some(Era::Modern) => "server/discover",
            _ => "ping",
        };
        self.request_raw(method, None, RequestOptions::default())
            .await
            .map(drop)
    }

    /// One page of `tools/list`. Over HTTP the tools' input schemas are remembered for the
    /// 2026 `Mcp-Param-*` headers, and on 2026 a tool whose `x-mcp-header` annotations
    /// are invalid is dropped (with a warning), as the transport requires.
    pub async fn list_tools(&self, cursor: Option<String>) -> Result<ListToolsResult, ClientError> {
        let p = self.shaped(ListToolsParams { cursor, meta: None })?;
        #[allow(unused_mut)]
        let mut r: ListToolsResult = self
            .request("tools/list", Some(p), RequestOptions::default())
            .await?;
        #[cfg(feature = "http")]
        if let Some(h) = &self.inner.http {
            let modern = self
                .current_version()
                .is_some_and(|v| v.era() == Era::Modern);
            if modern {
                r.tools.retain(|t| {
                    match mcp_core::headers::validate_header_annotations(&t.input_schema) {
                        Ok(()) => true,
                        Err(problems) => {
                            tracing::warn!(tool = %t.name, ?problems,
                                "tool dropped: invalid x-mcp-header annotations");
                            false
                        }
                    }
                });
            }
            let mut schemas = h.tool_schemas.lock().expect("schemas lock");
            for t in &r.tools {
                schemas.insert(t.name.clone(), t.input_schema.clone());
            }
        }
        Ok(r)
    }

    /// Every tool, following `nextCursor` to the last page (a repeated cursor is an error).
    pub async fn list_all_tools(&self) -> Result<Vec<Tool>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let page = self.list_tools(cursor).await?;
            all.extend(page.tools);
            match page.next_cursor {
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(ClientError::InvalidResponse(format!(
                        "tools/list returned the cursor {c:?} twice"
                    )));
                }
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// `tools/call` with `arguments` (anything that serializes to a JSON object, or
    /// `()`/`null` for none). A tool failure is a result with `isError: true`, not an `Err`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<CallToolResult, ClientError> {
        self.call_tool_with(name, arguments, RequestOptions::default())
            .await
    }

    /// [`Client::call_tool`] with options (progress callback, timeout, log level).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: impl Serialize,
        opts: RequestOptions,
    ) -> Result<CallToolResult, ClientError> {
        let args =
            serde_json::to_value(arguments).map_err(|e| ClientError::Encode(e.to_string()))?;
        let args = match args {
            Value::Null => Value::Object(Map::new()),
            v @ Value::Object(_) => v,
            other => {
                return Err(ClientError::Encode(format!(
                    "tool arguments must be an object, not {other}"
                )));
            }
        };
        let p = self.shaped(CallToolParams::new(name, args))?;
        let mut opts = opts;
        let raw = match self
            .round_trips("tools/call", Some(p.clone()), &mut opts)
            .await
        {
            // 2026 HTTP: -32020 on a call means the `Mcp-Param-*` headers, made from the
            // tool's schema of the last `tools/list`, are stale: list again, retry once.
            #[cfg(feature = "http")]
            Err(e)
                if e.code() == Some(mcp_core::jsonrpc::HEADER_MISMATCH)
                    && self.inner.http.is_some() =>
            {
                tracing::debug!(error = %e, "header mismatch: refreshing the tool list");
                self.list_all_tools().await?;
                self.round_trips("tools/call", Some(p), &mut opts).await?
            }
            other => other?,
        };
        decode_result("tools/call", &raw)
    }

    /// `tools/call`, decoding `structuredContent` into `T` (or, when the server sent none,
    /// the JSON text of the first text block). `isError: true` is [`ClientError::ToolFailed`].
    pub async fn call_tool_structured<T: DeserializeOwned>(
        &self,
        name: &str,
        arguments: impl Serialize,
    ) -> Result<T, ClientError> {
        let r = self.call_tool(name, arguments).await?;
        structured(r)
    }

    /// One page of `resources/list`.
    pub async fn list_resources(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourcesResult, ClientError> {
        let p = self.shaped(ListResourcesParams {
            cursor,
            ..Default::default()
        })?;
        self.request("resources/list", Some(p), RequestOptions::default())
            .await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<String>,
    ) -> Result<ListResourceTemplatesResult, ClientError> {
        let p = self.shaped(ListResourceTemplatesParams {
            cursor,
            ..Default::default()
        })?;
        self.request(
            "resources/templates/list",
            Some(p),
            RequestOptions::default(),
        )
        .await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        let p = self.shaped(ReadResourceParams::new(uri))?;
        self.request("resources/read", Some(p), RequestOptions::default())
            .await
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(
        &self,
        cursor: Option<String>,
    ) -> Result<ListPromptsResult, ClientError> {
        let p = self.shaped(ListPromptsParams {
            cursor,
            ..Default::default()
        })?;
        self.request("prompts/list", Some(p), RequestOptions::default())
            .await
    }

    /// `prompts/get` with string arguments.
    pub async fn get_prompt<K: Into<String>, V: Into<String>>(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (K, V)>,
    ) -> Result<GetPromptResult, ClientError> {
        let args: std::collections::BTreeMap<String, String> = arguments
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        let p = self.shaped(GetPromptParams {
            name: name.to_owned(),
            arguments: (!args.is_empty()).then_some(args),
            ..Default::default()
        })?;
        self.request("prompts/get", Some(p), RequestOptions::default())
            .await
    }

    /// Every prompt, following `nextCursor`.
    pub async fn list_all_prompts(&self) -> Result<Vec<mcp_core::types::Prompt>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_prompts(cursor).await?;
            all.extend(page.prompts);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// Every resource, following `nextCursor`.
    pub async fn list_all_resources(&self) -> Result<Vec<mcp_core::types::Resource>, ClientError> {
        let mut all = Vec::new();
        let mut cursor = None;
        loop {
            let page = self.list_resources(cursor).await?;
            all.extend(page.resources);
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// `resources/subscribe` (legacy; updates arrive as `notifications/resources/updated`
    /// on [`Client::notifications`]).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let p = self.shaped(mcp_core::types::SubscribeParams {
            uri: uri.to_owned(),
            meta: None,
        })?;
        self.request_raw("resources/subscribe", Some(p), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `resources/unsubscribe` (legacy).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<(), ClientError> {
        let p = self.shaped(mcp_core::types::UnsubscribeParams {
            uri: uri.to_owned(),
            meta: None,
        })?;
        self.request_raw("resources/unsubscribe", Some(p), RequestOptions::default())
            .await
            .map(drop)
    }

    /// `completion/complete`.
    pub async fn complete(
        &self,
        params: mcp_core::types::CompleteParams,
    ) -> Result<mcp_core::types::CompleteResult, ClientError> {
        let p = self.shaped(params)?;
        self.request("completion/complete", Some(p), RequestOptions::default())
            .await
    }

    /// `logging/setLevel` (legacy connections; on 2026 pass
    /// [`RequestOptions::log_level`] per request instead).
    pub async fn set_log_level(&self, level: LoggingLevel) -> Result<(), ClientError> {
        if self
            .current_version()
            .is_some_and(|v| v.era() == Era::Modern)
        {
            return Err(ClientError::Unsupported(
                "logging/setLevel does not exist on 2026-07-28; use RequestOptions::log_level"
                    .into(),
            ));
        }
        let p = self.shaped(SetLevelParams { level, meta: None })?;
        self.request_raw("logging/setLevel", Some(p), RequestOptions::default())
            .await
            .map(drop)
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

/// The JSON-RPC codes only a 2026 server answers with (a recognized modern error).
#[cfg(feature = "http")]
fn modern_error_code(code: i32) -> bool {
    matches!(
        code,
        mcp_core::jsonrpc::HEADER_MISMATCH
            | mcp_core::jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// What auto mode found behind an HTTP URL.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HttpEra {
    Modern(ProtocolVersion),
    Legacy,
    Sse,
}

#[cfg(feature = "http")]
fn http_eras() -> &'static Mutex<std::collections::HashMap<String, HttpEra>> {
    static ERAS: std::sync::OnceLock<Mutex<std::collections::HashMap<String, HttpEra>>> =
        std::sync::OnceLock::new();
    ERAS.get_or_init(Default::default)
}

/// Whether a result object has a `resultType` member (any value).
fn has_result_type(raw: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "resultType", borrow, default)]
        result_type: Option<&'a RawValue>,
    }
    serde_json::from_str::<Probe<'_>>(raw.get()).is_ok_and(|p| p.result_type.is_some())
}

fn meta_mut(params: &mut Option<Map<String, Value>>) -> &mut Map<String, Value> {
    let p = params.get_or_insert_with(Map::new);
    let m = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !m.is_object() {
        *m = Value::Object(Map::new());
    }
    m.as_object_mut().expect("just made an object")
}

fn decode_result<R: DeserializeOwned>(method: &str, raw: &RawValue) -> Result<R, ClientError> {
    serde_json::from_str(raw.get())
        .map_err(|e| ClientError::InvalidResponse(format!("{method}: {e}")))
}

fn supported_of(e: &ErrorObject) -> Vec<String> {
    e.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn tool_text(r: &CallToolResult) -> Option<String> {
    r.content.iter().find_map(|c| {
        serde_json::to_value(c)
            .ok()
            .and_then(|v| v.get("text").and_then(Value::as_str).map(str::to_owned))
    })
}

fn structured<T: DeserializeOwned>(r: CallToolResult) -> Result<T, ClientError> {
    if r.is_error == Some(true) {
        return Err(ClientError::ToolFailed(tool_text(&r).unwrap_or_default()));
    }
    if let Some(v) = r.structured_content.clone() {
        return serde_json::from_value(v)
            .map_err(|e| ClientError::InvalidResponse(format!("structuredContent: {e}")));
    }
    match tool_text(&r) {
        Some(t) => serde_json::from_str(&t).map_err(|e| {
            ClientError::InvalidResponse(format!(
                "no structuredContent, and the text is not it: {e}"
            ))
        }),
        None => Err(ClientError::InvalidResponse(
            "the result has no structuredContent".into(),
        )),
    }
}
