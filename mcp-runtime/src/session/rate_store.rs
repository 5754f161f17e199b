//! Where rate limits keep their buckets: the [`RateStore`] contract (a store several
//! processes share makes a limit hold across them: `backends::redis`'s `RedisRateStore`),
//! and [`InMemoryRateStore`], this process's default.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::BoxFuture;
use crate::common::error::McpError;

/// A token bucket's shape: `burst` tokens at most, refilled at `per_second` tokens a second.
/// A call takes one token.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::policies::Limit;
///
/// // Five calls in any ten seconds: five at once, then one every two seconds.
/// let l = Limit::new(5, Duration::from_secs(10));
/// assert_eq!((l.burst, l.per_second), (5, 0.5));
/// // The same rate with bursts of one: a call every two seconds.
/// assert_eq!(Limit::per_minute(30).burst(1), Limit::new(1, Duration::from_secs(2)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// The most tokens the bucket holds: how many calls may come at once.
    pub burst: u32,
    /// Tokens added each second.
    pub per_second: f64,
}

impl Limit {
    /// `n` calls per `per` (any window: `Duration::from_secs(10)`), `n` at once. A zero
    /// `per` is taken as one nanosecond.
    pub fn new(n: u32, per: Duration) -> Self {
        Self {
            burst: n,
            per_second: f64::from(n) / per.max(Duration::from_nanos(1)).as_secs_f64(),
        }
    }

    /// `n` calls a second, `n` at once.
    pub fn per_second(n: u32) -> Self {
        Self {
            burst: n,
            per_second: f64::from(n),
        }
    }

    /// `n` calls a minute, `n` at once.
    pub fn per_minute(n: u32) -> Self {
        Self {
            burst: n,
            per_second: f64::from(n) / 60.0,
        }
    }

    /// At most `n` at once (at least one).
    pub fn burst(mut self, n: u32) -> Self {
        self.burst = n.max(1);
        self
    }

    /// How long until a bucket holding `tokens` holds one whole token.
    pub fn wait_for_one(&self, tokens: f64) -> Duration {
        let missing = (1.0 - tokens).max(0.0);
        if self.per_second <= 0.0 {
            return Duration::MAX;
        }
        Duration::from_secs_f64(missing / self.per_second)
    }
}

/// What a store decided about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A token was taken: the call goes on.
    Admitted,
    /// The bucket is empty; a token will be there after `retry_after`.
    Refused {
        /// How long until the call would be admitted.
        retry_after: Duration,
    },
}

/// Keeps token buckets by key and decides each call in one step (take a token if there is
/// one, else say when there will be). In one process, [`InMemoryRateStore`]; a store shared
/// by replicas (one atomic script per decision in Redis) makes a limit hold across them.
pub trait RateStore: Send + Sync + 'static {
    /// Takes one token from the bucket `key`, shaped `limit` (a bucket not seen yet starts
    /// full). An `Err` refuses the call with that error (a store that cannot decide does not
    /// let calls through).
    fn take<'a>(&'a self, key: &'a str, limit: Limit) -> BoxFuture<'a, Result<Decision, McpError>>;
}

impl<T: RateStore + ?Sized> RateStore for Arc<T> {
    fn take<'a>(&'a self, key: &'a str, limit: Limit) -> BoxFuture<'a, Result<Decision, McpError>> {
        (**self).take(key, limit)
    }
}

/// One bucket: its tokens when last touched, under the limit it was last taken with.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
    limit: Limit,
}

impl Bucket {
    /// Its tokens at `now` under `limit`.
    fn refilled(self, limit: Limit, now: Instant) -> f64 {
        let gained = now.saturating_duration_since(self.at).as_secs_f64() * limit.per_second;
        (self.tokens + gained).min(f64::from(limit.burst))
    }

    /// Whether it has refilled under its own limit (so forgetting it changes nothing).
    fn is_full(self, now: Instant) -> bool {
        self.refilled(self.limit, now) >= f64::from(self.limit.burst)
    }
}

/// Buckets in this process's memory, at most `max_keys` of them: at the bound, buckets that
/// have refilled (which a fresh bucket equals) are forgotten first, then the least recently
/// used.
#[derive(Debug)]
pub struct InMemoryRateStore {
    buckets: Mutex<HashMap<String, Bucket>>,
    max_keys: usize,
}

impl Default for InMemoryRateStore {
    fn default() -> Self {
        Self::new(100_000)
    }
}

impl InMemoryRateStore {
    /// A store of at most `max_keys` buckets.
    pub fn new(max_keys: usize) -> Self {
        Self {
            buckets: Mutex::new(HashMap::new()),
            max_keys: max_keys.max(1),
        }
    }

    /// The decision for `key` at `now`.
    fn decide(&self, key: &str, limit: Limit, now: Instant) -> Decision {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if !buckets.contains_key(key) && buckets.len() >= self.max_keys {
            make_room(&mut buckets, self.max_keys, now);
        }
        let full = Bucket {
            tokens: f64::from(limit.burst),
            at: now,
            limit,
        };
        let bucket = buckets.entry(key.to_owned()).or_insert(full);
        let tokens = bucket.refilled(limit, now);
        let (left, decision) = if tokens >= 1.0 {
            (tokens - 1.0, Decision::Admitted)
        } else {
            let retry_after = limit.wait_for_one(tokens);
            (tokens, Decision::Refused { retry_after })
        };
        *bucket = Bucket {
            tokens: left,
            at: now,
            limit,
        };
        decision
    }
}

/// Forgets the buckets that have refilled; if that leaves no room below `max`, the least
/// recently touched one too.
fn make_room(buckets: &mut HashMap<String, Bucket>, max: usize, now: Instant) {
    buckets.retain(|_, b| !b.is_full(now));
    if buckets.len() >= max {
        let oldest = buckets
            .iter()
            .min_by_key(|(_, b)| b.at)
            .map(|(k, _)| k.clone());
        if let Some(k) = oldest {
            buckets.remove(&k);
        }
    }
}

impl RateStore for InMemoryRateStore {
    fn take<'a>(&'a self, key: &'a str, limit: Limit) -> BoxFuture<'a, Result<Decision, McpError>> {
        let decision = self.decide(key, limit, Instant::now());
        Box::pin(async move { Ok(decision) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_admits_its_burst_then_refills_at_its_rate() {
        let store = InMemoryRateStore::default();
        let limit = Limit::per_second(2);
        let t0 = Instant::now();
        assert_eq!(store.decide("k", limit, t0), Decision::Admitted);
        assert_eq!(store.decide("k", limit, t0), Decision::Admitted);
        let Decision::Refused { retry_after } = store.decide("k", limit, t0) else {
            panic!("the third call in the same instant is over the burst");
        };
        assert_eq!(retry_after, Duration::from_millis(500));
        // Another key has its own bucket.
        assert_eq!(store.decide("other", limit, t0), Decision::Admitted);
        let later = t0 + Duration::from_millis(500);
        assert_eq!(store.decide("k", limit, later), Decision::Admitted);
        assert!(matches!(
            store.decide("k", limit, later),
            Decision::Refused { .. }
        ));
    }

    #[test]
    fn the_store_stays_within_its_bound_and_keeps_what_was_just_used() {
        let store = InMemoryRateStore::new(3);
        let limit = Limit::per_minute(1);
        let t0 = Instant::now();
        for (i, k) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
            let at = t0 + Duration::from_millis(i as u64);
            assert_eq!(store.decide(k, limit, at), Decision::Admitted);
            assert!(store.buckets.lock().unwrap().len() <= 3);
        }
        let at = t0 + Duration::from_millis(10);
        assert!(matches!(
            store.decide("e", limit, at),
            Decision::Refused { .. }
        ));
        // A bucket that has refilled is forgotten first: nothing is lost by that.
        let full = t0 + Duration::from_secs(120);
        assert_eq!(store.decide("z", limit, full), Decision::Admitted);
        assert_eq!(store.buckets.lock().unwrap().len(), 1);
    }
}
