//! [`RedisSessionStore`]: legacy sessions in Redis, one hash per session
//! (`<prefix>session:{<id>}`: field `record`, the [`SessionRecord`] as JSON without its
//! subscriptions, and one field `sub:<uri>` per subscribed resource) whose expiry is the
//! session's time to live. `save` and `touch` change a session only while its key exists (a
//! Lua script, `PEXPIRE`), so a late write never brings back a removed or expired session,
//! nor leaves one without an expiry.
//!
//! Two processes holding one session may subscribe at the same instant, each saving the
//! record it loaded plus its own URI. So that neither subscription is lost, `save` writes
//! only what changed since this store last loaded or saved the session: the URIs added and
//! removed, each one field. Without that base (this process never loaded it, or forgot it
//! past 10,000 sessions) the subscriptions are replaced, as the record is.

use std::collections::{BTreeSet, HashMap};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use ::redis::Script;

use super::connection::{Conn, Resend, millis};
use crate::common::BoxFuture;
use crate::session::store::{SessionRecord, SessionStore, StoreError};

/// How many sessions' last known subscriptions a store remembers (one arbitrary is
/// forgotten past it).
const MAX_BASES: usize = 10_000;

/// KEYS[1]: the session; ARGV: the record, the TTL in ms, then the subscribed URIs.
/// Replaces any earlier session.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "redis.call('DEL', KEYS[1])
         redis.call('HSET', KEYS[1], 'record', ARGV[1])
         for i = 3, #ARGV do redis.call('HSET', KEYS[1], 'sub:' .. ARGV[i], '1') end
         redis.call('PEXPIRE', KEYS[1], ARGV[2])
         return 1",
    )
});

/// KEYS[1]: the session; ARGV: the record, the TTL in ms, `diff` or `replace`, then for
/// `diff` `+<uri>` (subscribed) or `-<uri>` (unsubscribed) each, for `replace` every URI.
/// 0 when the session is gone.
static SAVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
         redis.call('HSET', KEYS[1], 'record', ARGV[1])
         if ARGV[3] == 'replace' then
           for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
             if string.sub(f, 1, 4) == 'sub:' then redis.call('HDEL', KEYS[1], f) end
           end
           for i = 4, #ARGV do redis.call('HSET', KEYS[1], 'sub:' .. ARGV[i], '1') end
         else
           for i = 4, #ARGV do
             local field = 'sub:' .. string.sub(ARGV[i], 2)
             if string.sub(ARGV[i], 1, 1) == '+' then
               redis.call('HSET', KEYS[1], field, '1')
             else
               redis.call('HDEL', KEYS[1], field)
             end
           end
         end
         redis.call('PEXPIRE', KEYS[1], ARGV[2])
         return 1",
    )
});

/// A [`SessionStore`] in Redis, shared by every process that connects to the same Redis
/// with the same prefix (from [`RedisStores::session_store`](super::RedisStores::session_store)).
pub struct RedisSessionStore {
    conn: Conn,
    /// The subscriptions of each session as this store last loaded or saved them.
    bases: Mutex<HashMap<String, BTreeSet<String>>>,
}

impl RedisSessionStore {
    pub(super) fn new(conn: Conn) -> Self {
        Self {
            conn,
            bases: Mutex::new(HashMap::new()),
        }
    }

    fn base(&self, id: &str) -> Option<BTreeSet<String>> {
        self.bases.lock().expect("not poisoned").get(id).cloned()
    }

    fn remember(&self, id: &str, subscriptions: &[String]) {
        let mut bases = self.bases.lock().expect("not poisoned");
        if bases.len() >= MAX_BASES
            && !bases.contains_key(id)
            && let Some(any) = bases.keys().next().cloned()
        {
            bases.remove(&any);
        }
        bases.insert(id.to_owned(), subscriptions.iter().cloned().collect());
    }

    fn forget(&self, id: &str) {
        self.bases.lock().expect("not poisoned").remove(id);
    }

    fn key(&self, id: &str) -> String {
        self.conn.tagged("session", id)
    }

    /// The record without its subscriptions (they are fields of their own).
    fn encode(record: &SessionRecord) -> Result<String, StoreError> {
        let bare = SessionRecord {
            subscriptions: Vec::new(),
            ..record.clone()
        };
        serde_json::to_string(&bare).map_err(|e| StoreError::Corrupt(e.to_string()))
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
            for uri in &record.subscriptions {
                call.arg(uri);
            }
            self.conn
                .write_script::<i64>(&call, Resend::Dropped)
                .await?;
            self.remember(id, &record.subscriptions);
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async move {
            let fields: Vec<(String, String)> = self
                .conn
                .cmd(::redis::cmd("HGETALL").arg(self.key(id)), Resend::Dropped)
                .await?;
            let Some(record) = decode(id, fields)? else {
                self.forget(id);
                return Ok(None);
            };
            self.remember(id, &record.subscriptions);
            Ok(Some(record))
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
            match self.base(id) {
                Some(base) => {
                    call.arg("diff");
                    for op in changes(&base, &record.subscriptions) {
                        call.arg(op);
                    }
                }
                None => {
                    call.arg("replace");
                    for uri in &record.subscriptions {
                        call.arg(uri);
                    }
                }
            }
            // Sent twice, the same record and the same changes: nothing more.
            let saved = self
                .conn
                .write_script::<i64>(&call, Resend::Dropped)
                .await?
                == 1;
            if saved {
                self.remember(id, &record.subscriptions);
            } else {
                self.forget(id);
            }
            Ok(saved)
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
            self.forget(id);
            self.conn
                .cmd::<i64>(::redis::cmd("DEL").arg(self.key(id)), Resend::Dropped)
                .await
                .map(|_| ())
        })
    }
}

/// The session from its hash's fields: `None` without a `record` (no such session).
fn decode(id: &str, fields: Vec<(String, String)>) -> Result<Option<SessionRecord>, StoreError> {
    let mut record = None;
    let mut subscriptions = BTreeSet::new();
    for (k, v) in fields {
        if k == "record" {
            record = Some(v);
        } else if let Some(uri) = k.strip_prefix("sub:") {
            subscriptions.insert(uri.to_owned());
        }
    }
    let Some(json) = record else {
        return Ok(None);
    };
    let mut record: SessionRecord = serde_json::from_str(&json)
        .map_err(|e| StoreError::Corrupt(format!("session {id}: {e}")))?;
    // A record written before subscriptions had fields of their own may name some.
    subscriptions.extend(record.subscriptions.drain(..));
    record.subscriptions = subscriptions.into_iter().collect();
    Ok(Some(record))
}

/// `+<uri>` for each URI subscribed since `base`, `-<uri>` for each one dropped.
fn changes(base: &BTreeSet<String>, now: &[String]) -> Vec<String> {
    let now: BTreeSet<&String> = now.iter().collect();
    let added = now
        .iter()
        .filter(|u| !base.contains(**u))
        .map(|u| format!("+{u}"));
    let removed = base
        .iter()
        .filter(|u| !now.contains(u))
        .map(|u| format!("-{u}"));
    added.chain(removed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_changed_since_the_base_is_written() {
        let base: BTreeSet<String> = ["a", "b"].map(String::from).into();
        let now = ["b", "c"].map(String::from);
        assert_eq!(changes(&base, &now), ["+c", "-a"]);
        assert!(changes(&base, &["a".into(), "b".into()]).is_empty());
    }

    #[test]
    fn a_session_is_its_record_and_its_subscription_fields() {
        let fields = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        };
        let got = decode(
            "s",
            fields(&[
                ("sub:z://1", "1"),
                (
                    "record",
                    r#"{"protocolVersion":null,"subscriptions":["old://1"]}"#,
                ),
                ("sub:a://1", "1"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(got.subscriptions, ["a://1", "old://1", "z://1"]);
        assert_eq!(decode("s", fields(&[("sub:a://1", "1")])), Ok(None));
        assert!(decode("s", fields(&[("record", "{nope")])).is_err());
    }
}
