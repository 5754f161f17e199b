//! [`RedisAnswerRelay`]: the [`AnswerRelay`] over the pub/sub channel `<prefix>answers`
//! (one message per forwarded answer or cancellation, `{origin, message}` JSON; a process
//! skips its own).

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::connection::{Conn, Connector};
use super::pubsub::{Channel, OnMessage};
use crate::session::relay::{AnswerRelay, Relayed};

/// Where each received message goes (every transport that asked).
type Deliveries = Arc<Mutex<Vec<Box<dyn Fn(Relayed) + Send + Sync>>>>;

/// An [`AnswerRelay`] over Redis pub/sub (from
/// [`RedisStores::answer_relay`](super::RedisStores::answer_relay)): give it to
/// `HttpOptions::answer_relay` on every replica. Its tasks end when it is dropped.
pub struct RedisAnswerRelay {
    channel: Channel,
    deliveries: Deliveries,
}

#[derive(Serialize, Deserialize)]
struct Wire {
    origin: String,
    message: Relayed,
}

impl RedisAnswerRelay {
    pub(super) fn start(client: Connector, conn: Conn, queue: usize) -> Self {
        let deliveries: Deliveries = Arc::default();
        let origin = Arc::new(std::sync::OnceLock::<String>::new());
        let (to, me) = (deliveries.clone(), origin.clone());
        let on_message: OnMessage =
            Box::new(
                move |payload| match serde_json::from_slice::<Wire>(payload) {
                    Ok(w) if me.get() == Some(&w.origin) => {}
                    Ok(w) => {
                        for deliver in to.lock().expect("deliveries lock").iter() {
                            deliver(w.message.clone());
                        }
                    }
                    Err(e) => tracing::debug!(error = %e, "redis answer relay: unreadable message"),
                },
            );
        let channel = Channel::open(client, conn, "answers", queue, on_message);
        let _ = origin.set(channel.origin().to_owned());
        Self {
            channel,
            deliveries,
        }
    }

    /// Whether the pub/sub connection is subscribed right now.
    pub fn is_connected(&self) -> bool {
        self.channel.is_connected()
    }

    /// How many messages were not published.
    pub fn dropped(&self) -> u64 {
        self.channel.dropped()
    }
}

impl std::fmt::Debug for RedisAnswerRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisAnswerRelay")
            .field("channel", &self.channel.name())
            .field("connected", &self.is_connected())
            .field("dropped", &self.dropped())
            .finish()
    }
}

impl AnswerRelay for RedisAnswerRelay {
    fn forward(&self, message: Relayed) {
        let wire = Wire {
            origin: self.channel.origin().to_owned(),
            message,
        };
        self.channel
            .publish(serde_json::to_string(&wire).expect("a relayed message serializes"));
    }

    fn on_message(&self, deliver: Box<dyn Fn(Relayed) + Send + Sync>) {
        self.deliveries
            .lock()
            .expect("deliveries lock")
            .push(deliver);
    }
}
