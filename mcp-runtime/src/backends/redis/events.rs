//! [`RedisEventStore`]: the events of resumable SSE streams in Redis. Per stream, a Redis
//! stream `<prefix>events:{<stream>}` (entry ids `0-<seq>`, field `m`: the message; trimmed
//! to a `MAXLEN`) and a hash `<prefix>stream:{<stream>}` (`session`, `seq`: the last
//! sequence number issued), both in the stream's hash slot; per session, the set
//! `<prefix>streams:{<session>}` of its streams, in the session's slot. One Lua script on
//! the stream's two keys numbers and appends, so event ids (`<stream>-<seq>`, as in the
//! in-memory store) are unique and ordered across processes; the session's set is written
//! beside it in the same round trip. Every key's expiry is refreshed on each append.

use std::sync::LazyLock;
use std::time::Duration;

use ::redis::Script;

use super::connection::{Conn, Resend, millis};
use crate::common::BoxFuture;
use crate::session::event_store::{EventStore, Replay, StoredEvent, StreamId};
use crate::session::store::StoreError;

/// KEYS: events, meta (one slot); ARGV: message, session, maxlen, ttl ms. Returns the new
/// sequence number.
static APPEND: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('DEL', KEYS[1]) end
         local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
         redis.call('HSET', KEYS[2], 'session', ARGV[2])
         redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[3], '0-' .. seq, 'm', ARGV[1])
         redis.call('PEXPIRE', KEYS[1], ARGV[4])
         redis.call('PEXPIRE', KEYS[2], ARGV[4])
         return seq",
    )
});

/// KEYS[1]: the session's set; ARGV: stream name, ttl ms. Names the stream for
/// `forget_session`.
static TRACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "redis.call('SADD', KEYS[1], ARGV[1])
         return redis.call('PEXPIRE', KEYS[1], ARGV[2])",
    )
});

/// KEYS: events, meta; ARGV: the first entry id to return (`0-<after + 1>`). Nil when the
/// stream is unknown, else {session, last seq, first seq held ('0': none), then seq and
/// message of each entry from ARGV[1] on}.
static REPLAY: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local meta = redis.call('HMGET', KEYS[2], 'session', 'seq')
         if not meta[1] or not meta[2] then return false end
         local out = {meta[1], meta[2], '0'}
         local head = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
         if head[1] then out[3] = string.sub(head[1][1], 3) end
         for _, e in ipairs(redis.call('XRANGE', KEYS[1], ARGV[1], '+')) do
           out[#out + 1] = string.sub(e[1], 3)
           out[#out + 1] = e[2][2]
         end
         return out",
    )
});

/// An [`EventStore`] in Redis (from
/// [`RedisStores::event_store`](super::RedisStores::event_store)): each stream keeps its
/// newest `max_events_per_stream` events, for `event_ttl` after its last one.
pub struct RedisEventStore {
    conn: Conn,
    ttl: Duration,
    max_len: usize,
}

impl RedisEventStore {
    pub(super) fn new(conn: Conn, ttl: Duration, max_len: usize) -> Self {
        Self { conn, ttl, max_len }
    }
}

impl std::fmt::Debug for RedisEventStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventStore")
            .field("prefix", &self.conn.prefix())
            .field("ttl", &self.ttl)
            .field("max_events_per_stream", &self.max_len)
            .finish()
    }
}

/// `<stream>-<seq>` split; `None` for anything this store never issued the shape of.
fn parse_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once('-')?;
    if stream.is_empty() || stream.len() > 128 || !stream.bytes().all(|b| b.is_ascii_graphic()) {
        return None;
    }
    Some((stream, seq.parse().ok()?))
}

fn corrupt(why: &str) -> StoreError {
    StoreError::Corrupt(format!("event stream: {why}"))
}

fn number(bytes: &[u8]) -> Result<u64, StoreError> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| corrupt("a sequence number is not a number"))
}

impl EventStore for RedisEventStore {
    fn append<'a>(
        &'a self,
        stream: &'a StreamId,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        Box::pin(async move {
            let mut call = APPEND.prepare_invoke();
            call.key(self.conn.tagged("events", &stream.stream))
                .key(self.conn.tagged("stream", &stream.stream))
                .arg(message)
                .arg(&stream.session)
                .arg(self.max_len)
                .arg(millis(self.ttl));
            let mut track = TRACK.prepare_invoke();
            track
                .key(self.conn.tagged("streams", &stream.session))
                .arg(&stream.stream)
                .arg(millis(self.ttl));
            // Not idempotent: sent twice, one message would be stored twice. The set is
            // written beside it (another slot on Redis Cluster), in the same round trip.
            let (seq, tracked) = tokio::join!(
                self.conn.write_script::<u64>(&call, Resend::Refused),
                self.conn.script::<i64>(&track, Resend::Dropped),
            );
            if let Err(e) = tracked {
                // The event is stored; only `forget_session` misses the stream, which
                // expires by itself.
                tracing::debug!(stream = %stream.stream, error = %e, "stream not named in its session's set");
            }
            Ok(format!("{}-{}", stream.stream, seq?))
        })
    }

    fn replay_after<'a>(
        &'a self,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        Box::pin(async move {
            let Some((stream, after)) = parse_id(last_event_id) else {
                return Ok(None);
            };
            let Some(from) = after.checked_add(1) else {
                return Ok(None);
            };
            let mut call = REPLAY.prepare_invoke();
            call.key(self.conn.tagged("events", stream))
                .key(self.conn.tagged("stream", stream))
                .arg(format!("0-{from}"));
            let Some(out): Option<Vec<Vec<u8>>> = self.conn.script(&call, Resend::Dropped).await?
            else {
                return Ok(None);
            };
            let [session, last, first, entries @ ..] = out.as_slice() else {
                return Err(corrupt("short answer"));
            };
            let (last, first) = (number(last)?, number(first)?);
            // Never issued.
            if after > last {
                return Ok(None);
            }
            let session =
                String::from_utf8(session.clone()).map_err(|_| corrupt("session not UTF-8"))?;
            let mut events = Vec::with_capacity(entries.len() / 2);
            for pair in entries.chunks(2) {
                let [seq, message] = pair else {
                    return Err(corrupt("odd answer"));
                };
                if message.is_empty() {
                    continue; // a priming event
                }
                events.push(StoredEvent {
                    id: format!("{stream}-{}", number(seq)?),
                    message: message.clone(),
                });
            }
            // Evicted entries are those below the first held; a gap when one was after `after`.
            let truncated = if first == 0 {
                last > after
            } else {
                first > from
            };
            Ok(Some(Replay {
                stream: StreamId {
                    session,
                    stream: stream.to_owned(),
                },
                events,
                truncated,
            }))
        })
    }

    fn forget_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        // One call per stream: a stream's keys share a slot, not the session's.
        Box::pin(async move {
            let set = self.conn.tagged("streams", session);
            let names: Vec<String> = self
                .conn
                .cmd(::redis::cmd("SMEMBERS").arg(&set), Resend::Dropped)
                .await?;
            for n in &names {
                let del = ::redis::cmd("DEL")
                    .arg(self.conn.tagged("events", n))
                    .arg(self.conn.tagged("stream", n))
                    .to_owned();
                self.conn.cmd::<i64>(&del, Resend::Dropped).await?;
            }
            self.conn
                .cmd::<i64>(::redis::cmd("DEL").arg(&set), Resend::Dropped)
                .await
                .map(|_| ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse_id;

    #[test]
    fn ids_name_their_stream_and_sequence() {
        assert_eq!(parse_id("0123abcd-7"), Some(("0123abcd", 7)));
        assert_eq!(parse_id("a-b-12"), Some(("a-b", 12)));
        assert_eq!(parse_id("-1"), None);
        assert_eq!(parse_id("abc"), None);
        assert_eq!(parse_id("abc-x"), None);
        assert_eq!(parse_id("a b-1"), None);
    }
}
