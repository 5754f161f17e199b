//! Server-sent events: the response body of every stream (request-scoped POST streams,
//! the legacy GET stream, the 2024-11-05 session stream).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::Frame;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// Encodes one SSE event: an optional `event:` name, then the data, one `data:` line per
/// line of the message.
pub(crate) fn event(name: Option<&str>, data: &[u8]) -> Bytes {
    event_with_id(None, name, data)
}

/// Encodes one SSE event with an optional `id:` (resumable streams).
pub(crate) fn event_with_id(id: Option<&str>, name: Option<&str>, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(n) = name {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(n.as_bytes());
        out.push(b'\n');
    }
    for line in data.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    out.into()
}

/// A priming event (2025-11-25): an id and empty data, after the `retry:` field when given.
pub(crate) fn priming(id: &str, retry: Option<Duration>) -> Bytes {
    let mut out = format!("id: {id}\n");
    if let Some(r) = retry {
        out.push_str(&format!("retry: {}\n", r.as_millis()));
    }
    out.push_str("data: \n\n");
    out.into()
}

/// The final response of a request stream: the encoded frame and its error code.
pub(crate) type Final = (Vec<u8>, Option<i32>);

/// The final frame of a request: ready at once, or to come from its task (`None`: the
/// request was cancelled, nothing is sent for it).
pub(crate) enum Fin {
    Ready(Option<Final>),
    Pending(oneshot::Receiver<Final>),
}

/// What a request produced first: its final frame, or a message (or the end of its
/// messages) while the final frame is still to come.
pub(crate) enum First {
    Fin(Option<Final>),
    Msg(Option<Vec<u8>>, oneshot::Receiver<Final>),
}

impl Fin {
    /// Waits for the final frame.
    pub(crate) async fn wait(self) -> Option<Final> {
        match self {
            Fin::Ready(f) => f,
            Fin::Pending(rx) => rx.await.ok(),
        }
    }

    /// Waits for the final frame or the first message on `rx`, whichever comes first
    /// (the message when both are there).
    pub(crate) async fn first(self, rx: &mut mpsc::Receiver<Vec<u8>>) -> First {
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

/// Something that runs when a stream's body is dropped (the client went away or the
/// stream ended).
pub(crate) type OnDrop = Box<dyn FnOnce() + Send + Sync>;

/// The body of one SSE stream.
///
/// Yields what is queued in `pending`, then every message from `rx`; a request-scoped
/// stream ends after its final response (`fin`), a standalone stream when `end` fires or
/// `rx` closes. Comment keep-alives go out every `keep_alive` of silence.
pub(crate) struct SseBody {
    pub(crate) pending: VecDeque<Bytes>,
    pub(crate) rx: Option<mpsc::Receiver<Vec<u8>>>,
    pub(crate) fin: Option<oneshot::Receiver<Final>>,
    pub(crate) event_name: Option<&'static str>,
    pub(crate) keep_alive: Option<tokio::time::Interval>,
    pub(crate) end: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    pub(crate) on_drop: Vec<OnDrop>,
    /// Ends the stream once `pending` is empty.
    pub(crate) closing: bool,
    /// What `rx` carries is already encoded (the chunks of a lane).
    pub(crate) raw: bool,
}

impl SseBody {
    pub(crate) fn new(
        rx: mpsc::Receiver<Vec<u8>>,
        fin: Option<oneshot::Receiver<Final>>,
        keep_alive: Option<Duration>,
    ) -> Self {
        let keep_alive = keep_alive.map(|p| {
            let mut i = tokio::time::interval_at(tokio::time::Instant::now() + p, p);
            i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            i
        });
        Self {
            pending: VecDeque::new(),
            rx: Some(rx),
            fin,
            event_name: None,
            keep_alive,
            end: None,
            on_drop: Vec::new(),
            closing: false,
            raw: false,
        }
    }

    /// Ends the stream when `token` fires.
    pub(crate) fn end_on(mut self, token: CancellationToken) -> Self {
        self.end = Some(Box::pin(token.cancelled_owned()));
        self
    }

    /// Runs `f` when the body is dropped.
    pub(crate) fn on_drop(mut self, f: impl FnOnce() + Send + Sync + 'static) -> Self {
        self.on_drop.push(Box::new(f));
        self
    }

    /// Queues a raw, already encoded chunk (an `endpoint` event, a priming event).
    pub(crate) fn push_raw(&mut self, b: Bytes) {
        self.pending.push_back(b);
    }

    /// Queues one message as an event.
    pub(crate) fn push_message(&mut self, m: &[u8]) {
        let e = event(self.event_name, m);
        self.pending.push_back(e);
    }

    fn chunk(&self, m: Vec<u8>) -> Bytes {
        if self.raw {
            Bytes::from(m)
        } else {
            event(self.event_name, &m)
        }
    }

    fn reset_keep_alive(&mut self) {
        if let Some(k) = &mut self.keep_alive {
            k.reset();
        }
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        for f in self.on_drop.drain(..) {
            f();
        }
    }
}

impl http_body::Body for SseBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Some(b) = this.pending.pop_front() {
            this.reset_keep_alive();
            return Poll::Ready(Some(Ok(Frame::data(b))));
        }
        if this.closing {
            return Poll::Ready(None);
        }
        if let Some(rx) = &mut this.rx {
            match rx.poll_recv(cx) {
                Poll::Ready(Some(m)) => {
                    let e = this.chunk(m);
                    this.reset_keep_alive();
                    return Poll::Ready(Some(Ok(Frame::data(e))));
                }
                Poll::Ready(None) => {
                    this.rx = None;
                    if this.fin.is_none() {
                        return Poll::Ready(None);
                    }
                }
                Poll::Pending => {}
            }
        }
        if let Some(fin) = &mut this.fin {
            match Pin::new(fin).poll(cx) {
                Poll::Ready(Ok((frame, _))) => {
                    this.fin = None;
                    // Whatever was queued before the response goes first.
                    if let Some(rx) = &mut this.rx {
                        while let Ok(m) = rx.try_recv() {
                            let e = if this.raw {
                                Bytes::from(m)
                            } else {
                                event(this.event_name, &m)
                            };
                            this.pending.push_back(e);
                        }
                    }
                    this.rx = None;
                    let e = event(this.event_name, &frame);
                    this.pending.push_back(e);
                    this.closing = true;
                    let b = this.pending.pop_front().expect("just pushed");
                    return Poll::Ready(Some(Ok(Frame::data(b))));
                }
                Poll::Ready(Err(_)) => {
                    // Cancelled: nothing more is sent for this request.
                    return Poll::Ready(None);
                }
                Poll::Pending => {}
            }
        }
        if let Some(end) = &mut this.end
            && end.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(None);
        }
        if let Some(k) = &mut this.keep_alive
            && k.poll_tick(cx).is_ready()
        {
            return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                b": keep-alive\n\n",
            )))));
        }
        Poll::Pending
    }
}
