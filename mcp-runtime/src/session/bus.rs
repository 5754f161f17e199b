//! The bus that fans server events out: [`ServerEvent`] (what changed), the
//! [`SubscriptionBus`] trait a backend implements (the in-process [`InMemoryBus`], or one
//! shared between replicas such as `backends::redis::RedisBus`), and one subscription's
//! halves ([`BusSender`], [`BusReceiver`]). What subscribes and what is delivered is
//! `features/subscriptions.rs`. Imports nothing of this crate.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::sync::{broadcast, mpsc};

/// How many events one subscriber may fall behind before it is marked lagged.
pub const DEFAULT_BUFFER: usize = 64;

/// Something that changed on the server, published once and delivered to every subscriber
/// whose filter wants it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerEvent {
    /// The tool list changed (`notifications/tools/list_changed`).
    ToolsListChanged,
    /// The prompt list changed (`notifications/prompts/list_changed`).
    PromptsListChanged,
    /// The resource list changed (`notifications/resources/list_changed`).
    ResourcesListChanged,
    /// Resource `uri` changed (`notifications/resources/updated`): sent to listen streams
    /// whose `resourceSubscriptions` name it and to legacy sessions subscribed to it.
    ResourceUpdated {
        /// The URI that changed.
        uri: String,
    },
    /// A task changed (tasks extension, `notifications/tasks`): sent to listen streams whose
    /// `taskIds` name it. `params` is the notification's params (the task), without `_meta`.
    Task {
        /// The task id.
        task_id: String,
        /// The notification params.
        params: Arc<serde_json::Map<String, serde_json::Value>>,
    },
}

impl ServerEvent {
    /// The notification method this event is sent as.
    pub fn method(&self) -> &'static str {
        match self {
            ServerEvent::ToolsListChanged => "notifications/tools/list_changed",
            ServerEvent::PromptsListChanged => "notifications/prompts/list_changed",
            ServerEvent::ResourcesListChanged => "notifications/resources/list_changed",
            ServerEvent::ResourceUpdated { .. } => "notifications/resources/updated",
            ServerEvent::Task { .. } => "notifications/tasks",
        }
    }

    /// A `notifications/tasks` event for `task_id` with the task as `params`.
    pub fn task(
        task_id: impl Into<String>,
        params: serde_json::Map<String, serde_json::Value>,
    ) -> Self {
        ServerEvent::Task {
            task_id: task_id.into(),
            params: Arc::new(params),
        }
    }

    /// The params of the notification, with `meta` (if any) as `_meta`.
    pub(crate) fn params(
        &self,
        meta: Option<serde_json::Value>,
    ) -> serde_json::Map<String, serde_json::Value> {
        let mut p = match self {
            ServerEvent::ResourceUpdated { uri } => {
                let mut m = serde_json::Map::new();
                m.insert("uri".into(), uri.clone().into());
                m
            }
            ServerEvent::Task { params, .. } => (**params).clone(),
            _ => serde_json::Map::new(),
        };
        if let Some(meta) = meta {
            p.insert("_meta".into(), meta);
        }
        p
    }
}

/// The sending half of one bus subscription: delivery never blocks; a full buffer drops the
/// event and marks the subscription lagged.
#[derive(Debug, Clone)]
pub struct BusSender {
    tx: mpsc::Sender<ServerEvent>,
    lagged: Arc<AtomicBool>,
}

impl BusSender {
    /// Delivers `event`; `false` once the receiver is gone (the sender can be forgotten).
    pub fn deliver(&self, event: ServerEvent) -> bool {
        match self.tx.try_send(event) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.lagged.store(true, Ordering::Release);
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    /// Whether the receiver is gone.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// The receiving half of one bus subscription. Dropping it ends the subscription.
#[derive(Debug)]
pub struct BusReceiver(Receiving);

/// Where a [`BusReceiver`] reads from.
#[derive(Debug)]
enum Receiving {
    /// Its own bounded queue (a [`subscription`] pair, which a remote bus pumps into).
    Queue {
        rx: mpsc::Receiver<ServerEvent>,
        lagged: Arc<AtomicBool>,
    },
    /// A cursor into the [`InMemoryBus`]'s one shared ring: a subscriber costs a few bytes
    /// instead of a queue of its own (1,000 listen streams hold 1,000 of them).
    Ring {
        rx: broadcast::Receiver<ServerEvent>,
        lagged: AtomicBool,
        /// The bus's count of [`InMemoryBus::mark_lagged`] calls, and the last one seen.
        marks: Arc<AtomicU64>,
        seen: AtomicU64,
    },
}

impl BusReceiver {
    /// The next event; `None` when the bus is gone.
    pub async fn recv(&mut self) -> Option<ServerEvent> {
        match &mut self.0 {
            Receiving::Queue { rx, .. } => rx.recv().await,
            Receiving::Ring { rx, lagged, .. } => loop {
                match rx.recv().await {
                    Ok(event) => return Some(event),
                    // Overwritten before this subscriber read them: mark it, go on with the
                    // oldest event still in the ring.
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        lagged.store(true, Ordering::Release)
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
        }
    }

    /// Whether events were lost since the last call (clears the mark).
    pub fn take_lagged(&self) -> bool {
        match &self.0 {
            Receiving::Queue { lagged, .. } => lagged.swap(false, Ordering::AcqRel),
            Receiving::Ring {
                lagged,
                marks,
                seen,
                ..
            } => {
                let marked = marks.load(Ordering::Acquire);
                let missed = seen.swap(marked, Ordering::AcqRel) != marked;
                lagged.swap(false, Ordering::AcqRel) | missed
            }
        }
    }
}

/// A subscription with a buffer of `capacity` events (at least 1).
pub fn subscription(capacity: usize) -> (BusSender, BusReceiver) {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    let lagged = Arc::new(AtomicBool::new(false));
    (
        BusSender {
            tx,
            lagged: lagged.clone(),
        },
        BusReceiver(Receiving::Queue { rx, lagged }),
    )
}

/// Fans server events out to subscribers. The in-memory default is [`InMemoryBus`]; a bus
/// shared between replicas (Redis, NATS, ...) publishes to its backend and, per subscriber,
/// pumps what arrives into a [`subscription`] pair.
pub trait SubscriptionBus: Send + Sync + 'static {
    /// Delivers `event` to every current subscriber, without waiting for any of them.
    fn publish(&self, event: ServerEvent);
    /// A new subscriber; it receives every event published after this call returns.
    fn subscribe(&self) -> BusReceiver;
    /// How many subscribers are attached (closed ones are not counted).
    fn subscribers(&self) -> usize;
}

/// A shared bus (say, to watch its subscriber count while the server holds it).
impl<B: SubscriptionBus + ?Sized> SubscriptionBus for Arc<B> {
    fn publish(&self, event: ServerEvent) {
        (**self).publish(event)
    }
    fn subscribe(&self) -> BusReceiver {
        (**self).subscribe()
    }
    fn subscribers(&self) -> usize {
        (**self).subscribers()
    }
}

/// The in-process bus: one ring of the last `capacity` events, shared by every subscriber
/// (each holds only its read position). A subscriber that falls more than `capacity`
/// events behind loses the oldest ones and is marked lagged.
#[derive(Debug)]
pub struct InMemoryBus {
    ring: broadcast::Sender<ServerEvent>,
    /// How many times [`mark_lagged`](Self::mark_lagged) was called.
    marks: Arc<AtomicU64>,
}

impl InMemoryBus {
    /// A bus whose subscribers may fall up to `capacity` events behind (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            ring: broadcast::channel(capacity.max(1)).0,
            marks: Arc::default(),
        }
    }

    /// Marks every current subscriber lagged: events meant for them were lost before they
    /// reached this bus (a bus carrying other processes' events fell behind its backend).
    /// Each finds the mark with the next event it receives and resynchronises.
    pub fn mark_lagged(&self) {
        self.marks.fetch_add(1, Ordering::AcqRel);
    }
}

impl Default for InMemoryBus {
    fn default() -> Self {
        Self::new(DEFAULT_BUFFER)
    }
}

impl SubscriptionBus for InMemoryBus {
    fn publish(&self, event: ServerEvent) {
        // An error only means nobody is subscribed.
        let _ = self.ring.send(event);
    }

    fn subscribe(&self) -> BusReceiver {
        let marked = self.marks.load(Ordering::Acquire);
        BusReceiver(Receiving::Ring {
            rx: self.ring.subscribe(),
            lagged: AtomicBool::new(false),
            marks: self.marks.clone(),
            seen: AtomicU64::new(marked),
        })
    }

    fn subscribers(&self) -> usize {
        self.ring.receiver_count()
    }
}
