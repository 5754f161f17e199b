//! Resumability of legacy Streamable HTTP streams (2025-03-26 … 2025-11-25): every event
//! sent on a stream is first stored, under an id that names its stream; a client that lost
//! the connection sends `GET` with `Last-Event-ID` and gets exactly the events it missed.
//! [`EventStore`] is async so that a remote store can keep the events of many processes.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::store::StoreError;
use crate::common::BoxFuture;

/// One SSE stream of one session: the standalone `GET` stream or the stream of one `POST`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamId {
    /// The `Mcp-Session-Id` of the session the stream belongs to.
    pub session: String,
    /// The stream's name, unique across the server (random, URL- and header-safe).
    pub stream: String,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its SSE `id`.
    pub id: String,
    /// The JSON-RPC message (already through the outgoing filters). Empty for a priming
    /// event, which is never replayed.
    pub message: Vec<u8>,
}

/// What [`EventStore::replay_after`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The stream the event id belongs to.
    pub stream: StreamId,
    /// The events stored after it on that stream, oldest first (priming events excluded).
    pub events: Vec<StoredEvent>,
    /// Some events after the id were evicted: the replay has a gap.
    pub truncated: bool,
}

/// Where resumable streams keep their events.
///
/// The transport calls [`append`](EventStore::append) once per event, in order, before the
/// event goes to the connection, and [`replay_after`](EventStore::replay_after) when a
/// client resumes; it never runs two calls for one stream at once, which is how nothing is
/// lost or repeated between a replay and the live events that follow it.
///
/// Event ids must be visible ASCII, unique across every process sharing the store, and
/// ordered within their stream; each must let `replay_after` find its stream again. Each
/// call should fail within a bounded time ([`StoreError::Unavailable`]) rather than hang.
pub trait EventStore: Send + Sync + 'static {
    /// Stores `message` (empty for a priming event, which is never replayed) as the next
    /// event of `stream`, and returns its SSE event id.
    fn append<'a>(
        &'a self,
        stream: &'a StreamId,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StoreError>>;

    /// The stream `last_event_id` belongs to and its events after that id; `None` when the
    /// id is unknown (never issued, or its stream or session was forgotten).
    fn replay_after<'a>(
        &'a self,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>>;

    /// Forgets every stream of `session` (it ended).
    fn forget_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Events currently held in this process (for `HttpStats`); 0 when unknown.
    fn buffered(&self) -> usize {
        0
    }
}

/// The default [`EventStore`]: in memory, bounded per session.
///
/// Event ids are `<stream>-<seq>`, with `seq` counting from 1 on each stream. Each session
/// keeps at most `per_session` events across all of its streams; beyond that the stream of
/// the session holding the most events gives up its oldest one (the oldest stream among
/// equals), so a busy stream evicts its own past and not another stream's answer. A client
/// resuming after an evicted event gets what is left, flagged
/// [`truncated`](Replay::truncated) (the transport logs a warning). Everything of a
/// session is dropped when the session ends.
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_session: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    streams: HashMap<String, StreamLog>,
    /// Per session: its streams and how many events they hold, for eviction.
    sessions: HashMap<String, SessionLog>,
    total: usize,
}

#[derive(Debug, Default)]
struct SessionLog {
    /// The session's streams, oldest first.
    streams: Vec<String>,
    /// Events held across them.
    events: usize,
}

#[derive(Debug)]
struct StreamLog {
    session: String,
    next_seq: u64,
    /// (seq, message), ascending.
    events: VecDeque<(u64, Vec<u8>)>,
    /// The highest seq evicted so far (0: none).
    evicted: u64,
}

impl InMemoryEventStore {
    /// A store keeping at most `per_session` events per session (at least 1).
    pub fn new(per_session: usize) -> Self {
        Self {
            per_session: per_session.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }
}

impl Default for InMemoryEventStore {
    /// 1024 events per session.
    fn default() -> Self {
        Self::new(1024)
    }
}

fn parse_id(id: &str) -> Option<(&str, u64)> {
    let (stream, seq) = id.rsplit_once('-')?;
    Some((stream, seq.parse().ok()?))
}

impl InMemoryEventStore {
    fn append_now(&self, stream: &StreamId, message: &[u8]) -> String {
        let mut g = self.inner.lock().expect("event store lock");
        let Inner {
            streams,
            sessions,
            total,
        } = &mut *g;
        let session = sessions.entry(stream.session.clone()).or_default();
        let log = streams.entry(stream.stream.clone()).or_insert_with(|| {
            session.streams.push(stream.stream.clone());
            StreamLog {
                session: stream.session.clone(),
                next_seq: 1,
                events: VecDeque::new(),
                evicted: 0,
            }
        });
        let seq = log.next_seq;
        log.next_seq += 1;
        log.events.push_back((seq, message.to_vec()));
        session.events += 1;
        *total += 1;
        while session.events > self.per_session {
            // The fullest stream pays, the oldest among equals.
            let Some(fullest) = session
                .streams
                .iter()
                .enumerate()
                .filter_map(|(i, name)| streams.get(name).map(|l| (l.events.len(), i)))
                .max_by_key(|&(len, i)| (len, std::cmp::Reverse(i)))
                .map(|(_, i)| session.streams[i].clone())
            else {
                break;
            };
            let Some(l) = streams.get_mut(&fullest) else {
                break;
            };
            let Some((q, _)) = l.events.pop_front() else {
                break;
            };
            l.evicted = q;
            session.events -= 1;
            *total -= 1;
        }
        format!("{}-{seq}", stream.stream)
    }

    fn replay_now(&self, last_event_id: &str) -> Option<Replay> {
        let (stream, seq) = parse_id(last_event_id)?;
        let g = self.inner.lock().expect("event store lock");
        let log = g.streams.get(stream)?;
        if seq >= log.next_seq {
            return None;
        }
        let events = log
            .events
            .iter()
            .filter(|(q, m)| *q > seq && !m.is_empty())
            .map(|(q, m)| StoredEvent {
                id: format!("{stream}-{q}"),
                message: m.clone(),
            })
            .collect();
        Some(Replay {
            stream: StreamId {
                session: log.session.clone(),
                stream: stream.to_owned(),
            },
            events,
            truncated: log.evicted > seq,
        })
    }

    fn forget_now(&self, session: &str) {
        let mut g = self.inner.lock().expect("event store lock");
        let inner = &mut *g;
        if let Some(log) = inner.sessions.remove(session) {
            inner.total -= log.events;
            for s in log.streams {
                inner.streams.remove(&s);
            }
        }
        inner.streams.retain(|_, l| l.session != session);
    }
}

impl EventStore for InMemoryEventStore {
    fn append<'a>(
        &'a self,
        stream: &'a StreamId,
        message: &'a [u8],
    ) -> BoxFuture<'a, Result<String, StoreError>> {
        let id = self.append_now(stream, message);
        Box::pin(std::future::ready(Ok(id)))
    }

    fn replay_after<'a>(
        &'a self,
        last_event_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Replay>, StoreError>> {
        let replay = self.replay_now(last_event_id);
        Box::pin(std::future::ready(Ok(replay)))
    }

    fn forget_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.forget_now(session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn buffered(&self) -> usize {
        self.inner.lock().expect("event store lock").total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sid(s: &str, st: &str) -> StreamId {
        StreamId {
            session: s.into(),
            stream: st.into(),
        }
    }

    /// A stream that floods its session evicts its own past, never the answer that another,
    /// finished stream holds for a client yet to resume it.
    #[tokio::test]
    async fn the_fullest_stream_pays_for_eviction() {
        let store = InMemoryEventStore::new(4);
        let (busy, done) = (sid("s1", "busy"), sid("s1", "done"));
        let done_prime = store.append(&done, b"").await.unwrap();
        store.append(&done, b"answer").await.unwrap();
        let busy_prime = store.append(&busy, b"").await.unwrap();
        for i in 0..20 {
            store
                .append(&busy, format!("n{i}").as_bytes())
                .await
                .unwrap();
        }
        let r = store.replay_after(&done_prime).await.unwrap().unwrap();
        assert!(!r.truncated, "the finished stream lost nothing");
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.events[0].message, b"answer");
        let r = store.replay_after(&busy_prime).await.unwrap().unwrap();
        assert!(r.truncated, "the busy stream lost its own past");
        assert_eq!(r.events.len(), 2);
        assert_eq!(r.events[1].message, b"n19");
        assert_eq!(store.buffered(), 4);
    }

    #[tokio::test]
    async fn replays_after_an_id_and_evicts_per_session() {
        let store = InMemoryEventStore::new(3);
        let a = sid("s1", "aa");
        let b = sid("s1", "bb");
        let prime = store.append(&a, b"").await.unwrap();
        let e1 = store.append(&a, b"1").await.unwrap();
        store.append(&b, b"x").await.unwrap();
        store.append(&a, b"2").await.unwrap();
        let r = store.replay_after(&prime).await.unwrap().unwrap();
        assert_eq!(r.stream, a);
        // The priming event was evicted (cap 3): no gap after it, and it is never replayed.
        assert!(!r.truncated);
        assert_eq!(r.events.len(), 2);
        let r = store.replay_after(&e1).await.unwrap().unwrap();
        assert!(!r.truncated);
        assert_eq!(r.events.len(), 1);
        assert_eq!(r.events[0].message, b"2");
        assert_eq!(store.buffered(), 3);
        // One more evicts "1": a replay after the priming event now has a gap.
        store.append(&b, b"y").await.unwrap();
        let r = store.replay_after(&prime).await.unwrap().unwrap();
        assert!(r.truncated);
        assert_eq!(r.events.len(), 1);
        assert!(store.replay_after("zz-1").await.unwrap().is_none());
        assert!(store.replay_after("aa-99").await.unwrap().is_none());
        store.forget_session("s1").await.unwrap();
        assert_eq!(store.buffered(), 0);
        assert!(store.replay_after(&e1).await.unwrap().is_none());
    }
}
