//! [`RedisCacheStore`]: a [`CacheStore`] in Redis (feature `redis`), shared by a fleet of
//! clients.
//!
//! Key layout, every key under the prefix (`mcp:cache:` by default), every key with an
//! expiry; the names are SHA-256 digests of the key's parts, so no origin, uri, cursor or
//! partition appears in clear:
//!
//! | key | type | what | bound |
//! | --- | --- | --- | --- |
//! | `<prefix>e:<digest of origin, revision, method, target, partition>` | string (JSON) | one entry | its `expires_at_ms` (`PX`) |
//! | `<prefix>m:<digest of origin, method>` | set of entry keys | what invalidating the method drops | 24 h after its last write (entries live 24 h at most) |
//! | `<prefix>t:<digest of origin, method, target>` | set of entry keys | what invalidating one uri drops | as above |
//!
//! A write and an invalidation are each one script (atomic). Scripts touch keys they are
//! not given, so the store needs a single Redis (or a primary with replicas), not Redis
//! Cluster. Every call is bounded by the timeout (default 1 s); a failure is a
//! [`CacheStoreError`], which the client logs before asking the server.

use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{RedisResult, Script};
use sha2::{Digest, Sha256};

use super::store::{
    CacheKey, CacheStore, CacheStoreError, CachedResponse, Invalidation, Partition,
};
use super::{MAX_TTL_MS, now_ms};
use crate::common::BoxFuture;

/// The default key prefix.
pub const DEFAULT_CACHE_PREFIX: &str = "mcp:cache:";

/// Stores the entry and indexes it under its method and its target.
const PUT: &str = r"
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], KEYS[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[3], KEYS[1])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
";

/// Drops every entry an index names, and the index.
const DROP: &str = r"
local keys = redis.call('SMEMBERS', KEYS[1])
for i = 1, #keys do redis.call('DEL', keys[i]) end
redis.call('DEL', KEYS[1])
return #keys
";

/// A [`CacheStore`] in Redis: give every client of a fleet the same one (through
/// [`ClientBuilder::cache_store`](crate::client::ClientBuilder::cache_store)) and they
/// share `public` entries, and the `private` ones of each authorization context.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use mcp_runtime::client::Client;
/// use mcp_runtime::client::cache::RedisCacheStore;
///
/// let store = Arc::new(RedisCacheStore::connect("redis://127.0.0.1/").await?);
/// let client = Client::builder()
///     .cache_store(store)
///     .connect_http("https://mcp.example.com/mcp")
///     .await?;
/// # let _ = client; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisCacheStore {
    conn: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for RedisCacheStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisCacheStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn unavailable(e: impl std::fmt::Display) -> CacheStoreError {
    CacheStoreError(format!("redis: {e}"))
}

/// The hex SHA-256 of the parts, each ended by a NUL (so `("a", "bc")` ≠ `("ab", "c")`).
fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The target's part of a digest (`None` is not any string's).
fn target_part(t: &Option<String>) -> String {
    match t {
        Some(t) => format!("t{t}"),
        None => "n".to_owned(),
    }
}

impl RedisCacheStore {
    /// Connects to `url` (`redis://host:port/db`) with the default prefix and timeout, and
    /// checks the server answers.
    pub async fn connect(url: &str) -> Result<Self, CacheStoreError> {
        let store = Self::connect_lazy(url)?;
        let mut conn = store.conn.clone();
        store
            .bounded(async move { ::redis::cmd("PING").query_async::<String>(&mut conn).await })
            .await?;
        Ok(store)
    }

    /// A store on `url` that connects on first use (reconnecting as needed).
    pub fn connect_lazy(url: &str) -> Result<Self, CacheStoreError> {
        let timeout = Duration::from_secs(1);
        let client = ::redis::Client::open(url).map_err(unavailable)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(2);
        let conn = ConnectionManager::new_lazy_with_config(client, config).map_err(unavailable)?;
        Ok(Self {
            conn,
            prefix: DEFAULT_CACHE_PREFIX.to_owned(),
            timeout,
        })
    }

    /// The prefix of every key (default [`DEFAULT_CACHE_PREFIX`]).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long one call may take (default 1 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    fn entry_key(&self, k: &CacheKey) -> String {
        let partition = match &k.partition {
            Partition::Public => "public".to_owned(),
            Partition::Private(p) => format!("private:{p}"),
        };
        let d = digest(&[
            &k.origin,
            &k.revision,
            &k.method,
            &target_part(&k.target),
            &partition,
        ]);
        format!("{}e:{d}", self.prefix)
    }

    fn method_index(&self, origin: &str, method: &str) -> String {
        format!("{}m:{}", self.prefix, digest(&[origin, method]))
    }

    fn target_index(&self, origin: &str, method: &str, target: &Option<String>) -> String {
        let d = digest(&[origin, method, &target_part(target)]);
        format!("{}t:{d}", self.prefix)
    }

    async fn bounded<T>(
        &self,
        call: impl std::future::Future<Output = RedisResult<T>>,
    ) -> Result<T, CacheStoreError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(r) => r.map_err(unavailable),
            Err(_) => Err(CacheStoreError(format!(
                "redis did not answer within {:?}",
                self.timeout
            ))),
        }
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    result: String,
    #[serde(rename = "fetchedAtUs")]
    fetched_at_us: u64,
    #[serde(rename = "expiresAtMs")]
    expires_at_ms: u64,
}

impl CacheStore for RedisCacheStore {
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedResponse>, CacheStoreError>> {
        Box::pin(async move {
            let k = self.entry_key(key);
            let mut conn = self.conn.clone();
            let text: Option<String> = self
                .bounded(async move { ::redis::cmd("GET").arg(&k).query_async(&mut conn).await })
                .await?;
            let Some(text) = text else {
                return Ok(None);
            };
            let s: Stored = serde_json::from_str(&text)
                .map_err(|e| CacheStoreError(format!("a malformed entry: {e}")))?;
            // Redis expires it by `PX`; a clock step between writer and reader is caught here.
            if s.expires_at_ms <= now_ms() {
                return Ok(None);
            }
            Ok(Some(CachedResponse {
                result: s.result,
                fetched_at_us: s.fetched_at_us,
                expires_at_ms: s.expires_at_ms,
            }))
        })
    }

    fn put(
        &self,
        key: CacheKey,
        value: CachedResponse,
    ) -> BoxFuture<'_, Result<(), CacheStoreError>> {
        Box::pin(async move {
            let ttl = value.expires_at_ms.saturating_sub(now_ms());
            if ttl == 0 {
                return Ok(());
            }
            let text = serde_json::to_string(&Stored {
                result: value.result,
                fetched_at_us: value.fetched_at_us,
                expires_at_ms: value.expires_at_ms,
            })
            .map_err(|e| CacheStoreError(e.to_string()))?;
            let script = Script::new(PUT);
            let mut inv = script.prepare_invoke();
            inv.key(self.entry_key(&key))
                .key(self.method_index(&key.origin, &key.method))
                .key(self.target_index(&key.origin, &key.method, &key.target))
                .arg(text)
                .arg(ttl)
                // The indexes outlive their last entry (24 h at most) by a minute.
                .arg(MAX_TTL_MS + 60_000);
            let mut conn = self.conn.clone();
            self.bounded(async move { inv.invoke_async::<i64>(&mut conn).await })
                .await
                .map(drop)
        })
    }

    fn remove<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<(), CacheStoreError>> {
        Box::pin(async move {
            // Its index entries stay: dropping a missing key later is harmless.
            let k = self.entry_key(key);
            let mut conn = self.conn.clone();
            self.bounded(async move {
                ::redis::cmd("DEL")
                    .arg(&k)
                    .query_async::<i64>(&mut conn)
                    .await
            })
            .await
            .map(drop)
        })
    }

    fn invalidate<'a>(
        &'a self,
        what: &'a Invalidation,
    ) -> BoxFuture<'a, Result<(), CacheStoreError>> {
        Box::pin(async move {
            let index = match &what.target {
                None => self.method_index(&what.origin, &what.method),
                Some(_) => self.target_index(&what.origin, &what.method, &what.target),
            };
            let script = Script::new(DROP);
            let mut inv = script.prepare_invoke();
            inv.key(index);
            let mut conn = self.conn.clone();
            self.bounded(async move { inv.invoke_async::<i64>(&mut conn).await })
                .await
                .map(drop)
        })
    }
}
