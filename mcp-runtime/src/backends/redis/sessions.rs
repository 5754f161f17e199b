//! [`RedisSessionStore`]: legacy sessions in Redis, one hash per session
//! (`<prefix>session:<id>`, field `record`: the [`SessionRecord`] as JSON) whose expiry is
//! the session's time to live. `save` and `touch` change a session only while its key
//! exists (a Lua script, `PEXPIRE`), so a late write never brings back a removed or
//! expired session, nor leaves one without an expiry.

use std::sync::LazyLock;
use std::time::Duration;

use ::redis::Script;

use super::connection::{Conn, Resend, millis};
use crate::common::BoxFuture;
use crate::session::store::{SessionRecord, SessionStore, StoreError};

/// KEYS[1]: the session; ARGV: the record, the TTL in ms. Replaces any earlier session.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "redis.call('DEL', KEYS[1])
         redis.call('HSET', KEYS[1], 'record', ARGV[1])
         redis.call('PEXPIRE', KEYS[1], ARGV[2])
         return 1",
    )
});

/// KEYS[1]: the session; ARGV: the record, the TTL in ms. 0 when the session is gone.
static SAVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
         redis.call('HSET', KEYS[1], 'record', ARGV[1])
         redis.call('PEXPIRE', KEYS[1], ARGV[2])
         return 1",
    )
});

/// A [`SessionStore`] in Redis, shared by every process that connects to the same Redis
/// with the same prefix (from [`RedisStores::session_store`](super::RedisStores::session_store)).
pub struct RedisSessionStore {
    conn: Conn,
}

impl RedisSessionStore {
    pub(super) fn new(conn: Conn) -> Self {
        Self { conn }
    }

    fn key(&self, id: &str) -> String {
        self.conn.tagged("session", id)
    }

    fn encode(record: &SessionRecord) -> Result<String, StoreError> {
        serde_json::to_string(record).map_err(|e| StoreError::Corrupt(e.to_string()))
    }
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.conn.prefix())
            .finish()
    }
}

impl SessionStore for RedisSessionStore {
    fn shared(&self) -> bool {
        true
    }

    fn create<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let json = Self::encode(record)?;
            let mut call = CREATE.prepare_invoke();
            call.key(self.key(id)).arg(json).arg(millis(ttl));
            self.conn
                .script::<i64>(&call, Resend::Dropped)
                .await
                .map(|_| ())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let json: Option<String> = self
                .conn
                .cmd(
                    ::redis::cmd("HGET").arg(self.key(id)).arg("record"),
                    Resend::Dropped,
                )
                .await?;
            json.map(|j| {
                serde_json::from_str(&j)
                    .map_err(|e| StoreError::Corrupt(format!("session {id}: {e}")))
            })
            .transpose()
        })
    }

    fn save<'a>(
        &'a self,
        id: &'a str,
        record: &'a SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let json = Self::encode(record)?;
            let mut call = SAVE.prepare_invoke();
            call.key(self.key(id)).arg(json).arg(millis(ttl));
            Ok(self.conn.script::<i64>(&call, Resend::Dropped).await? == 1)
        })
    }

    fn touch<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            // PEXPIRE answers 0 and creates nothing when the key does not exist.
            let set: i64 = self
                .conn
                .cmd(
                    ::redis::cmd("PEXPIRE").arg(self.key(id)).arg(millis(ttl)),
                    Resend::Dropped,
                )
                .await?;
            Ok(set == 1)
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.conn
                .cmd::<i64>(::redis::cmd("DEL").arg(self.key(id)), Resend::Dropped)
                .await
                .map(|_| ())
        })
    }
}
