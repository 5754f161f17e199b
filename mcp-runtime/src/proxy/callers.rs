//! [`Callers`]: the bounded pool of per-caller upstream connections
//! ([`Sharing::PerCaller`](super::Sharing::PerCaller)).
//!
//! A caller is named by [`caller_of`]: the downstream legacy session (stdio, in-memory, a
//! 2025-era HTTP session), else the authenticated [`Principal`]'s subject (a 2026 caller
//! behind our HTTP authentication), else none (the shared connection serves it); for an
//! upstream reached with the caller's identity (`identity.rs`), else its bearer token, and a
//! call without one fails. A
//! session's connection is closed once the session has ended (the pool holds it weakly and
//! looks every sweep); any caller's is closed after [`Upstream::caller_idle_timeout`]
//! without a call, or to make room for a new caller past [`Upstream::max_callers`] (the
//! least recently used one not in a call). A caller whose connection failed to open has
//! its calls failed at once for [`RECONNECT_EVERY`], then tried again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mcp_core::types::LoggingLevel;
use mcp_core::version::Era;
use tokio::sync::{OnceCell, mpsc};

use super::relay::{Relay, RelayHandler};
use super::upstream::{ProxyError, RECONNECT_EVERY, Upstream};
use crate::client::Client;
use crate::common::principal::Principal;
use crate::context::Context;
use crate::session::SessionState;

/// Who a call comes from, as the pool keys it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum CallerId {
    /// A downstream legacy session: the address of its state, which the weak reference
    /// the entry holds keeps from being reused while the entry lives.
    Session(usize),
    /// The subject of the authenticated principal (2026 callers).
    Principal(String),
    /// The bearer token itself (an upstream passing on identity, a caller with neither).
    Token(String),
}

/// The caller of `ctx`, and the session to watch when it is one.
fn caller_of(ctx: &Context) -> Option<(CallerId, Option<Weak<Mutex<SessionState>>>)> {
    if let Some(session) = ctx.session() {
        let id = CallerId::Session(Arc::as_ptr(session) as usize);
        return Some((id, Some(Arc::downgrade(session))));
    }
    let p = ctx.extensions().get::<Principal>()?;
    Some((CallerId::Principal(p.subject.clone()), None))
}

/// One caller's connection.
pub(crate) struct CallerConn {
    pub(crate) client: Client,
    pub(crate) relay: Arc<Relay>,
}

struct Entry {
    /// The downstream session this connection serves (none: a principal's).
    session: Option<Weak<Mutex<SessionState>>>,
    /// The caller's bearer token as of its last call, when the upstream is reached with
    /// the caller's identity (its connection's token provider reads it).
    subject: Arc<Mutex<String>>,
    /// Connected on the caller's first call (concurrent first calls wait for one).
    conn: OnceCell<CallerConn>,
    /// When connecting last failed: the caller's calls fail at once until
    /// [`RECONNECT_EVERY`] has passed.
    failed_at: Mutex<Option<Instant>>,
    last_used: Mutex<Instant>,
    /// Taken out of the pool: its connection is closed as soon as it has one.
    evicted: AtomicBool,
    /// Its connection's shutdown has been started (once).
    closed: AtomicBool,
}

impl Entry {
    /// Whether the caller has gone (its session ended) or its connection closed.
    fn gone(&self) -> bool {
        let session_ended = (self.session.as_ref()).is_some_and(|w| w.strong_count() == 0);
        session_ended || self.conn.get().is_some_and(|c| c.client.is_closed())
    }

    fn idle_for(&self) -> Duration {
        self.last_used.lock().expect("entry lock").elapsed()
    }
}

/// A connection lent to one call; marks the caller active again when the call ends.
pub(crate) struct Lease(Arc<Entry>);

impl Lease {
    /// The connection.
    pub(crate) fn conn(&self) -> &CallerConn {
        self.0.conn.get().expect("a lease is made connected")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        *self.0.last_used.lock().expect("entry lock") = Instant::now();
        // Evicted while it was connecting: nobody else will close it.
        if self.0.evicted.load(Ordering::Acquire) {
            shut(&self.0);
        }
    }
}

/// The per-caller connections of one proxy (for [`Sharing::PerCaller`](super::Sharing::PerCaller)).
pub(crate) struct Callers {
    upstream: Upstream,
    entries: Mutex<HashMap<CallerId, Arc<Entry>>>,
}

impl Callers {
    /// A pool for `upstream`, swept while it lives.
    pub(crate) fn new(upstream: Upstream) -> Arc<Self> {
        let pool = Arc::new(Self {
            upstream,
            entries: Mutex::new(HashMap::new()),
        });
        tokio::spawn(sweep(Arc::downgrade(&pool)));
        pool
    }

    /// The connection of `ctx`'s caller, connected on its first call; `None` when the call
    /// names no caller (the shared connection serves it).
    pub(crate) async fn lease(&self, ctx: &Context) -> Option<Result<Lease, ProxyError>> {
        // Passing on identity, every call has its caller's connection (never the shared one,
        // which is the proxy's own), and one without a token fails.
        let token = match self.caller_token(ctx) {
            Ok(t) => t,
            Err(reason) => {
                return Some(Err(ProxyError::Identity {
                    upstream: self.upstream.describe(),
                    reason,
                }));
            }
        };
        let (id, session) = match (caller_of(ctx), &token) {
            (Some(caller), _) => caller,
            (None, Some(t)) => (CallerId::Token(t.clone()), None),
            (None, None) => return None,
        };
        let entry = match self.entry(id, session) {
            Ok(e) => e,
            Err(reason) => {
                return Some(Err(ProxyError::Unreachable {
                    upstream: self.upstream.describe(),
                    reason,
                }));
            }
        };
        if let Some(t) = token {
            *entry.subject.lock().expect("subject lock") = t;
        }
        let connected = (entry.conn).get_or_try_init(|| self.connect(&entry)).await;
        let connected = connected.map(|_| ());
        Some(connected.map(|()| Lease(entry)))
    }

    /// The caller's token when the upstream is reached with the caller's identity (`None`:
    /// it is not); why the call cannot go when the caller has none to pass on.
    #[cfg(feature = "http")]
    fn caller_token(&self, ctx: &Context) -> Result<Option<String>, String> {
        (self.upstream.identity())
            .map(|i| i.caller_token(ctx))
            .transpose()
    }

    #[cfg(not(feature = "http"))]
    fn caller_token(&self, _: &Context) -> Result<Option<String>, String> {
        Ok(None)
    }

    /// Connects `entry`'s caller, unless its last attempt failed within [`RECONNECT_EVERY`].
    async fn connect(&self, entry: &Entry) -> Result<CallerConn, ProxyError> {
        let failed_at = *entry.failed_at.lock().expect("entry lock");
        if failed_at.is_some_and(|t| t.elapsed() < RECONNECT_EVERY) {
            return Err(ProxyError::Unreachable {
                upstream: self.upstream.describe(),
                reason: "connecting this caller's own connection failed a moment ago".into(),
            });
        }
        let connected = connect(&self.upstream, entry.subject.clone()).await;
        if connected.is_err() {
            *entry.failed_at.lock().expect("entry lock") = Some(Instant::now());
        }
        connected
    }

    /// The entry of caller `id` (a new one when it has none or its connection closed),
    /// making room past the maximum; why not when every connection is in a call.
    fn entry(
        &self,
        id: CallerId,
        session: Option<Weak<Mutex<SessionState>>>,
    ) -> Result<Arc<Entry>, String> {
        let mut entries = self.entries.lock().expect("entries lock");
        if let Some(e) = entries.get(&id) {
            if !e.gone() {
                *e.last_used.lock().expect("entry lock") = Instant::now();
                return Ok(e.clone());
            }
            if let Some(old) = entries.remove(&id) {
                close(old);
            }
        }
        if entries.len() >= self.upstream.max_callers_now() {
            // The least recently used caller not in a call makes room.
            let lru = (entries.iter())
                .filter(|(_, e)| Arc::strong_count(e) == 1)
                .max_by_key(|(_, e)| e.idle_for())
                .map(|(k, _)| k.clone());
            match lru.and_then(|k| entries.remove(&k)) {
                Some(old) => close(old),
                None => {
                    return Err(format!(
                        "all {} per-caller connections are in a call",
                        self.upstream.max_callers_now()
                    ));
                }
            }
        }
        let entry = Arc::new(Entry {
            session,
            subject: Arc::new(Mutex::new(String::new())),
            conn: OnceCell::new(),
            failed_at: Mutex::new(None),
            last_used: Mutex::new(Instant::now()),
            evicted: AtomicBool::new(false),
            closed: AtomicBool::new(false),
        });
        entries.insert(id, entry.clone());
        Ok(entry)
    }

    /// Closes the connections of callers that went away or stayed idle too long.
    fn sweep_once(&self) {
        let idle = self.upstream.caller_idle();
        let mut entries = self.entries.lock().expect("entries lock");
        let stale: Vec<CallerId> = (entries.iter())
            .filter(|(_, e)| {
                let in_call = Arc::strong_count(e) > 1;
                e.gone() || (!in_call && e.idle_for() >= idle)
            })
            .map(|(k, _)| k.clone())
            .collect();
        for k in stale {
            if let Some(e) = entries.remove(&k) {
                close(e);
            }
        }
    }
}

/// Sweeps `pool` until it is gone: often enough that a session's connection closes within
/// a second of the session's end (and within a quarter of the idle timeout when shorter).
async fn sweep(pool: Weak<Callers>) {
    let every = match pool.upgrade() {
        Some(p) => {
            (p.upstream.caller_idle() / 4).clamp(Duration::from_millis(20), Duration::from_secs(1))
        }
        None => return,
    };
    loop {
        tokio::time::sleep(every).await;
        match pool.upgrade() {
            Some(p) => p.sweep_once(),
            None => return,
        }
    }
}

/// Takes an entry out of service: its connection is closed now, or, when it is still
/// connecting, when the call that connects it ends.
fn close(entry: Arc<Entry>) {
    entry.evicted.store(true, Ordering::Release);
    shut(&entry);
}

/// Closes an entry's connection once, in the background (a legacy HTTP upstream's session
/// is deleted, a stdio child shut down).
fn shut(entry: &Entry) {
    let Some(conn) = entry.conn.get() else {
        return;
    };
    if entry.closed.swap(true, Ordering::AcqRel) {
        return;
    }
    let client = conn.client.clone();
    tokio::spawn(async move {
        if let Err(e) = client.shutdown().await {
            tracing::debug!(error = %e, "closing a caller's upstream connection failed");
        }
    });
}

/// A caller's own connection: its own relay (so a legacy upstream's input requests and logs
/// find this caller), a legacy upstream that logs set to `debug` as the shared one is. Its
/// list changes are not followed: the shared connection follows them.
async fn connect(
    upstream: &Upstream,
    subject: Arc<Mutex<String>>,
) -> Result<CallerConn, ProxyError> {
    let (changes, _) = mpsc::unbounded_channel();
    let relay = Relay::new(changes);
    let client = (upstream.connect_as(RelayHandler(relay.clone()), Some(subject))).await?;
    if client.protocol_version().era() == Era::Legacy
        && client.server_capabilities().logging.is_some()
        && let Err(e) = client.set_log_level(LoggingLevel::Debug).await
    {
        tracing::debug!(error = %e, "the upstream refused logging/setLevel");
    }
    Ok(CallerConn { client, relay })
}
