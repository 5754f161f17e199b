//! A lane: one logical SSE stream that outlives its connections. Every event is stored
//! (when the lane is resumable) before it is written to the connection attached at the
//! time, under one lock with the replay that a resuming connection gets first: so a
//! client resuming after its last seen event id misses nothing and sees nothing twice.
//! The store is async (it may be remote), so that lock is an async one (`order`), held
//! across the store call; the lane's quick state sits under a plain mutex beside it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::{Notify, mpsc};

use super::sse;
use crate::session::{EventStore, StoreError, StreamId};

/// Live chunks queued for one connection.
const LIVE: usize = 64;

/// Why a connection could not attach.
#[derive(Debug)]
pub(crate) enum AttachError {
    /// Another connection is attached (and this is not a resumption).
    Busy,
    /// The `Last-Event-ID` is unknown, or belongs to another stream or session.
    UnknownEvent,
    /// The event store could not be reached.
    Store(StoreError),
}

/// What an attached connection sends: `pending` first, then every chunk from `rx` (which
/// ends when the lane completes, at once when it already has); `generation` identifies
/// the attachment (to detach it).
pub(crate) struct Attached {
    pub(crate) pending: Vec<Bytes>,
    pub(crate) rx: mpsc::Receiver<Vec<u8>>,
    pub(crate) generation: u64,
}

#[derive(Default)]
struct Inner {
    live: Option<mpsc::Sender<Vec<u8>>>,
    generation: u64,
    backlog: VecDeque<Vec<u8>>,
    done: bool,
}

pub(crate) struct Lane {
    pub(crate) key: StreamId,
    store: Option<Arc<dyn EventStore>>,
    event_name: Option<&'static str>,
    backlog_cap: usize,
    inner: Mutex<Inner>,
    /// Held from storing an event to handing it to the connection, and from a replay to
    /// the attachment that follows it.
    order: tokio::sync::Mutex<()>,
    changed: Notify,
}

/// A fresh stream name: 64 random bits as 16 hex digits.
pub(crate) fn new_stream_name() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the OS random source failed");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl Lane {
    /// A lane of `session`; with a `store` its events carry ids and can be replayed;
    /// `backlog_cap` chunks are kept for the next plain (non-resuming) connection while
    /// none is attached.
    pub(crate) fn new(
        session: &str,
        store: Option<Arc<dyn EventStore>>,
        event_name: Option<&'static str>,
        backlog_cap: usize,
    ) -> Arc<Self> {
        Arc::new(Self {
            key: StreamId {
                session: session.to_owned(),
                stream: new_stream_name(),
            },
            store,
            event_name,
            backlog_cap,
            inner: Mutex::new(Inner::default()),
            order: tokio::sync::Mutex::new(()),
            changed: Notify::new(),
        })
    }

    pub(crate) fn resumable(&self) -> bool {
        self.store.is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("lane lock")
    }

    pub(crate) fn has_live(&self) -> bool {
        self.lock().live.as_ref().is_some_and(|s| !s.is_closed())
    }

    /// Stores and sends one message; the `last` one completes the lane (the connection
    /// then ends once it has written it). Waits while the attached connection is full
    /// (backpressure), but never across a change of connection.
    pub(crate) async fn push(&self, msg: Vec<u8>, last: bool) {
        let reserved = loop {
            let live = self.lock().live.clone();
            let Some(s) = live else { break None };
            tokio::select! {
                p = s.clone().reserve_owned() => break p.ok().map(|p| (s, p)),
                _ = self.changed.notified() => continue,
            }
        };
        let _order = self.order.lock().await;
        let id = self.store_event(&msg).await;
        let chunk = sse::event_with_id(id.as_deref(), self.event_name, &msg).to_vec();
        let mut g = self.lock();
        let undelivered = match (reserved, &g.live) {
            (Some((s, p)), Some(cur)) if cur.same_channel(&s) => {
                p.send(chunk);
                None
            }
            (_, Some(cur)) => match cur.try_send(chunk) {
                Ok(()) => None,
                Err(e) => {
                    g.live = None;
                    Some(match e {
                        mpsc::error::TrySendError::Full(c)
                        | mpsc::error::TrySendError::Closed(c) => c,
                    })
                }
            },
            (_, None) => Some(chunk),
        };
        if let Some(c) = undelivered
            && self.backlog_cap > 0
            && !last
        {
            if g.backlog.len() == self.backlog_cap {
                g.backlog.pop_front();
            }
            g.backlog.push_back(c);
        }
        if last {
            g.done = true;
            g.live = None;
        }
    }

    /// Closes the attached connection (once it has written what it was given); the lane
    /// goes on, and the client resumes with `GET` + `Last-Event-ID`.
    pub(crate) fn disconnect(&self) {
        self.lock().live = None;
    }

    /// Completes the lane without a last message (its request was cancelled).
    pub(crate) fn finish(&self) {
        let mut g = self.lock();
        g.done = true;
        g.live = None;
    }

    /// Attaches a connection. A resumption (`resume`: the client's `Last-Event-ID`)
    /// replaces any attached connection and first gets the stored events after that id;
    /// a plain one gets the backlog, and is refused while another is attached. `prime`
    /// (2025-11-25, resumable lanes): start with a priming event, with this `retry:`.
    pub(crate) async fn attach(
        &self,
        resume: Option<&str>,
        prime: Option<Option<Duration>>,
    ) -> Result<Attached, AttachError> {
        let _order = self.order.lock().await;
        let mut pending = Vec::new();
        if let Some(last) = resume {
            let store = self.store.as_ref().ok_or(AttachError::UnknownEvent)?;
            let replay = (store.replay_after(last).await)
                .map_err(AttachError::Store)?
                .ok_or(AttachError::UnknownEvent)?;
            if replay.stream != self.key {
                return Err(AttachError::UnknownEvent);
            }
            if replay.truncated {
                tracing::warn!(
                    session = %self.key.session,
                    stream = %self.key.stream,
                    last_event_id = last,
                    "resumed stream lost events to eviction"
                );
            }
            self.lock().backlog.clear();
            for e in replay.events {
                pending.push(sse::event_with_id(Some(&e.id), self.event_name, &e.message));
            }
        } else {
            let (backlog, done) = {
                let mut g = self.lock();
                if g.live.as_ref().is_some_and(|s| !s.is_closed()) {
                    return Err(AttachError::Busy);
                }
                let backlog: Vec<_> = g.backlog.drain(..).map(Bytes::from).collect();
                (backlog, g.done)
            };
            // A backlog starts with ids of its own; the priming event would come after them.
            if backlog.is_empty()
                && !done
                && let Some(retry) = prime
                && let Some(id) = self.store_event(b"").await
            {
                pending.push(sse::priming(&id, retry));
            }
            pending.extend(backlog);
        }
        let (tx, rx) = mpsc::channel(LIVE);
        let mut g = self.lock();
        g.generation += 1;
        let generation = g.generation;
        if !g.done {
            g.live = Some(tx);
        }
        drop(g);
        self.changed.notify_one();
        Ok(Attached {
            pending,
            rx,
            generation,
        })
    }

    /// Starts a resumable lane's first connection: the priming event (when `prime`) and
    /// then everything live; `connected: false` attaches nothing (2025-11-25 polling: the
    /// server closes the connection after priming, the client resumes with `GET`).
    pub(crate) async fn open(&self, prime: Option<Option<Duration>>, connected: bool) -> Attached {
        let _order = self.order.lock().await;
        let mut pending = Vec::new();
        if let Some(retry) = prime
            && let Some(id) = self.store_event(b"").await
        {
            pending.push(sse::priming(&id, retry));
        }
        let (tx, rx) = mpsc::channel(LIVE);
        let mut g = self.lock();
        g.generation += 1;
        if connected {
            g.live = Some(tx);
        }
        Attached {
            pending,
            rx,
            generation: g.generation,
        }
    }

    /// Stores one event (with `order` held), returning its id; `None` when the lane is not
    /// resumable or the store failed (the event then goes out live only, without an id).
    async fn store_event(&self, msg: &[u8]) -> Option<String> {
        let store = self.store.as_ref()?;
        match store.append(&self.key, msg).await {
            Ok(id) => Some(id),
            Err(e) => {
                tracing::warn!(
                    session = %self.key.session,
                    stream = %self.key.stream,
                    error = %e,
                    "event not stored: it cannot be replayed"
                );
                None
            }
        }
    }

    /// Detaches the connection `generation` (when it is still the attached one).
    pub(crate) fn detach(&self, generation: u64) {
        let mut g = self.lock();
        if g.generation == generation {
            g.live = None;
        }
    }

    /// Forgets the stored events of the whole session (in the background: the session is
    /// ending, nothing waits for this).
    pub(crate) fn forget_session(&self) {
        if let Some(store) = self.store.clone() {
            let session = self.key.session.clone();
            tokio::spawn(async move {
                if let Err(e) = store.forget_session(&session).await {
                    tracing::warn!(%session, error = %e, "stored events not forgotten");
                }
            });
        }
    }
}
