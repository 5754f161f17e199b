//! The connection core: one reader task routing what arrives, one writer task, the table of
//! pending requests and progress subscriptions.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::jsonrpc::{self, DecodeOptions, Frame, Message, RequestId};
use mcp_core::types::{LoggingMessageParams, ProgressParams};
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{broadcast, mpsc};

use super::cache::ResponseCache;
use super::error::ClientError;
use super::handler::{DynHandler, ServerNotification};
use crate::wire::framing::{FrameReader, Framing, ReadEvent};
use crate::wire::pending::{IdStyle, Pending};
use crate::wire::writer::{FramingSource, Outbound, WriterOptions, write_loop};

/// The largest frame the client reads (a larger one is skipped).
pub(crate) const MAX_FRAME: usize = 64 << 20;

/// How much of a garbage frame an error quotes.
const GARBAGE_SAMPLE: usize = 120;

pub(crate) type Outcome = Result<Box<RawValue>, ClientError>;

/// What the writer task is asked to do.
pub(crate) enum Outgoing {
    /// Write one message (a JSON text without newline).
    Frame(Vec<u8>),
    /// A pending request was dropped (or timed out): `frame` is its
    /// `notifications/cancelled`. Streams write it; modern HTTP closes the request's
    /// response stream instead.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    Cancel {
        /// The request given up on.
        id: RequestId,
        /// Its `notifications/cancelled`.
        frame: Vec<u8>,
    },
    /// Shut the writing side down (EOF for the peer) and stop.
    Close,
}

impl Outbound for Outgoing {
    fn body(&self) -> Option<&[u8]> {
        match self {
            Outgoing::Frame(f) | Outgoing::Cancel { frame: f, .. } => Some(f),
            Outgoing::Close => None,
        }
    }
}

/// Runs when the reader sees the end of the stream; may name a better reason than "closed"
/// (the child process's exit status).
pub(crate) type EofHook =
    Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ClientError> + Send>> + Send>;

#[derive(Default)]
pub(crate) struct State {
    pub(crate) progress: HashMap<RequestId, mpsc::UnboundedSender<ProgressParams>>,
    /// The requests that take their own log messages ([`RequestOptions::on_log`]), by id.
    ///
    /// [`RequestOptions::on_log`]: super::RequestOptions::on_log
    pub(crate) logs: HashMap<RequestId, mpsc::UnboundedSender<LoggingMessageParams>>,
    /// The requests that answer their own server requests ([`RequestOptions::handler`]),
    /// by id.
    ///
    /// [`RequestOptions::handler`]: super::RequestOptions::handler
    pub(crate) handlers: HashMap<RequestId, Arc<dyn DynHandler>>,
    /// Open `subscriptions/listen` streams by request id (= subscription id).
    pub(crate) subscriptions: HashMap<RequestId, mpsc::UnboundedSender<ServerNotification>>,
    /// Why the connection is closed, once it is.
    pub(crate) closed: Option<ClientError>,
    /// How many frames were not JSON-RPC, and the start of the first (for the error of a
    /// handshake that never got a real answer).
    pub(crate) garbage: usize,
    pub(crate) first_garbage: Option<String>,
}

/// What the reader task and the client handles share.
pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    /// The requests waiting for their answers (ids `0`, `1`, ...); closed with the
    /// connection, after `State::closed` is set, so a refused registration reads why.
    pub(crate) pending: Pending<Outcome>,
    pub(crate) handler: Arc<dyn DynHandler>,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
    /// The negotiated revision, for shaping answers to server requests.
    pub(crate) version: Mutex<ProtocolVersion>,
    /// The response cache, which list and resource notifications invalidate.
    pub(crate) cache: OnceLock<Arc<ResponseCache>>,
}

impl Shared {
    pub(crate) fn closed_error(&self) -> ClientError {
        self.state
            .lock()
            .expect("client state lock")
            .closed
            .clone()
            .unwrap_or(ClientError::Closed(None))
    }

    /// Fails the pending request `id` with `why` (when it is still pending).
    pub(crate) fn fail(&self, id: &RequestId, why: ClientError) {
        self.pending.complete(id, Err(why));
    }

    /// Whether the request `id` still waits for its answer.
    pub(crate) fn is_pending(&self, id: &RequestId) -> bool {
        self.pending.contains(id)
    }

    /// Counts a frame that is not JSON-RPC, keeping the start of the first.
    pub(crate) fn saw_garbage(&self, bytes: &[u8]) {
        let mut st = self.state.lock().expect("client state lock");
        st.garbage += 1;
        if st.first_garbage.is_none() {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(GARBAGE_SAMPLE)]);
            st.first_garbage = Some(text.into_owned());
        }
    }

    /// What a failed handshake reports when the server wrote only garbage: a timeout or a
    /// closed stream says little, the server's stray output says what went wrong (a
    /// server logging to stdout, the wrong program, another protocol).
    pub(crate) fn explain_handshake(&self, e: ClientError) -> ClientError {
        if !matches!(
            e,
            ClientError::Timeout | ClientError::Closed(_) | ClientError::ProcessExited(_)
        ) {
            return e;
        }
        let st = self.state.lock().expect("client state lock");
        match &st.first_garbage {
            Some(first) => ClientError::InvalidResponse(format!(
                "no valid answer to the handshake ({e}); the server wrote {} frame(s) that \
                 are not JSON-RPC, the first: {first:?}",
                st.garbage
            )),
            None => e,
        }
    }

    pub(crate) fn close(&self, why: ClientError) {
        {
            let mut st = self.state.lock().expect("client state lock");
            if st.closed.is_none() {
                st.closed = Some(why);
            }
            st.progress.clear();
            st.subscriptions.clear();
        }
        // Wakes every waiter; each reads `closed`.
        self.pending.close();
    }
}

/// The shared state of a new connection.
pub(crate) fn new_shared(handler: Arc<dyn DynHandler>) -> Arc<Shared> {
    let (notifications, _) = broadcast::channel(256);
    Arc::new(Shared {
        state: Mutex::new(State::default()),
        pending: Pending::new(IdStyle::Number, 0),
        handler,
        notifications,
        version: Mutex::new(ProtocolVersion::LATEST_HANDSHAKE),
        cache: OnceLock::new(),
    })
}

/// Starts the reader and writer tasks over `reader`/`writer`.
pub(crate) fn start<R, W>(
    reader: R,
    writer: W,
    handler: Arc<dyn DynHandler>,
    eof_hook: Option<EofHook>,
    max_frame: usize,
) -> (Arc<Shared>, mpsc::UnboundedSender<Outgoing>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let shared = new_shared(handler);
    let (tx, rx) = mpsc::unbounded_channel();
    let opts = WriterOptions {
        framing: FramingSource::Fixed(Framing::Newline),
        close: None,
        shutdown: true,
    };
    let writing = shared.clone();
    tokio::spawn(async move {
        if let Err(e) = write_loop(writer, rx, opts).await {
            writing.close(ClientError::from(e));
        }
    });
    tokio::spawn(read_loop(
        reader,
        shared.clone(),
        tx.downgrade(),
        eof_hook,
        max_frame,
    ));
    (shared, tx)
}

async fn read_loop<R: AsyncRead + Unpin>(
    reader: R,
    shared: Arc<Shared>,
    out: mpsc::WeakUnboundedSender<Outgoing>,
    eof_hook: Option<EofHook>,
    max_frame: usize,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), max_frame);
    let why = loop {
        match frames.next().await {
            Ok(ReadEvent::Frame(bytes)) => route(&shared, &out, &bytes),
            Ok(ReadEvent::Oversized { size }) => {
                oversized(&shared, size, max_frame, frames.skipped_head());
            }
            Ok(ReadEvent::BadHeader) => tracing::warn!("bad frame header from the server"),
            Ok(ReadEvent::Eof) => break None,
            Err(e) => break Some(ClientError::from(e)),
        }
    };
    let why = match (why, eof_hook) {
        (Some(e), _) => e,
        (None, Some(hook)) => hook().await,
        (None, None) => ClientError::Closed(Some("the server closed the stream".into())),
    };
    shared.close(why);
}

/// A frame above the limit was skipped (memory stays bounded). When it was the answer to a
/// pending request — its `id` is in the kept head, or the head shows a response and only
/// one request is pending — that request fails now, naming the sizes, instead of timing
/// out. Anything else (a huge notification) is only logged.
fn oversized(shared: &Shared, size: usize, limit: usize, head: &[u8]) {
    let scan = scan_head(head);
    let id = match scan.id {
        Some(id) => Some(id),
        None if scan.response => shared.pending.only(),
        None => None,
    };
    match id.filter(|id| shared.is_pending(id)) {
        Some(id) => {
            tracing::warn!(size, limit, %id, "oversized answer from the server dropped");
            shared.fail(
                &id,
                ClientError::InvalidResponse(format!(
                    "the answer of {size} bytes exceeds the client's frame limit of {limit} \
                     bytes and was dropped"
                )),
            );
        }
        None => tracing::warn!(size, limit, "oversized frame from the server skipped"),
    }
}

/// What the head of a (cut) JSON-RPC object tells: its `id`, when the member is complete
/// within the head, and whether it is a response (`result`/`error` seen, no `method`).
#[derive(Debug, Default, PartialEq)]
struct HeadScan {
    id: Option<RequestId>,
    response: bool,
}

fn scan_head(head: &[u8]) -> HeadScan {
    let mut scan = HeadScan::default();
    let mut method = false;
    let mut i = skip_ws(head, 0);
    if head.get(i) == Some(&b'{') {
        i += 1;
        // Walk the top-level members until the head ends or something is off.
        while let Some(key_end) = string_end(head, skip_ws(head, i)) {
            let key = &head[skip_ws(head, i)..key_end];
            i = skip_ws(head, key_end);
            if head.get(i) != Some(&b':') {
                break;
            }
            i = skip_ws(head, i + 1);
            match key {
                b"\"result\"" | b"\"error\"" => scan.response = true,
                b"\"method\"" => method = true,
                _ => {}
            }
            let Some(end) = value_end(head, i) else { break };
            if key == b"\"id\"" {
                scan.id = serde_json::from_slice(&head[i..end]).ok();
            }
            i = skip_ws(head, end);
            if head.get(i) != Some(&b',') {
                break;
            }
            i += 1;
        }
    }
    if method {
        return HeadScan::default();
    }
    scan
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// The index after the string starting at `i`, if it is complete.
fn string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The index after the value starting at `i`, if it is complete (a scalar must be followed
/// by its delimiter, or it may be cut).
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            (i..b.len()).find(|&j| matches!(b[j], b',' | b'}' | b']') || b[j].is_ascii_whitespace())
        }
    }
}

/// Routes one received frame (a message or a batch): responses to their waiters, progress
/// to its subscriber, notifications to the handler, server requests to the handler (the
/// answer goes out through `out`).
pub(crate) fn route(shared: &Arc<Shared>, out: &mpsc::WeakUnboundedSender<Outgoing>, bytes: &[u8]) {
    route_on(shared, out, bytes, None);
}

/// As [`route`], for a frame that came on the stream of request `related` (a Streamable
/// HTTP POST's answer stream, or its resumption): a log message there is that request's.
pub(crate) fn route_on(
    shared: &Arc<Shared>,
    out: &mpsc::WeakUnboundedSender<Outgoing>,
    bytes: &[u8],
    related: Option<&RequestId>,
) {
    let opts = DecodeOptions {
        allow_batch: true,
        ..DecodeOptions::default()
    };
    match jsonrpc::decode(bytes, opts) {
        Frame::Single(Ok(m)) => route_message(shared, out, m, related),
        Frame::Single(Err(e)) => route_invalid(shared, out, bytes, e),
        Frame::Batch(items) => {
            for m in items {
                match m {
                    Ok(m) => route_message(shared, out, m, related),
                    Err(e) => tracing::debug!(error = %e, "undecodable batch element ignored"),
                }
            }
        }
    }
}

/// A frame that is not a valid JSON-RPC message. Garbage is ignored (and logged): a
/// server's stray output must not break the connection. But a malformed *response* whose
/// id is readable (both `result` and `error`, neither, an error object that does not
/// decode) fails that request at once instead of leaving it to time out, and a malformed
/// server *request* with a readable id is answered with the error, as JSON-RPC asks.
fn route_invalid(
    shared: &Arc<Shared>,
    out: &mpsc::WeakUnboundedSender<Outgoing>,
    bytes: &[u8],
    e: jsonrpc::DecodeError,
) {
    shared.saw_garbage(bytes);
    let Some(id) = e.id.clone() else {
        tracing::debug!(error = %e, "undecodable frame from the server ignored");
        return;
    };
    if has_method(bytes) {
        tracing::debug!(error = %e, %id, "malformed request from the server answered");
        if e.should_reply() {
            let mut buf = Vec::new();
            jsonrpc::write_error(&mut buf, Some(&id), &e.error);
            if let Some(tx) = out.upgrade() {
                let _ = tx.send(Outgoing::Frame(buf));
            }
        }
        return;
    }
    if shared.is_pending(&id) {
        tracing::debug!(error = %e, %id, "malformed response fails its request");
        let why = e
            .error
            .message
            .strip_prefix("Invalid Request: ")
            .unwrap_or(&e.error.message)
            .to_owned();
        shared.fail(
            &id,
            ClientError::InvalidResponse(format!("{why} (id {id})")),
        );
    } else {
        tracing::debug!(error = %e, %id, "malformed response to an unknown request ignored");
    }
}

/// Whether a JSON object has a `method` member (whatever its value).
fn has_method(bytes: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Probe>(bytes).is_ok_and(|p| p.method.is_some())
}

fn route_message(
    shared: &Arc<Shared>,
    out: &mpsc::WeakUnboundedSender<Outgoing>,
    m: Message<'_>,
    related: Option<&RequestId>,
) {
    match m {
        Message::Response(r) => {
            let Some(id) = r.id else {
                tracing::debug!("id-less error from the server: {:?}", r.outcome.err());
                return;
            };
            let outcome = r.outcome.map(|raw| raw.to_owned());
            if !shared
                .pending
                .complete(&id, outcome.map_err(ClientError::Rpc))
            {
                tracing::debug!(%id, "response to an unknown request ignored");
            }
        }
        Message::Notification(n) => {
            let params: Option<serde_json::Value> =
                n.params.and_then(|p| serde_json::from_str(p.get()).ok());
            if n.method == "notifications/progress"
                && let Some(p) = params
                    .as_ref()
                    .and_then(|v| serde_json::from_value::<ProgressParams>(v.clone()).ok())
            {
                let st = shared.state.lock().expect("client state lock");
                if let Some(tx) = st.progress.get(&p.progress_token) {
                    let _ = tx.send(p);
                }
            }
            let note = ServerNotification {
                method: n.method.into_owned(),
                params,
            };
            // Before anyone hears of a change (a subscription, the handler, the broadcast),
            // the cache forgets what it made stale.
            if let Some(cache) = shared.cache.get() {
                cache.observe(&note);
            }
            if note.method == "notifications/cancelled"
                && let Some(id) = note
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|i| serde_json::from_value::<RequestId>(i.clone()).ok())
            {
                // A server may end a listen stream (stdio) by cancelling it.
                let listening = (shared.state.lock().expect("client state lock"))
                    .subscriptions
                    .remove(&id)
                    .is_some();
                if listening {
                    shared.fail(
                        &id,
                        ClientError::Closed(Some("the server cancelled the subscription".into())),
                    );
                }
            }
            if let Some(sub) = note.subscription_id() {
                let st = shared.state.lock().expect("client state lock");
                if let Some(tx) = st.subscriptions.get(&sub) {
                    let _ = tx.send(note.clone());
                }
            }
            if !(note.method == "notifications/message" && taken_as_log(shared, &note, related)) {
                shared.handler.notify(&note);
            }
            let _ = shared.notifications.send(note);
        }
        Message::Request(r) => {
            let id = r.id;
            let method = r.method.into_owned();
            let params = r.params.map(|p| p.to_owned());
            let handler = (own_handler(shared, params.as_deref(), related))
                .unwrap_or_else(|| shared.handler.clone());
            let version = *shared.version.lock().expect("version lock");
            let out = out.clone();
            tokio::spawn(async move {
                let outcome = handler.handle(method, params, version).await;
                let mut buf = Vec::new();
                match outcome {
                    Ok(json) => jsonrpc::write_result(&mut buf, &id, &json),
                    Err(e) => jsonrpc::write_error(&mut buf, Some(&id), &e),
                }
                if let Some(tx) = out.upgrade() {
                    let _ = tx.send(Outgoing::Frame(buf));
                }
            });
        }
    }
}

/// The handler of the request a server request belongs to, when that request answers its
/// own ([`RequestOptions::handler`](super::RequestOptions::handler)): the one whose stream
/// it came on (`related`), else the one its `_meta` names, as for log messages.
fn own_handler(
    shared: &Shared,
    params: Option<&RawValue>,
    related: Option<&RequestId>,
) -> Option<Arc<dyn DynHandler>> {
    let st = shared.state.lock().expect("client state lock");
    if st.handlers.is_empty() {
        return None;
    }
    let named = || {
        let params: serde_json::Value = serde_json::from_str(params?.get()).ok()?;
        let id = params.get("_meta")?.get(mcp_core::meta::RELATED_REQUEST)?;
        serde_json::from_value::<RequestId>(id.clone()).ok()
    };
    let id = related.cloned().or_else(named)?;
    st.handlers.get(&id).cloned()
}

/// Hands a log message to the request it belongs to, when that request takes its own
/// ([`RequestOptions::on_log`](super::RequestOptions::on_log)); whether it did. Its request
/// is the one whose stream it came on (`related`, Streamable HTTP), else the one its
/// `_meta` names ([`RELATED_REQUEST`](mcp_core::meta::RELATED_REQUEST): our servers' on a
/// byte stream, where nothing else says).
fn taken_as_log(shared: &Shared, note: &ServerNotification, related: Option<&RequestId>) -> bool {
    let named = || {
        let meta = note.params.as_ref()?.get("_meta")?;
        let id = meta.get(mcp_core::meta::RELATED_REQUEST)?;
        serde_json::from_value::<RequestId>(id.clone()).ok()
    };
    let Some(id) = related.cloned().or_else(named) else {
        return false;
    };
    let st = shared.state.lock().expect("client state lock");
    let Some(tx) = st.logs.get(&id) else {
        return false;
    };
    let Some(log) = (note.params.clone()).and_then(|p| serde_json::from_value(p).ok()) else {
        return false;
    };
    tx.send(log).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_of_a_cut_frame_names_its_id() {
        let scan = |s: &str| scan_head(s.as_bytes());
        let id7 = Some(RequestId::Number(7));
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"aaa"#),
            HeadScan {
                id: id7.clone(),
                response: true
            }
        );
        assert_eq!(
            scan(r#" { "result" : {"a":"}\"{"}, "id" : "x,y" , "jsonrpc":"2.0"}"#),
            HeadScan {
                id: Some(RequestId::from("x,y")),
                response: true
            }
        );
        // The id is cut (it may go on: 71, 712, ...): not guessed.
        assert_eq!(scan(r#"{"jsonrpc":"2.0","id":7"#).id, None);
        // The id comes after the cut result: only "a response" is known.
        assert_eq!(
            scan(r#"{"result":{"text":"aaaa"#),
            HeadScan {
                id: None,
                response: true
            }
        );
        // Requests and notifications are not answers.
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a"#),
            HeadScan::default()
        );
        assert_eq!(scan("not json"), HeadScan::default());
    }
}
