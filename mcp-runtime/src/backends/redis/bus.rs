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

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::connection::Conn;
use super::pubsub::{Channel, OnMessage};
use crate::session::bus::{BusReceiver, InMemoryBus, ServerEvent, SubscriptionBus};

/// How many events wait to be published unless told otherwise.
pub const DEFAULT_QUEUE: usize = 1024;

/// A [`SubscriptionBus`] over Redis pub/sub (from
/// [`RedisStores::bus`](super::RedisStores::bus)): give it to
/// `ServerBuilder::subscription_bus` on every replica.
///
/// ```no_run
/// # async fn f() -> Result<(), mcp_runtime::session::StoreError> {
/// use mcp_runtime::Server;
/// use mcp_runtime::backends::redis::RedisConfig;
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
    channel: Channel,
}

impl RedisBus {
    /// Opens the channel: its tasks publish what this bus publishes and re-publish here
    /// what other buses do.
    pub(super) fn start(client: ::redis::Client, conn: Conn, queue: usize) -> Self {
        let local = Arc::new(InMemoryBus::default());
        let origin = Arc::new(std::sync::OnceLock::<String>::new());
        let (ring, me) = (local.clone(), origin.clone());
        let on_message: OnMessage = Box::new(move |payload| match decode(payload) {
            Ok(w) if me.get() == Some(&w.origin) => {}
            Ok(w) => ring.publish(w.event),
            Err(e) => tracing::debug!(error = %e, "redis bus: unreadable message skipped"),
        });
        let channel = Channel::open(client, conn, "events", queue, on_message);
        let _ = origin.set(channel.origin().to_owned());
        Self { local, channel }
    }

    /// How many events were not published to Redis (the queue was full, or Redis did not
    /// take them in time); this process's subscribers got them all the same.
    pub fn dropped(&self) -> u64 {
        self.channel.dropped()
    }

    /// Whether the pub/sub connection is subscribed right now (events other processes
    /// publish from now on arrive here).
    pub fn is_connected(&self) -> bool {
        self.channel.is_connected()
    }

    /// The channel events go through: `<prefix>events`.
    pub fn channel(&self) -> &str {
        self.channel.name()
    }
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.channel())
            .field("origin", &self.channel.origin())
            .field("connected", &self.is_connected())
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl SubscriptionBus for RedisBus {
    fn publish(&self, event: ServerEvent) {
        self.channel.publish(encode(self.channel.origin(), &event));
        self.local.publish(event);
    }

    fn subscribe(&self) -> BusReceiver {
        self.local.subscribe()
    }

    fn subscribers(&self) -> usize {
        self.local.subscribers()
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
