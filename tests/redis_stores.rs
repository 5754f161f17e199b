//! The Redis stores (feature `redis`) against a real `redis-server` that each test starts on
//! a free loopback port (no persistence, killed on drop): sessions live while touched and
//! never come back once removed, every key has an expiry; event ids from two connections
//! (two replicas) are unique and ordered and a replay returns exactly the later events; the
//! replay guard lets a state through once; with Redis gone a call fails within the timeout,
//! and once Redis is back calls succeed again without a new connection.
//!
//! Without `redis-server` on the PATH the tests fail when `CI` is set and are skipped
//! (with a message) otherwise.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp::runtime::ReplayGuard;
use mcp::runtime::session::redis::{RedisConfig, RedisStores};
use mcp::runtime::session::{EventStore, SessionRecord, SessionStore, StoreError, StreamId};
use mcp::version::ProtocolVersion;

/// A `redis-server` of this test's own, killed on drop.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// A server on a free port; `None` (after saying why) when `redis-server` is missing
    /// outside CI.
    fn start() -> Option<Self> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_err()
        {
            if std::env::var_os("CI").is_some() {
                panic!("redis-server is not installed (CI is set): .ci/run installs it");
            }
            eprintln!("SKIPPED: redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Some(Self::start_on(port))
    }

    fn start_on(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .current_dir(std::env::temp_dir())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while raw(port, &["PING"]).ok() != Some(Resp::Simple("PONG".into())) {
            assert!(Instant::now() < deadline, "redis-server did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A RESP reply, as far as these tests read them.
#[derive(Debug, PartialEq)]
enum Resp {
    Simple(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Vec<Resp>),
    Error(String),
}

/// One command on a connection of its own, beside the stores (bounded by a 5 s timeout).
fn raw(port: u16, args: &[&str]) -> std::io::Result<Resp> {
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut out = format!("*{}\r\n", args.len());
    for a in args {
        out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    (&stream).write_all(out.as_bytes())?;
    read_resp(&mut BufReader::new(stream))
}

fn read_resp(r: &mut impl BufRead) -> std::io::Result<Resp> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let line = line.trim_end_matches("\r\n");
    let (kind, rest) = line.split_at(1);
    let n = || rest.parse::<i64>().expect("a length");
    Ok(match kind {
        "+" => Resp::Simple(rest.into()),
        "-" => Resp::Error(rest.into()),
        ":" => Resp::Int(n()),
        "$" if n() < 0 => Resp::Bulk(None),
        "$" => {
            let mut buf = vec![0; n() as usize + 2];
            r.read_exact(&mut buf)?;
            buf.truncate(buf.len() - 2);
            Resp::Bulk(Some(buf))
        }
        "*" => Resp::Array(
            (0..n().max(0))
                .map(|_| read_resp(r))
                .collect::<Result<_, _>>()?,
        ),
        other => panic!("unexpected RESP type {other:?}"),
    })
}

fn int(port: u16, args: &[&str]) -> i64 {
    match raw(port, args).expect("redis answers") {
        Resp::Int(n) => n,
        other => panic!("{args:?}: {other:?}"),
    }
}

/// Every key under `prefix` with its time to live in ms (-1: none).
fn keys_with_ttl(port: u16, prefix: &str) -> Vec<(String, i64)> {
    let Resp::Array(keys) = raw(port, &["KEYS", &format!("{prefix}*")]).unwrap() else {
        panic!("KEYS answers an array");
    };
    keys.into_iter()
        .map(|k| {
            let Resp::Bulk(Some(k)) = k else {
                panic!("a key")
            };
            let k = String::from_utf8(k).unwrap();
            let ttl = int(port, &["PTTL", &k]);
            (k, ttl)
        })
        .collect()
}

fn assert_every_key_expires(port: u16, prefix: &str) {
    let keys = keys_with_ttl(port, prefix);
    assert!(!keys.is_empty(), "keys under {prefix}");
    for (k, ttl) in keys {
        assert!(ttl > 0, "{k} has no expiry ({ttl})");
    }
}

fn record(owner: &str) -> SessionRecord {
    SessionRecord {
        protocol_version: Some(ProtocolVersion::V2025_11_25),
        owner: Some(owner.into()),
        subscriptions: vec!["books://1".into()],
        ..SessionRecord::default()
    }
}

#[tokio::test]
async fn sessions_live_while_touched_and_never_come_back() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let stores = RedisConfig::new(redis.url())
        .prefix("t1:")
        .connect()
        .await
        .unwrap();
    assert_eq!(stores.key_prefix(), "t1:");
    let store = stores.session_store();
    let ttl = Duration::from_secs(60);

    // Nothing is saved or touched into existence.
    assert_eq!(store.load("a").await, Ok(None));
    assert_eq!(store.save("a", &record("x"), ttl).await, Ok(false));
    assert_eq!(store.touch("a", ttl).await, Ok(false));
    assert_eq!(int(redis.port, &["EXISTS", "t1:session:a"]), 0);

    store.create("a", &record("alice"), ttl).await.unwrap();
    assert_eq!(store.load("a").await, Ok(Some(record("alice"))));
    assert_eq!(int(redis.port, &["HLEN", "t1:session:a"]), 1, "a hash");
    let changed = record("bob");
    assert_eq!(store.save("a", &changed, ttl).await, Ok(true));
    assert_eq!(store.load("a").await, Ok(Some(changed.clone())));

    // A touch refreshes the time to live.
    store
        .touch("a", Duration::from_secs(5))
        .await
        .expect("touch");
    let short = int(redis.port, &["PTTL", "t1:session:a"]);
    assert!(0 < short && short <= 5_000, "ttl {short}");
    assert_eq!(store.touch("a", ttl).await, Ok(true));
    let long = int(redis.port, &["PTTL", "t1:session:a"]);
    assert!(5_000 < long && long <= 60_000, "ttl {long}");
    assert_every_key_expires(redis.port, "t1:");

    // Removed: neither a late touch nor a late save brings it back.
    store.remove("a").await.unwrap();
    assert_eq!(store.touch("a", ttl).await, Ok(false));
    assert_eq!(store.save("a", &changed, ttl).await, Ok(false));
    assert_eq!(store.load("a").await, Ok(None));
    assert_eq!(int(redis.port, &["EXISTS", "t1:session:a"]), 0);

    // Expired in Redis: gone, and not resurrected either.
    store
        .create("b", &record("carol"), Duration::from_millis(100))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(store.touch("b", ttl).await, Ok(false));
    assert_eq!(store.load("b").await, Ok(None));

    // Another process (another connection) sees the same sessions.
    let other = RedisConfig::new(redis.url())
        .prefix("t1:")
        .connect()
        .await
        .unwrap()
        .session_store();
    store.create("c", &record("dave"), ttl).await.unwrap();
    assert_eq!(other.load("c").await, Ok(Some(record("dave"))));
    other.remove("c").await.unwrap();
    assert_eq!(store.touch("c", ttl).await, Ok(false));

    // A record this store cannot read is corrupt, not missing.
    raw(redis.port, &["HSET", "t1:session:d", "record", "{nope"]).unwrap();
    assert!(matches!(store.load("d").await, Err(StoreError::Corrupt(_))));
}

fn sid(session: &str, stream: &str) -> StreamId {
    StreamId {
        session: session.into(),
        stream: stream.into(),
    }
}

fn seq(id: &str) -> u64 {
    id.rsplit_once('-').unwrap().1.parse().unwrap()
}

#[tokio::test]
async fn event_ids_are_unique_and_ordered_across_replicas_and_replay_strictly_after() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let connect = || async {
        RedisConfig::new(redis.url())
            .prefix("t2:")
            .max_events_per_stream(100)
            .connect()
            .await
            .unwrap()
            .event_store()
    };
    let (a, b) = (connect().await, connect().await);
    let s = sid("sess", "00aa11bb");

    // Interleaved appends from two replicas on one stream.
    let prime = a.append(&s, b"").await.unwrap();
    let mut ids = vec![prime.clone()];
    for i in 0..10 {
        let store = if i % 2 == 0 { &a } else { &b };
        ids.push(store.append(&s, format!("m{i}").as_bytes()).await.unwrap());
    }
    for w in ids.windows(2) {
        assert!(seq(&w[0]) < seq(&w[1]), "ordered: {ids:?}");
        assert!(w[0].starts_with("00aa11bb-"));
    }

    // Replay strictly after an id, from either replica: exactly the later events.
    let r = b.replay_after(&ids[4]).await.unwrap().unwrap();
    assert_eq!(r.stream, s);
    assert!(!r.truncated);
    let got: Vec<_> = r.events.iter().map(|e| e.id.clone()).collect();
    assert_eq!(got, ids[5..].to_vec());
    assert_eq!(r.events[0].message, b"m4");
    // After the priming event: every message, and never the priming event itself.
    let r = a.replay_after(&prime).await.unwrap().unwrap();
    assert_eq!(r.events.len(), 10);
    assert_eq!(r.events[0].message, b"m0");
    // After the last: nothing. Unknown streams and ids never issued: `None`.
    let r = a.replay_after(ids.last().unwrap()).await.unwrap().unwrap();
    assert!(r.events.is_empty() && !r.truncated);
    assert_eq!(a.replay_after("ffff0000-1").await, Ok(None));
    assert_eq!(a.replay_after("00aa11bb-999").await, Ok(None));
    assert_eq!(a.replay_after("no id").await, Ok(None));

    // Concurrent appends from both replicas: unique ids, no sequence number skipped.
    let t = sid("sess", "concurrent");
    let mut all = Vec::new();
    let mut tasks = Vec::new();
    for i in 0..40 {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            store.append(&t, format!("c{i}").as_bytes()).await.unwrap()
        }));
    }
    for task in tasks {
        all.push(task.await.unwrap());
    }
    let seqs: HashSet<u64> = all.iter().map(|id| seq(id)).collect();
    assert_eq!(seqs, (1..=40).collect::<HashSet<_>>());
    let r = a.replay_after("concurrent-0").await.unwrap().unwrap();
    let replayed: Vec<u64> = r.events.iter().map(|e| seq(&e.id)).collect();
    assert_eq!(replayed, (1..=40).collect::<Vec<_>>(), "in order");

    assert_every_key_expires(redis.port, "t2:");

    // Forgetting the session drops all of its streams, on every replica.
    b.forget_session("sess").await.unwrap();
    assert_eq!(a.replay_after(&ids[4]).await, Ok(None));
    assert_eq!(a.replay_after("concurrent-3").await, Ok(None));
    assert!(keys_with_ttl(redis.port, "t2:").is_empty());
}

#[tokio::test]
async fn a_stream_keeps_its_newest_events_and_flags_a_gap() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = RedisConfig::new(redis.url())
        .prefix("t3:")
        .max_events_per_stream(3)
        .event_ttl(Duration::from_secs(30))
        .connect()
        .await
        .unwrap()
        .event_store();
    let s = sid("s", "bounded");
    let prime = store.append(&s, b"").await.unwrap();
    let e1 = store.append(&s, b"1").await.unwrap();
    store.append(&s, b"2").await.unwrap();
    store.append(&s, b"3").await.unwrap();
    assert_eq!(int(redis.port, &["XLEN", "t3:events:bounded"]), 3);
    // Only the priming event was evicted: no gap after it.
    let r = store.replay_after(&prime).await.unwrap().unwrap();
    assert!(!r.truncated);
    assert_eq!(r.events.len(), 3);
    store.append(&s, b"4").await.unwrap();
    // "1" is gone now: a replay after the priming event has a gap, one after "1" has none.
    let r = store.replay_after(&prime).await.unwrap().unwrap();
    assert!(r.truncated);
    let got: Vec<_> = r.events.iter().map(|e| e.message.clone()).collect();
    assert_eq!(got, vec![b"2".to_vec(), b"3".to_vec(), b"4".to_vec()]);
    let r = store.replay_after(&e1).await.unwrap().unwrap();
    assert!(!r.truncated);
    assert_eq!(r.events.len(), 3);
    for (k, ttl) in keys_with_ttl(redis.port, "t3:") {
        assert!(0 < ttl && ttl <= 30_000, "{k}: {ttl}");
    }
}

#[tokio::test]
async fn the_replay_guard_lets_a_state_through_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let stores = RedisConfig::new(redis.url())
        .prefix("t4:")
        .connect()
        .await
        .unwrap();
    let other = RedisStores::connect(redis.url()).await.unwrap();
    assert_eq!(other.key_prefix(), "mcp:");
    let (one, two) = (stores.replay_guard(), stores.replay_guard());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let later = now + 60_000;
    assert_eq!(one.first_use(&[1; 24], later).await, Ok(true));
    assert_eq!(one.first_use(&[1; 24], later).await, Ok(false), "a replay");
    assert_eq!(two.first_use(&[1; 24], later).await, Ok(false), "elsewhere");
    assert_eq!(two.first_use(&[2; 24], later).await, Ok(true));
    // Another prefix is another deployment.
    assert_eq!(
        other.replay_guard().first_use(&[1; 24], later).await,
        Ok(true)
    );
    // An expired state is refused and not remembered.
    assert_eq!(one.first_use(&[3; 24], now - 1).await, Ok(false));
    let keys = keys_with_ttl(redis.port, "t4:");
    assert_eq!(keys.len(), 2);
    for (k, ttl) in keys {
        assert!(0 < ttl && ttl <= 60_000, "{k}: {ttl}");
    }
}

/// Runs `f` and checks that it fails as unavailable within the timeout (plus slack).
async fn unavailable_in_time<T: std::fmt::Debug>(
    what: &str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, StoreError>>,
) {
    let started = Instant::now();
    let out = tokio::time::timeout(limit * 5, f)
        .await
        .unwrap_or_else(|_| panic!("{what} hung"));
    let took = started.elapsed();
    assert!(
        matches!(out, Err(StoreError::Unavailable(_))),
        "{what}: {out:?}"
    );
    assert!(took < limit * 2, "{what} took {took:?}");
}

#[tokio::test]
async fn redis_gone_is_an_error_in_bounded_time_and_its_return_is_seen() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let timeout = Duration::from_millis(300);
    let stores = RedisConfig::new(redis.url())
        .prefix("t5:")
        .timeout(timeout)
        .connect()
        .await
        .unwrap();
    let (sessions, events, guard) = (
        stores.session_store(),
        stores.event_store(),
        stores.replay_guard(),
    );
    let ttl = Duration::from_secs(60);
    sessions.create("a", &record("alice"), ttl).await.unwrap();

    redis.stop();
    let later = u64::MAX / 2;
    for _ in 0..3 {
        unavailable_in_time("load", timeout, sessions.load("a")).await;
        unavailable_in_time("touch", timeout, sessions.touch("a", ttl)).await;
        unavailable_in_time("create", timeout, sessions.create("b", &record("b"), ttl)).await;
        unavailable_in_time("append", timeout, events.append(&sid("a", "x"), b"m")).await;
        unavailable_in_time("replay", timeout, events.replay_after("x-1")).await;
        unavailable_in_time("guard", timeout, guard.first_use(&[9; 24], later)).await;
    }
    // Connecting while Redis is away fails in time too; a lazy connection does not fail.
    unavailable_in_time(
        "connect",
        timeout,
        RedisConfig::new(redis.url()).timeout(timeout).connect(),
    )
    .await;
    let lazy = RedisConfig::new(redis.url())
        .prefix("t5:")
        .timeout(timeout)
        .connect_lazy()
        .unwrap()
        .session_store();

    // Back on the same port (empty: no persistence): the same stores work again.
    let redis = RedisServer::start_on(redis.port);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match sessions.load("a").await {
            Ok(found) => {
                assert_eq!(found, None, "the new server is empty");
                break;
            }
            Err(e) => assert!(Instant::now() < deadline, "not back: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sessions.create("a", &record("alice"), ttl).await.unwrap();
    assert_eq!(lazy.load("a").await, Ok(Some(record("alice"))));
    assert!(events.append(&sid("a", "x"), b"m").await.is_ok());
    assert_eq!(guard.first_use(&[9; 24], later).await, Ok(true));
    drop(redis);
}

#[tokio::test]
async fn a_redis_that_never_answers_is_a_timeout_not_a_hang() {
    // A listener that accepts and never says a word.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let timeout = Duration::from_millis(300);
    unavailable_in_time(
        "connect",
        timeout,
        RedisConfig::new(format!("redis://127.0.0.1:{port}/0"))
            .timeout(timeout)
            .connect(),
    )
    .await;
    let lazy = RedisConfig::new(format!("redis://127.0.0.1:{port}/0"))
        .timeout(timeout)
        .connect_lazy()
        .unwrap();
    unavailable_in_time("load", timeout, lazy.session_store().load("a")).await;
    unavailable_in_time(
        "append",
        timeout,
        lazy.event_store().append(&sid("a", "x"), b"m"),
    )
    .await;
    drop(silent);
}
