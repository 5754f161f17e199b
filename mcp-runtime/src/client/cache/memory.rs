//! [`MemoryStore`]: the default [`CacheStore`], bounded, in this process.

use std::collections::HashMap;
use std::sync::Mutex;

use super::now_ms;
use super::store::{CacheKey, CacheStore, CacheStoreError, CachedResponse, Invalidation};
use crate::common::BoxFuture;

/// How many entries a [`MemoryStore`] holds by default.
pub const DEFAULT_MEMORY_ENTRIES: usize = 1024;

/// The default [`CacheStore`]: a map in this process holding at most `capacity` entries.
///
/// Full, it first drops what has gone stale, then the entry closest to going stale (the
/// least valuable to keep). Share one (`Arc`) between clients with
/// [`ClientBuilder::cache_store`](crate::client::ClientBuilder::cache_store) to let them
/// reuse each other's `public` entries; `private` ones stay in their partitions.
#[derive(Debug)]
pub struct MemoryStore {
    capacity: usize,
    entries: Mutex<HashMap<CacheKey, CachedResponse>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self::new(DEFAULT_MEMORY_ENTRIES)
    }
}

impl MemoryStore {
    /// A store of at most `capacity` entries (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// How many entries it holds (stale ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.entries.lock().expect("cache lock").len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn make_room(map: &mut HashMap<CacheKey, CachedResponse>, capacity: usize, now: u64) {
        if map.len() < capacity {
            return;
        }
        // Stale entries first: they can never be served again.
        map.retain(|_, v| v.expires_at_ms > now);
        while map.len() >= capacity {
            let soonest = map
                .iter()
                .min_by_key(|(_, v)| v.expires_at_ms)
                .map(|(k, _)| k.clone());
            match soonest {
                Some(k) => map.remove(&k),
                None => break,
            };
        }
    }
}

impl CacheStore for MemoryStore {
    fn get<'a>(
        &'a self,
        key: &'a CacheKey,
    ) -> BoxFuture<'a, Result<Option<CachedResponse>, CacheStoreError>> {
        let now = now_ms();
        let mut map = self.entries.lock().expect("cache lock");
        let found = match map.get(key) {
            // A stale entry is never returned, and goes at once.
            Some(v) if v.expires_at_ms <= now => {
                map.remove(key);
                None
            }
            other => other.cloned(),
        };
        Box::pin(async move { Ok(found) })
    }

    fn put(
        &self,
        key: CacheKey,
        value: CachedResponse,
    ) -> BoxFuture<'_, Result<(), CacheStoreError>> {
        let mut map = self.entries.lock().expect("cache lock");
        if !map.contains_key(&key) {
            Self::make_room(&mut map, self.capacity, now_ms());
        }
        map.insert(key, value);
        Box::pin(async { Ok(()) })
    }

    fn remove<'a>(&'a self, key: &'a CacheKey) -> BoxFuture<'a, Result<(), CacheStoreError>> {
        self.entries.lock().expect("cache lock").remove(key);
        Box::pin(async { Ok(()) })
    }

    fn invalidate<'a>(
        &'a self,
        what: &'a Invalidation,
    ) -> BoxFuture<'a, Result<(), CacheStoreError>> {
        self.entries.lock().expect("cache lock").retain(|k, _| {
            !(k.origin == what.origin
                && k.method == what.method
                && (what.target.is_none() || k.target == what.target))
        });
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::super::store::Partition;
    use super::*;

    fn key(method: &str, target: Option<&str>) -> CacheKey {
        CacheKey {
            origin: "o".into(),
            revision: "2026-07-28".into(),
            partition: Partition::Public,
            method: method.into(),
            target: target.map(str::to_owned),
        }
    }

    fn entry(expires_in: u64) -> CachedResponse {
        CachedResponse {
            result: "{}".into(),
            fetched_at_us: now_ms() * 1000,
            expires_at_ms: now_ms() + expires_in,
        }
    }

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn cache_memory_store_is_bounded_and_drops_the_soonest_stale_first() {
        run(async {
            let s = MemoryStore::new(2);
            s.put(key("a", None), entry(10_000)).await.unwrap();
            s.put(key("b", None), entry(1_000)).await.unwrap();
            s.put(key("c", None), entry(5_000)).await.unwrap();
            assert_eq!(s.len(), 2);
            assert!(s.get(&key("b", None)).await.unwrap().is_none());
            assert!(s.get(&key("a", None)).await.unwrap().is_some());
        });
    }

    #[test]
    fn cache_memory_store_never_returns_a_stale_entry() {
        run(async {
            let s = MemoryStore::default();
            let mut e = entry(0);
            e.expires_at_ms = now_ms().saturating_sub(1);
            s.put(key("a", None), e).await.unwrap();
            assert!(s.get(&key("a", None)).await.unwrap().is_none());
            assert!(s.is_empty());
        });
    }

    #[test]
    fn cache_memory_store_invalidates_a_method_or_one_target() {
        run(async {
            let s = MemoryStore::default();
            s.put(key("tools/list", None), entry(10_000)).await.unwrap();
            s.put(key("tools/list", Some("c1")), entry(10_000))
                .await
                .unwrap();
            s.put(key("resources/read", Some("a://x")), entry(10_000))
                .await
                .unwrap();
            s.put(key("resources/read", Some("a://y")), entry(10_000))
                .await
                .unwrap();
            let inv = |m: &str, t: Option<&str>| Invalidation {
                origin: "o".into(),
                method: m.into(),
                target: t.map(str::to_owned),
            };
            s.invalidate(&inv("resources/read", Some("a://x")))
                .await
                .unwrap();
            assert_eq!(s.len(), 3);
            s.invalidate(&inv("tools/list", None)).await.unwrap();
            assert_eq!(s.len(), 1);
            assert!(
                s.get(&key("resources/read", Some("a://y")))
                    .await
                    .unwrap()
                    .is_some()
            );
        });
    }
}
