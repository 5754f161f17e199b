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
                loop {
                    let mut buf = vec![0u8; 64 * 1024];
                    match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            buf.truncate(n);
                            if tx.blocking_send(Ok(buf)).is_err() {
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
