//! The client's response cache (2026-07-28 caching hints, SEP-2549).
//!
//! A 2026 server marks the results of `server/discover`, `tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list` and `resources/read` with `ttlMs` (how long
//! they stay fresh) and `cacheScope` (`public`: anyone may reuse them; `private`: only the
//! same authorization context). The client keeps such results and answers the same request
//! from the cache while they are fresh. It is on by default; legacy revisions send no hints,
//! so nothing of theirs is ever cached.
//!
//! The rules, each applied in [`Client`](super::Client)'s request path:
//!
//! - **Key**: the origin (the server), the revision, the partition, the method and the one
//!   parameter that matters: the `uri` of `resources/read`, the `cursor` of a list page.
//!   Each page is its own entry, on its own clock.
//! - **Partition**: `private` entries live in the partition of the client's authorization
//!   context (a SHA-256 digest of its bearer token, `anonymous` without one, or what
//!   [`ClientBuilder::cache_partition`](super::ClientBuilder::cache_partition) says) and are
//!   never served to another; `public` ones in a shared partition. A result that came back
//!   under other credentials than the request started with (an OAuth client authorizing
//!   on a `401`) is not stored.
//! - **TTL**: `ttlMs`, capped at 24 hours, counted from when the response arrived; absent,
//!   negative or zero means "do not cache". An entry fetched before an invalidation the
//!   client has seen (or while one happened) is never served.
//! - **Never cached**: a request carrying `inputResponses` or `requestState`, and a result
//!   that needed an `input_required` round (it depends on the answers given).
//! - **Eviction**: `notifications/tools/list_changed` drops every `tools/list` page (and the
//!   prompts and resources equivalents, `resources/list_changed` covering templates too);
//!   `notifications/resources/updated` drops the reads of its `uri`; a `-32602` answer to a
//!   list page with a cursor (an invalid cursor) drops every page of that list.
//! - **Modes** per call ([`CacheMode`]): `Use` (a fresh entry answers), `Refresh` (ask the
//!   server, store the answer), `Bypass` (ask the server, store nothing). A stored answer
//!   replaces the entry of the other scope; a refresh the server marks `ttlMs: 0` drops
//!   the entry. A closed client fails its calls, cached or not.
//! - **Connecting**: a `server/discover` result already known
//!   ([`ClientBuilder::prior_discover`](super::ClientBuilder::prior_discover), or fresh in a
//!   shared store) stands in for the handshake; [`Client::discover_result`](super::Client::discover_result)
//!   gives the one in use, to persist.
//!
//! **Stores.** [`MemoryStore`] (bounded, per client unless shared) by default; with the
//! `redis` feature, `RedisCacheStore` for a fleet of clients; or any [`CacheStore`].
//!
//! **No stale answers.** When a `Refresh` (or a miss after expiry) fails, the error is
//! returned; an expired entry is never served in its place. The server's `ttlMs` is its
//! statement of how long the answer stays true; past it, a stale tool list can name tools
//! that are gone and a stale read can show revoked content, and a failure is exactly when
//! the caller must learn that the server did not answer (a `401`/`403` after a revocation
//! must not be masked by what the old token was allowed to see). A caller that prefers an
//! old answer to none can keep the last result itself. A failed refresh leaves the entry
//! as it was (it expires on its own clock).
//!
//! ```
//! use mcp_core::version::ProtocolVersion;
//! use mcp_runtime::client::cache::CacheMode;
//! use mcp_runtime::client::{Client, ConnectMode, RequestOptions};
//! use mcp_core::types::{CallToolResult, Tool};
//! use mcp_runtime::Server;
//! use mcp_runtime::caching::CacheHint;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = Server::builder("hinted", "1.0.0")
//!     .cache_hint(CacheHint::public(60_000))
//!     .tool(
//!         Tool::new("noop").with_input_schema(serde_json::json!({"type": "object"})),
//!         |_ctx, _: serde_json::Value| async { Ok(CallToolResult::success(vec![])) },
//!     )
//!     .build();
//! let client = Client::builder()
//!     .mode(ConnectMode::Modern(ProtocolVersion::V2026_07_28))
//!     .connect(server.serve_in_memory())
//!     .await?;
//! let tools = client.list_tools(None).await?; // asks the server
//! let again = client.list_tools(None).await?; // fresh for 60 s: from the cache
//! assert_eq!(tools, again);
//! // This handle's calls ask the server again and store what it says.
//! let fresh = client.with_cache_mode(CacheMode::Refresh).list_tools(None).await?;
//! // One call that neither reads nor stores.
//! let opts = RequestOptions::default().cache(CacheMode::Bypass);
//! let raw = client.request_raw("tools/list", None, opts).await?;
//! # let _ = (fresh, raw); Ok(()) }
//! ```

mod hook;
mod memory;
mod prior;
#[cfg(feature = "redis")]
mod redis;
mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_core::types::CacheScope;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

pub use memory::{DEFAULT_MEMORY_ENTRIES, MemoryStore};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_CACHE_PREFIX, RedisCacheStore};
pub use store::{CacheKey, CacheStore, CacheStoreError, CachedResponse, Invalidation, Partition};

use super::ServerNotification;

/// The longest a result is kept, whatever its `ttlMs` says: 24 hours.
pub const MAX_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// How many invalidation times a client remembers (one per list, one per updated uri).
const MAX_CUTOFFS: usize = 4096;

/// The partition of a client without credentials.
pub const ANONYMOUS: &str = "anonymous";

/// The methods whose 2026 results carry caching hints.
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// How one call uses the response cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// A fresh entry answers; otherwise the server does and its answer is stored.
    #[default]
    Use,
    /// The server answers (whatever is cached) and its answer replaces the entry.
    Refresh,
    /// The server answers and nothing is read or stored.
    Bypass,
}

/// Now, in Unix milliseconds (entry expiry, shared between processes).
pub(crate) fn now_ms() -> u64 {
    now_micros() / 1000
}

/// Now, in Unix microseconds (what an invalidation is compared with: fine enough that a
/// request sent right after a notification is never taken for one sent before it).
fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// The hints of a result: `Some((ttl, scope))` when it may be stored.
fn hints(result: &str) -> Option<(u64, CacheScope)> {
    #[derive(serde::Deserialize)]
    struct Hints {
        #[serde(rename = "ttlMs", default)]
        ttl: Option<Value>,
        #[serde(rename = "cacheScope", default)]
        scope: Option<Value>,
    }
    let h: Hints = serde_json::from_str(result).ok()?;
    // Absent, negative, zero or not a number: not cached. Capped at 24 h.
    let ttl = h
        .ttl
        .as_ref()
        .and_then(Value::as_f64)
        .filter(|t| *t >= 1.0)?;
    let ttl = (ttl as u64).min(MAX_TTL_MS);
    // Only an explicit `public` is shared; anything else is the safe `private`.
    let scope = match h.scope.as_ref().and_then(Value::as_str) {
        Some("public") => CacheScope::Public,
        _ => CacheScope::Private,
    };
    Some((ttl, scope))
}

/// What a request is cached under, without the partition: `None` when it is not cacheable.
fn target(method: &str, params: Option<&Map<String, Value>>) -> Option<Option<String>> {
    if !CACHEABLE.contains(&method) {
        return None;
    }
    // An answer to an input request, or a continuation, depends on more than the key.
    if params.is_some_and(|p| p.contains_key("inputResponses") || p.contains_key("requestState")) {
        return None;
    }
    let field = |name: &str| {
        params
            .and_then(|p| p.get(name))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match method {
        // A read without a uri is the server's to refuse, not ours to cache.
        "resources/read" => field("uri").map(Some),
        "server/discover" => Some(None),
        _ => Some(field("cursor")),
    }
}

/// The lists a notification makes stale (and, for `resources/updated`, the uri).
fn evicted_by(n: &ServerNotification) -> Vec<(&'static str, Option<String>)> {
    match n.method.as_str() {
        "notifications/tools/list_changed" => vec![("tools/list", None)],
        "notifications/prompts/list_changed" => vec![("prompts/list", None)],
        "notifications/resources/list_changed" => {
            vec![("resources/list", None), ("resources/templates/list", None)]
        }
        "notifications/resources/updated" => n
            .params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .map(|uri| vec![("resources/read", Some(uri.to_owned()))])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// A client's cache: the store, whose entries it reads, and what it has seen invalidated.
pub(crate) struct ResponseCache {
    store: Arc<dyn CacheStore>,
    /// The builder's origin, else the HTTP URL; else the server's name, once known.
    origin: Mutex<Option<String>>,
    /// The builder's partition (else derived from the credentials per request).
    partition: Option<String>,
    /// Whether the store was given (and so may hold what other clients fetched), rather
    /// than this client's own, empty when it connects.
    given_store: bool,
    /// When (Unix µs) each method, or each `(method, target)`, was last invalidated: an
    /// entry fetched before is not served, whatever a (shared, or not yet cleaned) store
    /// still holds. Set synchronously on the reader task, so a call made after a
    /// notification arrived never sees what it invalidated.
    cutoffs: Mutex<HashMap<(String, Option<String>), u64>>,
}

/// One cacheable request, as the request path carries it.
pub(crate) struct Plan {
    mode: CacheMode,
    origin: String,
    revision: String,
    partition: String,
    method: String,
    target: Option<String>,
    /// When the request was sent (Unix µs).
    sent_at: u64,
}

impl ResponseCache {
    pub(crate) fn new(
        store: Arc<dyn CacheStore>,
        given_store: bool,
        origin: Option<String>,
        partition: Option<String>,
    ) -> Self {
        Self {
            store,
            given_store,
            origin: Mutex::new(origin),
            partition,
            cutoffs: Mutex::new(HashMap::new()),
        }
    }

    /// The builder's partition, if it named one.
    pub(crate) fn fixed_partition(&self) -> Option<&str> {
        self.partition.as_deref()
    }

    /// Names the server when nothing did before (a stream connection, once its server has
    /// said who it is).
    pub(crate) fn default_origin(&self, origin: String) {
        self.origin
            .lock()
            .expect("cache origin lock")
            .get_or_insert(origin);
    }

    /// Whether a `server/discover` result could be shared through the store: it was given
    /// (a client's own store is empty when it connects, and dies with it) and the
    /// server's origin is known (HTTP, or named by the builder).
    pub(crate) fn shares_discover(&self) -> bool {
        self.given_store && self.origin().is_some()
    }

    fn origin(&self) -> Option<String> {
        self.origin.lock().expect("cache origin lock").clone()
    }

    /// Whether `method` with `params` may be cached at all (before any partition is
    /// worked out).
    pub(crate) fn applies(method: &str, params: Option<&Map<String, Value>>) -> bool {
        target(method, params).is_some()
    }

    /// The plan of a request, `None` when it bypasses the cache entirely.
    pub(crate) fn plan(
        &self,
        mode: CacheMode,
        revision: &str,
        partition: String,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Option<Plan> {
        let target = target(method, params)?;
        Some(Plan {
            mode,
            origin: self.origin().unwrap_or_else(|| "stream".to_owned()),
            revision: revision.to_owned(),
            partition,
            method: method.to_owned(),
            target,
            sent_at: now_micros(),
        })
    }

    fn cutoff(&self, method: &str, target: &Option<String>) -> u64 {
        let c = self.cutoffs.lock().expect("cache cutoffs lock");
        let whole = c.get(&(method.to_owned(), None)).copied().unwrap_or(0);
        let one = match target {
            Some(_) => c
                .get(&(method.to_owned(), target.clone()))
                .copied()
                .unwrap_or(0),
            None => 0,
        };
        whole.max(one)
    }

    fn key(&self, plan: &Plan, partition: Partition) -> CacheKey {
        CacheKey {
            origin: plan.origin.clone(),
            revision: plan.revision.clone(),
            partition,
            method: plan.method.clone(),
            target: plan.target.clone(),
        }
    }

    /// A fresh entry for `plan` (mode `Use` only): the newer of the private and the public
    /// one, and only when fetched after the last invalidation seen.
    pub(crate) async fn lookup(&self, plan: &Plan) -> Option<Box<RawValue>> {
        if plan.mode != CacheMode::Use {
            return None;
        }
        let mut best: Option<CachedResponse> = None;
        for p in [
            Partition::Private(plan.partition.clone()),
            Partition::Public,
        ] {
            match self.store.get(&self.key(plan, p)).await {
                Ok(Some(e))
                    if best
                        .as_ref()
                        .is_none_or(|b| e.fetched_at_us > b.fetched_at_us) =>
                {
                    best = Some(e);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "response cache read failed"),
            }
        }
        let e = best?;
        // Fetched before the last invalidation of its list or uri: not served.
        if e.fetched_at_us <= self.cutoff(&plan.method, &plan.target) {
            return None;
        }
        RawValue::from_string(e.result).ok()
    }

    /// Stores a result (`first_round`: no `input_required` round was needed), or, on an
    /// invalid-cursor error, drops every page of the list.
    pub(crate) async fn record(
        &self,
        plan: &Plan,
        outcome: Result<&RawValue, Option<i32>>,
        first_round: bool,
    ) {
        match outcome {
            Ok(raw) => {
                // `Bypass` stores nothing; a result that took input rounds depends on them.
                if plan.mode == CacheMode::Bypass || !first_round {
                    return;
                }
                let own = Partition::Private(plan.partition.clone());
                let Some((ttl, scope)) = hints(raw.get()) else {
                    // A refresh the server now says not to keep supersedes what was kept.
                    if plan.mode == CacheMode::Refresh {
                        self.remove(&self.key(plan, own)).await;
                        self.remove(&self.key(plan, Partition::Public)).await;
                    }
                    return;
                };
                // Invalidated while in flight: the answer may predate the change.
                if plan.sent_at <= self.cutoff(&plan.method, &plan.target) {
                    return;
                }
                // The other scope's entry is superseded (the server changed its mind).
                let (partition, other) = match scope {
                    CacheScope::Public => (Partition::Public, own),
                    CacheScope::Private => (own, Partition::Public),
                };
                self.remove(&self.key(plan, other)).await;
                let entry = CachedResponse {
                    result: raw.get().to_owned(),
                    fetched_at_us: plan.sent_at,
                    // Fresh for `ttlMs` after the response was received (the schema's words).
                    expires_at_ms: now_ms() + ttl,
                };
                if let Err(e) = self.store.put(self.key(plan, partition), entry).await {
                    tracing::warn!(error = %e, "response cache write failed");
                }
            }
            Err(Some(mcp_core::jsonrpc::INVALID_PARAMS))
                if plan.target.is_some() && plan.method.ends_with("/list") =>
            {
                // An invalid cursor: the pages it came from are no longer a consistent list.
                self.invalidate(&plan.origin, &plan.method, None).await;
            }
            Err(_) => {}
        }
    }

    async fn remove(&self, key: &CacheKey) {
        if let Err(e) = self.store.remove(key).await {
            tracing::warn!(error = %e, "response cache removal failed");
        }
    }

    /// Marks `method` (or one target of it) invalid from now on and drops it from the
    /// store.
    pub(crate) async fn invalidate(&self, origin: &str, method: &str, target: Option<String>) {
        self.cut(method, target.clone());
        let what = Invalidation {
            origin: origin.to_owned(),
            method: method.to_owned(),
            target,
        };
        if let Err(e) = self.store.invalidate(&what).await {
            tracing::warn!(error = %e, "response cache invalidation failed");
        }
    }

    fn cut(&self, method: &str, target: Option<String>) {
        let now = now_micros();
        let mut c = self.cutoffs.lock().expect("cache cutoffs lock");
        // Bounded: past the cap, one cutoff for the whole method replaces those of its
        // targets (more is invalidated, never less).
        if target.is_some() && c.len() >= MAX_CUTOFFS {
            c.retain(|(m, t), _| t.is_none() || m != method);
            c.insert((method.to_owned(), None), now);
            return;
        }
        c.insert((method.to_owned(), target), now);
    }

    /// Applies a server notification (on the reader task): the cutoffs at once, the store
    /// in the background.
    pub(crate) fn observe(self: &Arc<Self>, n: &ServerNotification) {
        let evicted = evicted_by(n);
        if evicted.is_empty() {
            return;
        }
        for (method, target) in &evicted {
            self.cut(method, target.clone());
        }
        let Some(origin) = self.origin() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let this = self.clone();
        rt.spawn(async move {
            for (method, target) in evicted {
                let what = Invalidation {
                    origin: origin.clone(),
                    method: method.to_owned(),
                    target,
                };
                if let Err(e) = this.store.invalidate(&what).await {
                    tracing::warn!(error = %e, "response cache invalidation failed");
                }
            }
        });
    }
}

/// The partition of a bearer token: a digest, so the token itself is never a key.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) fn token_partition(token: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("token:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cache_hints_cap_and_refuse() {
        assert_eq!(
            hints(r#"{"ttlMs": 5000, "cacheScope": "public"}"#),
            Some((5000, CacheScope::Public))
        );
        assert_eq!(
            hints(r#"{"ttlMs": 1e12}"#),
            Some((MAX_TTL_MS, CacheScope::Private))
        );
        assert_eq!(hints(r#"{"ttlMs": -5, "cacheScope": "public"}"#), None);
        assert_eq!(hints(r#"{"ttlMs": 0}"#), None);
        assert_eq!(hints(r#"{"cacheScope": "public"}"#), None);
        assert_eq!(hints(r#"{"ttlMs": "9"}"#), None);
        assert_eq!(
            hints(r#"{"ttlMs": 10, "cacheScope": "shared"}"#),
            Some((10, CacheScope::Private))
        );
    }

    #[test]
    fn cache_targets_are_uri_or_cursor_and_never_input_rounds() {
        let m = |v: Value| v.as_object().cloned();
        assert_eq!(
            target("resources/read", m(json!({"uri": "a://x"})).as_ref()),
            Some(Some("a://x".into()))
        );
        assert_eq!(
            target("tools/list", m(json!({"cursor": "c"})).as_ref()),
            Some(Some("c".into()))
        );
        assert_eq!(target("tools/list", None), Some(None));
        assert_eq!(target("tools/call", None), None);
        assert_eq!(
            target(
                "resources/read",
                m(json!({"uri": "a://x", "requestState": "s"})).as_ref()
            ),
            None
        );
        assert_eq!(
            target("tools/list", m(json!({"inputResponses": {}})).as_ref()),
            None
        );
    }

    #[test]
    fn cache_cutoffs_are_bounded_by_widening() {
        let cache = ResponseCache::new(Arc::new(MemoryStore::default()), false, None, None);
        for i in 0..MAX_CUTOFFS + 10 {
            cache.cut("resources/read", Some(format!("a://{i}")));
        }
        let c = cache.cutoffs.lock().unwrap();
        assert!(c.len() <= MAX_CUTOFFS, "{}", c.len());
        assert!(c.contains_key(&("resources/read".to_owned(), None)));
    }

    #[test]
    fn cache_token_partitions_differ_and_hide_the_token() {
        let a = token_partition("secret-a");
        assert_ne!(a, token_partition("secret-b"));
        assert!(!a.contains("secret"));
    }
}
