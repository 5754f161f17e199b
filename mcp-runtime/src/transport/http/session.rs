//! Legacy sessions (2024-11-05 HTTP+SSE and 2025 Streamable HTTP): the connection state
//! that the stream kernel keeps per connection, kept here per `Mcp-Session-Id`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::auth::Principal;
use super::lane::{AttachError, Attached, Lane};
use crate::context::peer::ConnShared;
use crate::session::{EventStore, Session, SessionRecord, SessionState};
use crate::wire::filter::Filters;

/// Messages kept for a session while no stream is open to carry them.
const BACKLOG: usize = 256;

pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) state: Session,
    pub(crate) conn: Arc<ConnShared>,
    pub(crate) in_flight: crate::session::intake::InFlight,
    /// Fires when the session ends (DELETE, expiry, shutdown, its SSE stream dropping).
    pub(crate) closed: CancellationToken,
    last_seen: Mutex<Instant>,
    /// Where the session's unrelated messages (server notifications, server-to-client
    /// requests, and on 2024-11-05 every message) go: the standalone stream, which keeps
    /// a bounded backlog while no connection carries it.
    pub(crate) outlet: Arc<Lane>,
    /// The resumable streams of POSTs still in progress, by stream name.
    pub(crate) lanes: Mutex<HashMap<String, Arc<Lane>>>,
    /// Who opened the session (auth): later requests must come from the same subject.
    pub(crate) owner: Mutex<Option<String>>,
    /// 2024-11-05: requests whose answer is not on the stream yet (a drain waits for them).
    pub(crate) answering: std::sync::atomic::AtomicUsize,
    /// The state generation last written to the session store (0: never written).
    saved_generation: AtomicU64,
    /// Persisting writes one at a time, so an older record never overwrites a newer one.
    pub(crate) persisting: tokio::sync::Mutex<()>,
    /// When the session's time to live in the store was last refreshed.
    store_touched: Mutex<Instant>,
    /// The client's connections waiting on the session (POST answers, resumed streams).
    waiting: AtomicUsize,
}

/// Counts one connection of the client's as waiting on its session while alive; when it
/// ends (answered, or the client left) the session's idle clock starts again.
pub(crate) struct Waiting(Arc<HttpSession>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

impl HttpSession {
    pub(crate) fn new(
        id: String,
        peer_request_timeout: Duration,
        filters: Filters,
        closed: CancellationToken,
        store: Option<Arc<dyn EventStore>>,
        event_name: Option<&'static str>,
    ) -> Arc<Self> {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
        let outlet = Lane::new(&id, store, event_name, BACKLOG);
        let pump = outlet.clone();
        let stop = closed.clone();
        let state: Session = Arc::new(Mutex::new(SessionState::default()));
        #[cfg(feature = "otel")]
        let (started, ended) = (std::time::Instant::now(), state.clone());
        tokio::spawn(async move {
            loop {
                let m = tokio::select! {
                    m = rx.recv() => match m { Some(m) => m, None => break },
                    _ = stop.cancelled() => break,
                };
                pump.push(m, false).await;
            }
            // The session is over (DELETE, expiry, shutdown, or every handle gone).
            #[cfg(feature = "otel")]
            {
                use crate::common::telemetry::{NetworkTransport, metrics};
                let version = ended.lock().expect("session lock").version;
                metrics::session_ended(
                    &metrics::instruments().server_session,
                    started,
                    version.map(|v| v.as_str()),
                    NetworkTransport::Tcp,
                    None,
                );
            }
        });
        let conn = Arc::new(ConnShared::new(tx, peer_request_timeout, filters));
        conn.random_request_ids();
        Arc::new(Self {
            id,
            state,
            conn,
            in_flight: Default::default(),
            closed,
            last_seen: Mutex::new(Instant::now()),
            outlet,
            lanes: Mutex::new(HashMap::new()),
            owner: Mutex::new(None),
            answering: std::sync::atomic::AtomicUsize::new(0),
            saved_generation: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
            persisting: tokio::sync::Mutex::new(()),
            store_touched: Mutex::new(Instant::now()),
        })
    }

    /// Takes on a session another process created, as the store keeps it.
    pub(crate) fn adopt(&self, record: &SessionRecord) {
        let mut state = record.to_state();
        state.changed();
        let generation = state.generation;
        *self.state.lock().expect("session lock") = state;
        *self.owner.lock().expect("owner lock") = record.owner.clone();
        self.saved(generation);
    }

    /// Takes what other processes may have changed since this copy was loaded: the log
    /// level and the resource subscriptions (unless this copy has changes of its own not
    /// yet written).
    pub(crate) fn follow(&self, record: &SessionRecord) {
        let mut state = self.state.lock().expect("session lock");
        if state.generation > self.saved_generation.load(Ordering::Acquire) {
            // Changed here and not written yet: this copy is the newer one.
            return;
        }
        state.log_level = record.log_level;
        state.subscriptions = record.subscriptions.iter().cloned().collect();
    }

    /// Whether the session store holds this session (it was written or adopted).
    pub(crate) fn is_stored(&self) -> bool {
        self.saved_generation.load(Ordering::Acquire) > 0
    }

    /// The record to write to the store and its generation, when the session is committed
    /// and changed since it was last written.
    pub(crate) fn unsaved_record(&self) -> Option<(u64, SessionRecord)> {
        let state = self.state.lock().expect("session lock");
        let saved = self.saved_generation.load(Ordering::Acquire);
        if !state.initialized || state.generation <= saved {
            return None;
        }
        let owner = self.owner.lock().expect("owner lock").clone();
        Some((state.generation, SessionRecord::of(&state, owner)))
    }

    /// Records that generation `generation` is in the store.
    pub(crate) fn saved(&self, generation: u64) {
        self.saved_generation
            .fetch_max(generation, Ordering::AcqRel);
    }

    /// Whether the stored session's time to live is due for a refresh (then marks it
    /// refreshed now).
    pub(crate) fn store_touch_due(&self, period: Duration) -> bool {
        let now = Instant::now();
        let mut last = self.store_touched.lock().expect("session lock");
        if now.saturating_duration_since(*last) < period {
            return false;
        }
        *last = now;
        true
    }

    pub(crate) fn touch(&self) {
        *self.last_seen.lock().expect("session lock") = Instant::now();
    }

    pub(crate) fn initialized(&self) -> bool {
        self.state.lock().expect("session lock").initialized
    }

    /// How long the session has been idle; `None` while it is busy (a stream open, a
    /// POST stream still running, or a request in flight).
    pub(crate) fn idle_for(&self) -> Option<Duration> {
        let busy = self.has_stream()
            || !self.in_flight.is_empty()
            || !self.lanes.lock().expect("lanes lock").is_empty();
        (!busy).then(|| self.last_seen.lock().expect("session lock").elapsed())
    }

    /// Whether the session has been idle (no connection of the client's open on it) for
    /// `timeout`. Work still in flight for a client that left does not keep it: a client
    /// that never comes back would hold it, and that work, for ever (expiry cancels it).
    pub(crate) fn expired(&self, timeout: Duration) -> bool {
        !self.attached() && self.last_seen.lock().expect("session lock").elapsed() > timeout
    }

    /// Whether a connection of the client's is open on the session: its standalone
    /// stream, or one [`Self::waiting`] on an answer or a resumed stream.
    fn attached(&self) -> bool {
        self.has_stream() || self.waiting.load(Ordering::Acquire) > 0
    }

    /// Marks a connection of the client's as waiting on the session until dropped.
    pub(crate) fn waiting(self: &Arc<Self>) -> Waiting {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        Waiting(self.clone())
    }

    /// Marks the session seen now, unless it has expired (then `false`): what
    /// `expired` then `touch` answer, with the clock read and the busy checks only when
    /// the last sighting is older than `timeout` (on every request of a session).
    pub(crate) fn touch_unless_expired(&self, timeout: Duration) -> bool {
        let now = Instant::now();
        {
            let mut last = self.last_seen.lock().expect("session lock");
            if now.saturating_duration_since(*last) <= timeout {
                *last = now;
                return true;
            }
        }
        let busy = self.attached();
        if busy {
            self.touch();
        }
        busy
    }

    /// Binds the session to the subject of `principal` (when authenticated).
    pub(crate) fn set_owner(&self, principal: Option<&Principal>) {
        *self.owner.lock().expect("owner lock") = principal.map(|p| p.subject.clone());
    }

    /// Whether the request `parts` comes from the subject the session belongs to.
    pub(crate) fn owned_by(&self, parts: &axum::http::request::Parts) -> bool {
        match &*self.owner.lock().expect("owner lock") {
            None => true,
            Some(o) => parts
                .extensions
                .get::<Principal>()
                .is_some_and(|p| &p.subject == o),
        }
    }

    pub(crate) fn has_stream(&self) -> bool {
        self.outlet.has_live()
    }

    /// Attaches a plain connection to the standalone stream, which first receives the
    /// backlog; `Busy` when one is already attached.
    pub(crate) async fn attach(
        &self,
        prime: Option<Option<Duration>>,
    ) -> Result<Attached, AttachError> {
        self.outlet.attach(None, prime).await
    }

    /// Detaches connection `generation` of the standalone stream.
    pub(crate) fn detach(&self, generation: u64) {
        self.outlet.detach(generation);
        self.touch();
    }

    /// The lane named `stream` (the standalone one or a POST's still in progress).
    pub(crate) fn lane(&self, stream: &str) -> Option<Arc<Lane>> {
        if self.outlet.key.stream == stream {
            return Some(self.outlet.clone());
        }
        self.lanes.lock().expect("lanes lock").get(stream).cloned()
    }

    /// Ends the session: in-flight work is cancelled, streams end, its stored events are
    /// forgotten.
    pub(crate) fn close(&self) {
        self.close_here();
        self.outlet.forget_session();
    }

    /// Ends the session in this process only (evicted at the cap, or expired here, while a
    /// shared store keeps it for the other replicas): in-flight work is cancelled, streams
    /// end, and its stored events stay for the replica that serves it next (they expire
    /// with the event store's bounds).
    pub(crate) fn close_here(&self) {
        self.closed.cancel();
        self.in_flight.cancel_all();
        self.conn.fail_all();
    }
}

/// A fresh session id: 128 random bits from the OS, as 32 hex digits.
pub(crate) fn new_session_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random source failed");
    let mut s = String::with_capacity(32);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}
