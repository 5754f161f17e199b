//! The storage contract of the response cache ([`CacheStore`]) and what it stores.

use std::fmt;

use crate::common::BoxFuture;

/// Whose entry this is: one authorization context's, or anyone's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Partition {
    /// `cacheScope: "public"`: any client of the same origin may reuse it.
    Public,
    /// `cacheScope: "private"` (or none given): only the authorization context named here
    /// (a digest of the client's token, or the partition the builder was given).
    Private(String),
}

/// What a cached response is stored under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// The server: its URL over HTTP, else what names it (see
    /// [`ClientBuilder::cache_origin`](crate::client::ClientBuilder::cache_origin)).
    pub origin: String,
    /// The protocol revision it was fetched under (results differ between revisions).
    pub revision: String,
    /// Whose entry it is.
    pub partition: Partition,
    /// The request's method (`tools/list`, `resources/read`, ...).
    pub method: String,
    /// The one parameter that matters: the `uri` of `resources/read`, the `cursor` of a
    /// list page (`None`: the first page, or `server/discover`).
    pub target: Option<String>,
}

/// A cached result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedResponse {
    /// The result object exactly as the server sent it (JSON text).
    pub result: String,
    /// When the request that fetched it was sent (Unix microseconds): an invalidation seen
    /// after this moment makes it unusable.
    pub fetched_at_us: u64,
    /// When it goes stale (Unix milliseconds). A store never returns a stale entry.
    pub expires_at_ms: u64,
}

/// Which entries to drop: every partition's and revision's entries of `method` at
/// `origin`, all of them (`target: None`: every page of a list) or those of one `target`
/// (one resource URI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalidation {
    /// The server.
    pub origin: String,
    /// The method whose entries go.
    pub method: String,
    /// Only this target's entries; `None`: all of them.
    pub target: Option<String>,
}

/// Why a store operation failed (the request then goes on as if uncached).
#[derive(Debug, Clone)]
pub struct CacheStoreError(pub String);

impl fmt::Display for CacheStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cache store: {}", self.0)
    }
}

impl std::error::Error for CacheStoreError {}

/// Where a client's cached responses live: [`MemoryStore`](super::MemoryStore) by default,
/// a shared store for a fleet of clients.
///
/// A small contract: the client decides what is cacheable, under which key and for how
/// long; the store keeps entries until `expires_at_ms`, never returns one past it, and drops
/// what an [`Invalidation`] names. A failing store never fails a request: the client logs the
/// error and talks to the server.
///
/// ```
/// use mcp_runtime::client::cache::{
///     CacheKey, CacheStore, CacheStoreError, CachedResponse, Invalidation,
/// };
/// use mcp_runtime::middleware::BoxFuture;
///
/// /// A store that keeps nothing (every call goes to the server).
/// struct Nothing;
/// impl CacheStore for Nothing {
///     fn get<'a>(
///         &'a self,
///         _key: &'a CacheKey,
///     ) -> BoxFuture<'a, Result<Option<CachedResponse>, CacheStoreError>> {
///         Box::pin(async { Ok(None) })
///     }
///     fn put(
///         &self,
///         _key: CacheKey,
///         _value: CachedResponse,
///     ) -> BoxFuture<'_, Result<(), CacheStoreError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn remove<'a>(
///         &'a self,
///         _key: &'a CacheKey,
///     ) -> BoxFuture<'a, Result<(), CacheStoreError>> {
///         Box::pin(async { Ok(()) })
///     }
///     fn invalidate<'a>(
///         &'a self,
///         _what: &'a Invalidation,
///     ) -> BoxFuture<'a, Result<(), CacheStoreError>> {
///         Box::pin(async { Ok(()) })
///     }
/// }
/// ```
pub trait CacheStore: Send + Sync + 'static {
    /// The fresh entry under `key`, if any.
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedResponse>, CacheStoreError>>;

    /// Stores `value` under `key` (replacing what was there) until `value.expires_at_ms`.
    fn put(
        &self,
        key: CacheKey,
        value: CachedResponse,
    ) -> BoxFuture<'_, Result<(), CacheStoreError>>;

    /// Drops the entry under `key`, if any.
    fn remove<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<(), CacheStoreError>>;

    /// Drops every entry `what` names, in every partition.
    fn invalidate<'a>(
        &'a self,
        what: &'a Invalidation,
    ) -> BoxFuture<'a, Result<(), CacheStoreError>>;
}
