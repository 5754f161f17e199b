//! [`ClientBuilder`]: the client's identity, handler, timeouts and transport settings,
//! and the connecting entry points (stream, child process, Streamable HTTP, HTTP+SSE).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::types::{ClientCapabilities, Implementation};
#[cfg(feature = "http")]
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::cache::{CacheStore, MemoryStore, ResponseCache};
use super::conn::{self, EofHook, Outgoing, Shared};
#[cfg(feature = "http")]
use super::http;
use super::{Client, ClientError, ClientHandler, ConnectMode, Inner, ShutdownTimeouts, StderrMode};
#[cfg(feature = "http")]
use super::{StaticToken, TokenProvider};
use super::{handler, process};

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
    /// The response cache's store (`None`: no cache), origin and partition.
    cache: Option<Arc<dyn CacheStore>>,
    cache_given: bool,
    cache_origin: Option<String>,
    cache_partition: Option<String>,
    prior: Option<Box<serde_json::value::RawValue>>,
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
            cache: Some(Arc::new(MemoryStore::default())),
            cache_given: false,
            cache_origin: None,
            cache_partition: None,
            prior: None,
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

    /// Declares the protocol extension `id` with `settings` (a JSON object, `{}` for none)
    /// in the capabilities sent to the server — `initialize` on a legacy connection,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` on 2026-07-28 — e.g.
    /// `.extension("io.modelcontextprotocol/ui", json!({"mimeTypes": ["text/html;profile=mcp-app"]}))`.
    /// Settings that are not an object are declared as `{}`.
    pub fn extension(mut self, id: impl Into<String>, settings: serde_json::Value) -> Self {
        let settings = match settings {
            serde_json::Value::Object(m) => m,
            _ => Default::default(),
        };
        self.capabilities = self.capabilities.with_extension(id, settings);
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

    /// The default timeout of every request (default 60 s). A request that runs out of it
    /// fails with a timeout error and is cancelled at the server. A request with a progress
    /// callback ([`RequestOptions::on_progress`](super::RequestOptions::on_progress)) has its
    /// timeout restarted by each progress notification, up to
    /// [`RequestOptions::max_total`](super::RequestOptions::max_total) (default ten times the
    /// timeout); without a callback, progress extends nothing.
    ///
    /// Dropping the future of a call cancels the request: `notifications/cancelled` on a
    /// legacy connection, closing its stream on 2026-07-28 HTTP.
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

    /// Where the response cache keeps its entries (default: a [`MemoryStore`] of its own,
    /// [`DEFAULT_MEMORY_ENTRIES`](super::cache::DEFAULT_MEMORY_ENTRIES) entries). Give
    /// several clients one store to let them share `public` entries; see
    /// [`cache`](super::cache) for the rules.
    pub fn cache_store(mut self, store: Arc<dyn CacheStore>) -> Self {
        self.cache = Some(store);
        self.cache_given = true;
        self
    }

    /// Turns the response cache off: every call goes to the server.
    pub fn no_cache(mut self) -> Self {
        self.cache = None;
        self
    }

    /// The authorization context whose `private` entries this client reads and writes
    /// (default: a digest of the HTTP bearer token, or `anonymous` without one). Name the
    /// user here when the credentials are not a token this client sends (a stream to a
    /// server started for one user, mutual TLS, ...).
    pub fn cache_partition(mut self, partition: impl Into<String>) -> Self {
        self.cache_partition = Some(partition.into());
        self
    }

    /// What names the server in the cache's keys (default: the URL over HTTP; over a
    /// stream, `stream:` and the server's name and version). Matters only with a store
    /// shared between clients of different servers.
    pub fn cache_origin(mut self, origin: impl Into<String>) -> Self {
        self.cache_origin = Some(origin.into());
        self
    }

    /// A `server/discover` result of this server already known (persisted from
    /// [`Client::discover_result`] of an earlier connection): a modern or auto connection
    /// whose revision it lists starts from it and sends nothing before its first call.
    /// Without one, a fresh `server/discover` entry of a store given with
    /// [`cache_store`](Self::cache_store) (shared with earlier clients) does the same, when
    /// the server sent a positive `ttlMs` for it and its origin is known before connecting
    /// (HTTP, or [`cache_origin`](Self::cache_origin)). A result that no longer holds shows
    /// in the first call's error (e.g. `-32022`); connect again without it.
    pub fn prior_discover(mut self, result: &mcp_core::types::DiscoverResult) -> Self {
        self.prior = serde_json::value::to_raw_value(result).ok();
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

    /// The certificate authorities `https://` servers are checked against (default: the
    /// platform's trust store). Ignored when [`ClientBuilder::http_connector`] is given.
    #[cfg(feature = "tls")]
    pub fn tls(mut self, tls: super::TlsConfig) -> Self {
        self.http.tls = tls;
        self
    }

    /// The connector of the HTTP client (default: plain TCP for `http://`, and with the
    /// `tls` feature rustls for `https://`). Any
    /// `hyper-util` connector works, e.g. an HTTPS one wrapping an `HttpConnector`; the
    /// connect timeout is then the connector's business. The `hyper-util` this client is
    /// built with is re-exported as `mcp::client::hyper_util`, so a connector of yours is of
    /// the same version.
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
        client.default_cache_origin(url.to_owned());
        let res = match mode {
            _ if client.connect_from_prior(mode).await => Ok(()),
            ConnectMode::Auto => client.auto_http(url, probe).await,
            other => client.negotiate(other, probe).await,
        };
        match res {
            Ok(()) => {
                client.remember_discover().await;
                Ok(client)
            }
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
        // Boxed, so that the connection and the handshake are compiled once, here, not for
        // every stream type of every caller (a dynamic call per read or write).
        self.connect_boxed(Box::new(reader), Box::new(writer)).await
    }

    /// The future boxed too: polled only by the caller, it would be compiled in the
    /// caller's crate.
    fn connect_boxed(
        self,
        reader: Box<dyn AsyncRead + Unpin + Send>,
        writer: Box<dyn AsyncWrite + Unpin + Send>,
    ) -> crate::common::BoxFuture<'static, Result<Client, ClientError>> {
        Box::pin(self.finish(reader, writer, None, None))
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
        let res = match mode {
            _ if client.connect_from_prior(mode).await => Ok(()),
            mode => client.negotiate(mode, probe).await,
        };
        match res {
            Ok(()) => {
                let origin = match client.server_info() {
                    Some(i) => format!("stream:{}@{}", i.name, i.version),
                    None => "stream".to_owned(),
                };
                client.default_cache_origin(origin);
                client.remember_discover().await;
                Ok(client)
            }
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
        // Encoded once: every 2026 request's `_meta` envelope carries both.
        let encoded = |v: Result<Box<RawValue>, serde_json::Error>| {
            v.unwrap_or_else(|_| RawValue::from_string("{}".into()).expect("an object"))
        };
        let caps_json = encoded(serde_json::value::to_raw_value(&self.capabilities));
        let info_json = encoded(serde_json::value::to_raw_value(&self.info));
        if let Some(store) = self.cache {
            let cache = ResponseCache::new(
                store,
                self.cache_given,
                self.cache_origin,
                self.cache_partition,
            );
            let _ = shared.cache.set(Arc::new(cache));
        }
        Client {
            cache_mode: super::CacheMode::Use,
            inner: Arc::new(Inner {
                shared,
                out,
                info: self.info,
                capabilities: self.capabilities,
                caps_json,
                info_json,
                request_timeout: self.request_timeout,
                session: Mutex::new(None),
                discovered: Mutex::new(None),
                prior: Mutex::new(self.prior),
                #[cfg(feature = "schema-validation")]
                output_schemas: Default::default(),
                process,
                #[cfg(feature = "http")]
                http,
                #[cfg(feature = "otel")]
                session_started: Mutex::new(Some(std::time::Instant::now())),
            }),
        }
    }
}
