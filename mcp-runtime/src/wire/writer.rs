//! The batching writer, shared by server and client: one task owns a connection's output and
//! writes whatever is queued with one write and one flush.

use std::future::poll_fn;
use std::io;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::framing::{Framing, flush_frames, write_frame};

/// The most one batch holds before it is written: a burst is written in slices rather than
/// gathered whole.
pub(crate) const MAX_BATCH: usize = 1024 * 1024;

/// What the batch buffer starts with (most batches fit, so it rarely grows).
const BUF_CAPACITY: usize = 64 * 1024;

/// One queued message: a frame's body, or (`None`) the order to stop after what came
/// before it.
pub(crate) trait Outbound {
    /// The message's JSON text (without delimiter); `None` to stop writing.
    fn body(&self) -> Option<&[u8]>;
}

impl Outbound for Vec<u8> {
    fn body(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// The queue a writer drains: a bounded channel (the server: senders wait when the writer
/// falls behind) or an unbounded one (the client: sending never waits, not even in a
/// `Drop`).
pub(crate) trait Queue {
    /// What is queued.
    type Item: Outbound;
    /// Waits for the next message (`None`: every sender is gone).
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Self::Item>>;
    /// The next message if one is queued now.
    fn try_recv(&mut self) -> Option<Self::Item>;
    /// Refuses further sends; what is queued can still be received.
    fn close(&mut self);
}

impl<T: Outbound> Queue for mpsc::Receiver<T> {
    type Item = T;
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        mpsc::Receiver::poll_recv(self, cx)
    }
    fn try_recv(&mut self) -> Option<T> {
        mpsc::Receiver::try_recv(self).ok()
    }
    fn close(&mut self) {
        mpsc::Receiver::close(self)
    }
}

impl<T: Outbound> Queue for mpsc::UnboundedReceiver<T> {
    type Item = T;
    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        mpsc::UnboundedReceiver::poll_recv(self, cx)
    }
    fn try_recv(&mut self) -> Option<T> {
        mpsc::UnboundedReceiver::try_recv(self).ok()
    }
    fn close(&mut self) {
        mpsc::UnboundedReceiver::close(self)
    }
}

/// Where a writer's framing comes from.
#[derive(Clone)]
pub(crate) enum FramingSource {
    /// Always the same (the client writes newline-delimited JSON).
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    Fixed(Framing),
    /// The framing the reader detects in the first frame (the server answers in kind);
    /// newline until then.
    Learned(Arc<OnceLock<Framing>>),
}

impl FramingSource {
    fn get(&self) -> Framing {
        match self {
            FramingSource::Fixed(f) => *f,
            FramingSource::Learned(cell) => *cell.get().unwrap_or(&Framing::Newline),
        }
    }
}

/// How a writer frames its output and how it ends.
pub(crate) struct WriterOptions {
    /// How frames are delimited.
    pub(crate) framing: FramingSource,
    /// When it fires, the writer writes what is queued and stops (the server, whose senders
    /// outlive the connection's reader). Messages queued first are written first.
    pub(crate) close: Option<CancellationToken>,
    /// Shut the stream down when the writer stops, so that the peer sees EOF (the client).
    pub(crate) shutdown: bool,
}

/// Writes what `rx` delivers to `w` until the queue ends, a stop message comes or
/// `opts.close` fires. Whatever is queued when the writer wakes shares one write and one
/// flush, up to [`MAX_BATCH`] bytes. A failed write ends the writer with the error.
pub(crate) async fn write_loop<W, Q>(mut w: W, mut rx: Q, opts: WriterOptions) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
    Q: Queue,
{
    let mut buf = Vec::with_capacity(BUF_CAPACITY);
    loop {
        let first = tokio::select! {
            biased;
            m = poll_fn(|cx| rx.poll_recv(cx)) => m,
            _ = fired(opts.close.as_ref()) => {
                // Drain what is queued, then stop.
                rx.close();
                let f = opts.framing.get();
                while let Some(m) = rx.try_recv() {
                    if !push(&mut buf, f, &m) {
                        break;
                    }
                }
                return end(&mut w, &buf, opts.shutdown).await;
            }
        };
        let Some(first) = first else {
            return end(&mut w, &buf, opts.shutdown).await;
        };
        let f = opts.framing.get();
        let mut open = push(&mut buf, f, &first);
        // Everything already queued shares one write and one flush.
        while open && buf.len() < MAX_BATCH {
            match rx.try_recv() {
                Some(m) => open = push(&mut buf, f, &m),
                None => break,
            }
        }
        if !buf.is_empty() {
            if let Err(e) = flush_frames(&mut w, &buf).await {
                // The peer went away: nothing more can be written.
                tracing::debug!(error = %e, "write failed; closing the writer");
                return Err(e);
            }
            buf.clear();
        }
        if !open {
            return end(&mut w, &buf, opts.shutdown).await;
        }
    }
}

/// Appends a message's frame; `false` for a stop message.
fn push<M: Outbound>(buf: &mut Vec<u8>, framing: Framing, m: &M) -> bool {
    match m.body() {
        Some(body) => {
            write_frame(buf, framing, body);
            true
        }
        None => false,
    }
}

/// Completes when `token` fires; never without one.
async fn fired(token: Option<&CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Writes what is left in `buf` and, when asked, shuts the stream down (its error is of no
/// use: the writer is done).
async fn end<W: AsyncWrite + Unpin>(w: &mut W, buf: &[u8], shutdown: bool) -> io::Result<()> {
    if !buf.is_empty() {
        flush_frames(w, buf).await?;
    }
    if shutdown {
        let _ = w.shutdown().await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::sync::Mutex;

    use super::*;

    /// What a recording stream saw.
    #[derive(Default, Debug)]
    struct Seen {
        bytes: Vec<u8>,
        writes: usize,
        flushes: usize,
        shutdown: bool,
    }

    /// A stream that records every call, or fails every write.
    #[derive(Clone, Default)]
    struct Recorder {
        seen: Arc<Mutex<Seen>>,
        broken: bool,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            b: &[u8],
        ) -> Poll<io::Result<usize>> {
            if self.broken {
                return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
            }
            let mut seen = self.seen.lock().unwrap();
            seen.bytes.extend_from_slice(b);
            seen.writes += 1;
            Poll::Ready(Ok(b.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.seen.lock().unwrap().flushes += 1;
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.seen.lock().unwrap().shutdown = true;
            Poll::Ready(Ok(()))
        }
    }

    /// A client-style message: a frame or the order to stop.
    enum Msg {
        Frame(&'static str),
        Stop,
    }

    impl Outbound for Msg {
        fn body(&self) -> Option<&[u8]> {
            match self {
                Msg::Frame(s) => Some(s.as_bytes()),
                Msg::Stop => None,
            }
        }
    }

    fn server_opts(framing: &Arc<OnceLock<Framing>>, close: &CancellationToken) -> WriterOptions {
        WriterOptions {
            framing: FramingSource::Learned(framing.clone()),
            close: Some(close.clone()),
            shutdown: false,
        }
    }

    fn client_opts() -> WriterOptions {
        WriterOptions {
            framing: FramingSource::Fixed(Framing::Newline),
            close: None,
            shutdown: true,
        }
    }

    #[tokio::test]
    async fn what_is_queued_shares_one_write_and_one_flush() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::channel::<Vec<u8>>(8);
        for m in ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"] {
            tx.send(m.as_bytes().to_vec()).await.unwrap();
        }
        drop(tx);
        let framing = Arc::new(OnceLock::new());
        let close = CancellationToken::new();
        write_loop(out.clone(), rx, server_opts(&framing, &close))
            .await
            .unwrap();
        let seen = out.seen.lock().unwrap();
        assert_eq!(seen.bytes, b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
        assert_eq!((seen.writes, seen.flushes), (1, 1));
        assert!(!seen.shutdown, "the server leaves its stream open");
    }

    #[tokio::test]
    async fn a_batch_stops_at_the_size_limit() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::channel::<Vec<u8>>(8);
        let big = vec![b'x'; MAX_BATCH / 2 + 1];
        for _ in 0..3 {
            tx.send(big.clone()).await.unwrap();
        }
        drop(tx);
        let framing = Arc::new(OnceLock::new());
        let close = CancellationToken::new();
        write_loop(out.clone(), rx, server_opts(&framing, &close))
            .await
            .unwrap();
        let seen = out.seen.lock().unwrap();
        assert_eq!(seen.bytes.len(), 3 * (big.len() + 1));
        // Two frames pass the limit; the third goes in the next batch.
        assert_eq!((seen.writes, seen.flushes), (2, 2));
    }

    #[tokio::test]
    async fn the_learned_framing_is_used() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::channel::<Vec<u8>>(8);
        let framing = Arc::new(OnceLock::new());
        framing.set(Framing::ContentLength).unwrap();
        tx.send(b"{}".to_vec()).await.unwrap();
        drop(tx);
        let close = CancellationToken::new();
        write_loop(out.clone(), rx, server_opts(&framing, &close))
            .await
            .unwrap();
        assert_eq!(
            out.seen.lock().unwrap().bytes,
            b"Content-Length: 2\r\n\r\n{}"
        );
    }

    #[tokio::test]
    async fn closing_drains_what_is_queued_and_refuses_more() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::channel::<Vec<u8>>(8);
        let framing = Arc::new(OnceLock::new());
        let close = CancellationToken::new();
        tx.send(b"1".to_vec()).await.unwrap();
        tx.send(b"2".to_vec()).await.unwrap();
        close.cancel();
        // The senders are still alive: only the token ends the writer.
        write_loop(out.clone(), rx, server_opts(&framing, &close))
            .await
            .unwrap();
        assert_eq!(out.seen.lock().unwrap().bytes, b"1\n2\n");
        assert!(tx.send(b"3".to_vec()).await.is_err());
    }

    #[tokio::test]
    async fn a_stop_message_writes_what_came_first_and_shuts_down() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::unbounded_channel();
        tx.send(Msg::Frame("1")).unwrap();
        tx.send(Msg::Stop).unwrap();
        tx.send(Msg::Frame("2")).unwrap();
        write_loop(out.clone(), rx, client_opts()).await.unwrap();
        let seen = out.seen.lock().unwrap();
        assert_eq!(seen.bytes, b"1\n");
        assert!(seen.shutdown);
    }

    #[tokio::test]
    async fn the_end_of_the_queue_shuts_the_client_stream_down() {
        let out = Recorder::default();
        let (tx, rx) = mpsc::unbounded_channel::<Msg>();
        let writer = tokio::spawn(write_loop(out.clone(), rx, client_opts()));
        tx.send(Msg::Frame("1")).unwrap();
        drop(tx);
        writer.await.unwrap().unwrap();
        let seen = out.seen.lock().unwrap();
        assert_eq!(seen.bytes, b"1\n");
        assert!(seen.shutdown);
    }

    #[tokio::test]
    async fn a_failed_write_ends_the_writer_with_its_error() {
        let out = Recorder {
            broken: true,
            ..Recorder::default()
        };
        let (tx, rx) = mpsc::unbounded_channel();
        tx.send(Msg::Frame("1")).unwrap();
        let err = write_loop(out.clone(), rx, client_opts())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert!(!out.seen.lock().unwrap().shutdown);
    }
}
