//! [`RedisRateStore`]: token buckets in Redis, one hash per bucket
//! (`<prefix>rate:<key>`: `tokens`, `at`), each decision one script, so a rate limit holds
//! across every replica that shares the Redis.

use std::sync::LazyLock;

use ::redis::Script;

use super::connection::{Conn, Resend};
use crate::common::BoxFuture;
use crate::common::error::McpError;
use crate::session::rate_store::{Decision, Limit, RateStore};

/// KEYS[1]: the bucket; ARGV: the burst, the refill in tokens per microsecond. Returns
/// `{1, 0}` when a token was taken, `{0, wait}` (microseconds until one is there, `-1` for
/// never) otherwise.
///
/// The clock is Redis's own (`TIME`): the replicas' clocks never meet, so their skew cannot
/// mint tokens. A bucket expires once it would have refilled, since a fresh bucket equals a
/// full one; one that never refills lives a day untouched.
static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local burst = tonumber(ARGV[1])
         local rate = tonumber(ARGV[2])
         local t = redis.call('TIME')
         local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
         local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
         local tokens, at = tonumber(b[1]), tonumber(b[2])
         if tokens == nil or at == nil then tokens, at = burst, now end
         tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
         local taken, wait = 0, 0
         if tokens >= 1 then
           tokens, taken = tokens - 1, 1
         elseif rate > 0 then
           wait = math.ceil((1 - tokens) / rate)
         else
           wait = -1
         end
         redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', now)
         local ttl = 86400000
         if rate > 0 then ttl = math.ceil((burst - tokens) / rate / 1000) + 1 end
         redis.call('PEXPIRE', KEYS[1], ttl)
         return {taken, wait}",
    )
});

/// A [`RateStore`] in Redis (from
/// [`RedisStores::rate_store`](super::RedisStores::rate_store)): give it to
/// `RateLimit::store` on every replica, and a limit of ten calls a minute is ten calls a
/// minute for the whole deployment.
///
/// A decision Redis cannot make within the configured timeout refuses the call with an
/// internal error (a store that cannot decide lets nothing through).
pub struct RedisRateStore {
    conn: Conn,
}

impl RedisRateStore {
    pub(super) fn new(conn: Conn) -> Self {
        Self { conn }
    }
}

impl std::fmt::Debug for RedisRateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateStore")
            .field("prefix", &self.conn.prefix())
            .finish()
    }
}

impl RateStore for RedisRateStore {
    fn take<'a>(&'a self, key: &'a str, limit: Limit) -> BoxFuture<'a, Result<Decision, McpError>> {
        Box::pin(async move {
            let mut call = TAKE.prepare_invoke();
            call.key(self.conn.key("rate", key))
                .arg(limit.burst)
                .arg(limit.per_second.max(0.0) / 1e6);
            // Run twice, one call could take two tokens.
            let (taken, wait): (i64, i64) = self
                .conn
                .script(&call, Resend::Refused)
                .await
                .map_err(|e| McpError::internal(format!("rate limit store: {e}")))?;
            Ok(if taken == 1 {
                Decision::Admitted
            } else {
                Decision::Refused {
                    retry_after: u64::try_from(wait)
                        .map_or(std::time::Duration::MAX, std::time::Duration::from_micros),
                }
            })
        })
    }
}
