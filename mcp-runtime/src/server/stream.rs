//! The connection kernel for byte streams (stdio, sockets, in-memory pairs).
//!
//! One reader loop per connection decodes frames and fixes the era from the first request;
//! legacy `initialize` runs inline and commits the session only after the chain succeeds;
//! every other request runs in its own task, at most `max_in_flight` at once (at the bound
//! the reader stops reading: backpressure). One writer task owns the output, buffers and
//! flushes when its queue drains.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

use mcp_core::codec::{self, WireCodec};
use mcp_core::jsonrpc::{self, DecodeOptions, ErrorObject, Frame, Message, RequestId};
use mcp_core::meta::{self, RequestMeta};
use mcp_core::types::InitializeResult;
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::chain::middleware::Endpoint;
use crate::chain::request_run;
use crate::common::error::{HandlerResult, Reply};
use crate::common::extensions::Extensions;
use crate::common::panic::CatchUnwind;
use crate::context::peer::{ConnShared, Peer};
use crate::context::{Context, RequestShared};
use crate::session::{ClientView, ServerIdentity, Session, SessionState};
use crate::wire::filter::Filters;
use crate::wire::framing::{FrameReader, Framing, ReadEvent, write_frame};

/// Limits and timeouts of a connection.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Requests handled at once; at the bound the reader stops reading.
    pub max_in_flight: usize,
    /// The largest frame accepted, in bytes.
    pub max_frame: usize,
    /// A per-request timeout (`None`: no limit). A timed-out request answers -32603.
    pub request_timeout: Option<Duration>,
    /// How long a server-to-client request waits for its answer.
    pub peer_request_timeout: Duration,
    /// On EOF or SIGTERM, how long in-flight requests may take to finish.
    pub shutdown_grace: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            max_in_flight: 256,
            max_frame: 16 * 1024 * 1024,
            request_timeout: None,
            peer_request_timeout: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Everything one connection's kernel needs, shared with its tasks.
pub(crate) struct Kernel<E> {
    pub(crate) endpoint: Arc<E>,
    pub(crate) identity: Arc<ServerIdentity>,
    pub(crate) options: ServerOptions,
    pub(crate) filters: Filters,
    /// The `inputSchema` of each tool whose schema carries `x-mcp-header` annotations, for
    /// the 2026 HTTP header checks (`Mcp-Param-*`).
    /// (Kept in step with dynamic registration.)
    pub(crate) header_schemas: Arc<crate::handler::cell::HeaderSchemas>,
}

impl<E> Clone for Kernel<E> {
    fn clone(&self) -> Self {
        Self {
            endpoint: self.endpoint.clone(),
            identity: self.identity.clone(),
            options: self.options.clone(),
            filters: self.filters.clone(),
            header_schemas: self.header_schemas.clone(),
        }
    }
}

/// What a context is built from, on any transport.
pub(crate) struct ContextParts<'a> {
    pub(crate) method: &'a str,
    pub(crate) params: Option<&'a RawValue>,
    pub(crate) id: Option<RequestId>,
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) era: Era,
    pub(crate) meta: Option<RequestMeta>,
    /// The legacy session (inserted for the dispatcher), if any.
    pub(crate) session: Option<&'a Session>,
    pub(crate) extensions: Extensions,
    pub(crate) cancel: CancellationToken,
    pub(crate) peer: Peer,
}

/// Builds the context of one message.
// Only the HTTP transport builds a context from params still in the frame.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn new_context(p: ContextParts<'_>) -> Context {
    let shared = p.params.map(|p| Arc::new(p.to_owned()));
    new_context_shared(p, shared)
}

/// [`new_context`] with the params already copied out of the frame (`shared` holds the
/// text of `p.params`), so the context and the envelope read from them share one copy.
pub(crate) fn new_context_shared(
    p: ContextParts<'_>,
    shared: Option<Arc<Box<RawValue>>>,
) -> Context {
    debug_assert_eq!(
        shared.as_deref().map(|b| b.get()),
        p.params.map(RawValue::get)
    );
    let session = match p.era {
        Era::Legacy => p.session.cloned(),
        Era::Modern => None,
    };
    let session_client = session
        .as_ref()
        .and_then(|s| s.lock().expect("session lock").client.clone());
    Context {
        method: Arc::from(p.method),
        params: shared,
        id: p.id,
        version: p.version,
        era: p.era,
        shared: Arc::new(RequestShared {
            meta: p.meta,
            client: Default::default(),
            session_client,
            session,
            last_progress: Mutex::new(None),
        }),
        extensions: p.extensions,
        cancel: p.cancel,
        peer: p.peer,
        lazy_round: None,
    }
}

/// Encodes the outcome of a request; also returns the error code when it is an error.
pub(crate) fn encode_outcome(id: &RequestId, out: HandlerResult) -> (Vec<u8>, Option<i32>) {
    let mut frame = Vec::new();
    let code = match out {
        Ok(Reply::Result(raw)) => {
            // Sized once: the envelope adds the id and ~40 bytes to the result.
            frame.reserve(raw.get().len() + 64);
            jsonrpc::write_result(&mut frame, id, raw.get());
            None
        }
        Ok(Reply::None) => {
            tracing::error!(%id, "the chain produced no result for a request");
            let e = ErrorObject::internal();
            jsonrpc::write_error(&mut frame, Some(id), &e);
            Some(e.code)
        }
        Err(e) => {
            if e.as_protocol().is_none() {
                tracing::error!(%id, error = %e, "request failed");
            }
            let e = e.to_wire();
            jsonrpc::write_error(&mut frame, Some(id), &e);
            Some(e.code)
        }
    };
    (frame, code)
}

/// Where the responses of one frame go: straight to the writer, or into a batch answer.
#[derive(Clone)]
enum Sink {
    Direct,
    Batch(Arc<Mutex<Vec<Vec<u8>>>>),
}

struct Conn {
    shared: Arc<ConnShared>,
    session: Session,
    era: Mutex<Option<Era>>,
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    shutdown: CancellationToken,
}

impl Conn {
    async fn respond(&self, sink: &Sink, frame: Vec<u8>) {
        match sink {
            Sink::Direct => {
                self.shared.send(frame).await;
            }
            Sink::Batch(items) => items.lock().expect("batch lock").push(frame),
        }
    }

    /// Answers a request with its outcome (`None`: cancelled, nothing to send); logs the
    /// error of a notification, which never reaches the wire (semantics item 15).
    /// Returns the size of the answer sent (0: none).
    async fn finish(
        &self,
        sink: &Sink,
        id: Option<&RequestId>,
        out: Option<HandlerResult>,
    ) -> usize {
        match (id, out) {
            (Some(id), Some(out)) => {
                let (frame, _) = encode_outcome(id, out);
                let size = frame.len();
                self.respond(sink, frame).await;
                size
            }
            (None, Some(Err(e))) => {
                tracing::warn!(error = %e, "error while handling a notification");
                0
            }
            _ => 0,
        }
    }

    async fn respond_error(&self, sink: &Sink, id: Option<&RequestId>, error: &ErrorObject) {
        let mut out = Vec::new();
        jsonrpc::write_error(&mut out, id, error);
        self.respond(sink, out).await;
    }
}

impl<E: Endpoint + 'static> Kernel<E> {
    /// Serves one connection until EOF (or `stop` fires), then drains and returns.
    pub(crate) async fn serve<R, W>(
        &self,
        reader: R,
        writer: W,
        stop: CancellationToken,
    ) -> io::Result<()>
    where
        R: AsyncBufRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut frames = FrameReader::new(reader, self.options.max_frame);
        // The writer learns the framing from the first frame read.
        let framing = Arc::new(std::sync::OnceLock::<Framing>::new());
        let (tx, rx) = mpsc::channel::<Vec<u8>>(1024);
        let close_writer = CancellationToken::new();
        let writer_task = tokio::spawn(write_loop(
            writer,
            rx,
            close_writer.clone(),
            framing.clone(),
        ));
        let conn = Arc::new(Conn {
            shared: Arc::new(ConnShared::new(
                tx,
                self.options.peer_request_timeout,
                self.filters.clone(),
            )),
            session: Arc::new(Mutex::new(SessionState::default())),
            era: Mutex::new(None),
            in_flight: Mutex::new(HashMap::new()),
            shutdown: CancellationToken::new(),
        });
        let tracker = TaskTracker::new();
        let permits = Arc::new(Semaphore::new(self.options.max_in_flight.max(1)));
        let mut result = Ok(());
        loop {
            // Backpressure: wait for a free slot before reading the next frame.
            let Ok(permit) = permits.clone().acquire_owned().await else {
                break;
            };
            let ev = tokio::select! {
                ev = frames.next() => ev,
                _ = stop.cancelled() => break,
            };
            if let Some(f) = frames.framing() {
                let _ = framing.set(f);
            }
            let bytes = match ev {
                Ok(ReadEvent::Frame(b)) => b,
                Ok(ReadEvent::Eof) => break,
                Ok(ReadEvent::Oversized { size }) => {
                    tracing::warn!(
                        size,
                        limit = self.options.max_frame,
                        "oversized frame skipped"
                    );
                    let err = ErrorObject::invalid_request(format!(
                        "Invalid Request: message of {size} bytes exceeds the limit of {} bytes",
                        self.options.max_frame
                    ));
                    conn.respond_error(&Sink::Direct, None, &err).await;
                    continue;
                }
                Ok(ReadEvent::BadHeader) => {
                    let err = ErrorObject::new(
                        jsonrpc::PARSE_ERROR,
                        "Parse error: bad Content-Length header",
                    );
                    conn.respond_error(&Sink::Direct, None, &err).await;
                    continue;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            let bytes = match self.filters.incoming(bytes) {
                Some(b) => b,
                None => continue,
            };
            self.handle_frame(&conn, &tracker, bytes, permit).await;
        }
        // Shutdown: stop reading, let in-flight requests finish within the grace period
        // (listen streams end now, with their closing result).
        conn.shared.closing.cancel();
        tracker.close();
        if tokio::time::timeout(self.options.shutdown_grace, tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!("shutdown grace period over; cancelling in-flight requests");
            conn.shutdown.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(1), tracker.wait()).await;
        }
        conn.shared.fail_all();
        close_writer.cancel();
        match writer_task.await {
            Ok(Ok(())) => result,
            Ok(Err(e)) => Err(e),
            Err(e) => Err(io::Error::other(e)),
        }
    }

    async fn handle_frame(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        bytes: Vec<u8>,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        let allow_batch = conn.session.lock().expect("session lock").version
            == Some(ProtocolVersion::V2025_03_26);
        let opts = DecodeOptions {
            allow_batch,
            ..DecodeOptions::default()
        };
        // Decoded in place: what outlives the frame (params, ids) is copied out by the
        // context, so the frame needs no shared copy.
        match jsonrpc::decode(&bytes, opts) {
            Frame::Single(Err(e)) => {
                if e.should_reply() {
                    conn.respond_error(&Sink::Direct, e.id.as_ref(), &e.error)
                        .await;
                }
            }
            Frame::Single(Ok(msg)) => {
                self.handle_message(conn, tracker, msg, Sink::Direct, Some(permit))
                    .await
            }
            Frame::Batch(items) => {
                // Answer a batch with one array, after every request in it is done.
                let collected = Arc::new(Mutex::new(Vec::new()));
                let sink = Sink::Batch(collected.clone());
                let batch_tracker = TaskTracker::new();
                for item in items {
                    match item {
                        Err(e) => {
                            if e.should_reply() {
                                conn.respond_error(&sink, e.id.as_ref(), &e.error).await;
                            }
                        }
                        Ok(msg) => {
                            self.handle_message(conn, &batch_tracker, msg, sink.clone(), None)
                                .await
                        }
                    }
                }
                batch_tracker.close();
                let conn = conn.clone();
                tracker.spawn(async move {
                    batch_tracker.wait().await;
                    drop(permit);
                    let items = std::mem::take(&mut *collected.lock().expect("batch lock"));
                    if items.is_empty() {
                        return; // only notifications: nothing to answer
                    }
                    let mut out = vec![b'['];
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(item);
                    }
                    out.push(b']');
                    conn.shared.send(out).await;
                });
            }
        }
    }

    async fn handle_message(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        msg: Message<'_>,
        sink: Sink,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) {
        let (id, method, params) = match msg {
            Message::Response(r) => {
                if let Some(id) = r.id {
                    let outcome = r.outcome.map(|raw| raw.to_owned());
                    if !conn.shared.complete(&id, outcome) {
                        tracing::debug!(%id, "response to an unknown request dropped");
                    }
                }
                return;
            }
            Message::Request(r) => (Some(r.id), r.method, r.params),
            Message::Notification(n) => (None, n.method, n.params),
        };

        // The first request fixes the era of the stream. A modern opening that fails its
        // checks (say -32022 for a version we do not serve) fixes nothing, so the client can
        // retry with another version or fall back to `initialize` on the same stream. A
        // server serving no modern revision answers a modern probe as a legacy server does
        // (-32600, below): a -32022 would tell a dual-era client "modern, do not fall back".
        let (locked, opening) = {
            let era = conn.era.lock().expect("era lock");
            match (*era, &id) {
                (Some(e), _) => (Some(e), None),
                (None, Some(_)) => {
                    let e = if method != "initialize"
                        && self.identity.supported.serves_modern()
                        && meta::carries_modern_envelope(params)
                    {
                        Era::Modern
                    } else {
                        Era::Legacy
                    };
                    (None, Some(e))
                }
                (None, None) => (None, None),
            }
        };
        let era = locked.or(opening).unwrap_or(Era::Legacy);
        // Copied out of the frame once: the envelope and the context share this copy.
        let shared_params = params.map(|p| Arc::new(p.to_owned()));
        let lock_era = |e: Era| {
            conn.era.lock().expect("era lock").get_or_insert(e);
        };

        // Era checks and the modern envelope, before the chain.
        let supported = self.identity.supported;
        let (version, request_meta) = match era {
            Era::Modern if id.is_none() => {
                // 2026 notifications carry no required envelope.
                let m = shared_params
                    .as_ref()
                    .and_then(|p| RequestMeta::from_shared_params(p).ok().flatten());
                let v = m
                    .as_ref()
                    .and_then(|m| m.version)
                    .unwrap_or(ProtocolVersion::LATEST);
                (Some(v), m)
            }
            Era::Modern => {
                if method == "initialize" {
                    if let Some(id) = &id {
                        let err = codec::unsupported_protocol_version(
                            supported.iter().map(ProtocolVersion::as_str),
                            &offered_protocol_version(params),
                        );
                        conn.respond_error(&sink, Some(id), &err).await;
                    }
                    return;
                }
                match self.check_modern_shared(shared_params.as_ref()) {
                    Ok((v, m)) => {
                        lock_era(Era::Modern);
                        (Some(v), Some(m))
                    }
                    Err(err) => {
                        conn.respond_error(&sink, id.as_ref(), &err).await;
                        return;
                    }
                }
            }
            Era::Legacy => {
                if opening.is_some() {
                    lock_era(Era::Legacy);
                }
                // One parse of `_meta` serves both the envelope check and the context; the
                // probe runs only when the envelope is malformed (a typed read fails).
                let request_meta = match &shared_params {
                    Some(p) if !without_meta(params) => RequestMeta::from_shared_params(p),
                    _ => Ok(None),
                };
                let modern = match &request_meta {
                    Ok(m) => m.as_ref().is_some_and(RequestMeta::is_modern_envelope),
                    Err(_) => meta::carries_modern_envelope(params),
                };
                if id.is_some() && method != "initialize" && modern {
                    let err = if supported.serves_modern() {
                        ErrorObject::invalid_request(
                            "Invalid Request: a 2026-07-28 request on a connection initialized with the legacy handshake",
                        )
                    } else {
                        ErrorObject::invalid_request(format!(
                            "Invalid Request: this server speaks only the initialize handshake ({})",
                            supported.strings().join(", ")
                        ))
                    };
                    conn.respond_error(&sink, id.as_ref(), &err).await;
                    return;
                }
                let version = conn.session.lock().expect("session lock").version;
                // Legacy `_meta` is informational (progress token, trace context).
                (version, request_meta.ok().flatten())
            }
        };

        // Cancellation is applied before the chain sees the notification.
        if id.is_none()
            && method == "notifications/cancelled"
            && let Some(target) = cancelled_request_id(params)
            && let Some(token) = conn
                .in_flight
                .lock()
                .expect("in-flight lock")
                .remove(&target)
        {
            token.cancel();
        }

        // Not a child of the connection's shutdown token: most requests finish inline,
        // and only the ones that wait watch the shutdown (`run_request`).
        let cancel = CancellationToken::new();
        let in_initialize = method == "initialize";
        let ctx = new_context_shared(
            ContextParts {
                method: &method,
                params,
                id: id.clone(),
                version,
                era,
                meta: request_meta,
                session: Some(&conn.session),
                extensions: Extensions::default(),
                cancel: cancel.clone(),
                peer: Peer {
                    conn: conn.shared.clone(),
                    out: None,
                    era,
                    in_initialize,
                    task: None,
                },
            },
            shared_params,
        );

        if in_initialize && id.is_some() && era == Era::Legacy {
            // Inline: nothing else is read until the chain returns; commit after success.
            let out = self.run(ctx, &cancel).await;
            if let Some(Ok(Reply::Result(raw))) = &out {
                commit_initialize(&conn.session, id.as_ref(), params, raw);
            }
            if let (Some(out), Some(id)) = (out, id.as_ref()) {
                self.write_outcome(conn, &sink, id, out).await;
            }
            drop(permit);
            return;
        }

        self.run_request(conn, tracker, ctx, cancel, id, sink, permit)
            .await;
    }

    /// Runs one request or notification: answered inline when its chain completes on the
    /// first poll (no task, no in-flight entry), else moved into a task of its own, tracked
    /// for cancellation and shutdown (`request_run`).
    #[allow(clippy::too_many_arguments)]
    async fn run_request(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        ctx: Context,
        cancel: CancellationToken,
        id: Option<RequestId>,
        sink: Sink,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) {
        let mut chain = request_run::start(&self.endpoint, ctx);
        if let Poll::Ready(out) = request_run::poll_once(&mut chain).await {
            // Nobody else saw this request, so nothing can have cancelled it.
            let sent = conn.finish(&sink, id.as_ref(), Some(out)).await;
            drop(permit);
            if sent >= request_run::LARGE_ANSWER {
                // Let the writer start on a large answer before reading on: on a
                // current-thread runtime it would otherwise wait for the input to drain.
                tokio::task::yield_now().await;
            }
            return;
        }
        if let Some(id) = &id {
            conn.in_flight
                .lock()
                .expect("in-flight lock")
                .insert(id.clone(), cancel.clone());
        }
        let timeout = self.options.request_timeout;
        let conn = conn.clone();
        tracker.spawn(async move {
            let run = request_run::finish(chain, &cancel, timeout);
            tokio::pin!(run);
            let out = tokio::select! {
                biased;
                out = &mut run => out,
                // The grace period is over: the handler sees its token fire and may finish.
                _ = conn.shutdown.cancelled() => {
                    cancel.cancel();
                    run.await
                }
            };
            if let Some(id) = &id {
                conn.in_flight.lock().expect("in-flight lock").remove(id);
            }
            // A cancelled request sends nothing, even if its result arrived late.
            if !cancel.is_cancelled() {
                conn.finish(&sink, id.as_ref(), out).await;
            }
            drop(permit);
        });
    }

    /// The checks of a modern request before the chain: the `_meta` envelope and the
    /// revision it asks for. The params are the copy the context will share: the envelope
    /// shares them too, and records the members the dispatcher reads.
    pub(crate) fn check_modern_shared(
        &self,
        params: Option<&Arc<Box<RawValue>>>,
    ) -> Result<(ProtocolVersion, RequestMeta), ErrorObject> {
        self.negotiate(WireCodec::for_era(Era::Modern).validate_shared_request(params))
    }

    fn negotiate(
        &self,
        validated: Result<Option<RequestMeta>, ErrorObject>,
    ) -> Result<(ProtocolVersion, RequestMeta), ErrorObject> {
        validated.and_then(|m| {
            let m = m.unwrap_or_default();
            codec::negotiate_modern(&m, self.identity.supported).map(|v| (v, m))
        })
    }

    /// Runs the chain with panic catching, the optional timeout and cancellation.
    /// `None` when the request was cancelled.
    pub(crate) async fn run(
        &self,
        ctx: Context,
        cancel: &CancellationToken,
    ) -> Option<HandlerResult> {
        let fut = CatchUnwind::new(self.endpoint.call(ctx));
        request_run::finish(fut, cancel, self.options.request_timeout).await
    }

    async fn write_outcome(&self, conn: &Conn, sink: &Sink, id: &RequestId, out: HandlerResult) {
        let (frame, _) = encode_outcome(id, out);
        conn.respond(sink, frame).await;
    }
}

/// Whether `params` surely hold no `_meta` member, found without parsing them: a key that
/// decodes to `_meta` is either spelled so or written with an escape. Most legacy requests
/// carry none, and this scan is far cheaper than the parse that looks for it.
pub(crate) fn without_meta(params: Option<&RawValue>) -> bool {
    // Vectorized searches (the params may hold a large argument); the searcher is built once.
    static META: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("_meta"));
    params.is_none_or(|p| {
        let text = p.get().as_bytes();
        memchr::memchr(b'\\', text).is_none() && META.find(text).is_none()
    })
}

/// The `protocolVersion` an `initialize` offered (`data.requested` of the -32022 it gets on
/// a modern connection); empty when the params carry none.
pub(crate) fn offered_protocol_version(params: Option<&RawValue>) -> String {
    #[derive(serde::Deserialize)]
    struct Offer {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    params
        .and_then(|p| serde_json::from_str::<Offer>(p.get()).ok())
        .map(|o| o.protocol_version)
        .unwrap_or_default()
}

pub(crate) fn cancelled_request_id(params: Option<&RawValue>) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "requestId")]
        request_id: Option<RequestId>,
    }
    serde_json::from_str::<P>(params?.get()).ok()?.request_id
}

/// Commits the session from the `InitializeResult` actually sent (semantics item 21) and the
/// client as the dispatcher saw it (after any rewrite), falling back to the original params
/// when a middleware answered on its own.
pub(crate) fn commit_initialize(
    session: &Session,
    id: Option<&RequestId>,
    params: Option<&RawValue>,
    raw: &RawValue,
) {
    let Ok(result) = serde_json::from_str::<InitializeResult>(raw.get()) else {
        tracing::warn!("initialize result did not decode; connection stays uninitialized");
        return;
    };
    let Some(version) = ProtocolVersion::parse(&result.protocol_version) else {
        tracing::warn!(version = %result.protocol_version, "initialize answered an unknown version");
        return;
    };
    let mut s = session.lock().expect("session lock");
    let client = match s.pending_init.take() {
        Some((pid, client)) if Some(&pid) == id => client,
        _ => {
            let p = params.and_then(|p| {
                serde_json::from_str::<mcp_core::types::InitializeParams>(p.get()).ok()
            });
            Arc::new(ClientView {
                info: p.as_ref().map(|p| p.client_info.clone()),
                capabilities: p.map(|p| p.capabilities).unwrap_or_default(),
            })
        }
    };
    s.version = Some(version);
    s.client = Some(client);
    s.initialized = true;
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::Receiver<Vec<u8>>,
    close: CancellationToken,
    framing: Arc<std::sync::OnceLock<Framing>>,
) -> io::Result<()> {
    let mut buf = Vec::with_capacity(64 * 1024);
    loop {
        let first = tokio::select! {
            biased;
            m = rx.recv() => match m {
                Some(m) => m,
                None => return Ok(()),
            },
            _ = close.cancelled() => {
                // Drain what is queued, then stop.
                rx.close();
                let f = *framing.get().unwrap_or(&Framing::Newline);
                while let Ok(m) = rx.try_recv() {
                    write_frame(&mut buf, f, &m);
                }
                if !buf.is_empty() {
                    crate::wire::framing::flush_frames(&mut w, &buf).await?;
                }
                return Ok(());
            }
        };
        let f = *framing.get().unwrap_or(&Framing::Newline);
        write_frame(&mut buf, f, &first);
        // Everything already queued shares one write and one flush.
        while buf.len() < 1024 * 1024 {
            match rx.try_recv() {
                Ok(m) => write_frame(&mut buf, f, &m),
                Err(_) => break,
            }
        }
        if let Err(e) = crate::wire::framing::flush_frames(&mut w, &buf).await {
            // The peer went away: nothing more can be written.
            tracing::debug!(error = %e, "write failed; closing the writer");
            return Err(e);
        }
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn without_meta_is_sure_only_when_no_key_can_decode_to_meta() {
        assert!(without_meta(None));
        assert!(without_meta(Some(&raw(
            r#"{"name":"add","arguments":{"a":1}}"#
        ))));
        assert!(!without_meta(Some(&raw(
            r#"{"_meta":{"progressToken":1}}"#
        ))));
        // An escaped key may decode to `_meta`: the full parse decides.
        assert!(!without_meta(Some(&raw(
            r#"{"\u005fmeta":{"progressToken":1}}"#
        ))));
        // The parse it stands for agrees on what it lets through.
        let escaped = raw(r#"{"\u005fmeta":{"progressToken":7}}"#);
        assert!(RequestMeta::from_params(Some(&escaped)).unwrap().is_some());
    }
}
