//! [`RedisBus`]: a [`SubscriptionBus`] shared by every process on one Redis, so a resource
//! update or a list change on one replica reaches the listen streams and legacy sessions
//! that other replicas hold.
//!
//! `publish` hands the event to this process's subscribers at once (an [`InMemoryBus`]
//! ring) and queues it for Redis; a task drains the queue with `PUBLISH <prefix>events`,
//! each call under the store timeout, and drops (and counts) what Redis does not take (a
//! failed call drops what is queued behind it too). A
//! second task holds the bus's one pub/sub connection: it re-publishes to the local ring
//! what other buses sent, skips its own echoes (each message carries its bus's random
//! origin) and anything it cannot read, and reconnects with a capped backoff when Redis
//! goes away. Pub/sub delivers at most once: an event published while a bus is
//! disconnected does not reach it. Both tasks end when the bus is dropped.
//!
//! This file imports the bus types of `features/subscriptions.rs`: the one Redis backend
//! that serves a layer above `session`.

use std::future::poll_fn;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use ::redis::aio::{PubSubSink, PubSubStream};
use futures_core::Stream;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::{Conn, Resend};
use crate::features::subscriptions::{BusReceiver, InMemoryBus, ServerEvent, SubscriptionBus};

/// How many events wait to be published unless told otherwise.
pub const DEFAULT_QUEUE: usize = 1024;

/// The first wait before reconnecting the pub/sub connection; it doubles up to
/// [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How often the idle pub/sub connection is checked with a `PING` (a peer that vanished
/// without closing the socket is noticed within this plus the timeout).
const PING_EVERY: Duration = Duration::from_secs(5);

/// A [`SubscriptionBus`] over Redis pub/sub (from
/// [`RedisStores::bus`](super::RedisStores::bus)): give it to
/// `ServerBuilder::subscription_bus` on every replica.
///
/// ```no_run
/// # async fn f() -> Result<(), mcp_runtime::session::StoreError> {
/// use mcp_runtime::Server;
/// use mcp_runtime::session::redis::RedisConfig;
///
/// let stores = RedisConfig::new("redis://127.0.0.1:6379/0").connect().await?;
/// let server = Server::builder("demo", "1.0.0")
///     .subscription_bus(stores.bus())
///     .build();
/// # let _ = server;
/// # Ok(()) }
/// ```
pub struct RedisBus {
    local: Arc<InMemoryBus>,
    queue: mpsc::Sender<ServerEvent>,
    shared: Arc<Shared>,
    /// Ends both tasks (fired on drop).
    stop: CancellationToken,
}

/// What the bus and its tasks share.
struct Shared {
    origin: String,
    channel: String,
    dropped: AtomicU64,
    connected: AtomicBool,
}

impl RedisBus {
    /// Starts the publishing and the listening task (inside a Tokio runtime).
    pub(super) fn start(client: ::redis::Client, conn: Conn, queue: usize) -> Self {
        let local = Arc::new(InMemoryBus::default());
        let (tx, rx) = mpsc::channel(queue.max(1));
        let shared = Arc::new(Shared {
            origin: random_origin(),
            channel: format!("{}events", conn.prefix()),
            dropped: AtomicU64::new(0),
            connected: AtomicBool::new(false),
        });
        let stop = CancellationToken::new();
        tokio::spawn(publishing(rx, conn.clone(), shared.clone(), stop.clone()));
        let timeout = conn.timeout();
        tokio::spawn(listening(
            client,
            timeout,
            local.clone(),
            shared.clone(),
            stop.clone(),
        ));
        Self {
            local,
            queue: tx,
            shared,
            stop,
        }
    }

    /// How many events were not published to Redis (the queue was full, or Redis did not
    /// take them in time); this process's subscribers got them all the same.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Whether the pub/sub connection is subscribed right now (events other processes
    /// publish from now on arrive here).
    pub fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::Acquire)
    }

    /// The channel events go through: `<prefix>events`.
    pub fn channel(&self) -> &str {
        &self.shared.channel
    }
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.shared.channel)
            .field("origin", &self.shared.origin)
            .field("connected", &self.is_connected())
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl Drop for RedisBus {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl SubscriptionBus for RedisBus {
    fn publish(&self, event: ServerEvent) {
        if let Err(e) = self.queue.try_send(event.clone()) {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(error = %e, "redis bus: event not queued for publishing");
        }
        self.local.publish(event);
    }

    fn subscribe(&self) -> BusReceiver {
        self.local.subscribe()
    }

    fn subscribers(&self) -> usize {
        self.local.subscribers()
    }
}

/// 64 random bits as 16 hex digits: which bus sent a message.
fn random_origin() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the OS random source failed");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Drains the queue into `PUBLISH`, one call at a time under the timeout.
async fn publishing(
    mut rx: mpsc::Receiver<ServerEvent>,
    conn: Conn,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        let event = tokio::select! {
            _ = stop.cancelled() => return,
            e = rx.recv() => match e { Some(e) => e, None => return },
        };
        let payload = encode(&shared.origin, &event);
        let cmd = ::redis::cmd("PUBLISH")
            .arg(&shared.channel)
            .arg(payload)
            .to_owned();
        // Not sent again after a dropped connection: a second copy would reach twice.
        if let Err(e) = conn.cmd::<i64>(&cmd, Resend::Refused).await {
            // Redis is away: what waits behind is dropped too, rather than each event
            // waiting out the timeout and a stale burst going out once Redis is back.
            let mut lost = 1;
            while rx.try_recv().is_ok() {
                lost += 1;
            }
            shared.dropped.fetch_add(lost, Ordering::Relaxed);
            tracing::debug!(error = %e, lost, "redis bus: events not published");
        }
    }
}

/// Keeps one pub/sub connection subscribed, reconnecting with a capped backoff, and
/// re-publishes what it receives to `local`.
async fn listening(
    client: ::redis::Client,
    timeout: Duration,
    local: Arc<InMemoryBus>,
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
                tracing::info!(channel = %shared.channel, "redis bus: subscribed");
                shared.connected.store(true, Ordering::Release);
                backoff = MIN_BACKOFF;
                let ended = relay(sink, stream, timeout, &local, &shared, &stop).await;
                shared.connected.store(false, Ordering::Release);
                if !ended {
                    return;
                }
                tracing::warn!(channel = %shared.channel, "redis bus: connection lost, reconnecting");
            }
            Ok(Err(e)) => tracing::debug!(error = %e, "redis bus: cannot subscribe"),
            Err(_) => tracing::debug!("redis bus: subscribing timed out"),
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

async fn subscribe(
    client: &::redis::Client,
    channel: &str,
) -> ::redis::RedisResult<(PubSubSink, PubSubStream)> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    Ok(pubsub.split())
}

/// Relays messages until the connection ends or stops answering `PING` (`true`: reconnect)
/// or the bus is dropped (`false`).
async fn relay(
    mut sink: PubSubSink,
    mut stream: PubSubStream,
    timeout: Duration,
    local: &InMemoryBus,
    shared: &Shared,
    stop: &CancellationToken,
) -> bool {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return false,
            m = poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)) => match m {
                Some(m) => match decode(m.get_payload_bytes()) {
                    Ok(w) if w.origin == shared.origin => {}
                    Ok(w) => local.publish(w.event),
                    Err(e) => tracing::debug!(error = %e, "redis bus: unreadable message skipped"),
                },
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

/// One message on the channel: who sent it and the event.
struct Received {
    origin: String,
    event: ServerEvent,
}

/// The wire form of a message: `{"origin", "method", "uri"?, "taskId"?, "params"?}`, the
/// method naming the event as its notification does.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    origin: String,
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<serde_json::Map<String, serde_json::Value>>,
}

fn encode(origin: &str, event: &ServerEvent) -> String {
    let mut w = Wire {
        origin: origin.to_owned(),
        method: event.method().to_owned(),
        uri: None,
        task_id: None,
        params: None,
    };
    match event {
        ServerEvent::ResourceUpdated { uri } => w.uri = Some(uri.clone()),
        ServerEvent::Task { task_id, params } => {
            w.task_id = Some(task_id.clone());
            w.params = Some((**params).clone());
        }
        _ => {}
    }
    serde_json::to_string(&w).expect("the wire form serializes")
}

fn decode(payload: &[u8]) -> Result<Received, String> {
    let w: Wire = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    let event = match (w.method.as_str(), w.uri, w.task_id) {
        ("notifications/tools/list_changed", _, _) => ServerEvent::ToolsListChanged,
        ("notifications/prompts/list_changed", _, _) => ServerEvent::PromptsListChanged,
        ("notifications/resources/list_changed", _, _) => ServerEvent::ResourcesListChanged,
        ("notifications/resources/updated", Some(uri), _) => ServerEvent::ResourceUpdated { uri },
        ("notifications/tasks", _, Some(id)) => ServerEvent::task(id, w.params.unwrap_or_default()),
        (m, _, _) => return Err(format!("unknown or incomplete event {m:?}")),
    };
    Ok(Received {
        origin: w.origin,
        event,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_survives_the_wire() {
        let mut params = serde_json::Map::new();
        params.insert("status".into(), "working".into());
        let events = [
            ServerEvent::ToolsListChanged,
            ServerEvent::PromptsListChanged,
            ServerEvent::ResourcesListChanged,
            ServerEvent::ResourceUpdated {
                uri: "notes://1".into(),
            },
            ServerEvent::task("t1", params),
        ];
        for e in events {
            let got = decode(encode("abc", &e).as_bytes()).unwrap();
            assert_eq!(got.origin, "abc");
            assert_eq!(got.event, e);
        }
    }

    #[test]
    fn unreadable_messages_are_errors() {
        for bad in [
            &b"garbage"[..],
            br#"{"origin":"x","method":"notifications/resources/updated"}"#,
            br#"{"origin":"x","method":"notifications/unknown"}"#,
            br#"{"method":"notifications/tools/list_changed"}"#,
        ] {
            assert!(decode(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
