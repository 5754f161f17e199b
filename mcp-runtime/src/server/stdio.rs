//! The stdio transport: stdin/stdout framing is the stream kernel's; this module adds the
//! process-level parts (signals).

use tokio_util::sync::CancellationToken;

/// Cancels `stop` on SIGTERM or SIGINT (Ctrl-C), so the server stops reading, drains
/// in-flight requests and exits cleanly.
pub fn stop_on_signals(stop: CancellationToken) {
    // Register before returning, so a signal that arrives right after start-up is ours and
    // not the default (which would end the process with a non-zero status).
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("could not install signal handlers");
            return;
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            tracing::info!("signal received: stopping");
            stop.cancel();
        });
    }
    #[cfg(not(unix))]
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            tracing::info!("signal received: stopping");
            stop.cancel();
        }
    });
}

/// Stdin and stdout as non-blocking pipes for tokio's reactor, when both are pipes (the way
/// MCP clients start servers) on Linux; `None` otherwise (a terminal, a file, a socket).
///
/// Reads and writes then run on the runtime's own threads, with no hand-off to a reader
/// thread or the blocking pool per message. Both are reopened through `/proc/self/fd`, so the
/// non-blocking flag lives on new open file descriptions: descriptors 0 and 1, and any child
/// process that inherits them, keep their blocking mode. No blocking thread is involved, so a
/// SIGTERM stop does not wait for stdin to close.
#[cfg(target_os = "linux")]
pub fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use tokio::net::unix::pipe::OpenOptions;
    let reader = OpenOptions::new().open_receiver("/proc/self/fd/0").ok()?;
    let writer = OpenOptions::new().open_sender("/proc/self/fd/1").ok()?;
    Some((reader, writer))
}

/// Cancels `gone` when nobody reads stdout any more (the read end of its pipe is closed), so
/// a client that vanished is noticed even while nothing is being written; returns at once,
/// watching in a task that ends with `gone`. Does nothing when stdout is not a pipe.
#[cfg(target_os = "linux")]
pub(crate) fn watch_stdout_closed(gone: CancellationToken) {
    use tokio::io::Interest;
    use tokio::net::unix::pipe::OpenOptions;
    // A pipe's writer sees an error condition once the pipe has no reader left.
    let Ok(watch) = OpenOptions::new().open_sender("/proc/self/fd/1") else {
        return;
    };
    tokio::spawn(async move {
        tokio::select! {
            r = watch.ready(Interest::ERROR) => {
                if r.is_ok_and(|ready| ready.is_error()) {
                    tracing::debug!("stdout closed: the client is gone");
                    gone.cancel();
                }
            }
            _ = gone.cancelled() => {}
        }
    });
}

/// Stdin as an `AsyncRead`, read by a plain OS thread.
///
/// `tokio::io::stdin()` reads on the runtime's blocking pool, and a runtime waits for its
/// blocking threads when it shuts down: a server asked to stop by SIGTERM would hang until
/// its stdin closed. A detached thread does not hold the process: when `main` returns, the
/// process exits even while the thread is blocked in `read`.
pub struct Stdin {
    rx: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
}

impl Stdin {
    /// Starts the reader thread.
    pub fn new() -> Self {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        std::thread::Builder::new()
            .name("mcp-stdin".into())
            .spawn(move || {
                use std::io::Read;
                let mut stdin = std::io::stdin().lock();
                // One read buffer for the thread; each chunk sent is a copy of what was read,
                // so a small read costs a small allocation, not a zeroed 64 KiB one.
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            if tx.blocking_send(Ok(buf[..n].to_vec())).is_err() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            let _ = tx.blocking_send(Err(e));
                            break;
                        }
                    }
                }
            })
            .expect("spawning the stdin reader thread");
        Self {
            rx,
            chunk: Vec::new(),
            pos: 0,
        }
    }
}

impl Default for Stdin {
    fn default() -> Self {
        Self::new()
    }
}

impl tokio::io::AsyncRead for Stdin {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        loop {
            if self.pos < self.chunk.len() {
                let n = buf.remaining().min(self.chunk.len() - self.pos);
                let start = self.pos;
                buf.put_slice(&self.chunk[start..start + n]);
                self.pos += n;
                return Poll::Ready(Ok(()));
            }
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    self.chunk = chunk;
                    self.pos = 0;
                }
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Err(e)),
                Poll::Ready(None) => return Poll::Ready(Ok(())), // EOF
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}
