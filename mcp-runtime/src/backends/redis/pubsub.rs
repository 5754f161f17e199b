//! One Redis pub/sub channel as the bus and the answer relay use it: a bounded queue of
//! payloads that a task `PUBLISH`es under the store timeout (dropping and counting what
//! Redis does not take), and one subscribed connection, held by a second task, that hands
//! every message to a callback, checks the idle connection with `PING` and reconnects with
//! a capped backoff. Both tasks end when the [`Channel`] is dropped. Messages carry the
//! random origin of their channel end, so a receiver can skip its own.

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use ::redis::aio::{PubSubSink, PubSubStream};
use futures_core::Stream;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::{Conn, Connector, Resend};

/// The first wait before reconnecting the pub/sub connection; it doubles up to
/// [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How often the idle pub/sub connection is checked with a `PING` (a peer that vanished
/// without closing the socket is noticed within this plus the timeout).
const PING_EVERY: Duration = Duration::from_secs(5);

/// What one end of the channel does with each message it receives.
pub(super) type OnMessage = Box<dyn Fn(&[u8]) + Send + Sync>;

/// One end of `<prefix><name>`: publishes and listens.
pub(super) struct Channel {
    queue: mpsc::Sender<String>,
    shared: Arc<Shared>,
    /// Ends both tasks (fired on drop).
    stop: CancellationToken,
}

/// What the channel end and its tasks share.
struct Shared {
    origin: String,
    channel: String,
    dropped: AtomicU64,
    connected: AtomicBool,
}

impl Channel {
    /// Starts the publishing and the listening task (inside a Tokio runtime).
    pub(super) fn open(
        client: Connector,
        conn: Conn,
        name: &str,
        queue: usize,
        on_message: OnMessage,
    ) -> Self {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let shared = Arc::new(Shared {
            origin: random_origin(),
            channel: format!("{}{name}", conn.prefix()),
            dropped: AtomicU64::new(0),
            connected: AtomicBool::new(false),
        });
        let stop = CancellationToken::new();
        let timeout = conn.timeout();
        tokio::spawn(publishing(rx, conn, shared.clone(), stop.clone()));
        tokio::spawn(listening(
            client,
            timeout,
            on_message,
            shared.clone(),
            stop.clone(),
        ));
        Self {
            queue: tx,
            shared,
            stop,
        }
    }

    /// Queues `payload` for publishing, or drops and counts it when the queue is full.
    pub(super) fn publish(&self, payload: String) {
        if let Err(e) = self.queue.try_send(payload) {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(channel = %self.shared.channel, error = %e, "redis pub/sub: not queued");
        }
    }

    /// The random id of this end (64 bits as 16 hex digits).
    pub(super) fn origin(&self) -> &str {
        &self.shared.origin
    }

    /// `<prefix><name>`.
    pub(super) fn name(&self) -> &str {
        &self.shared.channel
    }

    /// How many payloads were not published.
    pub(super) fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Whether the listening connection is subscribed right now.
    pub(super) fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::Acquire)
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// 64 random bits as 16 hex digits.
pub(super) fn random_origin() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the OS random source failed");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Drains the queue into `PUBLISH`, one call at a time under the timeout.
async fn publishing(
    mut rx: mpsc::Receiver<String>,
    conn: Conn,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        let payload = tokio::select! {
            _ = stop.cancelled() => return,
            p = rx.recv() => match p { Some(p) => p, None => return },
        };
        let cmd = ::redis::cmd("PUBLISH")
            .arg(&shared.channel)
            .arg(payload)
            .to_owned();
        // Not sent again after a dropped connection: a second copy would reach twice.
        if let Err(e) = conn.cmd::<i64>(&cmd, Resend::Refused).await {
            // Redis is away: what waits behind is dropped too, rather than each payload
            // waiting out the timeout and a stale burst going out once Redis is back.
            let mut lost = 1;
            while rx.try_recv().is_ok() {
                lost += 1;
            }
            shared.dropped.fetch_add(lost, Ordering::Relaxed);
            tracing::debug!(channel = %shared.channel, error = %e, lost, "redis pub/sub: not published");
        }
    }
}

/// Keeps one pub/sub connection subscribed, reconnecting with a capped backoff, and hands
/// what it receives to `on_message`.
async fn listening(
    client: Connector,
    timeout: Duration,
    on_message: OnMessage,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let mut backoff = MIN_BACKOFF;
    loop {
        let connected = tokio::select! {
            _ = stop.cancelled() => return,
            c = tokio::time::timeout(timeout, subscribe(&client, &shared.channel)) => c,
        };
        match connected {
            Ok(Ok((sink, stream))) => {
                tracing::info!(channel = %shared.channel, "redis pub/sub: subscribed");
                shared.connected.store(true, Ordering::Release);
                backoff = MIN_BACKOFF;
                let ended = relay(sink, stream, timeout, &on_message, &stop).await;
                shared.connected.store(false, Ordering::Release);
                if !ended {
                    return;
                }
                tracing::warn!(channel = %shared.channel, "redis pub/sub: connection lost, reconnecting");
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "redis pub/sub: cannot subscribe"),
            Err(_) => tracing::debug!("redis pub/sub: subscribing timed out"),
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

async fn subscribe(
    client: &Connector,
    channel: &str,
) -> ::redis::RedisResult<(PubSubSink, PubSubStream)> {
    let mut pubsub = client.pubsub_client().await?.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    Ok(pubsub.split())
}

/// Hands messages over until the connection ends or stops answering `PING` (`true`:
/// reconnect) or the channel end is dropped (`false`).
async fn relay(
    mut sink: PubSubSink,
    mut stream: PubSubStream,
    timeout: Duration,
    on_message: &OnMessage,
    stop: &CancellationToken,
) -> bool {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return false,
            m = poll_fn(|cx| std::pin::Pin::new(&mut stream).poll_next(cx)) => match m {
                Some(m) => on_message(m.get_payload_bytes()),
                None => return true,
            },
            _ = ping.tick() => {
                let answered = tokio::time::timeout(timeout, sink.ping::<::redis::Value>()).await;
                if !matches!(answered, Ok(Ok(_))) {
                    return true;
                }
            }
        }
    }
}
