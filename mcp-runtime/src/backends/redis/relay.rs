//! [`RedisAnswerRelay`]: the [`AnswerRelay`] over the Redis stream `<prefix>answers`
//! (`fanout.rs`, as the bus: one entry per forwarded answer or cancellation, field `m` the
//! [`Relayed`] message as JSON). Appending is retried until Redis takes it and each relay
//! reads from the last entry it delivered, so a connection cut loses nothing Redis holds;
//! repeats and a process's own entries are skipped: every message reaches every other
//! process once.

use std::sync::{Arc, Mutex};

use super::connection::{Conn, Connector};
use super::fanout::{Fanout, Reader};
use crate::session::relay::{AnswerRelay, Relayed};

/// About how many messages the stream `<prefix>answers` keeps: how far behind a relay may
/// fall (while its reading connection is cut) and still catch up.
pub(super) const ANSWER_BACKLOG: usize = 1_000;

/// Where each received message goes (every transport that asked).
type Deliveries = Arc<Mutex<Vec<Box<dyn Fn(Relayed) + Send + Sync>>>>;

/// An [`AnswerRelay`] over a Redis stream (from
/// [`RedisStores::answer_relay`](super::RedisStores::answer_relay)): give it to
/// `HttpOptions::answer_relay` on every replica. Its tasks end when it is dropped.
pub struct RedisAnswerRelay {
    fanout: Fanout,
    deliveries: Deliveries,
}

impl RedisAnswerRelay {
    pub(super) fn start(client: Connector, conn: Conn, queue: usize) -> Self {
        let deliveries: Deliveries = Arc::default();
        let to = deliveries.clone();
        let reader = Reader {
            entry: Box::new(
                move |payload| match serde_json::from_slice::<Relayed>(payload) {
                    Ok(m) => {
                        for deliver in to.lock().expect("deliveries lock").iter() {
                            deliver(m.clone());
                        }
                    }
                    Err(e) => tracing::debug!(error = %e, "redis answer relay: unreadable message"),
                },
            ),
            // A lost answer leaves its request to its own timeout (logged by the reader).
            gap: Box::new(|| {}),
        };
        let fanout = Fanout::open(client, conn, "answers", queue, ANSWER_BACKLOG, reader);
        Self { fanout, deliveries }
    }

    /// Whether the reading connection is up right now.
    pub fn is_connected(&self) -> bool {
        self.fanout.is_connected()
    }

    /// How many messages were not queued for Redis (the queue was full).
    pub fn dropped(&self) -> u64 {
        self.fanout.dropped()
    }

    /// The Redis stream messages go through: `<prefix>answers`.
    pub fn stream_key(&self) -> &str {
        self.fanout.key()
    }
}

impl std::fmt::Debug for RedisAnswerRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisAnswerRelay")
            .field("stream", &self.stream_key())
            .field("origin", &self.fanout.origin())
            .field("connected", &self.is_connected())
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl AnswerRelay for RedisAnswerRelay {
    fn forward(&self, message: Relayed) {
        self.fanout
            .publish(serde_json::to_string(&message).expect("a relayed message serializes"));
    }

    fn on_message(&self, deliver: Box<dyn Fn(Relayed) + Send + Sync>) {
        self.deliveries
            .lock()
            .expect("deliveries lock")
            .push(deliver);
    }
}
