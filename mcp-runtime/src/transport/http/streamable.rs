//! Streamable HTTP: one endpoint, both eras, routed per request.

use std::sync::Arc;
use std::task::Poll;

use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use mcp_core::codec;
use mcp_core::headers;
use mcp_core::jsonrpc::{self, DecodeError, DecodeOptions, ErrorObject, Frame, Message, RequestId};
use mcp_core::meta::{self, RequestMeta};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::auth::Principal;
use super::session::HttpSession;
use super::sse::{Final, SseBody};
use super::{
    HttpRequest, HttpState, empty, error_response, json_response, read_body, sse_response,
};
use crate::chain::middleware::Endpoint;
use crate::chain::request_run::encode_outcome;
use crate::common::error::{HandlerResult, Reply};
use crate::common::extensions::Extensions;
use crate::context::Context;
use crate::context::ContextParts;
use crate::context::peer::{ConnShared, Peer};
use crate::session::intake;

/// A message decoded from a body, owned so that it can move into a task.
pub(super) enum Msg {
    Request {
        id: RequestId,
        method: String,
        params: Option<Box<RawValue>>,
    },
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    Response {
        id: Option<RequestId>,
        outcome: Result<Box<RawValue>, ErrorObject>,
    },
}

pub(super) fn owned(m: Message<'_>) -> Msg {
    match m {
        Message::Request(r) => Msg::Request {
            id: r.id,
            method: r.method.into_owned(),
            params: r.params.map(|p| p.to_owned()),
        },
        Message::Notification(n) => Msg::Notification {
            method: n.method.into_owned(),
            params: n.params.map(|p| p.to_owned()),
        },
        Message::Response(r) => Msg::Response {
            id: r.id,
            outcome: r.outcome.map(|v| v.to_owned()),
        },
    }
}

/// Decodes a body into its messages; `true` when it was a batch.
pub(super) fn decode_all(bytes: &[u8], allow_batch: bool) -> (Vec<Result<Msg, DecodeError>>, bool) {
    owned_frame(decode(bytes, allow_batch))
}

fn decode(bytes: &[u8], allow_batch: bool) -> Frame<'_> {
    let opts = DecodeOptions {
        allow_batch,
        ..DecodeOptions::default()
    };
    jsonrpc::decode(bytes, opts)
}

/// The messages of a decoded body, owned; `true` when it was a batch.
fn owned_frame(frame: Frame<'_>) -> (Vec<Result<Msg, DecodeError>>, bool) {
    match frame {
        Frame::Single(r) => (vec![r.map(owned)], false),
        Frame::Batch(items) => (items.into_iter().map(|r| r.map(owned)).collect(), true),
    }
}

pub(super) fn http_request(parts: &axum::http::request::Parts) -> HttpRequest {
    HttpRequest {
        method: parts.method.clone(),
        uri: parts.uri.clone(),
        headers: parts.headers.clone(),
    }
}

/// What the context of the request `parts` learns, the parts moved rather than copied
/// (the request's own checks are over by then).
fn into_incoming(parts: axum::http::request::Parts) -> Incoming {
    let mut extensions = parts.extensions;
    Incoming {
        principal: extensions.remove::<Principal>(),
        http: HttpRequest {
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
        },
    }
}

/// `http` with its header values and target copied into allocations of their own.
///
/// hyper parses a request's head in place: its header values and its URI are slices of the
/// connection's 8 KiB read buffer. A context that outlives its request (a listen stream's,
/// for as long as the stream is open) would keep that buffer, and the connection, which
/// goes on reading to notice the client closing, would allocate another one. With the copy
/// the connection reuses its buffer.
fn detached(http: HttpRequest) -> HttpRequest {
    use axum::body::Bytes;
    let mut headers = http.headers;
    for v in headers.values_mut() {
        // A copy of a value hyper accepted is accepted too; should it not be, the value
        // stays as it was (still correct, only not detached).
        if let Ok(mut copy) = HeaderValue::from_maybe_shared(Bytes::copy_from_slice(v.as_bytes())) {
            copy.set_sensitive(v.is_sensitive());
            *v = copy;
        }
    }
    let uri = axum::http::Uri::try_from(http.uri.to_string()).unwrap_or(http.uri);
    HttpRequest {
        method: http.method,
        uri,
        headers,
    }
}

/// What a message's context learns of its HTTP request: the request, and the principal
/// that authentication established.
#[derive(Clone)]
pub(super) struct Incoming {
    pub(super) http: HttpRequest,
    pub(super) principal: Option<Principal>,
}

pub(super) fn incoming(parts: &axum::http::request::Parts) -> Incoming {
    Incoming {
        http: http_request(parts),
        principal: parts.extensions.get::<Principal>().cloned(),
    }
}

/// The first value of `name`, as text, trimmed.
fn header_str<'a>(h: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    // A request has a handful of headers: comparing names is cheaper than hashing one.
    // The first match is the first value, as `HeaderMap::get` gives.
    h.iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v.to_str().ok())
        .map(str::trim)
}

// Looked up by `HeaderName` (a hash) rather than by `&str` (parsed on every lookup).
static MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Cancels a token when dropped, unless disarmed.
struct CancelOnDrop(Option<CancellationToken>);

impl CancelOnDrop {
    fn disarm(&mut self) -> Option<CancellationToken> {
        self.0.take()
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            t.cancel();
        }
    }
}

/// The throwaway session of one stateless legacy request.
fn stateless_session<E: Endpoint + 'static>(state: &Arc<HttpState<E>>) -> Arc<HttpSession> {
    let s = HttpSession::new(
        String::new(),
        state.kernel.options.peer_request_timeout,
        state.kernel.filters.clone(),
        state.shutdown.child_token(),
        None,
        None,
    );
    s.conn.mark_sessionless();
    s
}

/// Ends the throwaway session of a stateless legacy request when dropped.
struct CloseOnDrop(Arc<HttpSession>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// `r` with `guard` dropped when its body is (finished, or abandoned by the client).
fn close_with_body(r: Response, guard: CloseOnDrop) -> Response {
    use http_body_util::BodyExt;
    r.map(|body| {
        axum::body::Body::new(body.map_frame(move |frame| {
            let _owned = &guard;
            frame
        }))
    })
}

impl<E: Endpoint + 'static> HttpState<E> {
    /// Runs one request through the chain. With `inline`, the chain is first polled here,
    /// in the connection's task: an answer that is ready at once (most are) needs no task,
    /// no channel and no wake-up of another thread. A request that has to wait (and every
    /// one without `inline`) goes on in a task of its own, so a client that leaves does
    /// not cancel it. The final frame is `None` when the request was cancelled. `after`
    /// sees the outcome first (to commit `initialize`, to forget the in-flight entry).
    pub(super) async fn run_request(
        self: &Arc<Self>,
        ctx: Context,
        cancel: CancellationToken,
        id: RequestId,
        permit: Option<OwnedSemaphorePermit>,
        inline: bool,
        after: impl FnOnce(Option<&HandlerResult>) + Send + 'static,
    ) -> Fin {
        let this = self.clone();
        let mut run = Box::pin(async move {
            // The handler is polled first: one that watches `ctx.cancellation()` sees the
            // cancellation and finishes (its outcome is not sent); one that does not is
            // dropped.
            let out = this.kernel.run(ctx, &cancel).await;
            after(out.as_ref());
            drop(permit);
            match (out, cancel.is_cancelled()) {
                (Some(out), false) => {
                    let (frame, code) = encode_outcome(&id, out);
                    this.kernel.filters.outgoing(frame).map(|f| (f, code))
                }
                _ => None,
            }
        });
        if inline {
            let polled = crate::chain::request_run::poll_once(&mut run).await;
            if let Poll::Ready(out) = polled {
                return Fin::Ready(out);
            }
        }
        let (tx, rx) = oneshot::channel();
        tokio::spawn(async move {
            if let Some(f) = run.await {
                let _ = tx.send(f);
            }
        });
        Fin::Pending(rx)
    }

    /// Runs a notification through the chain (its outcome is only logged).
    pub(super) fn spawn_notification(self: &Arc<Self>, ctx: Context) {
        let this = self.clone();
        tokio::spawn(async move {
            let cancel = ctx.cancellation().clone();
            if let Some(Err(e)) = this.kernel.run(ctx, &cancel).await {
                tracing::warn!(error = %e, "error while handling a notification");
            }
        });
    }

    fn permit(&self) -> Result<OwnedSemaphorePermit, Response> {
        self.permits.clone().try_acquire_owned().map_err(|_| {
            error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                &ErrorObject::new(-32000, "Server busy: too many requests in flight"),
            )
        })
    }

    /// Answers a request: plain JSON when its outcome comes before any message, else an
    /// SSE stream of the messages and then the response.
    async fn respond(
        &self,
        mut rx: mpsc::Receiver<Vec<u8>>,
        fin: Fin,
        status_of: fn(Option<i32>) -> StatusCode,
        extra: Vec<(HeaderName, HeaderValue)>,
        cancel_on_close: Option<CancellationToken>,
    ) -> Response {
        // Dropped with the request future (the client went away before the answer).
        let mut guard = CancelOnDrop(cancel_on_close);
        let mut resp = match fin.first(&mut rx).await {
            First::Fin(Some((frame, code))) => match rx.try_recv() {
                Err(_) => json_response(status_of(code), frame),
                Ok(m) => {
                    // Messages came before the answer: an SSE stream that ends with it.
                    let mut body = SseBody::new(rx, None, self.opts.keep_alive);
                    body.push_message(&m);
                    let mut rest = Vec::new();
                    if let Some(rx) = body.rx.as_mut() {
                        while let Ok(m) = rx.try_recv() {
                            rest.push(m);
                        }
                    }
                    for m in rest {
                        body.push_message(&m);
                    }
                    body.push_message(&frame);
                    body.closing = true;
                    sse_response(body)
                }
            },
            First::Fin(None) => {
                // Cancelled: nothing is sent for it.
                guard.disarm();
                return empty(StatusCode::NO_CONTENT);
            }
            First::Msg(None, fin) => match fin.await {
                Ok((frame, code)) => json_response(status_of(code), frame),
                Err(_) => {
                    guard.disarm();
                    return empty(StatusCode::NO_CONTENT);
                }
            },
            First::Msg(Some(m), fin) => {
                let mut body = SseBody::new(rx, None, self.opts.keep_alive);
                body.push_message(&m);
                body.fin = Some(fin);
                if let Some(t) = guard.disarm() {
                    // Closing the stream cancels the request (2026).
                    body = body.on_drop(move || t.cancel());
                }
                sse_response(body)
            }
        };
        guard.disarm();
        for (k, v) in extra {
            resp.headers_mut().insert(k, v);
        }
        resp
    }
}

/// Request-scoped message channels kept for reuse, per thread: making one allocates a
/// cache-aligned block (an expensive allocation) that most requests never send on.
const SPARE_CHANNELS: usize = 4;

type OutChannel = (mpsc::Sender<Vec<u8>>, mpsc::Receiver<Vec<u8>>);

thread_local! {
    static SPARE: std::cell::RefCell<Vec<OutChannel>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A request's message channel: a spare one, or a new one.
fn out_channel() -> OutChannel {
    SPARE
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_else(|| mpsc::channel(64))
}

/// `Ok(final frame)` when the request answered at once, sent nothing and left no sender
/// behind (`tx` is the only one): its channel is as good as new and is kept for another
/// request. Else the request and its receiver, to answer as usual (the sender is dropped
/// here, so that the receiver ends with the request's own senders).
fn recycle_if_unused(
    fin: Fin,
    tx: mpsc::Sender<Vec<u8>>,
    rx: mpsc::Receiver<Vec<u8>>,
) -> Result<Option<Final>, (Fin, mpsc::Receiver<Vec<u8>>)> {
    match fin {
        Fin::Ready(out) if tx.strong_count() == 1 && tx.weak_count() == 0 && rx.is_empty() => {
            SPARE.with(|s| {
                let mut s = s.borrow_mut();
                if s.len() < SPARE_CHANNELS {
                    s.push((tx, rx));
                }
            });
            Ok(out)
        }
        fin => Err((fin, rx)),
    }
}

/// The final frame of a request: ready at once, or to come from its task (`None`: the
/// request was cancelled, nothing is sent for it).
pub(super) enum Fin {
    Ready(Option<Final>),
    Pending(oneshot::Receiver<Final>),
}

/// What a request produced first: its final frame, or a message (or the end of its
/// messages) while the final frame is still to come.
pub(super) enum First {
    Fin(Option<Final>),
    Msg(Option<Vec<u8>>, oneshot::Receiver<Final>),
}

impl Fin {
    /// Waits for the final frame.
    pub(super) async fn wait(self) -> Option<Final> {
        match self {
            Fin::Ready(f) => f,
            Fin::Pending(rx) => rx.await.ok(),
        }
    }

    /// Waits for the final frame or the first message on `rx`, whichever comes first
    /// (the message when both are there).
    pub(super) async fn first(self, rx: &mut mpsc::Receiver<Vec<u8>>) -> First {
        match self {
            Fin::Ready(f) => First::Fin(f),
            Fin::Pending(mut fin) => tokio::select! {
                biased;
                m = rx.recv() => First::Msg(m, fin),
                f = &mut fin => First::Fin(f.ok()),
            },
        }
    }
}

fn modern_status(code: Option<i32>) -> StatusCode {
    code.map_or(StatusCode::OK, |c| {
        StatusCode::from_u16(codec::http_status(c)).unwrap_or(StatusCode::OK)
    })
}

fn legacy_status(_: Option<i32>) -> StatusCode {
    StatusCode::OK
}

fn accepts(headers: &HeaderMap, what: &str) -> bool {
    accepts_any(headers, &[what]) == Some(true)
}

/// The headers [`handle`] checks, read in one pass over the request's headers (a
/// handful: a scan costs less than a hashed lookup per name). Each is its first value,
/// as text and trimmed (what [`header_str`] gives).
struct PostHeaders<'a> {
    protocol_version: Option<&'a str>,
    content_type: Option<&'a str>,
    /// `None` without `Accept`; else whether a value lists JSON, SSE or `*/*`.
    accept_ok: Option<bool>,
}

impl<'a> PostHeaders<'a> {
    fn read(headers: &'a HeaderMap) -> Self {
        let text = |v: &'a HeaderValue| v.to_str().ok().map(str::trim);
        let (mut pv, mut ct) = (None, None);
        let mut accept_ok = None;
        for (name, value) in headers {
            if name == header::CONTENT_TYPE {
                ct.get_or_insert(value);
            } else if name == header::ACCEPT {
                let ok = value.to_str().is_ok_and(|s| {
                    contains(s, "application/json")
                        || contains(s, "text/event-stream")
                        || contains(s, "*/*")
                });
                accept_ok = Some(accept_ok == Some(true) || ok);
            } else if name == MCP_PROTOCOL_VERSION {
                pv.get_or_insert(value);
            }
        }
        Self {
            protocol_version: pv.and_then(text),
            content_type: ct.and_then(text),
            accept_ok,
        }
    }
}

/// Whether an `Accept` value lists one of `what` (or `*/*`); `None` without `Accept`.
fn accepts_any(headers: &HeaderMap, what: &[&str]) -> Option<bool> {
    let mut values = headers.get_all(header::ACCEPT).iter().peekable();
    values.peek()?;
    Some(values.any(|v| {
        v.to_str()
            .is_ok_and(|s| what.iter().any(|w| contains(s, w)) || contains(s, "*/*"))
    }))
}

/// `hay.contains(needle)` for the short texts of a header: a scan for the first byte
/// costs less than setting up `str::contains`'s searcher.
fn contains(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    hay.iter()
        .enumerate()
        .any(|(i, &b)| b == first && hay[i..].starts_with(needle))
}

#[derive(serde::Deserialize)]
struct VersionProbe {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    v: Option<serde_json::Value>,
}

fn string_of(v: Option<serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// The body's `_meta` protocol version, as sent.
fn body_protocol_version(params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "_meta")]
        meta: Option<VersionProbe>,
    }
    let p: P = serde_json::from_str(params?.get()).ok()?;
    string_of(p.meta?.v)
}

/// [`body_protocol_version`] and [`tool_name`] in one pass over the params (what the
/// header checks of a 2026 request need). Params that one of them would not read take
/// the two probes apart, so the answers are theirs exactly.
fn version_and_tool_name(params: Option<&RawValue>) -> (Option<String>, Option<String>) {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "_meta")]
        meta: Option<VersionProbe>,
        name: Option<serde_json::Value>,
    }
    let Some(raw) = params else {
        return (None, None);
    };
    match serde_json::from_str::<P>(raw.get()) {
        Ok(p) => (p.meta.and_then(|m| string_of(m.v)), string_of(p.name)),
        Err(_) => (body_protocol_version(params), tool_name(params)),
    }
}

fn tool_name(params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        name: Option<serde_json::Value>,
    }
    string_of(serde_json::from_str::<P>(params?.get()).ok()?.name)
}

pub(super) async fn handle<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    req: axum::extract::Request,
) -> Response {
    let (parts, body) = req.into_parts();
    let supported = state.kernel.identity.supported;
    let seen = PostHeaders::read(&parts.headers);
    // `Some(None)`: a header naming no revision we know.
    let header_version = seen.protocol_version.map(ProtocolVersion::parse);
    let header_modern = header_version
        .flatten()
        .is_some_and(|v| v.era() == Era::Modern);
    match parts.method {
        Method::POST => {}
        Method::GET | Method::DELETE => {
            if !supported.serves_legacy() || header_modern || state.opts.stateless_legacy {
                return method_not_allowed();
            }
            return if parts.method == Method::GET {
                legacy_get(state, &parts).await
            } else {
                legacy_delete(state, &parts).await
            };
        }
        _ => {
            let mut r = method_not_allowed();
            if supported.serves_legacy() && !state.opts.stateless_legacy {
                r.headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            }
            return r;
        }
    }
    if let Some(ct) = seen.content_type
        && !ct
            .as_bytes()
            .get(..16)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"application/json"))
    {
        return error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            &ErrorObject::invalid_request(
                "Unsupported Media Type: Content-Type must be application/json",
            ),
        );
    }
    if seen.accept_ok == Some(false) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            &ErrorObject::invalid_request(
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ),
        );
    }
    let bytes = match read_body(body, state.opts.max_body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let bytes = if state.kernel.filters.is_empty() {
        bytes
    } else {
        match state.kernel.filters.incoming(bytes) {
            Some(b) => b,
            None => return empty(StatusCode::ACCEPTED),
        }
    };
    // Per request: the modern envelope (or a 2026 header) selects the stateless era. The
    // body is decoded once, as the era it then turns out to be needs (batches only for
    // legacy).
    let forced_modern = supported.serves_modern() && (!supported.serves_legacy() || header_modern);
    let frame = decode(&bytes, !forced_modern);
    if forced_modern || (supported.serves_modern() && enveloped(&frame, &bytes)) {
        modern_post(state, parts, frame).await
    } else {
        legacy_post(state, parts, frame, header_version).await
    }
}

/// Whether the body (`frame` as decoded from `bytes`) is one non-`initialize` message
/// carrying the 2026 `_meta` envelope. A message that did not decode is probed on its
/// own, so that an invalid 2026 message gets the 2026 error.
fn enveloped(frame: &Frame<'_>, bytes: &[u8]) -> bool {
    let (method, params) = match frame {
        Frame::Single(Ok(Message::Request(r))) => (Some(&*r.method), r.params),
        Frame::Single(Ok(Message::Notification(n))) => (Some(&*n.method), n.params),
        Frame::Single(Err(_)) => return meta::message_carries_modern_envelope(bytes),
        _ => return false,
    };
    method != Some("initialize") && intake::carries_envelope(params)
}

static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// The headers the 2026 checks of every request read, in the order of [`ModernHeaders`].
static MODERN_HEADERS: [(&str, &HeaderName); 3] = [
    (headers::MCP_PROTOCOL_VERSION, &MCP_PROTOCOL_VERSION),
    (headers::MCP_METHOD, &MCP_METHOD),
    (headers::MCP_NAME, &MCP_NAME),
];

/// A request's headers as the 2026 checks read them: the ones every request is checked
/// for are found in one walk over the map (a lookup hashes the name, and a `&str` name is
/// parsed and lower-cased first); any other name is looked up.
struct ModernHeaders<'a> {
    map: &'a HeaderMap,
    /// The first value of each of [`MODERN_HEADERS`] and its number of field lines.
    known: [(Option<&'a HeaderValue>, usize); 3],
}

impl<'a> ModernHeaders<'a> {
    fn of(map: &'a HeaderMap) -> Self {
        let mut known = [(None, 0); 3];
        for (name, value) in map {
            if let Some(k) = MODERN_HEADERS.iter().position(|(_, h)| *h == name) {
                known[k].0.get_or_insert(value);
                known[k].1 += 1;
            }
        }
        Self { map, known }
    }
}

impl headers::HeaderSource for ModernHeaders<'_> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        match MODERN_HEADERS.iter().position(|(n, _)| *n == name) {
            Some(k) => match self.known[k] {
                (Some(v), 1) => each(v.as_bytes()),
                (None, _) => {}
                // Repeated: every line, in order.
                _ => self
                    .map
                    .get_all(MODERN_HEADERS[k].1)
                    .iter()
                    .for_each(|v| each(v.as_bytes())),
            },
            None => self
                .map
                .get_all(name)
                .iter()
                .for_each(|v| each(v.as_bytes())),
        }
    }
}

fn method_not_allowed() -> Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::new(-32000, "Method Not Allowed"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

async fn modern_post<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: axum::http::request::Parts,
    frame: Frame<'_>,
) -> Response {
    let (mut items, batch) = owned_frame(frame);
    let item = match (batch, items.pop()) {
        (false, Some(i)) => i,
        _ => {
            return error_response(
                StatusCode::BAD_REQUEST,
                None,
                &ErrorObject::invalid_request("Invalid Request: batches are not allowed"),
            );
        }
    };
    let msg = match item {
        Ok(m) => m,
        Err(e) => return error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error),
    };
    match msg {
        Msg::Response { .. } => error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::invalid_request("Invalid Request: 2026-07-28 clients send no responses"),
        ),
        Msg::Notification { method, params } => modern_notification(state, parts, method, params),
        Msg::Request { id, method, params } => {
            modern_request(state, parts, id, method, params).await
        }
    }
}

/// A 2026 notification: its headers and envelope checked, then run in the background (202).
fn modern_notification<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: axum::http::request::Parts,
    method: String,
    params: Option<Box<RawValue>>,
) -> Response {
    let hs = ModernHeaders::of(&parts.headers);
    let params_raw = params.as_deref();
    let pv = match headers::RequestFields::scan(params_raw) {
        Some(fields) => fields.protocol_version().map(str::to_owned),
        None => body_protocol_version(params_raw),
    };
    if let Err(e) = headers::validate_notification_headers(&hs, &method, pv.as_deref()) {
        return error_response(StatusCode::BAD_REQUEST, None, &e.to_error_object());
    }
    let shared = params.map(Arc::new);
    let (version, meta) =
        match intake::check_envelope(state.kernel.identity.supported, shared.as_ref()) {
            Ok((v, m)) => (Some(v), Some(m)),
            Err(e) => {
                return error_response(modern_status(Some(e.code)), None, &e);
            }
        };
    let (tx, _rx) = mpsc::channel(1);
    let ctx = modern_context(
        state,
        into_incoming(parts),
        &method,
        shared,
        None,
        version,
        meta,
        tx,
        CancellationToken::new(),
    );
    state.spawn_notification(ctx);
    empty(StatusCode::ACCEPTED)
}

/// A 2026 request: the header checks, the envelope, step-up scopes, then the chain; the
/// answer is JSON, or an SSE stream once the handler sends a message first.
async fn modern_request<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: axum::http::request::Parts,
    id: RequestId,
    method: String,
    params: Option<Box<RawValue>>,
) -> Response {
    let hs = ModernHeaders::of(&parts.headers);
    let supported = state.kernel.identity.supported;
    // The body's params, moved (not copied) into the one copy the envelope and the
    // context share: the envelope scan then records the members the dispatcher reads.
    let shared = params.map(Arc::new);
    let params = shared.as_deref().map(|b| &**b);
    if method == "initialize" && !meta::carries_modern_envelope(params) {
        // A legacy handshake on a server that serves only 2026.
        let err = intake::initialize_refused(supported, params);
        return error_response(StatusCode::BAD_REQUEST, Some(&id), &err);
    }
    // One scan of the params gives the protocol version, the tool name and what
    // the headers mirror; params it cannot read for sure take the probes.
    let checked = match headers::RequestFields::scan(params) {
        Some(fields) => {
            let schema = match fields.name() {
                Some(n) if method == "tools/call" => state.kernel.header_schemas.get(n),
                _ => None,
            };
            headers::validate_request_fields(&hs, &method, &fields, schema.as_deref())
        }
        None => {
            let (pv, schema) = if method == "tools/call" {
                let (pv, name) = version_and_tool_name(params);
                (pv, name.and_then(|n| state.kernel.header_schemas.get(&n)))
            } else {
                (body_protocol_version(params), None)
            };
            headers::validate_request_headers(
                &hs,
                &method,
                params,
                pv.as_deref(),
                schema.as_deref(),
            )
        }
    };
    if let Err(e) = checked {
        return error_response(StatusCode::BAD_REQUEST, Some(&id), &e.to_error_object());
    }
    let (version, meta) = match intake::check_envelope(supported, shared.as_ref()) {
        Ok(x) => x,
        Err(e) => return error_response(modern_status(Some(e.code)), Some(&id), &e),
    };
    if let Some(r) = state.step_up(&parts, [(method.as_str(), params)]) {
        return r;
    }
    let listen = method == mcp_core::types::methods::SUBSCRIPTIONS_LISTEN;
    // A listen stream is long-lived, not work in flight: it holds no slot (the
    // builder's `max_listens` bounds it).
    let permit = if listen {
        None
    } else {
        match state.permit() {
            Ok(p) => Some(p),
            Err(r) => return r,
        }
    };
    let (tx, rx) = mpsc::channel(64);
    // Cancelled by the client closing the stream, or by the end of a shutdown.
    let cancel = state.shutdown.child_token();
    let mut incoming = into_incoming(parts);
    if listen {
        // Its context lives as long as the stream: see `detached`.
        incoming.http = detached(incoming.http);
    }
    let ctx = modern_context(
        state,
        incoming,
        &method,
        shared,
        Some(id.clone()),
        Some(version),
        Some(meta),
        tx,
        cancel.clone(),
    );
    let fin = state
        .run_request(ctx, cancel.clone(), id, permit, true, |_| {})
        .await;
    state
        .respond(rx, fin, modern_status, Vec::new(), Some(cancel))
        .await
}

#[allow(clippy::too_many_arguments)]
fn modern_context<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    http: Incoming,
    method: &str,
    params: Option<Arc<Box<RawValue>>>,
    id: Option<RequestId>,
    version: Option<ProtocolVersion>,
    meta: Option<RequestMeta>,
    tx: mpsc::Sender<Vec<u8>>,
    cancel: CancellationToken,
) -> Context {
    let mut extensions = Extensions::default();
    extensions.insert(http.http);
    if let Some(p) = http.principal {
        extensions.insert(p);
    }
    let conn = Arc::new(ConnShared::new(
        tx,
        state.kernel.options.peer_request_timeout,
        state.kernel.filters.clone(),
    ));
    Context::new(ContextParts {
        method,
        params,
        id,
        version,
        era: Era::Modern,
        meta,
        session: None,
        extensions,
        cancel,
        peer: Peer {
            conn,
            out: None,
            era: Era::Modern,
            in_initialize: false,
            task: None,
        },
    })
}

/// The context of a legacy message in `session`; `out` routes its messages to a
/// request-scoped stream (else they go to the session's stream).
pub(super) fn legacy_context(
    session: &HttpSession,
    http: Incoming,
    method: &str,
    params: Option<&RawValue>,
    id: Option<RequestId>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    cancel: CancellationToken,
) -> Context {
    let mut extensions = Extensions::default();
    extensions.insert(http.http);
    if let Some(p) = http.principal {
        extensions.insert(p);
    }
    let version = session.state.lock().expect("session lock").version;
    let params = params.map(|p| Arc::new(p.to_owned()));
    Context::new(ContextParts {
        method,
        meta: intake::legacy_meta(params.as_ref()).ok().flatten(),
        params,
        id,
        version,
        era: Era::Legacy,
        session: Some(&session.state),
        extensions,
        cancel,
        peer: Peer {
            conn: session.conn.clone(),
            out,
            era: Era::Legacy,
            in_initialize: method == "initialize",
            task: None,
        },
    })
}

fn session_header(id: &str) -> Vec<(HeaderName, HeaderValue)> {
    match HeaderValue::from_str(id) {
        Ok(v) => vec![(HeaderName::from_static("mcp-session-id"), v)],
        Err(_) => Vec::new(),
    }
}

fn bad_request(msg: &str) -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        None,
        &ErrorObject::new(-32000, msg),
    )
}

fn session_not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        None,
        &ErrorObject::new(-32001, "Session not found"),
    )
}

/// The session a legacy request names: 400 without the header, 404 when unknown (or owned
/// by another subject), 503 when it has to come from a session store that cannot be reached.
async fn find_session<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: &axum::http::request::Parts,
) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = header_str(&parts.headers, &MCP_SESSION_ID) else {
        return Err(bad_request(
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    match state.find_session(id).await {
        Ok(Some(s)) if s.owned_by(parts) => Ok(s),
        Ok(_) => Err(session_not_found()),
        Err(e) => Err(store_unavailable(&e)),
    }
}

/// The answer to a request that needs the session store while it cannot be reached.
fn store_unavailable(e: &crate::session::StoreError) -> Response {
    tracing::warn!(error = %e, "session store unavailable");
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        &ErrorObject::new(
            -32000,
            "Service Unavailable: the session store cannot be reached",
        ),
    )
}

/// Applies a message the session does not answer: a response to a server-to-client
/// request, or a notification (cancellation applied before the chain).
pub(super) fn apply_unanswered<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    session: &HttpSession,
    http: &Incoming,
    msg: Msg,
) {
    match msg {
        Msg::Response { id, outcome } => {
            if let Some(id) = id
                && !session.conn.complete(&id, outcome)
            {
                tracing::debug!(%id, "response to an unknown request dropped");
            }
        }
        Msg::Notification { method, params } => {
            if method == "notifications/cancelled" {
                session.in_flight.cancel_named(params.as_deref());
            }
            let ctx = legacy_context(
                session,
                http.clone(),
                &method,
                params.as_deref(),
                None,
                None,
                session.closed.child_token(),
            );
            state.spawn_notification(ctx);
        }
        Msg::Request { .. } => unreachable!("requests are answered"),
    }
}

/// Starts one legacy request in `session` (`inline`: see [`HttpState::run_request`]).
/// `params` may be borrowed from the body: the context takes its own copy, and only an
/// `initialize` keeps them longer (to commit the handshake).
#[allow(clippy::too_many_arguments)]
pub(super) async fn start_legacy_request<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    session: &Arc<HttpSession>,
    http: Incoming,
    id: RequestId,
    method: &str,
    params: Option<impl std::borrow::Borrow<RawValue>>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    permit: Option<OwnedSemaphorePermit>,
    inline: bool,
) -> Fin {
    let params: Option<&RawValue> = params.as_ref().map(|p| p.borrow());
    let cancel = session.closed.child_token();
    let control = match &out {
        Some(o) if state.resumable(session) && state.prime_for(session).is_some() => {
            Some(super::resume::SseStreamControl { out: o.clone() })
        }
        _ => None,
    };
    let mut ctx = legacy_context(
        session,
        http,
        method,
        params,
        Some(id.clone()),
        out,
        cancel.clone(),
    );
    if let Some(c) = control {
        ctx.extensions_mut().insert(c);
    }
    let is_init = method == "initialize";
    let init_params: Option<Box<RawValue>> = if is_init {
        params.map(ToOwned::to_owned)
    } else {
        None
    };
    if !is_init {
        session.in_flight.insert(id.clone(), cancel.clone());
    }
    let s = session.clone();
    let rid = id.clone();
    let st = state.clone();
    state
        .run_request(ctx, cancel, id, permit, inline, move |out| {
            if is_init {
                if let Some(Ok(Reply::Result(raw))) = out {
                    intake::commit_initialize(&s.state, Some(&rid), init_params.as_deref(), raw);
                }
            } else {
                s.in_flight.remove(&rid);
            }
            s.touch();
            // A change made by a request still running when its POST was answered
            // (streamed) is stored here; the POST stores what changed before answering.
            if !st.opts.stateless_legacy && s.unsaved_record().is_some() {
                tokio::spawn(async move {
                    let _ = st.persist(&s).await;
                });
            }
        })
        .await
}

/// A legacy POST; `header_version` is the `MCP-Protocol-Version` header as [`handle`]
/// read it (`Some(None)`: not a revision).
async fn legacy_post<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: axum::http::request::Parts,
    frame: Frame<'_>,
    header_version: Option<Option<ProtocolVersion>>,
) -> Response {
    // The messages stay borrowed from the body: a request's context copies what it needs.
    // A single message (the usual body) goes without the vectors of a batch.
    let (one, many, batch) = match frame {
        Frame::Single(r) => (Some(r), Vec::new(), false),
        Frame::Batch(items) => (None, items, true),
    };
    let is_init = matches!(&one, Some(Ok(Message::Request(r))) if r.method == "initialize");
    if let Some(parsed) = header_version
        && !is_init
        && let Err(r) = check_legacy_version(state, &parts, parsed)
    {
        return r;
    }
    if is_init {
        return legacy_initialize(state, into_incoming(parts), one).await;
    }
    let stateless = state.opts.stateless_legacy;
    let session = match legacy_session(state, &parts, header_version.flatten()).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let session_version = session.state.lock().expect("session lock").version;
    if batch && session_version != Some(ProtocolVersion::V2025_03_26) {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::invalid_request(
                "Invalid Request: batches are only allowed in 2025-03-26 sessions",
            ),
        );
    }
    let mut errors = Vec::new();
    let mut single = None;
    let mut requests = Vec::new();
    for item in one.into_iter().chain(many) {
        match item {
            Err(e) => {
                if !batch {
                    return error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
                }
                if e.should_reply() {
                    let mut out = Vec::new();
                    jsonrpc::write_error(&mut out, e.id.as_ref(), &e.error);
                    errors.push(out);
                }
            }
            Ok(Message::Request(r)) if !batch => single = Some((r.id, r.method, r.params)),
            Ok(Message::Request(r)) => requests.push((r.id, r.method, r.params)),
            Ok(other) => apply_unanswered(state, &session, &incoming(&parts), owned(other)),
        }
    }
    let done = |r: Response| {
        if stateless {
            session.close();
        }
        r
    };
    let each = single.iter().chain(&requests).map(|(_, m, p)| (&**m, *p));
    if let Some(r) = state.step_up(&parts, each) {
        return done(r);
    }
    let http = into_incoming(parts);
    if single.is_none() && requests.is_empty() && errors.is_empty() {
        return done(empty(StatusCode::ACCEPTED));
    }
    if let Some((id, method, params)) = single {
        return legacy_single(state, &session, http, id, &method, params).await;
    }
    done(legacy_batch(state, &session, http, requests, errors).await)
}

/// The `MCP-Protocol-Version` of a legacy request (not `initialize`): a legacy revision
/// the server serves, else 400 naming the ones it does.
fn check_legacy_version<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: &axum::http::request::Parts,
    parsed: Option<ProtocolVersion>,
) -> Result<(), Response> {
    let supported = state.kernel.identity.supported;
    if parsed.is_some_and(|v| v.era() == Era::Legacy && supported.contains(v)) {
        return Ok(());
    }
    let v = header_str(&parts.headers, &MCP_PROTOCOL_VERSION).unwrap_or_default();
    Err(bad_request(&format!(
        "Bad Request: unsupported MCP-Protocol-Version: {v} (supported: {})",
        supported
            .handshake()
            .map(ProtocolVersion::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The session a legacy request runs in: the one it names, or (stateless legacy) a
/// throwaway one at the revision of its header.
async fn legacy_session<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: &axum::http::request::Parts,
    header_version: Option<ProtocolVersion>,
) -> Result<Arc<HttpSession>, Response> {
    if !state.opts.stateless_legacy {
        return find_session(state, parts).await;
    }
    let s = stateless_session(state);
    {
        let mut st = s.state.lock().expect("session lock");
        st.initialized = true;
        st.version = Some(header_version.unwrap_or(ProtocolVersion::V2025_03_26));
    }
    Ok(s)
}

/// One legacy request, answered as JSON when it is done at once, else as an SSE stream
/// (resumable when the session is).
async fn legacy_single<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    session: &Arc<HttpSession>,
    http: Incoming,
    id: RequestId,
    method: &str,
    params: Option<&RawValue>,
) -> Response {
    let stateless = state.opts.stateless_legacy;
    let permit = match state.permit() {
        Ok(p) => p,
        Err(r) => {
            if stateless {
                session.close();
            }
            return r;
        }
    };
    let (tx, rx) = out_channel();
    let fin = start_legacy_request(
        state,
        session,
        http,
        id,
        method,
        params,
        Some(tx.clone()),
        Some(permit),
        true,
    )
    .await;
    // A stateless request's session lives as long as its answer: a streamed answer keeps
    // it until the body ends (a client that leaves cancels the request).
    let close = stateless.then(|| CloseOnDrop(session.clone()));
    let (fin, rx) = match recycle_if_unused(fin, tx, rx) {
        Ok(out) => {
            // Answered at once, nothing sent and no sender left: what both answers below
            // give for that, without their channel.
            let r = match out {
                Some((frame, _)) => json_response(StatusCode::OK, frame),
                None => empty(StatusCode::NO_CONTENT),
            };
            if !stateless {
                let _ = state.persist(session).await;
            }
            return match close {
                Some(guard) => close_with_body(r, guard),
                None => r,
            };
        }
        Err(pending) => pending,
    };
    let r = if !stateless && state.resumable(session) {
        state.respond_resumable(session, rx, fin).await
    } else {
        state
            .respond(rx, fin, legacy_status, Vec::new(), None)
            .await
    };
    match close {
        Some(guard) => close_with_body(r, guard),
        None => r,
    }
}

/// A 2025-03-26 batch: one JSON array once every request is answered (`errors`: the
/// answers to the items that did not decode).
async fn legacy_batch<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    session: &Arc<HttpSession>,
    http: Incoming,
    requests: Vec<(RequestId, std::borrow::Cow<'_, str>, Option<&RawValue>)>,
    errors: Vec<Vec<u8>>,
) -> Response {
    let mut fins = Vec::new();
    for (id, method, params) in requests {
        let permit = match state.permit() {
            Ok(p) => p,
            Err(r) => return r,
        };
        let fin = start_legacy_request(
            state,
            session,
            http.clone(),
            id,
            &method,
            params,
            None,
            Some(permit),
            true,
        )
        .await;
        fins.push(fin);
    }
    let mut parts_out = errors;
    for f in fins {
        if let Some((frame, _)) = f.wait().await {
            parts_out.push(frame);
        }
    }
    if !state.opts.stateless_legacy {
        let _ = state.persist(session).await;
    }
    let mut out = vec![b'['];
    for (i, p) in parts_out.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(p);
    }
    out.push(b']');
    json_response(StatusCode::OK, out)
}

async fn legacy_initialize<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    http: Incoming,
    item: Option<Result<Message<'_>, DecodeError>>,
) -> Response {
    let Some(Ok(Message::Request(jsonrpc::Request { id, method, params }))) = item else {
        unreachable!("checked by the caller")
    };
    let permit = match state.permit() {
        Ok(p) => p,
        Err(r) => return r,
    };
    let stateless = state.opts.stateless_legacy;
    let session = if stateless {
        stateless_session(state)
    } else {
        match state.create_session(false) {
            Some(s) => s,
            None => {
                return error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some(&id),
                    &ErrorObject::new(-32000, "Server busy: too many sessions"),
                );
            }
        }
    };
    session.set_owner(http.principal.as_ref());
    let (tx, rx) = mpsc::channel(64);
    let fin = start_legacy_request(
        state,
        &session,
        http,
        id,
        &method,
        params,
        Some(tx),
        Some(permit),
        true,
    )
    .await;
    let headers = if stateless {
        Vec::new()
    } else {
        session_header(&session.id)
    };
    let r = state.respond(rx, fin, legacy_status, headers, None).await;
    if stateless {
        session.close();
    } else if r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v == "application/json")
        && !session.initialized()
    {
        // The handshake failed: no session.
        state.remove_session(&session.id);
        let mut r = r;
        r.headers_mut().remove("mcp-session-id");
        return r;
    } else if let Err(e) = state.persist(&session).await {
        // Stored before the client learns the session id, since its next request may reach
        // another process: a session the store does not hold is not handed out.
        state.remove_session(&session.id);
        return store_unavailable(&e);
    }
    r
}

async fn legacy_get<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: &axum::http::request::Parts,
) -> Response {
    if !accepts(&parts.headers, "text/event-stream") {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            &ErrorObject::invalid_request("Not Acceptable: Accept must list text/event-stream"),
        );
    }
    let session = match find_session(state, parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let resumed = header_str(&parts.headers, &LAST_EVENT_ID)
        .filter(|v| !v.is_empty())
        .map(|last| state.resume(&session, last));
    let resumed = match resumed {
        Some(resuming) => resuming.await,
        None => None,
    };
    let mut r = match resumed {
        Some(r) => r,
        None => {
            let Ok(att) = session.attach(state.prime_for(&session)).await else {
                return error_response(
                    StatusCode::CONFLICT,
                    None,
                    &ErrorObject::new(
                        -32000,
                        "Conflict: a stream is already open for this session",
                    ),
                );
            };
            let s = session.clone();
            let generation = att.generation;
            let mut body = SseBody::new(att.rx, None, state.opts.keep_alive)
                .end_on(state.until_drain(&session.closed))
                .on_drop(move || s.detach(generation));
            body.raw = true;
            if att.pending.is_empty() {
                // Lets proxies and clients see the stream open at once.
                body.push_raw(super::resume::stream_open());
            }
            for b in att.pending {
                body.push_raw(b);
            }
            sse_response(body)
        }
    };
    for (k, v) in session_header(&session.id) {
        r.headers_mut().insert(k, v);
    }
    r
}

async fn legacy_delete<E: Endpoint + 'static>(
    state: &Arc<HttpState<E>>,
    parts: &axum::http::request::Parts,
) -> Response {
    let session = match find_session(state, parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match state.delete_session(&session.id).await {
        Ok(()) => empty(StatusCode::OK),
        Err(e) => store_unavailable(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::headers::HeaderSource;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn one_pass_probe_reads_what_the_two_probes_read() {
        let pv = r#""io.modelcontextprotocol/protocolVersion""#;
        let cases = [
            format!(
                r#"{{"name":"add","_meta":{{{pv}:"2026-07-28","x":[1,{{}}]}},"arguments":{{}}}}"#
            ),
            format!(r#"{{"_meta":{{{pv}:"2026-07-28"}}}}"#),
            r#"{"name":"add"}"#.to_owned(),
            // What one probe reads and the other does not: each keeps its own answer.
            r#"{"name":"add","_meta":5}"#.to_owned(),
            format!(r#"{{"name":7,"_meta":{{{pv}:"2026-07-28"}}}}"#),
            format!(r#"{{"name":"a","name":"b","_meta":{{{pv}:"2026-07-28"}}}}"#),
            format!(r#"{{"name":"add","_meta":{{{pv}:3}}}}"#),
            r#"{"name":null,"_meta":null}"#.to_owned(),
            "[1,2]".to_owned(),
        ];
        for c in &cases {
            let p = raw(c);
            let apart = (body_protocol_version(Some(&p)), tool_name(Some(&p)));
            assert_eq!(version_and_tool_name(Some(&p)), apart, "{c}");
        }
        assert_eq!(version_and_tool_name(None), (None, None));
        let p = raw(&cases[0]);
        assert_eq!(
            version_and_tool_name(Some(&p)),
            (Some("2026-07-28".into()), Some("add".into()))
        );
        let p = raw(&cases[4]);
        assert_eq!(
            version_and_tool_name(Some(&p)),
            (Some("2026-07-28".into()), None)
        );
        let p = raw(&cases[3]);
        assert_eq!(version_and_tool_name(Some(&p)), (None, Some("add".into())));
    }

    #[test]
    fn modern_headers_read_what_the_map_holds() {
        let mut map = HeaderMap::new();
        map.append(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        map.append("mcp-name", HeaderValue::from_static("a"));
        map.append("content-type", HeaderValue::from_static("application/json"));
        map.append("mcp-name", HeaderValue::from_static("b"));
        map.append("mcp-param-region", HeaderValue::from_static("us"));
        let by_map = headers::HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
            for v in map.get_all(name) {
                each(v.as_bytes());
            }
        });
        let ours = ModernHeaders::of(&map);
        let names = [
            headers::MCP_PROTOCOL_VERSION,
            headers::MCP_METHOD,
            headers::MCP_NAME,
            "Mcp-Param-Region",
            "mcp-name",
            "Content-Type",
        ];
        for name in names {
            let values = |h: &dyn HeaderSource| {
                let mut out = Vec::new();
                h.for_each_value(name, &mut |v| out.push(v.to_vec()));
                out
            };
            assert_eq!(values(&ours), values(&by_map), "{name}");
        }
        let mut names = Vec::new();
        ours.for_each_value(headers::MCP_NAME, &mut |v| names.push(v.to_vec()));
        assert_eq!(names, [b"a".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn accept_checks_read_every_value() {
        let h = |values: &[&str]| {
            let mut m = HeaderMap::new();
            for v in values {
                m.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            m
        };
        let both = ["application/json", "text/event-stream"];
        assert_eq!(accepts_any(&h(&[]), &both), None);
        assert_eq!(accepts_any(&h(&["text/html"]), &both), Some(false));
        assert_eq!(
            accepts_any(&h(&["text/html", "text/event-stream"]), &both),
            Some(true)
        );
        assert_eq!(accepts_any(&h(&["text/*, */*;q=0.1"]), &both), Some(true));
        assert!(accepts(
            &h(&["application/json, text/event-stream"]),
            "text/event-stream"
        ));
        assert!(!accepts(&h(&["application/json"]), "text/event-stream"));
        assert!(!accepts(&h(&[]), "text/event-stream"));
        for values in [
            &[][..],
            &["text/html"],
            &["text/html", "text/event-stream"],
            &["text/*, */*;q=0.1"],
            &["application/json"],
        ] {
            let m = h(values);
            assert_eq!(
                PostHeaders::read(&m).accept_ok,
                accepts_any(&m, &both),
                "{values:?}"
            );
        }
        for (hay, needle) in [
            ("abc", "bc"),
            ("abc", "abcd"),
            ("aab", "ab"),
            ("", "a"),
            ("x", ""),
        ] {
            assert_eq!(
                contains(hay, needle),
                hay.contains(needle),
                "{hay} {needle}"
            );
        }
    }

    #[test]
    fn a_detached_request_is_equal_and_shares_nothing_with_the_read_buffer() {
        use axum::body::Bytes;
        // What hyper hands over: values and target sliced out of one read buffer.
        let buf = Bytes::from_static(b"/mcp?x=1 secret-token 2026-07-28 caf\xc3\xa9");
        let within = |p: *const u8| buf.as_ptr_range().contains(&p);
        let mut headers = HeaderMap::new();
        let mut auth = HeaderValue::from_maybe_shared(buf.slice(9..21)).unwrap();
        auth.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, auth);
        headers.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_maybe_shared(buf.slice(22..32)).unwrap(),
        );
        headers.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_maybe_shared(buf.slice(33..)).unwrap(),
        );
        let uri = axum::http::Uri::from_maybe_shared(buf.slice(0..8)).unwrap();
        assert!(within(uri.path().as_ptr()));
        let http = HttpRequest {
            method: Method::POST,
            uri,
            headers,
        };
        let copy = detached(http.clone());
        assert_eq!(copy.method, http.method);
        assert_eq!(copy.uri, http.uri);
        assert_eq!(copy.uri.query(), Some("x=1"));
        assert_eq!(copy.headers, http.headers);
        assert!(copy.headers[header::AUTHORIZATION].is_sensitive());
        assert!(!copy.headers[&MCP_PROTOCOL_VERSION].is_sensitive());
        let values: Vec<_> = copy.headers.get_all(&MCP_PROTOCOL_VERSION).iter().collect();
        assert_eq!(values, ["2026-07-28", "caf\u{e9}"]);
        assert!(!within(copy.uri.path().as_ptr()));
        for v in copy.headers.values() {
            assert!(!within(v.as_bytes().as_ptr()), "{v:?}");
        }
    }

    #[test]
    fn one_header_pass_reads_the_first_values() {
        let mut m = HeaderMap::new();
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_static(" application/json "),
        );
        m.append(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        m.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_static("2025-06-18"),
        );
        m.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_static("2026-07-28"),
        );
        m.append(header::HOST, HeaderValue::from_static("localhost"));
        let seen = PostHeaders::read(&m);
        assert_eq!(seen.content_type, header_str(&m, &header::CONTENT_TYPE));
        assert_eq!(seen.content_type, Some("application/json"));
        assert_eq!(seen.protocol_version, header_str(&m, &MCP_PROTOCOL_VERSION));
        assert_eq!(seen.protocol_version, Some("2025-06-18"));
        assert_eq!(seen.accept_ok, None);
        // A first value that is not text reads as absent, as with `HeaderMap::get`.
        let mut m = HeaderMap::new();
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_bytes(b"\xffx").unwrap(),
        );
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        assert_eq!(PostHeaders::read(&m).content_type, None);
        assert_eq!(header_str(&m, &header::CONTENT_TYPE), None);
    }
}
