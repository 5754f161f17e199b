//! The HTTP client transports: Streamable HTTP (both eras) and the 2024-11-05 HTTP+SSE
//! transport, on hyper 1 (`hyper-util`'s pooled client).
//!
//! One driver task takes what the [`Client`](super::Client) sends:
//!
//! - a request is POSTed in a task of its own; its answer (plain JSON or an SSE stream of
//!   related messages, then the response) is routed like any received frame. A 2025-era
//!   stream that ends early is resumed with `GET` + `Last-Event-ID` when its events had
//!   ids. Dropping the call ends that task: on 2026-07-28 closing the stream *is* the
//!   cancellation; on legacy sessions `notifications/cancelled` is POSTed first.
//! - notifications and answers to the server's requests are POSTed in order (the driver
//!   waits for each `202`).
//! - legacy sessions: `Mcp-Session-Id` from the `initialize` response and the negotiated
//!   `MCP-Protocol-Version` go on every later request; the standalone GET stream is opened
//!   (a `405` is fine) and answered *before* `notifications/initialized` is POSTed, since
//!   servers drop what they send with no GET stream open and many send list changes or a
//!   `roots/list` while handling `initialized` (opened after it when the server refused
//!   the early GET); a `404` for the session
//!   re-initializes (once per request) and the request is sent again; shutdown DELETEs the
//!   session.
//! - 2026-07-28 requests carry `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
//!   `Mcp-Param-*` headers of the tool's input schema (from the last `tools/list`).
//! - 2024-11-05 HTTP+SSE: `GET` the SSE URL, wait for the `endpoint` event, POST every
//!   message there, read every `message` event from the stream.
//!
//! No TLS is built in: [`ClientBuilder::http_connector`](super::ClientBuilder::http_connector)
//! takes any `hyper-util` connector (an HTTPS one included).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::client::legacy::connect::{Connect, HttpConnector};
use hyper_util::rt::TokioExecutor;
use mcp_core::headers;
use mcp_core::jsonrpc::{ErrorObject, RequestId};
use mcp_core::meta;
use mcp_core::version::ProtocolVersion;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::conn::{self, MAX_FRAME, Outgoing, Shared};
use super::error::ClientError;
use super::handler::DynHandler;
use super::sse::SseParser;

pub use hyper_util;

pub use crate::common::BoxFuture;

/// Supplies the bearer token sent with every HTTP request (`Authorization: Bearer …`).
///
/// ```
/// use mcp_runtime::client::{BoxFuture, ClientError, TokenProvider};
///
/// struct FromEnv;
/// impl TokenProvider for FromEnv {
///     fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
///         Box::pin(async { Ok(std::env::var("MCP_TOKEN").ok()) })
///     }
/// }
/// ```
pub trait TokenProvider: Send + Sync + 'static {
    /// The token for the next request (`None`: send no `Authorization` header).
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>>;

    /// The server answered `401` (with its `WWW-Authenticate` challenge). `Ok(true)`:
    /// send the request once more with a fresh [`TokenProvider::token`]; an error fails the
    /// request with it. Default: `Ok(false)` (the request fails with [`ClientError::Http`]).
    fn unauthorized<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        let _ = challenge;
        Box::pin(async { Ok(false) })
    }

    /// The server answered `403` (e.g. `error="insufficient_scope"`: step-up
    /// authorization). `Ok(true)`: send the request again with a fresh token (at most
    /// [`MAX_STEP_UPS`] times per request). Default: `Ok(false)`.
    fn forbidden<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        let _ = challenge;
        Box::pin(async { Ok(false) })
    }

    /// What one request (`method` to `url`) carries. Default: `Authorization: Bearer`
    /// with [`TokenProvider::token`]. A provider of sender-constrained tokens (DPoP, RFC
    /// 9449) sends its own scheme and a proof made for this very request.
    fn credentials<'a>(
        &'a self,
        method: &'a Method,
        url: &'a Uri,
    ) -> BoxFuture<'a, Result<Option<Credentials>, ClientError>> {
        let _ = (method, url);
        Box::pin(async { Ok(self.token().await?.map(Credentials::bearer)) })
    }

    /// Sees the status and headers of every answer to a request sent with
    /// [`TokenProvider::credentials`] (a DPoP provider keeps the server's `DPoP-Nonce`).
    /// `true`: send the request once more right away, before the `401`/`403` handling (a
    /// `use_dpop_nonce` challenge; at most once per request). Default: `false`.
    fn on_response(&self, url: &Uri, status: StatusCode, headers: &header::HeaderMap) -> bool {
        let _ = (url, status, headers);
        false
    }
}

/// The authentication headers of one HTTP request ([`TokenProvider::credentials`]).
#[derive(Clone)]
pub struct Credentials {
    /// The `Authorization` header value (`Bearer <token>`, `DPoP <token>`, ...).
    pub authorization: String,
    /// Further headers (a `DPoP` proof).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl Credentials {
    /// `Authorization: Bearer <token>` and nothing else.
    pub fn bearer(token: String) -> Credentials {
        Credentials {
            authorization: format!("Bearer {token}"),
            headers: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Credentials {
    /// Never prints the token or the proofs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.authorization.split(' ').next().unwrap_or_default();
        f.debug_struct("Credentials")
            .field("scheme", &scheme)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// How long `notifications/initialized` waits for the standalone GET stream to be answered.
const GET_READY: Duration = Duration::from_secs(2);

/// How many reconnections in a row a broken 2024-11-05 SSE stream gets.
const SSE_RECONNECTS: u32 = 5;

/// How many times one request is re-sent after `403`s its [`TokenProvider`] resolved.
pub const MAX_STEP_UPS: u32 = 3;

/// A fixed bearer token.
#[derive(Clone)]
pub struct StaticToken(pub String);

impl std::fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticToken(..)")
    }
}

impl TokenProvider for StaticToken {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        let t = self.0.clone();
        Box::pin(async move { Ok(Some(t)) })
    }
}

/// Sends one HTTP request (the connector behind it is the caller's choice).
pub(crate) trait HttpSend: Send + Sync {
    fn send(
        &self,
        req: Request<Full<Bytes>>,
    ) -> BoxFuture<'static, Result<Response<Incoming>, ClientError>>;
}

impl<C> HttpSend for hyper_util::client::legacy::Client<C, Full<Bytes>>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    fn send(
        &self,
        req: Request<Full<Bytes>>,
    ) -> BoxFuture<'static, Result<Response<Incoming>, ClientError>> {
        let f = self.request(req);
        Box::pin(async move { f.await.map_err(|e| io_error(&e)) })
    }
}

fn io_error(e: &(dyn std::error::Error + 'static)) -> ClientError {
    let mut text = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        text.push_str(": ");
        text.push_str(&s.to_string());
        src = s.source();
    }
    ClientError::Io(Arc::new(std::io::Error::other(text)))
}

/// A pooled hyper client over `connector`.
pub(crate) fn sender_for<C>(connector: C) -> Arc<dyn HttpSend>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    Arc::new(hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build(connector))
}

/// The HTTP options a [`ClientBuilder`](super::ClientBuilder) collects.
#[derive(Clone)]
pub(crate) struct HttpSettings {
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    pub(crate) token: Option<Arc<dyn TokenProvider>>,
    pub(crate) connect_timeout: Duration,
    pub(crate) sender: Option<Arc<dyn HttpSend>>,
    /// The largest body or SSE event read.
    pub(crate) max_frame: usize,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            token: None,
            connect_timeout: Duration::from_secs(10),
            sender: None,
            max_frame: MAX_FRAME,
        }
    }
}

/// Which HTTP transport the connection speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Streamable HTTP on the URL.
    Streamable,
    /// 2024-11-05 HTTP+SSE: messages are POSTed to this endpoint.
    Sse { post: Uri },
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    /// The legacy revision `initialize` negotiated.
    version: Option<ProtocolVersion>,
    /// The params of the last `initialize`, for re-initializing.
    init_params: Option<Value>,
    get_stream: Option<AbortHandle>,
    sse_stream: Option<AbortHandle>,
}

/// What the driver needs to know of an outgoing frame.
struct Info {
    method: Option<String>,
    id: Option<RequestId>,
    params: Option<Value>,
    modern: bool,
}

fn classify(frame: &[u8]) -> Option<Info> {
    let v: Value = serde_json::from_slice(frame).ok()?;
    let method = v.get("method").and_then(Value::as_str).map(str::to_owned);
    let id = match (&method, v.get("id")) {
        (Some(_), Some(i)) => serde_json::from_value::<RequestId>(i.clone()).ok(),
        _ => None,
    };
    let params = v.get("params").cloned();
    let modern = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .is_some();
    Some(Info {
        method,
        id,
        params,
        modern,
    })
}

/// One HTTP connection to a server (as the [`Client`](super::Client) sees it).
pub(crate) struct HttpConn {
    send: Arc<dyn HttpSend>,
    url: Uri,
    settings: HttpSettings,
    shared: Arc<Shared>,
    out: mpsc::WeakUnboundedSender<Outgoing>,
    kind: Mutex<Kind>,
    state: Mutex<State>,
    /// In-flight request POSTs: their task, and whether they are 2026 requests.
    tasks: Mutex<HashMap<RequestId, (AbortHandle, bool)>>,
    reinit: tokio::sync::Mutex<()>,
    /// `inputSchema` of each tool of the last `tools/list` (for `Mcp-Param-*`).
    pub(crate) tool_schemas: Mutex<HashMap<String, Map<String, Value>>>,
    shut: AtomicBool,
    request_timeout: Duration,
    next: AtomicU64,
    /// How many times a session was re-initialized after a 404.
    pub(crate) reinitialized: AtomicU64,
}

/// A started connection: the shared state, the sender the client writes to, the driver.
pub(crate) type Started = (Arc<Shared>, mpsc::UnboundedSender<Outgoing>, Arc<HttpConn>);

/// Starts the driver of a connection to `url`.
pub(crate) fn start(
    url: &str,
    settings: HttpSettings,
    handler: Arc<dyn DynHandler>,
    request_timeout: Duration,
) -> Result<Started, ClientError> {
    let uri: Uri = url
        .parse()
        .map_err(|e| ClientError::Unsupported(format!("invalid URL {url:?}: {e}")))?;
    let send = match (&settings.sender, uri.scheme_str()) {
        (Some(s), _) => s.clone(),
        (None, Some("http")) => {
            let mut c = HttpConnector::new();
            c.set_connect_timeout(Some(settings.connect_timeout));
            c.set_nodelay(true);
            sender_for(c)
        }
        (None, Some("https")) => {
            return Err(ClientError::Unsupported(
                "https needs a TLS connector: ClientBuilder::http_connector".into(),
            ));
        }
        (None, _) => {
            return Err(ClientError::Unsupported(format!(
                "the URL {url:?} is not http(s)"
            )));
        }
    };
    if uri.authority().is_none() {
        return Err(ClientError::Unsupported(format!(
            "the URL {url:?} has no host"
        )));
    }
    let shared = conn::new_shared(handler);
    let (tx, rx) = mpsc::unbounded_channel();
    let conn = Arc::new(HttpConn {
        send,
        url: uri,
        settings,
        shared: shared.clone(),
        out: tx.downgrade(),
        kind: Mutex::new(Kind::Streamable),
        state: Mutex::new(State::default()),
        tasks: Mutex::new(HashMap::new()),
        reinit: tokio::sync::Mutex::new(()),
        tool_schemas: Mutex::new(HashMap::new()),
        shut: AtomicBool::new(false),
        request_timeout,
        next: AtomicU64::new(0),
        reinitialized: AtomicU64::new(0),
    });
    tokio::spawn(drive(conn.clone(), rx));
    Ok((shared, tx, conn))
}

async fn drive(conn: Arc<HttpConn>, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    while let Some(msg) = rx.recv().await {
        if conn.shut.load(Ordering::SeqCst) {
            break;
        }
        match msg {
            Outgoing::Frame(f) => conn.dispatch(f).await,
            Outgoing::Cancel { id, frame } => conn.cancel(id, frame).await,
            Outgoing::Close => break,
        }
    }
    conn.shutdown().await;
}

fn truncated(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let t = text.trim();
    if t.len() > 300 {
        let mut end = 300;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &t[..end])
    } else {
        t.to_owned()
    }
}

/// The error of a non-2xx answer that holds no JSON-RPC answer to the request.
fn http_error(status: StatusCode, body: &[u8]) -> ClientError {
    let error = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("error").cloned())
        .and_then(|e| serde_json::from_value::<ErrorObject>(e).ok());
    ClientError::Http {
        status: status.as_u16(),
        error,
        detail: truncated(body),
    }
}

/// Whether `body` is a JSON-RPC response to `id`.
fn answers(body: &[u8], id: &RequestId) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    let want = serde_json::to_value(id).unwrap_or(Value::Null);
    let is = |m: &Value| m.get("id") == Some(&want) && m.get("method").is_none();
    match &v {
        Value::Array(items) => items.iter().any(is),
        m => is(m),
    }
}

/// Why a `2xx` answer that is not an event stream did not answer the request: its content
/// type, or its body that is not JSON, or a JSON value that is not the response.
fn unusable_answer(status: StatusCode, content_type: &str, body: &[u8]) -> ClientError {
    let json = content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
    let what = if !json {
        format!("content type {content_type:?} is neither application/json nor text/event-stream")
    } else if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
        "the body is not JSON".to_owned()
    } else {
        "the body holds no response to the request".to_owned()
    };
    ClientError::InvalidResponse(format!(
        "HTTP {}: {what}: {:?}",
        status.as_u16(),
        truncated(body)
    ))
}

fn is_sse(resp: &Response<Incoming>) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"))
}

/// The error of an answer above the client's frame limit.
fn too_large(limit: usize) -> ClientError {
    ClientError::InvalidResponse(format!(
        "the answer exceeds the client's frame limit of {limit} bytes and was dropped"
    ))
}

impl HttpConn {
    /// Reads a whole body, at most the frame limit (more is [`too_large`]).
    async fn read_body(&self, resp: Response<Incoming>) -> Result<Bytes, ClientError> {
        let limit = self.settings.max_frame;
        let limited = http_body_util::Limited::new(resp.into_body(), limit);
        match limited.collect().await {
            Ok(c) => Ok(c.to_bytes()),
            Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(too_large(limit)),
            Err(e) => Err(io_error(&*e)),
        }
    }

    pub(crate) fn kind(&self) -> Kind {
        self.kind.lock().expect("kind lock").clone()
    }

    pub(crate) fn session_id_pub(&self) -> Option<String> {
        self.session_id()
    }

    fn session_id(&self) -> Option<String> {
        self.state
            .lock()
            .expect("http state lock")
            .session_id
            .clone()
    }

    /// The custom headers and the bearer token.
    async fn common(
        &self,
        mut b: hyper::http::request::Builder,
    ) -> Result<hyper::http::request::Builder, ClientError> {
        for (k, v) in &self.settings.headers {
            b = b.header(k, v);
        }
        if let Some(t) = &self.settings.token {
            let method = b.method_ref().cloned().unwrap_or_default();
            let url = b.uri_ref().cloned().unwrap_or_default();
            if let Some(c) = t.credentials(&method, &url).await? {
                b = b.header(header::AUTHORIZATION, c.authorization);
                for (k, v) in c.headers {
                    b = b.header(k, v);
                }
            }
        }
        Ok(b)
    }

    /// Sends a request built by `build` (plus the common headers). A `401` asks the token
    /// provider once whether to try again; a `403` up to [`MAX_STEP_UPS`] times.
    async fn send_with_auth(
        &self,
        build: impl Fn() -> hyper::http::request::Builder,
        body: &Bytes,
    ) -> Result<Response<Incoming>, ClientError> {
        let mut retried_401 = false;
        let mut retried_nonce = false;
        let mut step_ups = 0;
        loop {
            let b = self.common(build()).await?;
            let req = b
                .body(Full::new(body.clone()))
                .map_err(|e| ClientError::Encode(format!("HTTP request: {e}")))?;
            let url = req.uri().clone();
            let resp = self.send.send(req).await?;
            let status = resp.status();
            let Some(t) = &self.settings.token else {
                return Ok(resp);
            };
            if t.on_response(&url, status, resp.headers()) && !retried_nonce {
                retried_nonce = true;
                continue;
            }
            let challenge = || {
                resp.headers()
                    .get(header::WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            if status == StatusCode::UNAUTHORIZED && !retried_401 {
                let c = challenge();
                if t.unauthorized(c.as_deref()).await? {
                    retried_401 = true;
                    continue;
                }
            } else if status == StatusCode::FORBIDDEN && step_ups < MAX_STEP_UPS {
                let c = challenge();
                if t.forbidden(c.as_deref()).await? {
                    step_ups += 1;
                    continue;
                }
            }
            return Ok(resp);
        }
    }

    /// POSTs a message to the Streamable HTTP endpoint.
    async fn post(
        &self,
        frame: &Bytes,
        info: &Info,
        session: Option<&str>,
    ) -> Result<Response<Incoming>, ClientError> {
        let mut mcp: Vec<(String, String)> = Vec::new();
        if info.modern {
            let method = info.method.as_deref().unwrap_or_default();
            let schema = match (method, &info.params) {
                ("tools/call", Some(p)) => p
                    .get("name")
                    .and_then(Value::as_str)
                    .and_then(|n| self.tool_schemas.lock().expect("schemas").get(n).cloned()),
                _ => None,
            };
            mcp = headers::request_headers(method, info.params.as_ref(), schema.as_ref());
        } else {
            if let Some(s) = session {
                mcp.push((headers::MCP_SESSION_ID.into(), s.to_owned()));
            }
            let v = self.state.lock().expect("http state lock").version;
            if let Some(v) = v {
                mcp.push((headers::MCP_PROTOCOL_VERSION.into(), v.as_str().to_owned()));
            }
        }
        let url = self.url.clone();
        self.send_with_auth(
            || {
                let mut b = Request::builder()
                    .method(Method::POST)
                    .uri(url.clone())
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::ACCEPT, "application/json, text/event-stream");
                for (k, v) in &mcp {
                    b = b.header(k.as_str(), v.as_str());
                }
                b
            },
            frame,
        )
        .await
    }

    /// A GET of `uri` expecting an event stream.
    async fn get(
        &self,
        uri: &Uri,
        session: Option<&str>,
        last_event_id: Option<&str>,
    ) -> Result<Response<Incoming>, ClientError> {
        let version = self.state.lock().expect("http state lock").version;
        self.send_with_auth(
            || {
                let mut b = Request::builder()
                    .method(Method::GET)
                    .uri(uri.clone())
                    .header(header::ACCEPT, "text/event-stream");
                if let Some(s) = session {
                    b = b.header(headers::MCP_SESSION_ID, s);
                }
                if let Some(v) = version {
                    b = b.header(headers::MCP_PROTOCOL_VERSION, v.as_str());
                }
                if let Some(l) = last_event_id {
                    b = b.header(headers::LAST_EVENT_ID, l);
                }
                b
            },
            &Bytes::new(),
        )
        .await
    }

    async fn dispatch(self: &Arc<Self>, frame: Vec<u8>) {
        let Some(info) = classify(&frame) else {
            tracing::debug!("unparsable outgoing frame dropped");
            return;
        };
        let frame = Bytes::from(frame);
        let sse = matches!(self.kind(), Kind::Sse { .. });
        match (&info.method, info.id.clone()) {
            (Some(_), Some(id)) if sse => {
                if info.method.as_deref() == Some("initialize") {
                    // Kept for re-initializing after a reconnection to a new session.
                    self.state.lock().expect("http state lock").init_params = info.params.clone();
                }
                if let Err(e) = self.post_sse(&frame).await {
                    self.shared.fail(&id, e);
                }
            }
            (Some(_), Some(id)) => {
                let modern = info.modern;
                let mut tasks = self.tasks.lock().expect("tasks lock");
                let this = self.clone();
                let h = tokio::spawn(async move { this.request_task(frame, info).await });
                tasks.insert(id, (h.abort_handle(), modern));
            }
            _ => {
                let res = if sse {
                    self.post_sse(&frame).await
                } else {
                    self.post_oneway(&frame, &info).await
                };
                if let Err(e) = res {
                    tracing::debug!(error = %e, "posting a message failed");
                }
            }
        }
    }

    async fn cancel(self: &Arc<Self>, id: RequestId, frame: Vec<u8>) {
        let entry = self.tasks.lock().expect("tasks lock").remove(&id);
        let modern = entry.as_ref().is_some_and(|e| e.1);
        if !modern {
            // Legacy: disconnecting is not cancellation; say so.
            let frame = Bytes::from(frame);
            let res = match self.kind() {
                Kind::Sse { .. } => self.post_sse(&frame).await,
                Kind::Streamable => match classify(&frame) {
                    Some(info) => self.post_oneway(&frame, &info).await,
                    None => Ok(()),
                },
            };
            if let Err(e) = res {
                tracing::debug!(error = %e, "posting notifications/cancelled failed");
            }
        }
        // 2026: closing the response stream is the cancellation.
        if let Some((h, _)) = entry {
            h.abort();
        }
    }

    /// A notification or a response, POSTed; waits for the `202`.
    async fn post_oneway(self: &Arc<Self>, frame: &Bytes, info: &Info) -> Result<(), ClientError> {
        let initialized =
            info.method.as_deref() == Some("notifications/initialized") && !info.modern;
        let early_get = initialized && self.open_get_stream_first().await;
        let mut retried = false;
        loop {
            let session = if info.modern { None } else { self.session_id() };
            let resp = self.post(frame, info, session.as_deref()).await?;
            let status = resp.status();
            if status == StatusCode::NOT_FOUND
                && info.method.is_some()
                && !retried
                && let Some(s) = session
            {
                let _ = self.read_body(resp).await;
                self.reinitialize(s).await?;
                retried = true;
                continue;
            }
            let body = self.read_body(resp).await.unwrap_or_default();
            if !status.is_success() {
                return Err(http_error(status, &body));
            }
            if !body.is_empty() {
                // Not expected for a notification, but a server may answer anyway.
                conn::route(&self.shared, &self.out, &body);
            }
            if initialized && !early_get {
                self.start_get_stream(None);
            }
            return Ok(());
        }
    }

    async fn request_task(self: Arc<Self>, frame: Bytes, info: Info) {
        let id = info.id.clone().expect("a request");
        match self.run_request(&frame, &info).await {
            Err(e) => self.shared.fail(&id, e),
            Ok(()) => {
                if self.shared.is_pending(&id) {
                    self.shared.fail(
                        &id,
                        ClientError::Closed(Some(
                            "the server ended the HTTP response without answering".into(),
                        )),
                    );
                }
            }
        }
        self.tasks.lock().expect("tasks lock").remove(&id);
    }

    fn capture_init(&self, payload: &[u8], id: &RequestId) {
        if !answers(payload, id) {
            return;
        }
        let v = serde_json::from_slice::<Value>(payload).ok().and_then(|v| {
            v.pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .and_then(ProtocolVersion::parse)
        });
        if let Some(v) = v {
            self.state.lock().expect("http state lock").version = Some(v);
        }
    }

    async fn run_request(self: &Arc<Self>, frame: &Bytes, info: &Info) -> Result<(), ClientError> {
        let id = info.id.as_ref().expect("a request");
        let is_init = info.method.as_deref() == Some("initialize");
        if is_init {
            let mut st = self.state.lock().expect("http state lock");
            st.init_params = info.params.clone();
            st.session_id = None;
            st.version = None;
        }
        let mut retried = false;
        loop {
            let session = if is_init || info.modern {
                None
            } else {
                self.session_id()
            };
            let resp = self.post(frame, info, session.as_deref()).await?;
            let status = resp.status();
            if status == StatusCode::NOT_FOUND
                && !retried
                && let Some(s) = session
            {
                let body = self.read_body(resp).await.unwrap_or_default();
                if answers(&body, id) {
                    conn::route(&self.shared, &self.out, &body);
                    return Ok(());
                }
                self.reinitialize(s).await?;
                retried = true;
                continue;
            }
            if status == StatusCode::ACCEPTED {
                return Ok(());
            }
            if !status.is_success() {
                let body = self.read_body(resp).await.unwrap_or_default();
                // A JSON-RPC answer to this very request is the answer, whatever the status.
                if answers(&body, id) {
                    conn::route(&self.shared, &self.out, &body);
                    return Ok(());
                }
                return Err(http_error(status, &body));
            }
            if is_init
                && let Some(sid) = resp
                    .headers()
                    .get(headers::MCP_SESSION_ID)
                    .and_then(|v| v.to_str().ok())
            {
                self.state.lock().expect("http state lock").session_id = Some(sid.to_owned());
            }
            if is_sse(&resp) {
                let mut parser = SseParser::new(self.settings.max_frame);
                self.read_sse(resp.into_body(), &mut parser, Some(id), is_init)
                    .await;
                if self.shared.is_pending(id) && parser.oversized > 0 {
                    return Err(too_large(self.settings.max_frame));
                }
                if self.shared.is_pending(id) && !info.modern && parser.last_id.is_some() {
                    self.resume(id, &mut parser).await?;
                }
            } else {
                let content_type = resp
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let body = self.read_body(resp).await?;
                if is_init {
                    self.capture_init(&body, id);
                }
                conn::route(&self.shared, &self.out, &body);
                if self.shared.is_pending(id) {
                    return Err(unusable_answer(status, &content_type, &body));
                }
            }
            return Ok(());
        }
    }

    /// Resumes a POST's stream that ended before its answer (`GET` + `Last-Event-ID`).
    async fn resume(
        self: &Arc<Self>,
        id: &RequestId,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        for _ in 0..5 {
            if !self.shared.is_pending(id) {
                return Ok(());
            }
            let wait = parser.retry.unwrap_or(1000).min(10_000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let session = self.session_id();
            let last = parser.last_id.clone();
            let resp = self
                .get(&self.url, session.as_deref(), last.as_deref())
                .await?;
            let status = resp.status();
            if !status.is_success() || !is_sse(&resp) {
                let body = self.read_body(resp).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            self.read_sse(resp.into_body(), parser, Some(id), false)
                .await;
        }
        Ok(())
    }

    /// Routes the events of a stream until it ends (or, with `want`, until that request
    /// is answered or an event was too large: on a request's stream that is its answer).
    async fn read_sse(
        &self,
        mut body: Incoming,
        parser: &mut SseParser,
        want: Option<&RequestId>,
        is_init: bool,
    ) {
        let dropped = parser.oversized;
        loop {
            if let Some(id) = want
                && (!self.shared.is_pending(id) || parser.oversized > dropped)
            {
                return;
            }
            match body.frame().await {
                None => {
                    parser.end_of_stream();
                    return;
                }
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "SSE stream broke");
                    parser.end_of_stream();
                    return;
                }
                Some(Ok(f)) => {
                    let Ok(data) = f.into_data() else { continue };
                    for ev in parser.push(&data) {
                        if ev.event.as_deref().is_some_and(|e| e != "message") {
                            continue;
                        }
                        if is_init && let Some(id) = want {
                            self.capture_init(ev.data.as_bytes(), id);
                        }
                        conn::route(&self.shared, &self.out, ev.data.as_bytes());
                    }
                }
            }
        }
    }

    /// Opens the standalone GET stream and waits (up to [`GET_READY`]) for the server's
    /// answer, so that what it sends while handling `notifications/initialized` has a
    /// stream to go on. `true` when nothing is left to do: the stream is open, or the
    /// server has none (`405`).
    async fn open_get_stream_first(self: &Arc<Self>) -> bool {
        let (tx, rx) = oneshot::channel();
        self.start_get_stream(Some(tx));
        matches!(tokio::time::timeout(GET_READY, rx).await, Ok(Ok(true)))
    }

    /// Starts the GET loop (replacing a running one); `ready` hears how its first GET went.
    fn start_get_stream(self: &Arc<Self>, ready: Option<oneshot::Sender<bool>>) {
        if self.shut.load(Ordering::SeqCst) {
            return;
        }
        let session = self.session_id();
        let this = self.clone();
        let h = tokio::spawn(async move { this.get_loop(session, ready).await });
        let old = self
            .state
            .lock()
            .expect("http state lock")
            .get_stream
            .replace(h.abort_handle());
        if let Some(o) = old {
            o.abort();
        }
    }

    /// The standalone GET stream of a legacy session, reconnected (with `Last-Event-ID`)
    /// when the server ends it; over on 405, 404, 409 or repeated failures.
    async fn get_loop(
        self: Arc<Self>,
        session: Option<String>,
        mut ready: Option<oneshot::Sender<bool>>,
    ) {
        let mut parser = SseParser::new(self.settings.max_frame);
        let mut failures = 0;
        let mut tell = |ok: bool| {
            if let Some(tx) = ready.take() {
                let _ = tx.send(ok);
            }
        };
        loop {
            if self.shut.load(Ordering::SeqCst) || self.session_id() != session {
                return;
            }
            let last = parser.last_id.clone();
            match self
                .get(&self.url, session.as_deref(), last.as_deref())
                .await
            {
                Err(e) => {
                    tell(false);
                    failures += 1;
                    tracing::debug!(error = %e, "GET stream failed");
                    if failures > 3 {
                        return;
                    }
                }
                Ok(r) if r.status().is_success() && is_sse(&r) => {
                    tell(true);
                    failures = 0;
                    self.read_sse(r.into_body(), &mut parser, None, false).await;
                }
                Ok(r) => {
                    tell(r.status() == StatusCode::METHOD_NOT_ALLOWED);
                    tracing::debug!(status = %r.status(), "no GET stream");
                    return;
                }
            }
            let wait = parser.retry.unwrap_or(1000).min(30_000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
    }

    /// The session `old` is gone (404): a new `initialize` (the same params), then
    /// `notifications/initialized`; once for every request that found it gone.
    async fn reinitialize(self: &Arc<Self>, old: String) -> Result<(), ClientError> {
        let _serial = self.reinit.lock().await;
        let params = {
            let mut st = self.state.lock().expect("http state lock");
            if st.session_id.as_deref() != Some(old.as_str()) {
                // Someone else re-initialized already.
                return Ok(());
            }
            st.session_id = None;
            if let Some(h) = st.get_stream.take() {
                h.abort();
            }
            st.init_params.clone()
        };
        let Some(params) = params else {
            return Err(ClientError::Closed(Some(
                "the session expired before it was initialized".into(),
            )));
        };
        tracing::info!("the server forgot the session (404): re-initializing");
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("mcp-reinit-{n}").into());
        let frame = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params
        });
        let frame = Bytes::from(frame.to_string());
        let info = Info {
            method: Some("initialize".into()),
            id: Some(id.clone()),
            params: Some(params),
            modern: false,
        };
        let version = self.state.lock().expect("http state lock").version;
        let exchange = async {
            let resp = self.post(&frame, &info, None).await?;
            let status = resp.status();
            let sid = resp
                .headers()
                .get(headers::MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let mut payloads = Vec::new();
            if is_sse(&resp) {
                let mut parser = SseParser::new(self.settings.max_frame);
                let mut body = resp.into_body();
                'read: while let Some(f) = body.frame().await {
                    let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                        continue;
                    };
                    for ev in parser.push(&data) {
                        let done = answers(ev.data.as_bytes(), &id);
                        payloads.push(Bytes::from(ev.data));
                        if done {
                            break 'read;
                        }
                    }
                }
            } else {
                let body = self.read_body(resp).await?;
                if !status.is_success() {
                    return Err(http_error(status, &body));
                }
                payloads.push(body);
            }
            Ok::<_, ClientError>((sid, payloads))
        };
        let (sid, payloads) = tokio::time::timeout(self.request_timeout, exchange)
            .await
            .map_err(|_| ClientError::Timeout)??;
        let mut answered = false;
        for p in payloads {
            if answers(&p, &id) {
                let v: Value = serde_json::from_slice(&p).unwrap_or(Value::Null);
                if let Some(e) = v.get("error") {
                    let e = serde_json::from_value::<ErrorObject>(e.clone())
                        .unwrap_or_else(|_| ErrorObject::new(-32603, "re-initialize failed"));
                    return Err(ClientError::Rpc(e));
                }
                let got = v
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(ProtocolVersion::parse);
                if got != version {
                    tracing::warn!(?got, ?version, "re-initialize negotiated another revision");
                }
                answered = true;
            } else {
                conn::route(&self.shared, &self.out, &p);
            }
        }
        if !answered {
            return Err(ClientError::Closed(Some(
                "the server did not answer the re-initialize".into(),
            )));
        }
        self.state.lock().expect("http state lock").session_id = sid;
        self.reinitialized.fetch_add(1, Ordering::Relaxed);
        let note = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let info = Info {
            method: Some("notifications/initialized".into()),
            id: None,
            params: None,
            modern: false,
        };
        let early_get = self.open_get_stream_first().await;
        let session = self.session_id();
        let resp = self.post(&note, &info, session.as_deref()).await?;
        let status = resp.status();
        let body = self.read_body(resp).await.unwrap_or_default();
        if !status.is_success() {
            return Err(http_error(status, &body));
        }
        if !early_get {
            self.start_get_stream(None);
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------
    // 2024-11-05 HTTP+SSE
    // -----------------------------------------------------------------------------------

    /// Opens the 2024-11-05 SSE stream on the URL and waits for its `endpoint` event; from
    /// then on every message is POSTed there. When the stream ends the driver reconnects
    /// (see [`HttpConn::sse_reader`]).
    pub(crate) async fn open_sse(self: &Arc<Self>) -> Result<(), ClientError> {
        let mut parser = SseParser::new(self.settings.max_frame);
        let (post, body, early) = self.sse_handshake(&mut parser, None).await?;
        tracing::debug!(%post, "HTTP+SSE endpoint");
        *self.kind.lock().expect("kind lock") = Kind::Sse { post };
        let this = self.clone();
        let h = tokio::spawn(async move {
            for m in early {
                conn::route(&this.shared, &this.out, m.as_bytes());
            }
            this.sse_reader(body, parser).await;
        });
        self.state.lock().expect("http state lock").sse_stream = Some(h.abort_handle());
        Ok(())
    }

    /// `GET` the SSE URL (with `Last-Event-ID` when resuming) and read up to its `endpoint`
    /// event: the POST URL, the stream, and the messages that came with the endpoint.
    async fn sse_handshake(
        &self,
        parser: &mut SseParser,
        last_event_id: Option<&str>,
    ) -> Result<(Uri, Incoming, Vec<String>), ClientError> {
        let opened = async {
            let resp = self.get(&self.url, None, last_event_id).await?;
            let status = resp.status();
            if !status.is_success() {
                let body = self.read_body(resp).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            if !is_sse(&resp) {
                return Err(ClientError::InvalidResponse(
                    "the SSE endpoint did not answer with text/event-stream".into(),
                ));
            }
            let mut body = resp.into_body();
            let mut early = Vec::new();
            loop {
                let Some(f) = body.frame().await else {
                    return Err(ClientError::Closed(Some(
                        "the SSE stream ended before its endpoint event".into(),
                    )));
                };
                let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                    continue;
                };
                let mut endpoint = None;
                for ev in parser.push(&data) {
                    if endpoint.is_none() && ev.event.as_deref() == Some("endpoint") {
                        endpoint = Some(ev.data);
                    } else if endpoint.is_some() || ev.event.is_none_or(|e| e == "message") {
                        early.push(ev.data);
                    }
                }
                if let Some(e) = endpoint {
                    return Ok((e, body, early));
                }
            }
        };
        let (endpoint, body, early) = tokio::time::timeout(self.settings.connect_timeout, opened)
            .await
            .map_err(|_| {
                ClientError::Closed(Some("no endpoint event on the SSE stream in time".into()))
            })??;
        let post = resolve(&self.url, endpoint.trim())?;
        Ok((post, body, early))
    }

    /// Reads the HTTP+SSE stream; when the server ends or breaks it, reconnects after the
    /// stream's `retry:` (default 1 s) with `Last-Event-ID`, up to [`SSE_RECONNECTS`]
    /// attempts in a row. A new `endpoint` means a new session: the client is
    /// re-initialized there with the params of its `initialize`. Gives up by closing the
    /// connection (pending requests fail with the reason).
    async fn sse_reader(self: Arc<Self>, mut body: Incoming, mut parser: SseParser) {
        loop {
            self.read_sse(body, &mut parser, None, false).await;
            if self.shut.load(Ordering::SeqCst) {
                return;
            }
            let mut attempt = 0;
            body = loop {
                attempt += 1;
                if attempt > SSE_RECONNECTS {
                    self.shared.close(ClientError::Closed(Some(
                        "the SSE stream ended and reconnecting failed".into(),
                    )));
                    return;
                }
                let wait = parser.retry.unwrap_or(1000).min(30_000);
                tokio::time::sleep(Duration::from_millis(wait)).await;
                if self.shut.load(Ordering::SeqCst) {
                    return;
                }
                match self.sse_reconnect(&mut parser).await {
                    Ok(b) => break b,
                    Err(e) => tracing::debug!(error = %e, attempt, "SSE reconnect failed"),
                }
            };
        }
    }

    /// One reconnection: the handshake, then a re-`initialize` when the endpoint changed.
    async fn sse_reconnect(
        self: &Arc<Self>,
        parser: &mut SseParser,
    ) -> Result<Incoming, ClientError> {
        let last = parser.last_id.clone();
        let mut fresh = SseParser::resuming(self.settings.max_frame, last.clone());
        fresh.retry = parser.retry;
        let (post, mut body, early) = self.sse_handshake(&mut fresh, last.as_deref()).await?;
        *parser = fresh;
        let old = std::mem::replace(
            &mut *self.kind.lock().expect("kind lock"),
            Kind::Sse { post: post.clone() },
        );
        for m in early {
            conn::route(&self.shared, &self.out, m.as_bytes());
        }
        if old != (Kind::Sse { post }) {
            tracing::info!("the SSE stream came back with a new endpoint: re-initializing");
            self.reinitialize_sse(&mut body, parser).await?;
        }
        Ok(body)
    }

    /// `initialize` + `notifications/initialized` on a new HTTP+SSE session; the answer
    /// is read off the new stream (other messages on it are routed as usual).
    async fn reinitialize_sse(
        &self,
        body: &mut Incoming,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        let Some(params) = self
            .state
            .lock()
            .expect("http state lock")
            .init_params
            .clone()
        else {
            return Err(ClientError::Closed(Some(
                "the SSE session was lost before it was initialized".into(),
            )));
        };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("mcp-reinit-sse-{n}").into());
        let frame = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params
        });
        self.post_sse(&Bytes::from(frame.to_string())).await?;
        let answer = async {
            while let Some(f) = body.frame().await {
                let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                    continue;
                };
                for ev in parser.push(&data) {
                    if answers(ev.data.as_bytes(), &id) {
                        return Ok(ev.data);
                    }
                    conn::route(&self.shared, &self.out, ev.data.as_bytes());
                }
            }
            Err(ClientError::Closed(Some(
                "the SSE stream ended during re-initialization".into(),
            )))
        };
        let answer = tokio::time::timeout(self.request_timeout, answer)
            .await
            .map_err(|_| ClientError::Timeout)??;
        let v: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        if let Some(e) = v.get("error") {
            let e = serde_json::from_value::<ErrorObject>(e.clone())
                .unwrap_or_else(|_| ErrorObject::new(-32603, "re-initialize failed"));
            return Err(ClientError::Rpc(e));
        }
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        self.post_sse(&Bytes::from_static(note)).await?;
        self.reinitialized.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    async fn post_sse(&self, frame: &Bytes) -> Result<(), ClientError> {
        let Kind::Sse { post } = self.kind() else {
            unreachable!("only in SSE mode")
        };
        let resp = self
            .send_with_auth(
                || {
                    Request::builder()
                        .method(Method::POST)
                        .uri(post.clone())
                        .header(header::CONTENT_TYPE, "application/json")
                },
                frame,
            )
            .await?;
        let status = resp.status();
        let body = self.read_body(resp).await.unwrap_or_default();
        if status.is_success() {
            Ok(())
        } else {
            Err(http_error(status, &body))
        }
    }

    // -----------------------------------------------------------------------------------
    // Shutdown
    // -----------------------------------------------------------------------------------

    /// Ends everything: aborts in-flight requests and streams, DELETEs a legacy session,
    /// fails whatever is still pending.
    pub(crate) async fn shutdown(&self) {
        if self.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        let (sid, streams) = {
            let mut st = self.state.lock().expect("http state lock");
            (
                st.session_id.take(),
                [st.get_stream.take(), st.sse_stream.take()],
            )
        };
        for h in streams.into_iter().flatten() {
            h.abort();
        }
        for (_, (h, _)) in self.tasks.lock().expect("tasks lock").drain() {
            h.abort();
        }
        if let (Some(sid), Kind::Streamable) = (sid, self.kind()) {
            let version = self.state.lock().expect("http state lock").version;
            let url = self.url.clone();
            let empty = Bytes::new();
            let delete = self.send_with_auth(
                || {
                    let mut b = Request::builder()
                        .method(Method::DELETE)
                        .uri(url.clone())
                        .header(headers::MCP_SESSION_ID, sid.as_str());
                    if let Some(v) = version {
                        b = b.header(headers::MCP_PROTOCOL_VERSION, v.as_str());
                    }
                    b
                },
                &empty,
            );
            match tokio::time::timeout(Duration::from_secs(5), delete).await {
                Ok(Ok(r)) => tracing::debug!(status = %r.status(), "session DELETE"),
                Ok(Err(e)) => tracing::debug!(error = %e, "session DELETE failed"),
                Err(_) => tracing::debug!("session DELETE timed out"),
            }
        }
        self.shared.close(ClientError::Closed(Some(
            "the client closed the connection".into(),
        )));
    }
}

/// The POST endpoint an `endpoint` event names, against the SSE URL; only the same origin.
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, ClientError> {
    let bad = |why: &str| ClientError::InvalidResponse(format!("endpoint {endpoint:?}: {why}"));
    if endpoint.contains("://") {
        let u: Uri = endpoint.parse().map_err(|_| bad("not a URI"))?;
        if u.scheme() != base.scheme() || u.authority() != base.authority() {
            return Err(bad("another origin than the SSE stream's"));
        }
        return Ok(u);
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    let path = if endpoint.starts_with('/') {
        endpoint.to_owned()
    } else {
        let dir = base.path().rsplit_once('/').map_or("", |(d, _)| d);
        format!("{dir}/{endpoint}")
    };
    format!("{scheme}://{authority}{path}")
        .parse()
        .map_err(|_| bad("not a URI"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_resolution() {
        let base: Uri = "http://127.0.0.1:9/a/sse".parse().unwrap();
        assert_eq!(
            resolve(&base, "/messages?sessionId=1").unwrap().to_string(),
            "http://127.0.0.1:9/messages?sessionId=1"
        );
        assert_eq!(
            resolve(&base, "messages?x").unwrap().to_string(),
            "http://127.0.0.1:9/a/messages?x"
        );
        assert!(resolve(&base, "http://evil.example/messages").is_err());
        assert!(resolve(&base, "http://127.0.0.1:9/m").is_ok());
    }

    #[test]
    fn answers_matches_ids() {
        let id = RequestId::Number(3);
        assert!(answers(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#, &id));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, &id));
        assert!(!answers(br#"{"jsonrpc":"2.0","id":3,"method":"x"}"#, &id));
        assert!(!answers(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#,
            &id
        ));
    }
}
