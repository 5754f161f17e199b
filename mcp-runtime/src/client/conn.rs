//! The connection core: one reader task routing what arrives, one writer task, the table of
//! pending requests and progress subscriptions.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use mcp_core::jsonrpc::{self, DecodeOptions, Frame, Message, RequestId};
use mcp_core::types::ProgressParams;
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{broadcast, mpsc, oneshot};

use super::error::ClientError;
use super::handler::{DynHandler, ServerNotification};
use crate::transport::framing::{FrameReader, Framing, ReadEvent, write_frame};

/// The largest frame the client reads (a larger one is skipped).
pub(crate) const MAX_FRAME: usize = 64 << 20;

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

/// Runs when the reader sees the end of the stream; may name a better reason than "closed"
/// (the child process's exit status).
pub(crate) type EofHook =
    Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ClientError> + Send>> + Send>;

#[derive(Default)]
pub(crate) struct State {
    pub(crate) pending: HashMap<RequestId, oneshot::Sender<Outcome>>,
    pub(crate) progress: HashMap<RequestId, mpsc::UnboundedSender<ProgressParams>>,
    /// Open `subscriptions/listen` streams by request id (= subscription id).
    pub(crate) subscriptions: HashMap<RequestId, mpsc::UnboundedSender<ServerNotification>>,
    /// Why the connection is closed, once it is.
    pub(crate) closed: Option<ClientError>,
}

/// What the reader task and the client handles share.
pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    pub(crate) handler: Arc<dyn DynHandler>,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
    /// The negotiated revision, for shaping answers to server requests.
    pub(crate) version: Mutex<ProtocolVersion>,
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
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn fail(&self, id: &RequestId, why: ClientError) {
        let waiter = self
            .state
            .lock()
            .expect("client state lock")
            .pending
            .remove(id);
        if let Some(tx) = waiter {
            let _ = tx.send(Err(why));
        }
    }

    /// Whether the request `id` still waits for its answer.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_pending(&self, id: &RequestId) -> bool {
        self.state
            .lock()
            .expect("client state lock")
            .pending
            .contains_key(id)
    }

    pub(crate) fn close(&self, why: ClientError) {
        let pending = {
            let mut st = self.state.lock().expect("client state lock");
            if st.closed.is_none() {
                st.closed = Some(why);
            }
            st.progress.clear();
            st.subscriptions.clear();
            std::mem::take(&mut st.pending)
        };
        // Dropping the senders wakes every waiter; each reads `closed`.
        drop(pending);
    }
}

/// The shared state of a new connection.
pub(crate) fn new_shared(handler: Arc<dyn DynHandler>) -> Arc<Shared> {
    let (notifications, _) = broadcast::channel(256);
    Arc::new(Shared {
        state: Mutex::new(State::default()),
        handler,
        notifications,
        version: Mutex::new(ProtocolVersion::LATEST_HANDSHAKE),
    })
}

/// Starts the reader and writer tasks over `reader`/`writer`.
pub(crate) fn start<R, W>(
    reader: R,
    writer: W,
    handler: Arc<dyn DynHandler>,
    eof_hook: Option<EofHook>,
) -> (Arc<Shared>, mpsc::UnboundedSender<Outgoing>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let shared = new_shared(handler);
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(write_loop(writer, rx, shared.clone()));
    tokio::spawn(read_loop(reader, shared.clone(), tx.downgrade(), eof_hook));
    (shared, tx)
}

async fn write_loop<W: AsyncWrite + Unpin>(
    mut w: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    shared: Arc<Shared>,
) {
    let mut buf = Vec::new();
    loop {
        let Some(first) = rx.recv().await else {
            // Every client handle is gone: close the stream.
            let _ = w.shutdown().await;
            return;
        };
        let mut close = false;
        let mut next = Some(first);
        // Batch whatever is queued into one write.
        while let Some(msg) = next.take() {
            match msg {
                Outgoing::Frame(f) | Outgoing::Cancel { frame: f, .. } => {
                    write_frame(&mut buf, Framing::Newline, &f)
                }
                Outgoing::Close => {
                    close = true;
                    break;
                }
            }
            next = rx.try_recv().ok();
        }
        if !buf.is_empty() {
            let res = async {
                w.write_all(&buf).await?;
                w.flush().await
            }
            .await;
            buf.clear();
            if let Err(e) = res {
                tracing::debug!(error = %e, "client transport write failed");
                shared.close(ClientError::from(e));
                return;
            }
        }
        if close {
            let _ = w.shutdown().await;
            return;
        }
    }
}

async fn read_loop<R: AsyncRead + Unpin>(
    reader: R,
    shared: Arc<Shared>,
    out: mpsc::WeakUnboundedSender<Outgoing>,
    eof_hook: Option<EofHook>,
) {
    let mut frames = FrameReader::new(BufReader::new(reader), MAX_FRAME);
    let why = loop {
        match frames.next().await {
            Ok(ReadEvent::Frame(bytes)) => route(&shared, &out, &bytes),
            Ok(ReadEvent::Oversized { size }) => {
                tracing::warn!(size, "oversized frame from the server skipped");
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

/// Routes one received frame (a message or a batch): responses to their waiters, progress
/// to its subscriber, notifications to the handler, server requests to the handler (the
/// answer goes out through `out`).
pub(crate) fn route(shared: &Arc<Shared>, out: &mpsc::WeakUnboundedSender<Outgoing>, bytes: &[u8]) {
    let opts = DecodeOptions {
        allow_batch: true,
        ..DecodeOptions::default()
    };
    match jsonrpc::decode(bytes, opts) {
        Frame::Single(Ok(m)) => route_message(shared, out, m),
        Frame::Single(Err(e)) => {
            // Garbage on the stream is ignored (and logged); it answers nothing.
            tracing::debug!(error = %e, "undecodable frame from the server ignored");
        }
        Frame::Batch(items) => {
            for m in items.into_iter().flatten() {
                route_message(shared, out, m);
            }
        }
    }
}

fn route_message(shared: &Arc<Shared>, out: &mpsc::WeakUnboundedSender<Outgoing>, m: Message<'_>) {
    match m {
        Message::Response(r) => {
            let Some(id) = r.id else {
                tracing::debug!("id-less error from the server: {:?}", r.outcome.err());
                return;
            };
            let waiter = shared
                .state
                .lock()
                .expect("client state lock")
                .pending
                .remove(&id);
            match waiter {
                Some(tx) => {
                    let _ = tx.send(
                        r.outcome
                            .map(|raw| raw.to_owned())
                            .map_err(ClientError::Rpc),
                    );
                }
                None => tracing::debug!(%id, "response to an unknown request ignored"),
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
            if note.method == "notifications/cancelled"
                && let Some(id) = note
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|i| serde_json::from_value::<RequestId>(i.clone()).ok())
            {
                // A server may end a listen stream (stdio) by cancelling it.
                let waiter = {
                    let mut st = shared.state.lock().expect("client state lock");
                    match st.subscriptions.remove(&id) {
                        Some(_) => st.pending.remove(&id),
                        None => None,
                    }
                };
                if let Some(tx) = waiter {
                    let _ = tx.send(Err(ClientError::Closed(Some(
                        "the server cancelled the subscription".into(),
                    ))));
                }
            }
            if let Some(sub) = note.subscription_id() {
                let st = shared.state.lock().expect("client state lock");
                if let Some(tx) = st.subscriptions.get(&sub) {
                    let _ = tx.send(note.clone());
                }
            }
            shared.handler.notify(&note);
            let _ = shared.notifications.send(note);
        }
        Message::Request(r) => {
            let id = r.id;
            let method = r.method.into_owned();
            let params = r.params.map(|p| p.to_owned());
            let handler = shared.handler.clone();
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
