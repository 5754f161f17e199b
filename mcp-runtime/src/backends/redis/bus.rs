//! [`RedisBus`]: a [`SubscriptionBus`] shared by every process on one Redis, so a resource
//! update or a list change on one replica reaches the listen streams and legacy sessions
//! that other replicas hold.
//!
//! `publish` hands the event to this process's subscribers at once (an [`InMemoryBus`]
//! ring) and queues it to be appended to the Redis stream `<prefix>bus` (`fanout.rs`:
//! retried until Redis takes it; a full queue drops and counts the new event). A second task
//! reads the stream on a connection of its own and re-publishes to the local ring what
//! other buses appended, skipping its own, repeats (each entry carries its bus's random
//! origin and a sequence number) and anything it cannot read. A cut reading connection
//! reconnects with a capped backoff and goes on after the last entry it read, so an event
//! published while a bus was disconnected reaches its subscribers once it is back, once.
//! A bus that finds it lost events (it fell further behind than the stream keeps, about
//! [`DEFAULT_BACKLOG`] entries, or an origin's numbers skip) marks every subscriber here
//! lagged: each resynchronises on its next event (a listen stream or a legacy session sends
//! one notification for everything it watches) rather than silently missing some.
//! Both tasks end when the bus is dropped.
//!
//! This file imports the bus types of `features/subscriptions.rs`: the one Redis backend
//! that serves a layer above `session`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::connection::{Conn, Connector};
use super::fanout::{Fanout, Reader};
use crate::session::bus::{BusReceiver, InMemoryBus, ServerEvent, SubscriptionBus};

/// How many events wait to be published unless told otherwise.
pub const DEFAULT_QUEUE: usize = 1024;

/// About how many events the stream `<prefix>bus` keeps unless told otherwise: how far
/// behind a bus may fall (while its reading connection is cut) and still catch up.
pub const DEFAULT_BACKLOG: usize = 10_000;

/// A [`SubscriptionBus`] over one Redis stream (from
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
    fanout: Fanout,
}

impl RedisBus {
    /// Opens the stream end: its tasks append what this bus publishes and re-publish here
    /// what other buses append.
    pub(super) fn start(client: Connector, conn: Conn, queue: usize, backlog: usize) -> Self {
        let local = Arc::new(InMemoryBus::default());
        let ring = local.clone();
        let marked = local.clone();
        let reader = Reader {
            entry: Box::new(move |payload| match decode(payload) {
                Ok(event) => ring.publish(event),
                Err(e) => tracing::debug!(error = %e, "redis bus: unreadable event skipped"),
            }),
            // Every listen stream and legacy session here resynchronises.
            gap: Box::new(move || marked.mark_lagged()),
        };
        let fanout = Fanout::open(client, conn, "bus", queue, backlog, reader);
        Self { local, fanout }
    }

    /// How many events were not published to Redis (the queue was full while Redis was
    /// slow or away); this process's subscribers got them all the same.
    pub fn dropped(&self) -> u64 {
        self.fanout.dropped()
    }

    /// How many times this bus found it had lost events of other processes (it fell
    /// behind the stream's bound while its connection was cut, or Redis lost them): each
    /// time every subscriber here was marked lagged, and resynchronised.
    pub fn gaps(&self) -> u64 {
        self.fanout.gaps()
    }

    /// Whether the reading connection is up right now (events other processes publish
    /// from now on arrive here, and those appended while it was down are caught up).
    pub fn is_connected(&self) -> bool {
        self.fanout.is_connected()
    }

    /// The Redis stream events go through: `<prefix>bus`.
    pub fn stream_key(&self) -> &str {
        self.fanout.key()
    }
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("stream", &self.stream_key())
            .field("origin", &self.fanout.origin())
            .field("connected", &self.is_connected())
            .field("dropped", &self.dropped())
            .field("gaps", &self.gaps())
            .finish()
    }
}

impl SubscriptionBus for RedisBus {
    fn publish(&self, event: ServerEvent) {
        self.fanout.publish(encode(&event));
        self.local.publish(event);
    }

    fn subscribe(&self) -> BusReceiver {
        self.local.subscribe()
    }

    fn subscribers(&self) -> usize {
        self.local.subscribers()
    }
}

/// The wire form of an event (the `m` field of its stream entry): `{"method", "uri"?,
/// "taskId"?, "params"?}`, the method naming the event as its notification does.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    params: Option<serde_json::Map<String, serde_json::Value>>,
}

fn encode(event: &ServerEvent) -> String {
    let mut w = Wire {
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

fn decode(payload: &[u8]) -> Result<ServerEvent, String> {
    let w: Wire = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    let event = match (w.method.as_str(), w.uri, w.task_id) {
        ("notifications/tools/list_changed", _, _) => ServerEvent::ToolsListChanged,
        ("notifications/prompts/list_changed", _, _) => ServerEvent::PromptsListChanged,
        ("notifications/resources/list_changed", _, _) => ServerEvent::ResourcesListChanged,
        ("notifications/resources/updated", Some(uri), _) => ServerEvent::ResourceUpdated { uri },
        ("notifications/tasks", _, Some(id)) => ServerEvent::task(id, w.params.unwrap_or_default()),
        (m, _, _) => return Err(format!("unknown or incomplete event {m:?}")),
    };
    Ok(event)
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
            assert_eq!(decode(encode(&e).as_bytes()).unwrap(), e);
        }
    }

    #[test]
    fn unreadable_messages_are_errors() {
        for bad in [
            &b"garbage"[..],
            br#"{"method":"notifications/resources/updated"}"#,
            br#"{"method":"notifications/unknown"}"#,
            br#"{"uri":"notes://1"}"#,
        ] {
            assert!(decode(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
