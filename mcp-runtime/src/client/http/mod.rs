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
//! HTTPS comes with the `tls` feature ([`tls`]: rustls, the platform's roots by default);
//! [`ClientBuilder::http_connector`](super::ClientBuilder::http_connector) takes any other
//! `hyper-util` connector.
mod auth;
mod sse_legacy;
mod streamable;
#[cfg(feature = "tls")]
pub(crate) mod tls;

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
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::conn::{self, MAX_FRAME, Outgoing, Shared};
use super::error::ClientError;
use super::handler::DynHandler;

pub use auth::{BoxFuture, Credentials, MAX_STEP_UPS, StaticToken, TokenProvider};
// A module of the crate's items rather than `pub use hyper_util;`: the facade inlines this
// module, and rustdoc would then copy the whole crate into our pages (links it cannot resolve
// included), whatever the `use` says; a hidden module stays out. The docs name it (`ClientBuilder::http_connector`).
#[doc(hidden)]
pub mod hyper_util {
    pub use ::hyper_util::*;
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
    /// The roots `https://` servers are checked against.
    #[cfg(feature = "tls")]
    pub(crate) tls: tls::TlsConfig,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            token: None,
            connect_timeout: Duration::from_secs(10),
            sender: None,
            max_frame: MAX_FRAME,
            #[cfg(feature = "tls")]
            tls: tls::TlsConfig::default(),
        }
    }
}

/// A sender for `http://` and, with the `tls` feature, `https://` URLs (the platform's
/// roots): the OAuth requests' default, whose URLs come from the servers' metadata.
pub(crate) fn any_scheme_sender() -> Arc<dyn HttpSend> {
    #[cfg(feature = "tls")]
    if let Ok(c) = tls::TlsConfig::platform().connector(HttpConnector::new()) {
        return sender_for(c);
    }
    sender_for(HttpConnector::new())
}

/// The sender for `url`'s scheme when the user gave no connector: plain TCP for `http://`,
/// TLS (with the `tls` feature) for `https://`.
fn default_sender(
    url: &str,
    scheme: Option<&str>,
    s: &HttpSettings,
) -> Result<Arc<dyn HttpSend>, ClientError> {
    let mut c = HttpConnector::new();
    c.set_connect_timeout(Some(s.connect_timeout));
    c.set_nodelay(true);
    match scheme {
        Some("http") => Ok(sender_for(c)),
        #[cfg(feature = "tls")]
        Some("https") => Ok(sender_for(s.tls.connector(c)?)),
        #[cfg(not(feature = "tls"))]
        Some("https") => Err(ClientError::Unsupported(
            "https:// needs the `tls` feature (or a TLS connector: ClientBuilder::http_connector)"
                .into(),
        )),
        _ => Err(ClientError::Unsupported(format!(
            "the URL {url:?} is not http(s)"
        ))),
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
    init_params: Option<Box<RawValue>>,
    get_stream: Option<AbortHandle>,
    sse_stream: Option<AbortHandle>,
}

/// What the driver needs to know of an outgoing frame.
struct Info {
    method: Option<String>,
    id: Option<RequestId>,
    /// As written: the headers read the few fields they mirror from it.
    params: Option<Box<RawValue>>,
    modern: bool,
}

/// Reads what the driver needs of an outgoing frame without building it as a `Value`
/// (one scan of the frame, one of the params for the 2026 envelope's version).
fn classify(frame: &[u8]) -> Option<Info> {
    #[derive(serde::Deserialize)]
    struct Frame<'a> {
        #[serde(borrow, default)]
        method: Option<std::borrow::Cow<'a, str>>,
        #[serde(default)]
        id: Option<Value>,
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta", default)]
        meta: Option<Envelope>,
    }
    #[derive(serde::Deserialize)]
    struct Envelope {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
        version: Option<serde::de::IgnoredAny>,
    }
    let f: Frame<'_> = serde_json::from_slice(frame).ok()?;
    let method = f.method.map(std::borrow::Cow::into_owned);
    let id = match (&method, f.id) {
        (Some(_), Some(i)) => serde_json::from_value::<RequestId>(i).ok(),
        _ => None,
    };
    let modern = f.params.is_some_and(|p| {
        serde_json::from_str::<Params>(p.get())
            .is_ok_and(|p| p.meta.is_some_and(|m| m.version.is_some()))
    });
    Some(Info {
        method,
        id,
        params: f.params.map(ToOwned::to_owned),
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
    pub(crate) tool_schemas: Mutex<HashMap<String, Arc<Map<String, Value>>>>,
    shut: AtomicBool,
    request_timeout: Duration,
    next: AtomicU64,
    /// How many times a session was re-initialized after a 404.
    pub(crate) reinitialized: AtomicU64,
}

impl HttpConn {
    /// Where the bearer tokens come from, if anywhere (the response cache's partition).
    pub(crate) fn token_provider(&self) -> Option<Arc<dyn TokenProvider>> {
        self.settings.token.clone()
    }
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
    let send = match &settings.sender {
        Some(s) => s.clone(),
        None => default_sender(url, uri.scheme_str(), &settings)?,
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

    /// The server's URL (`server.address` and `server.port` of the client's spans).
    pub(crate) fn url(&self) -> &Uri {
        &self.url
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

    /// Sends one outgoing message: a request in a task of its own (its answer comes back on
    /// its response), anything else POSTed in order.
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

    /// Gives up on the request `id`: a legacy server is told with `frame` (its
    /// `notifications/cancelled`), a 2026 one by closing the request's response stream.
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

#[cfg(test)]
mod tests {
    use super::*;

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
