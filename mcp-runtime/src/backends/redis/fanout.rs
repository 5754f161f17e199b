//! The carrier of the bus and of the answer relay: one Redis stream (`<prefix>bus`,
//! `<prefix>answers`) that every end appends to and reads from, so fan-out across processes
//! is at least once and what reaches a subscriber exactly once.
//!
//! - **Appending** (one task per bus): payloads wait in a bounded queue (a full queue drops
//!   and counts the new one); the task `XADD`s the oldest with fields `o` (the bus's random
//!   origin), `n` (its sequence number, 1, 2, ... in queue order) and `m` (the payload),
//!   trimming the stream to about `backlog` entries. A call that fails is retried with a
//!   capped backoff until Redis takes it, the queue filling meanwhile: an append whose answer
//!   was lost may land twice, which readers drop by `(o, n)`.
//! - **Reading** (a second task, on a connection of its own because `XREAD BLOCK` holds it):
//!   from the newest entry at its first connection on, it reads after the last id it handed
//!   over, so a connection cut (a `CLIENT KILL`, Redis restarted) loses nothing that Redis
//!   still holds: after reconnecting it goes on from that id. A stream whose newest entry is
//!   older than that id (or that is gone) was recreated, and is read from its start. It
//!   skips its own origin, any `(o, n)` not newer than the last seen from that origin, and
//!   entries it cannot read, and hands each other payload to a callback, in stream order.
//! - **Falling behind**: entries the stream trimmed before a reader came back to them, and
//!   entries Redis held only in memory when it died, are lost to it. It tells (a second
//!   callback, before the entry that shows it, and a count) when it sees it: an origin's
//!   sequence number that skips (`n` after `n - 2`), or, on reconnecting, the stream's
//!   oldest entry newer than the last it read (trimmed past it).
//!
//! Both tasks end when the [`Fanout`] is dropped.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use ::redis::{RedisResult, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connection::{Conn, Connector, Own, Resend};

/// The first wait before reconnecting or appending again; it doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// How long one `XREAD` waits for entries (a peer that vanished without closing the socket
/// is noticed within this plus the timeout).
const BLOCK: Duration = Duration::from_secs(2);

/// How many entries one `XREAD` takes.
const BATCH: usize = 32;

/// How many origins a reader remembers the last sequence number of (the oldest is forgotten
/// first).
const MAX_ORIGINS: usize = 1024;

/// What the reader does with each payload from another bus.
pub(super) type OnEntry = Box<dyn Fn(&[u8]) + Send + Sync>;

/// What the reader does when it finds it lost entries (before handing over the next one).
pub(super) type OnGap = Box<dyn Fn() + Send + Sync>;

/// What the reader calls.
pub(super) struct Reader {
    /// Each payload from another end, in stream order.
    pub(super) entry: OnEntry,
    /// Entries were lost to this reader.
    pub(super) gap: OnGap,
}

/// One bus's end of the stream: appends and reads.
pub(super) struct Fanout {
    queue: mpsc::Sender<String>,
    shared: Arc<Shared>,
    /// Ends both tasks (fired on drop).
    stop: CancellationToken,
}

/// What the end and its tasks share.
struct Shared {
    origin: String,
    key: String,
    dropped: AtomicU64,
    gaps: AtomicU64,
    connected: AtomicBool,
}

impl Fanout {
    /// Starts the appending and the reading task (inside a Tokio runtime) on stream
    /// `<prefix><name>`, trimmed to about `backlog` entries.
    pub(super) fn open(
        client: Connector,
        conn: Conn,
        name: &str,
        queue: usize,
        backlog: usize,
        reader: Reader,
    ) -> Self {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let shared = Arc::new(Shared {
            origin: random_origin(),
            key: format!("{}{name}", conn.prefix()),
            dropped: AtomicU64::new(0),
            gaps: AtomicU64::new(0),
            connected: AtomicBool::new(false),
        });
        let stop = CancellationToken::new();
        let timeout = conn.timeout();
        tokio::spawn(appending(
            rx,
            conn,
            backlog.max(1),
            shared.clone(),
            stop.clone(),
        ));
        tokio::spawn(reading(
            client,
            timeout,
            reader,
            shared.clone(),
            stop.clone(),
        ));
        Self {
            queue: tx,
            shared,
            stop,
        }
    }

    /// Queues `payload` for appending, or drops and counts it when the queue is full.
    pub(super) fn publish(&self, payload: String) {
        if let Err(e) = self.queue.try_send(payload) {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::debug!(stream = %self.shared.key, error = %e, "redis bus: not queued");
        }
    }

    /// The random id of this end (64 bits as 16 hex digits).
    pub(super) fn origin(&self) -> &str {
        &self.shared.origin
    }

    /// `<prefix><name>`.
    pub(super) fn key(&self) -> &str {
        &self.shared.key
    }

    /// How many payloads were not queued.
    pub(super) fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// How many times the reader found it had lost entries.
    pub(super) fn gaps(&self) -> u64 {
        self.shared.gaps.load(Ordering::Relaxed)
    }

    /// Whether the reading connection is up right now.
    pub(super) fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::Acquire)
    }
}

impl Drop for Fanout {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// 64 random bits as 16 hex digits.
fn random_origin() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the OS random source failed");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Appends the queue to the stream in order, each entry until Redis takes it.
async fn appending(
    mut rx: mpsc::Receiver<String>,
    conn: Conn,
    backlog: usize,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let mut seq: u64 = 0;
    loop {
        let payload = tokio::select! {
            _ = stop.cancelled() => return,
            p = rx.recv() => match p { Some(p) => p, None => return },
        };
        seq += 1;
        let cmd = ::redis::cmd("XADD")
            .arg(&shared.key)
            .arg("MAXLEN")
            .arg("~")
            .arg(backlog)
            .arg("*")
            .arg("o")
            .arg(&shared.origin)
            .arg("n")
            .arg(seq)
            .arg("m")
            .arg(payload)
            .to_owned();
        let mut backoff = MIN_BACKOFF;
        // Sent again after a dropped connection, or when the replicas the deployment asks for
        // did not all take it (a failover could lose it): a second copy is dropped by `(o, n)`.
        while let Err(e) = conn.write_cmd::<Value>(&cmd, Resend::Dropped).await {
            tracing::debug!(stream = %shared.key, error = %e, seq, "redis bus: not appended, retrying");
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(backoff) => {}
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }
}

/// Keeps a reading connection, reconnecting with a capped backoff, and hands what other
/// buses appended to `on_entry`.
async fn reading(
    client: Connector,
    timeout: Duration,
    reader: Reader,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let mut cursor = Cursor::default();
    let mut backoff = MIN_BACKOFF;
    loop {
        let ended = tokio::select! {
            _ = stop.cancelled() => return,
            e = read(&client, timeout, &mut cursor, &reader, &shared) => e,
        };
        let was_connected = shared.connected.swap(false, Ordering::AcqRel);
        if was_connected {
            tracing::warn!(stream = %shared.key, error = %ended, "redis bus: reading connection lost, reconnecting");
            backoff = MIN_BACKOFF;
        } else {
            tracing::debug!(stream = %shared.key, error = %ended, "redis bus: cannot read");
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// Where a reader is: the id after which it reads, and the last sequence number seen from
/// each origin.
#[derive(Default)]
struct Cursor {
    last: Option<EntryId>,
    seen: Seen,
}

/// One connection's worth of reading: ends with the error that ended it.
async fn read(
    client: &Connector,
    timeout: Duration,
    cursor: &mut Cursor,
    reader: &Reader,
    shared: &Shared,
) -> ::redis::RedisError {
    let mut con = match client.connect(timeout, BLOCK + timeout).await {
        Ok(c) => c,
        Err(e) => return e,
    };
    let (newest, deleted) = match ends(&mut con, &shared.key).await {
        Ok(n) => n,
        Err(e) => return e,
    };
    let mut gap = cursor.trimmed_past(newest, deleted);
    let from = cursor.start(newest);
    tracing::info!(stream = %shared.key, from = %from, "redis bus: reading");
    shared.connected.store(true, Ordering::Release);
    loop {
        let reply = ::redis::cmd("XREAD")
            .arg("COUNT")
            .arg(BATCH)
            .arg("BLOCK")
            .arg(u64::try_from(BLOCK.as_millis()).unwrap_or(u64::MAX))
            .arg("STREAMS")
            .arg(&shared.key)
            .arg(cursor.after().to_string())
            .to_owned();
        let reply = con.query::<Value>(&reply).await;
        let entries = match reply {
            Ok(v) => entries(v),
            Err(e) => return e,
        };
        for entry in entries {
            cursor.last = Some(entry.id);
            let Some((origin, seq, payload)) = entry.fields else {
                tracing::debug!(stream = %shared.key, "redis bus: unreadable entry skipped");
                continue;
            };
            if origin == shared.origin {
                continue;
            }
            match cursor.seen.check(&origin, seq) {
                Verdict::Repeat => continue,
                Verdict::Skipped => gap = true,
                _ => {}
            }
            if std::mem::take(&mut gap) {
                shared.gaps.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(stream = %shared.key, "redis bus: entries lost to this reader (it fell behind the stream)");
                (reader.gap)();
            }
            (reader.entry)(&payload);
        }
    }
}

/// The id of the stream's newest entry (`None`: no stream) and the newest id it deleted
/// (trimmed; `None` before Redis 7, which does not say).
async fn ends(con: &mut Own, key: &str) -> RedisResult<(Option<EntryId>, Option<EntryId>)> {
    let cmd = ::redis::cmd("XREVRANGE")
        .arg(key)
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(1)
        .to_owned();
    let newest = match con.query(&cmd).await? {
        Value::Array(items) => items.into_iter().find_map(|e| entry(e).map(|e| e.id)),
        _ => None,
    };
    if newest.is_none() {
        return Ok((None, None));
    }
    let info: Value = con
        .query(::redis::cmd("XINFO").arg("STREAM").arg(key))
        .await?;
    Ok((newest, max_deleted(info)))
}

/// The `max-deleted-entry-id` of an `XINFO STREAM` reply (a flat array of names and values,
/// or a map).
fn max_deleted(info: Value) -> Option<EntryId> {
    let pairs: Vec<(Value, Value)> = match info {
        Value::Array(items) => {
            let mut it = items.into_iter();
            std::iter::from_fn(|| Some((it.next()?, it.next()?))).collect()
        }
        Value::Map(pairs) => pairs,
        _ => return None,
    };
    pairs.into_iter().find_map(|(k, v)| match (k, v) {
        (Value::BulkString(k), Value::BulkString(v)) if k == b"max-deleted-entry-id" => {
            EntryId::parse(&v)
        }
        (Value::SimpleString(k), Value::BulkString(v)) if k == "max-deleted-entry-id" => {
            EntryId::parse(&v)
        }
        _ => None,
    })
}

impl Cursor {
    /// Whether the stream, still the one this reader read (its newest entry not older than
    /// the last read), deleted (trimmed) an entry after that one while the reader was away.
    fn trimmed_past(&self, newest: Option<EntryId>, deleted: Option<EntryId>) -> bool {
        match (self.last, newest, deleted) {
            (Some(last), Some(n), Some(d)) => last != EntryId::ZERO && n >= last && d > last,
            _ => false,
        }
    }

    /// Where to read from on a new connection, given the stream's newest entry.
    fn start(&mut self, newest: Option<EntryId>) -> EntryId {
        let from = match (self.last, newest) {
            // The first connection: what is appended from now on.
            (None, n) => n.unwrap_or(EntryId::ZERO),
            // Redis lost or recreated the stream: all of the new one (`seen` drops repeats).
            (Some(last), Some(n)) if n < last => EntryId::ZERO,
            (Some(_), None) => EntryId::ZERO,
            (Some(last), _) => last,
        };
        self.last = Some(from);
        from
    }

    fn after(&self) -> EntryId {
        self.last.unwrap_or(EntryId::ZERO)
    }
}

/// A stream entry id, `<ms>-<seq>`, ordered as Redis orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct EntryId(u64, u64);

impl EntryId {
    const ZERO: EntryId = EntryId(0, 0);

    fn parse(s: &[u8]) -> Option<Self> {
        let s = std::str::from_utf8(s).ok()?;
        let (ms, seq) = s.split_once('-')?;
        Some(EntryId(ms.parse().ok()?, seq.parse().ok()?))
    }
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

/// One entry read: its id, and its `(o, n, m)` fields when they are all there.
#[derive(Debug, PartialEq)]
struct Entry {
    id: EntryId,
    fields: Option<(String, u64, Vec<u8>)>,
}

/// The entries of an `XREAD` reply (`[[key, [entry, ...]]]`, or nil when none came).
fn entries(v: Value) -> Vec<Entry> {
    let Value::Array(streams) = v else {
        return Vec::new();
    };
    streams
        .into_iter()
        .filter_map(|s| match s {
            Value::Array(mut kv) if kv.len() == 2 => match kv.pop() {
                Some(Value::Array(es)) => Some(es),
                _ => None,
            },
            _ => None,
        })
        .flatten()
        .filter_map(entry)
        .collect()
}

/// `[id, [field, value, ...]]`.
fn entry(v: Value) -> Option<Entry> {
    let Value::Array(mut parts) = v else {
        return None;
    };
    if parts.len() != 2 {
        return None;
    }
    let fields = parts.pop()?;
    let Value::BulkString(id) = parts.pop()? else {
        return None;
    };
    let id = EntryId::parse(&id)?;
    let Value::Array(fields) = fields else {
        return Some(Entry { id, fields: None });
    };
    let (mut o, mut n, mut m) = (None, None, None);
    for pair in fields.chunks(2) {
        if let [Value::BulkString(k), Value::BulkString(v)] = pair {
            match k.as_slice() {
                b"o" => o = String::from_utf8(v.clone()).ok(),
                b"n" => n = std::str::from_utf8(v).ok().and_then(|n| n.parse().ok()),
                b"m" => m = Some(v.clone()),
                _ => {}
            }
        }
    }
    let fields = match (o, n, m) {
        (Some(o), Some(n), Some(m)) => Some((o, n, m)),
        _ => None,
    };
    Some(Entry { id, fields })
}

/// What [`Seen::check`] finds of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Seen before.
    Repeat,
    /// The next of its origin (or the first of an origin not known).
    Next,
    /// New, but numbers of its origin before it never came: entries were lost.
    Skipped,
}

/// The last sequence number seen from each origin, for the [`MAX_ORIGINS`] latest origins.
#[derive(Default)]
struct Seen {
    last: HashMap<String, u64>,
    order: VecDeque<String>,
}

impl Seen {
    /// Whether `(origin, seq)` is new (and remembers it): an origin appends in order,
    /// numbering 1, 2, ..., so anything not above its last number is a repeat and anything
    /// above the next one shows a loss.
    fn check(&mut self, origin: &str, seq: u64) -> Verdict {
        if let Some(last) = self.last.get_mut(origin) {
            if seq <= *last {
                return Verdict::Repeat;
            }
            let skipped = seq > *last + 1;
            *last = seq;
            return if skipped {
                Verdict::Skipped
            } else {
                Verdict::Next
            };
        }
        if self.order.len() >= MAX_ORIGINS
            && let Some(old) = self.order.pop_front()
        {
            self.last.remove(&old);
        }
        self.order.push_back(origin.to_owned());
        self.last.insert(origin.to_owned(), seq);
        Verdict::Next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bulk(s: &str) -> Value {
        Value::BulkString(s.as_bytes().to_vec())
    }

    fn raw_entry(id: &str, fields: &[&str]) -> Value {
        Value::Array(vec![
            bulk(id),
            Value::Array(fields.iter().map(|f| bulk(f)).collect()),
        ])
    }

    #[test]
    fn an_xread_reply_gives_its_entries_in_order() {
        let reply = Value::Array(vec![Value::Array(vec![
            bulk("p:bus"),
            Value::Array(vec![
                raw_entry("5-0", &["o", "aa", "n", "1", "m", "x"]),
                raw_entry("5-1", &["m", "y"]),
                raw_entry("6-0", &["n", "2", "o", "bb", "m", "z", "extra", "1"]),
                bulk("junk"),
            ]),
        ])]);
        let got = entries(reply);
        assert_eq!(
            got,
            vec![
                Entry {
                    id: EntryId(5, 0),
                    fields: Some(("aa".into(), 1, b"x".to_vec())),
                },
                Entry {
                    id: EntryId(5, 1),
                    fields: None,
                },
                Entry {
                    id: EntryId(6, 0),
                    fields: Some(("bb".into(), 2, b"z".to_vec())),
                },
            ]
        );
        assert!(entries(Value::Nil).is_empty());
    }

    #[test]
    fn ids_order_as_redis_orders_them() {
        assert!(EntryId::parse(b"10-0") > EntryId::parse(b"9-5"));
        assert!(EntryId::parse(b"10-2") > EntryId::parse(b"10-1"));
        assert_eq!(EntryId::parse(b"x-1"), None);
        assert_eq!(EntryId(17, 3).to_string(), "17-3");
    }

    #[test]
    fn a_reader_goes_on_from_its_last_id_unless_the_stream_was_recreated() {
        let mut c = Cursor::default();
        assert_eq!(c.start(Some(EntryId(7, 0))), EntryId(7, 0), "from now on");
        c.last = Some(EntryId(9, 0));
        assert_eq!(c.start(Some(EntryId(12, 0))), EntryId(9, 0), "catch up");
        assert_eq!(c.start(Some(EntryId(3, 0))), EntryId::ZERO, "recreated");
        c.last = Some(EntryId(9, 0));
        assert_eq!(c.start(None), EntryId::ZERO, "gone");
        assert_eq!(Cursor::default().start(None), EntryId::ZERO);
    }

    #[test]
    fn repeats_of_an_origin_are_dropped_and_skips_seen() {
        let mut s = Seen::default();
        assert_eq!(s.check("a", 1), Verdict::Next);
        assert_eq!(s.check("a", 2), Verdict::Next);
        assert_eq!(s.check("a", 2), Verdict::Repeat, "appended twice");
        assert_eq!(s.check("a", 1), Verdict::Repeat);
        assert_eq!(s.check("b", 7), Verdict::Next, "another origin, first seen");
        assert_eq!(s.check("a", 3), Verdict::Next);
        assert_eq!(s.check("a", 5), Verdict::Skipped, "4 never came");
        assert_eq!(s.check("a", 6), Verdict::Next);
        for i in 0..MAX_ORIGINS {
            assert_eq!(s.check(&format!("o{i}"), 1), Verdict::Next);
        }
        assert!(s.last.len() <= MAX_ORIGINS);
        assert_eq!(
            s.check("a", 1),
            Verdict::Next,
            "forgotten, the oldest first"
        );
    }

    #[test]
    fn a_reader_sees_the_stream_trimmed_past_its_last_entry() {
        let mut c = Cursor::default();
        let (n, d) = (Some(EntryId(9, 0)), Some(EntryId(8, 0)));
        assert!(!c.trimmed_past(n, d), "first read");
        c.last = Some(EntryId(7, 0));
        assert!(c.trimmed_past(n, d), "8-0 deleted, never read");
        assert!(
            !c.trimmed_past(n, Some(EntryId(7, 0))),
            "only what was read"
        );
        assert!(!c.trimmed_past(n, None), "Redis does not say");
        assert!(!c.trimmed_past(Some(EntryId(2, 0)), d), "recreated");
        assert!(!c.trimmed_past(None, None), "gone");
    }

    #[test]
    fn xinfo_names_the_newest_id_deleted() {
        let info = Value::Array(vec![
            bulk("length"),
            Value::Int(3),
            bulk("max-deleted-entry-id"),
            bulk("12-4"),
        ]);
        assert_eq!(max_deleted(info), Some(EntryId(12, 4)));
        assert_eq!(
            max_deleted(Value::Array(vec![bulk("length"), Value::Int(3)])),
            None
        );
        let map = Value::Map(vec![(bulk("max-deleted-entry-id"), bulk("0-0"))]);
        assert_eq!(max_deleted(map), Some(EntryId::ZERO));
    }
}
