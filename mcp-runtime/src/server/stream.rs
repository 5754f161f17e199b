//! The connection kernel for byte streams (stdio, sockets, in-memory pairs).
//!
//! One reader loop per connection decodes frames and fixes the era from the first request;
//! legacy `initialize` runs inline and commits the session only after the chain succeeds;
//! every other request runs in its own task, at most `max_in_flight` at once. At the bound
//! reading goes on: responses and notifications (cancellations, answers to the server's own
//! requests) and `ping` are handled at once, and requests wait for a slot, in order, up to
//! `max_waiting_bytes` of them; one more is refused with a busy error. Control never waits
//! behind the requests it controls, and a burst that fits is served, not refused. One
//! writer task owns the output, buffers and flushes when its queue drains.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::jsonrpc::{self, DecodeOptions, ErrorObject, Frame, Message, RequestId};
use mcp_core::params::Params;
use mcp_core::version::{Era, ProtocolVersion};
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::chain::request_run::{self, encode_outcome};
use crate::common::error::{HandlerResult, Reply};
use crate::context::Context;
use crate::context::peer::ConnShared;
use crate::session::intake::{self, InFlight};
use crate::session::{Session, SessionState};

pub(crate) use super::kernel::Kernel;
pub use super::kernel::ServerOptions;
use super::kernel::{Incoming, Origin, Started};
use crate::wire::framing::{FrameReader, Framing, ReadEvent};
use crate::wire::writer::{FramingSource, WriterOptions, write_loop};

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
    in_flight: InFlight,
    shutdown: CancellationToken,
    /// The revision of the last modern request (the session duration's
    /// `mcp.protocol.version` on a 2026 stream, which commits no session).
    #[cfg(feature = "otel")]
    modern_version: Mutex<Option<mcp_core::version::ProtocolVersion>>,
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

impl Kernel {
    /// Serves one connection until EOF (or `stop` fires), then drains and returns.
    ///
    /// `gone` fires when the peer can no longer be answered (its end of the output is
    /// closed); the kernel fires it too when a write fails. Then reading stops and the
    /// requests in flight are cancelled at once, with no shutdown grace, and the peer's
    /// leaving (a broken pipe, a reset) is the connection's normal end, not an error.
    pub(crate) async fn serve<R, W>(
        &self,
        reader: R,
        writer: W,
        stop: CancellationToken,
        gone: CancellationToken,
    ) -> io::Result<()>
    where
        R: AsyncBufRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        #[cfg(feature = "otel")]
        let started = std::time::Instant::now();
        let frames = FrameReader::new(reader, self.options.max_frame);
        // The writer learns the framing from the first frame read.
        let framing = Arc::new(std::sync::OnceLock::<Framing>::new());
        let (tx, rx) = mpsc::channel::<Vec<u8>>(1024);
        let close_writer = CancellationToken::new();
        let written = write_loop(
            writer,
            rx,
            WriterOptions {
                framing: FramingSource::Learned(framing.clone()),
                close: Some(close_writer.clone()),
                shutdown: false,
            },
        );
        let writer_task = tokio::spawn({
            let gone = gone.clone();
            async move {
                let r = written.await;
                if r.is_err() {
                    // Nothing more can be written: nobody is left to answer.
                    gone.cancel();
                }
                r
            }
        });
        let conn = Arc::new(Conn {
            shared: Arc::new(ConnShared::new(
                tx,
                self.options.peer_request_timeout,
                self.filters.clone(),
            )),
            session: Arc::new(Mutex::new(SessionState::default())),
            era: Mutex::new(None),
            in_flight: InFlight::default(),
            shutdown: CancellationToken::new(),
            #[cfg(feature = "otel")]
            modern_version: Mutex::new(None),
        });
        let tracker = TaskTracker::new();
        let mut slots = Slots {
            permits: Arc::new(Semaphore::new(self.options.max_in_flight.max(1))),
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            max_waiting_bytes: self.options.max_waiting_bytes,
        };
        // A read in progress owns the reader and is kept across the loop's turns: a frame
        // half read when a slot frees up must not be dropped.
        let mut reading = Box::pin(read_one(frames));
        let mut result = Ok(());
        let mut eof = false;
        loop {
            let ev = tokio::select! {
                (frames, ev) = &mut reading => {
                    if let Some(f) = frames.framing() {
                        let _ = framing.set(f);
                    }
                    reading.set(read_one(frames));
                    ev
                }
                slot = slots.permits.clone().acquire_owned(), if !slots.waiting.is_empty() => {
                    if let (Ok(slot), Some((_, bytes))) = (slot, slots.pop()) {
                        self.handle_frame(&conn, &tracker, bytes, Some(slot)).await;
                    }
                    continue;
                }
                _ = stop.cancelled() => break,
                _ = gone.cancelled() => break,
            };
            let bytes = match ev {
                Ok(ReadEvent::Eof) => {
                    eof = true;
                    break;
                }
                Ok(ev) => match self.frame_of(&conn, ev).await {
                    Some(b) => b,
                    None => continue,
                },
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if let Some(bytes) = self.filters.incoming(bytes) {
                self.admit(&conn, &tracker, &mut slots, bytes).await;
            }
        }
        self.drain_waiting(&conn, &tracker, &mut slots, eof, &gone)
            .await;
        self.wind_down(&conn, &tracker, &gone).await;
        conn.shared.fail_all();
        close_writer.cancel();
        let result = match writer_task.await {
            Ok(Ok(())) => result,
            Ok(Err(e)) => Err(e),
            Err(e) => Err(io::Error::other(e)),
        };
        let result = match result {
            // The peer closed its end: the normal end of a connection, not a failure.
            Err(e) if gone.is_cancelled() && peer_left(&e) => {
                tracing::debug!(error = %e, "the peer closed the connection");
                Ok(())
            }
            r => r,
        };
        #[cfg(feature = "otel")]
        record_session(&conn, started, &result);
        result
    }

    /// The frame of a read event; an oversized frame or a bad header block is answered
    /// here (`None`).
    async fn frame_of(&self, conn: &Conn, ev: ReadEvent) -> Option<Vec<u8>> {
        let err = match ev {
            ReadEvent::Frame(b) => return Some(b),
            ReadEvent::Eof => return None,
            ReadEvent::Oversized { size } => {
                let limit = self.options.max_frame;
                tracing::warn!(size, limit, "oversized frame skipped");
                ErrorObject::invalid_request(format!(
                    "Invalid Request: message of {size} bytes exceeds the limit of {limit} bytes"
                ))
            }
            ReadEvent::BadHeader => ErrorObject::new(
                jsonrpc::PARSE_ERROR,
                "Parse error: bad Content-Length header",
            ),
        };
        conn.respond_error(&Sink::Direct, None, &err).await;
        None
    }

    /// A frame read: run at once when a slot is free; at the cap, control (responses,
    /// notifications, `ping`) still goes through, a request waits (bounded in bytes) or is
    /// refused busy.
    async fn admit(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        slots: &mut Slots,
        bytes: Vec<u8>,
    ) {
        if slots.waiting.is_empty()
            && let Ok(slot) = slots.permits.clone().try_acquire_owned()
        {
            return self.handle_frame(conn, tracker, bytes, Some(slot)).await;
        }
        match at_cap(&bytes) {
            AtCap::Control => self.handle_frame(conn, tracker, bytes, None).await,
            AtCap::Cancel(target) => {
                // A request still waiting for a slot is dropped: it never starts, and a
                // cancelled request is not answered.
                let queued = slots
                    .waiting
                    .iter()
                    .position(|(id, _)| id.as_ref() == Some(&target));
                match queued.and_then(|i| slots.remove(i)) {
                    Some(_) => tracing::debug!(id = ?target, "cancelled while waiting for a slot"),
                    None => self.handle_frame(conn, tracker, bytes, None).await,
                }
            }
            AtCap::Request(id) if slots.fits(&bytes) => slots.push(id, bytes),
            AtCap::Request(id) => {
                let err = ErrorObject::new(
                    -32000,
                    "Server busy: too many requests waiting; send it again later",
                );
                conn.respond_error(&Sink::Direct, id.as_ref(), &err).await;
            }
        }
    }

    /// What was read before the end still runs: at EOF as slots free up (the client may
    /// still read the answers); on a stop it is answered "shutting down".
    async fn drain_waiting(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        slots: &mut Slots,
        eof: bool,
        gone: &CancellationToken,
    ) {
        while let Some((id, bytes)) = slots.pop() {
            if eof && !gone.is_cancelled() {
                let Ok(slot) = slots.permits.clone().acquire_owned().await else {
                    break;
                };
                self.handle_frame(conn, tracker, bytes, Some(slot)).await;
            } else if !gone.is_cancelled()
                && let Some(id) = id
            {
                let err =
                    ErrorObject::new(-32000, "Server shutting down: the request was not started");
                conn.respond_error(&Sink::Direct, Some(&id), &err).await;
            }
        }
    }

    /// Shutdown: reading has stopped; in-flight requests finish within the grace period
    /// (listen streams end now, with their closing result). A peer that is gone ends them
    /// at once: nobody is left to read their answers.
    async fn wind_down(&self, conn: &Conn, tracker: &TaskTracker, gone: &CancellationToken) {
        conn.shared.closing.cancel();
        tracker.close();
        let drained = tokio::select! {
            _ = tracker.wait() => true,
            _ = gone.cancelled() => {
                tracing::debug!("the peer is gone; cancelling in-flight requests");
                false
            }
            _ = tokio::time::sleep(self.options.shutdown_grace) => {
                tracing::warn!("shutdown grace period over; cancelling in-flight requests");
                false
            }
        };
        if !drained {
            conn.shutdown.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(1), tracker.wait()).await;
        }
    }

    async fn handle_frame(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        bytes: Vec<u8>,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
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
                self.handle_message(conn, tracker, msg, Sink::Direct, permit)
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
        // retry with another version or fall back to `initialize` on the same stream.
        let supported = self.identity.supported;
        // Copied out of the frame once: the era choice, the envelope and the context
        // share this copy and its one scan.
        let shared_params = params.map(Params::from);
        let locked = *conn.era.lock().expect("era lock");
        let era = match (locked, &id) {
            (Some(e), _) => e,
            (None, Some(_)) => intake::opening_era(supported, shared_params.as_ref()),
            (None, None) => Era::Legacy,
        };
        let lock_era = || {
            conn.era.lock().expect("era lock").get_or_insert(era);
        };
        if locked.is_none() && id.is_some() && era == Era::Legacy {
            lock_era();
        }
        let session_version = match era {
            Era::Legacy => conn.session.lock().expect("session lock").version,
            Era::Modern => None,
        };
        let admission = self.admit_message(
            era,
            session_version,
            id.as_ref(),
            &method,
            shared_params.as_ref(),
            None,
        );
        let admitted = match admission {
            Ok(a) => {
                #[cfg(feature = "otel")]
                if era == Era::Modern && a.version.is_some() {
                    *conn.modern_version.lock().expect("version lock") = a.version;
                }
                a
            }
            Err(err) => {
                if id.is_some() {
                    conn.respond_error(&sink, id.as_ref(), &err).await;
                }
                return;
            }
        };
        if locked.is_none() && id.is_some() && era == Era::Modern {
            lock_era();
        }

        // Cancellation is applied before the chain sees the notification.
        if id.is_none() && method == "notifications/cancelled" {
            conn.in_flight.cancel_named(params);
        }

        // Not a child of the connection's shutdown token: most requests finish inline,
        // and only the ones that wait watch the shutdown (`answer`).
        let cancel = CancellationToken::new();
        let in_initialize = method == "initialize";
        let incoming = Incoming {
            method: &method,
            id: id.clone(),
            params: shared_params,
            era,
            admitted,
            from: Origin::stream(&conn.session, conn.shared.clone()),
        };
        let ctx = Kernel::context(incoming, cancel.clone());

        if in_initialize && id.is_some() && era == Era::Legacy {
            // Inline: nothing else is read until the chain returns; commit after success.
            let out = self.run(ctx, &cancel).await;
            if let Some(Ok(Reply::Result(raw))) = &out {
                intake::commit_initialize(&conn.session, id.as_ref(), params, raw);
            }
            if let (Some(out), Some(id)) = (out, id.as_ref()) {
                self.write_outcome(conn, &sink, id, out).await;
            }
            drop(permit);
            return;
        }

        self.answer(conn, tracker, ctx, cancel, id, sink, permit)
            .await;
    }

    /// Answers one request or notification: inline when its chain completes on the first
    /// poll ([`Kernel::start`]: no task, no in-flight entry), else its [`Running`] chain
    /// moves into a task of its own, tracked for cancellation and shutdown.
    ///
    /// [`Running`]: super::kernel::Running
    #[allow(clippy::too_many_arguments)]
    async fn answer(
        &self,
        conn: &Arc<Conn>,
        tracker: &TaskTracker,
        ctx: Context,
        cancel: CancellationToken,
        id: Option<RequestId>,
        sink: Sink,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) {
        let running = match self.start(ctx).await {
            Started::Done(out) => {
                let sent = conn.finish(&sink, id.as_ref(), Some(out)).await;
                drop(permit);
                if sent >= request_run::LARGE_ANSWER {
                    // Let the writer start on a large answer before reading on: on a
                    // current-thread runtime it would otherwise wait for the input to drain.
                    tokio::task::yield_now().await;
                }
                return;
            }
            Started::Running(running) => running,
        };
        if let Some(id) = &id {
            conn.in_flight.insert(id.clone(), cancel.clone());
        }
        let conn = conn.clone();
        tracker.spawn(async move {
            let run = running.finish(&cancel);
            tokio::pin!(run);
            let (out, cut_short) = tokio::select! {
                biased;
                out = &mut run => (out, false),
                // The grace period is over: the handler sees its token fire and may finish.
                _ = conn.shutdown.cancelled() => {
                    cancel.cancel();
                    (run.await, true)
                }
            };
            if let Some(id) = &id {
                conn.in_flight.remove(id);
            }
            if cut_short {
                // Still running when the grace ended: answered with an error, not left
                // without an answer.
                if id.is_some() {
                    let err = request_run::cut_short_by_shutdown();
                    conn.respond_error(&sink, id.as_ref(), &err).await;
                }
            } else if !cancel.is_cancelled() {
                // A cancelled request sends nothing, even if its result arrived late.
                conn.finish(&sink, id.as_ref(), out).await;
            }
            drop(permit);
        });
    }

    async fn write_outcome(&self, conn: &Conn, sink: &Sink, id: &RequestId, out: HandlerResult) {
        let (frame, _) = encode_outcome(id, out);
        conn.respond(sink, frame).await;
    }
}

/// Reads the next event, handing the reader back with it.
/// `mcp.server.session.duration` of a stream connection that ended.
#[cfg(feature = "otel")]
fn record_session(conn: &Conn, started: std::time::Instant, result: &io::Result<()>) {
    use crate::common::telemetry::{NetworkTransport, metrics};
    let version = conn.session.lock().expect("session lock").version;
    let version = version.or(*conn.modern_version.lock().expect("version lock"));
    metrics::session_ended(
        &metrics::instruments().server_session,
        started,
        version.map(|v| v.as_str()),
        NetworkTransport::Pipe,
        result.as_ref().err().map(|_| "_OTHER"),
    );
}

async fn read_one<R: AsyncBufRead + Unpin>(
    mut frames: FrameReader<R>,
) -> (FrameReader<R>, io::Result<ReadEvent>) {
    let ev = frames.next().await;
    (frames, ev)
}

/// The in-flight slots of a connection, and the requests read while every one is taken
/// (oldest first, at most `max_waiting_bytes` of them), so that reading goes on and the
/// responses and notifications behind them (a `notifications/cancelled`, the answer to an
/// elicitation a running tool waits for) are applied without waiting for a slot.
struct Slots {
    permits: Arc<Semaphore>,
    /// Each with its id (`None`: a batch).
    waiting: VecDeque<(Option<RequestId>, Vec<u8>)>,
    /// What `waiting` holds, as [`Slots::cost`] counts it.
    waiting_bytes: usize,
    max_waiting_bytes: usize,
}

impl Slots {
    /// What a waiting frame costs: its buffer and its queue entry (id included), so that
    /// a flood of tiny frames is bounded too.
    fn cost(bytes: &[u8]) -> usize {
        bytes.len() + 64
    }

    /// Whether `bytes` can wait without going past the bound.
    fn fits(&self, bytes: &[u8]) -> bool {
        self.waiting_bytes + Self::cost(bytes) <= self.max_waiting_bytes
    }

    fn push(&mut self, id: Option<RequestId>, bytes: Vec<u8>) {
        self.waiting_bytes += Self::cost(&bytes);
        self.waiting.push_back((id, bytes));
    }

    fn pop(&mut self) -> Option<(Option<RequestId>, Vec<u8>)> {
        let out = self.waiting.pop_front()?;
        self.waiting_bytes -= Self::cost(&out.1);
        Some(out)
    }

    fn remove(&mut self, i: usize) -> Option<(Option<RequestId>, Vec<u8>)> {
        let out = self.waiting.remove(i)?;
        self.waiting_bytes -= Self::cost(&out.1);
        Some(out)
    }
}

/// A frame read while every in-flight slot is taken.
enum AtCap {
    /// A response, a notification, a `ping`, or a frame answered at once with an error:
    /// handled now.
    Control,
    /// A `notifications/cancelled` naming this request: it may be one still waiting.
    Cancel(RequestId),
    /// A request or a batch (its id, when a single request): it needs a slot.
    Request(Option<RequestId>),
}

fn at_cap(bytes: &[u8]) -> AtCap {
    let opts = DecodeOptions {
        allow_batch: true,
        ..DecodeOptions::default()
    };
    match jsonrpc::decode(bytes, opts) {
        // A liveness check answered at once: a client must be able to tell a busy server
        // from a dead one.
        Frame::Single(Ok(Message::Request(r))) if r.method == "ping" => AtCap::Control,
        Frame::Single(Ok(Message::Request(r))) => AtCap::Request(Some(r.id)),
        Frame::Single(Ok(Message::Notification(n))) if n.method == "notifications/cancelled" => {
            match intake::cancelled_request_id(n.params) {
                Some(id) => AtCap::Cancel(id),
                None => AtCap::Control,
            }
        }
        Frame::Batch(_) => AtCap::Request(None),
        _ => AtCap::Control,
    }
}

/// Whether an I/O error only says that the peer closed its end of the connection.
fn peer_left(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::UnexpectedEof
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(max_waiting_bytes: usize) -> Slots {
        Slots {
            permits: Arc::new(Semaphore::new(1)),
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            max_waiting_bytes,
        }
    }

    #[test]
    fn the_waiting_bound_counts_bytes_and_frees_them_however_a_request_leaves() {
        let frame = |n: usize| vec![b'x'; n];
        let mut s = slots(2 * Slots::cost(&frame(100)));
        for id in 1..=2 {
            assert!(s.fits(&frame(100)));
            s.push(Some(RequestId::Number(id)), frame(100));
        }
        // Full: not even a tiny frame fits (each is counted with its entry).
        assert!(!s.fits(&frame(1)));
        // A cancelled one and a started one both give their bytes back.
        assert!(s.remove(1).is_some());
        assert!(s.fits(&frame(100)));
        assert_eq!(s.pop().map(|(id, _)| id), Some(Some(RequestId::Number(1))));
        assert_eq!(s.waiting_bytes, 0);
        assert!(s.pop().is_none());
    }

    #[test]
    fn ping_is_control_at_the_cap_and_other_requests_wait() {
        assert!(matches!(
            at_cap(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            AtCap::Control
        ));
        assert!(matches!(
            at_cap(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#),
            AtCap::Request(Some(_))
        ));
        assert!(matches!(
            at_cap(
                br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#
            ),
            AtCap::Cancel(_)
        ));
    }
}
