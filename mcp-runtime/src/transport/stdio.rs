//! The stdio transport: stdin/stdout framing is the stream kernel's; this module adds the
//! process-level parts (signals).

use tokio_util::sync::CancellationToken;

/// Cancels `stop` on SIGTERM or SIGINT (Ctrl-C), so the server stops reading, drains
/// in-flight requests and exits cleanly.
pub fn stop_on_signals(stop: CancellationToken) {
    tokio::spawn(async move {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut term), Ok(mut int)) = (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
            ) else {
                return;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
        }
        tracing::info!("signal received: stopping");
        stop.cancel();
    });
}
