//! [`RedisReplayGuard`]: the used `requestState` nonces in Redis, one key per nonce
//! (`<prefix>replay:<nonce hex>`) set with `SET NX PX` until the state expires, so each
//! state opens once across every process sharing the Redis.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use super::connection::{Conn, Resend};
use crate::common::BoxFuture;
use crate::session::request_state::ReplayGuard;
use crate::session::store::StoreError;

/// A [`ReplayGuard`] in Redis (from
/// [`RedisStores::replay_guard`](super::RedisStores::replay_guard)); give it to
/// `RequestStateConfig::single_use` on every instance.
pub struct RedisReplayGuard {
    conn: Conn,
}

/// The longest a nonce is remembered: Redis refuses an expiry whose deadline (its own clock
/// plus the `PX`) passes `i64::MAX` ms, and a state that far out (`u64::MAX / 2`, say) would
/// otherwise fail as soon as Redis's clock is one millisecond ahead of ours. A hundred
/// thousand years is as good as forever for a single-use nonce.
const MAX_REMEMBER_MS: u64 = 1 << 52;

impl RedisReplayGuard {
    pub(super) fn new(conn: Conn) -> Self {
        Self { conn }
    }
}

impl std::fmt::Debug for RedisReplayGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisReplayGuard")
            .field("prefix", &self.conn.prefix())
            .finish()
    }
}

impl ReplayGuard for RedisReplayGuard {
    fn first_use<'a>(
        &'a self,
        nonce: &'a [u8; 24],
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            // An expired state does not open anyway; remembering it is pointless.
            if expires_ms <= now {
                return Ok(false);
            }
            let mut hex = String::with_capacity(48);
            for b in nonce {
                let _ = write!(hex, "{b:02x}");
            }
            let set: Option<String> = self
                .conn
                .write_cmd(
                    ::redis::cmd("SET")
                        .arg(self.conn.key("replay", &hex))
                        .arg(1)
                        .arg("NX")
                        .arg("PX")
                        .arg((expires_ms - now).min(MAX_REMEMBER_MS)),
                    // Sent twice, a genuine first use could be refused as a replay.
                    Resend::Refused,
                )
                .await?;
            Ok(set.is_some())
        })
    }
}
