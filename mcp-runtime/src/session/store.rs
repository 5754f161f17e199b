//! Where legacy sessions live beyond one process: [`SessionStore`], an async trait a remote
//! store can implement, and [`InMemorySessionStore`], the default.
//!
//! A session's live parts (its streams, the requests it runs) stay in the process that
//! serves them; what the store keeps is what any process needs to serve the session's next
//! request: what `initialize` committed, the log level and resource subscriptions the client
//! asked for since, and who owns it. A process that has never seen a session loads it from
//! the store on its first request.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_core::types::{ClientCapabilities, Implementation, LoggingLevel};
use mcp_core::version::ProtocolVersion;
use serde::{Deserialize, Serialize};

use super::state::{ClientView, SessionState};
use crate::common::BoxFuture;

/// What a store keeps of one legacy session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord {
    /// The revision `initialize` negotiated.
    pub protocol_version: Option<ProtocolVersion>,
    /// The client's `clientInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// The client's declared capabilities.
    #[serde(default)]
    pub client_capabilities: ClientCapabilities,
    /// The level `logging/setLevel` set; `None`: no log messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
    /// The resources the client subscribed to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
    /// The scope of the tasks the session creates (`tasks/list` is per session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_scope: Option<String>,
    /// The authenticated subject that opened it; later requests must come from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

// Only the HTTP transport keeps sessions in a store.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl SessionRecord {
    /// The record of a committed session state.
    pub(crate) fn of(state: &SessionState, owner: Option<String>) -> Self {
        let client = state.client.as_deref();
        Self {
            protocol_version: state.version,
            client_info: client.and_then(|c| c.info.clone()),
            client_capabilities: client.map(|c| c.capabilities.clone()).unwrap_or_default(),
            log_level: state.log_level,
            subscriptions: state.subscriptions.iter().cloned().collect(),
            task_scope: state.task_scope_if_made().map(str::to_owned),
            owner,
        }
    }

    /// The session state this record describes (initialized: only committed sessions are
    /// stored).
    pub(crate) fn to_state(&self) -> SessionState {
        let mut s = SessionState::default();
        s.initialized = true;
        s.version = self.protocol_version;
        s.client = Some(std::sync::Arc::new(ClientView {
            info: self.client_info.clone(),
            capabilities: self.client_capabilities.clone(),
        }));
        s.log_level = self.log_level;
        s.subscriptions = self.subscriptions.iter().cloned().collect();
        if let Some(scope) = &self.task_scope {
            s.set_task_scope(scope.clone());
        }
        s
    }
}

/// The JSON-RPC error code of a request that needed a shared store which could not be
/// reached, or could not make a write durable (a Redis failing over): the request may be
/// sent again. On 2026-07-28 Streamable HTTP it is answered with HTTP 503 and
/// `Retry-After`, as a legacy request whose session store cannot be reached is.
pub const STORE_UNAVAILABLE: i32 = -32050;

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreError {
    /// The backend did not answer (unreachable, timed out): the request that needed it
    /// fails with `503`, and the next one tries again.
    Unavailable(String),
    /// The backend answered with something this store cannot read.
    Corrupt(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Unavailable(why) => write!(f, "the store is unavailable: {why}"),
            StoreError::Corrupt(why) => write!(f, "the store holds unreadable data: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// Where legacy sessions are kept, by `Mcp-Session-Id`.
///
/// Every session has a time to live, refreshed as it is used; an implementation must never
/// keep one past it, and must never bring back a removed or expired session by a late
/// [`save`](Self::save) or [`touch`](Self::touch) (both change only a session that still
/// exists). Each call should fail within a bounded time ([`StoreError::Unavailable`])
/// rather than hang.
pub trait SessionStore: Send + Sync + 'static {
    /// Stores a new session for `ttl`.
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The session `id`; `None` when it does not exist or has expired.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>>;

    /// Replaces what session `id` holds and refreshes its time to live, only while it
    /// exists; `false` when it does not.
    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Refreshes the time to live of session `id` (it was used); `false` when it no longer
    /// exists.
    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Ends session `id` (`DELETE`, expiry): no process serves it any more.
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Whether other processes write this store too (default: no). Then a process reads a
    /// session it holds back from the store on every request, so that a log level or a
    /// subscription set, or a `DELETE`, through another process holds here at once (one
    /// [`load`](Self::load) per legacy request).
    fn shared(&self) -> bool {
        false
    }
}

/// The default store: a map in this process, each entry dropped once its time to live is
/// over (checked on access and swept on every create), bounded by `max_sessions`.
///
/// It is not [`shared`](SessionStore::shared): the HTTP transport removes a session from it
/// when it evicts the session at its own cap or ends it, so the store holds no more
/// sessions than the transport does.
#[derive(Debug)]
pub struct InMemorySessionStore {
    sessions: Mutex<HashMap<String, (SessionRecord, Instant)>>,
    max_sessions: usize,
}

impl InMemorySessionStore {
    /// A store holding at most `max_sessions` live sessions (creating one more first drops
    /// the expired ones, then the one closest to expiry).
    pub fn new(max_sessions: usize) -> Self {
        Self {
            sessions: Mutex::new(HashMap::new()),
            max_sessions: max_sessions.max(1),
        }
    }

    /// How many sessions are held (expired ones not yet swept included).
    pub fn len(&self) -> usize {
        self.sessions.lock().expect("sessions lock").len()
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn ready<T>(value: T) -> BoxFuture<'static, T>
    where
        T: Send + 'static,
    {
        Box::pin(std::future::ready(value))
    }
}

impl Default for InMemorySessionStore {
    fn default() -> Self {
        Self::new(65_536)
    }
}

impl SessionStore for InMemorySessionStore {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = Instant::now();
        let mut all = self.sessions.lock().expect("sessions lock");
        all.retain(|_, (_, until)| *until > now);
        if all.len() >= self.max_sessions
            && let Some(soonest) = all
                .iter()
                .min_by_key(|(_, (_, until))| *until)
                .map(|(k, _)| k.clone())
        {
            all.remove(&soonest);
        }
        all.insert(id.to_owned(), (record.clone(), now + ttl));
        Self::ready(Ok(()))
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        let mut all = self.sessions.lock().expect("sessions lock");
        let found = match all.get(id) {
            Some((record, until)) if *until > Instant::now() => Some(record.clone()),
            Some(_) => {
                all.remove(id);
                None
            }
            None => None,
        };
        Self::ready(Ok(found))
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let mut all = self.sessions.lock().expect("sessions lock");
        let saved = match all.get_mut(id) {
            Some(entry) if entry.1 > now => {
                *entry = (record.clone(), now + ttl);
                true
            }
            Some(_) => {
                all.remove(id);
                false
            }
            None => false,
        };
        Self::ready(Ok(saved))
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let mut all = self.sessions.lock().expect("sessions lock");
        let alive = match all.get_mut(id) {
            Some(entry) if entry.1 > now => {
                entry.1 = now + ttl;
                true
            }
            Some(_) => {
                all.remove(id);
                false
            }
            None => false,
        };
        Self::ready(Ok(alive))
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.sessions.lock().expect("sessions lock").remove(id);
        Self::ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(level: Option<LoggingLevel>) -> SessionRecord {
        SessionRecord {
            protocol_version: Some(ProtocolVersion::V2025_11_25),
            client_info: Some(Implementation::new("c", "1")),
            log_level: level,
            subscriptions: vec!["books://1".into()],
            task_scope: Some("scope".into()),
            owner: Some("alice".into()),
            ..SessionRecord::default()
        }
    }

    #[tokio::test]
    async fn a_session_lives_while_used_and_never_comes_back_once_gone() {
        let store = InMemorySessionStore::new(8);
        let ttl = Duration::from_secs(60);
        assert_eq!(store.load("a").await, Ok(None));
        // Nothing is saved or touched into existence.
        assert_eq!(store.save("a", &record(None), ttl).await, Ok(false));
        assert_eq!(store.touch("a", ttl).await, Ok(false));
        assert_eq!(store.load("a").await, Ok(None));

        store.create("a", &record(None), ttl).await.unwrap();
        let changed = record(Some(LoggingLevel::Warning));
        assert_eq!(store.save("a", &changed, ttl).await, Ok(true));
        assert_eq!(store.load("a").await, Ok(Some(changed.clone())));
        assert_eq!(store.touch("a", ttl).await, Ok(true));

        store.remove("a").await.unwrap();
        assert_eq!(store.save("a", &changed, ttl).await, Ok(false));
        assert_eq!(store.load("a").await, Ok(None));
    }

    #[tokio::test]
    async fn an_expired_session_is_gone() {
        let store = InMemorySessionStore::new(8);
        store
            .create("a", &record(None), Duration::from_millis(1))
            .await
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(store.touch("a", Duration::from_secs(60)).await, Ok(false));
        assert_eq!(store.load("a").await, Ok(None));
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn at_the_bound_the_session_closest_to_expiry_goes() {
        let store = InMemorySessionStore::new(2);
        store
            .create("short", &record(None), Duration::from_secs(10))
            .await
            .unwrap();
        store
            .create("long", &record(None), Duration::from_secs(100))
            .await
            .unwrap();
        store
            .create("new", &record(None), Duration::from_secs(100))
            .await
            .unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(store.load("short").await, Ok(None));
        assert!(store.load("long").await.unwrap().is_some());
    }

    #[test]
    fn a_record_carries_the_state_a_replica_needs() {
        let r = record(Some(LoggingLevel::Info));
        let state = r.to_state();
        assert!(state.initialized);
        assert_eq!(state.version, Some(ProtocolVersion::V2025_11_25));
        assert_eq!(state.log_level, Some(LoggingLevel::Info));
        assert!(state.subscriptions.contains("books://1"));
        assert_eq!(SessionRecord::of(&state, Some("alice".into())), r);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<SessionRecord>(&json).unwrap(), r);
    }
}
