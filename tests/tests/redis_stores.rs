//! The Redis stores (feature `redis`) against a real `redis-server` that each test starts on
//! a free loopback port (no persistence, killed on drop): sessions live while touched and
//! never come back once removed, every key has an expiry; event ids from two connections
//! (two replicas) are unique and ordered and a replay returns exactly the later events; the
//! replay guard lets a state through once; with Redis gone a call fails within the timeout,
//! and once Redis is back calls succeed again without a new connection. The task store
//! keeps the in-memory store's rules (both checked by `support::task_store`), its updates
//! are atomic across replicas, and it fails in bounded time without Redis too.
//!
//! Without `redis-server` on the PATH the tests fail when `CI` is set and are skipped
//! (with a message) otherwise.

mod support;

use std::collections::HashSet;
use std::net::TcpListener;
use std::time::{Duration, Instant};

use mcp::backends::redis::{FewerReplicas, RedisConfig, RedisStores};
use mcp::session::SubscriptionBus;
use mcp::session::request_state::ReplayGuard;
use mcp::session::{EventStore, SessionRecord, SessionStore, StoreError, StreamId};
use mcp::tasks::{InMemoryTaskStore, TaskRecord, TaskStore, TaskStoreError, TaskUpdate};
use mcp::types::{CallToolResult, ContentBlock};
use mcp::version::ProtocolVersion;
use support::redis::{
    RedisCluster, RedisSentinels, RedisServer, assert_every_key_expires, int, keys_with_ttl, raw,
};
use support::task_store;

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
    assert_eq!(int(redis.port, &["EXISTS", "t1:session:{a}"]), 0);

    store.create("a", &record("alice"), ttl).await.unwrap();
    assert_eq!(store.load("a").await, Ok(Some(record("alice"))));
    assert_eq!(
        int(redis.port, &["HLEN", "t1:session:{a}"]),
        2,
        "a hash: the record and one subscription"
    );
    let changed = record("bob");
    assert_eq!(store.save("a", &changed, ttl).await, Ok(true));
    assert_eq!(store.load("a").await, Ok(Some(changed.clone())));

    // A touch refreshes the time to live.
    store
        .touch("a", Duration::from_secs(5))
        .await
        .expect("touch");
    let short = int(redis.port, &["PTTL", "t1:session:{a}"]);
    assert!(0 < short && short <= 5_000, "ttl {short}");
    assert_eq!(store.touch("a", ttl).await, Ok(true));
    let long = int(redis.port, &["PTTL", "t1:session:{a}"]);
    assert!(5_000 < long && long <= 60_000, "ttl {long}");
    assert_every_key_expires(redis.port, "t1:");

    // Removed: neither a late touch nor a late save brings it back.
    store.remove("a").await.unwrap();
    assert_eq!(store.touch("a", ttl).await, Ok(false));
    assert_eq!(store.save("a", &changed, ttl).await, Ok(false));
    assert_eq!(store.load("a").await, Ok(None));
    assert_eq!(int(redis.port, &["EXISTS", "t1:session:{a}"]), 0);

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
    raw(redis.port, &["HSET", "t1:session:{d}", "record", "{nope"]).unwrap();
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
    assert_eq!(int(redis.port, &["XLEN", "t3:events:{bounded}"]), 3);
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
    // A store whose connection sits idle through the outage.
    let idle = RedisConfig::new(redis.url())
        .prefix("t5:")
        .timeout(timeout)
        .connect()
        .await
        .unwrap()
        .session_store();
    assert!(idle.load("a").await.unwrap().is_some());

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
    // Its stale socket is replaced within the first call, which succeeds.
    assert_eq!(idle.load("a").await, Ok(Some(record("alice"))));
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

#[tokio::test]
async fn the_task_store_keeps_the_in_memory_rules() {
    let memory = InMemoryTaskStore::default();
    task_store::lifecycle(&memory, "m").await;
    task_store::listing(&memory, "m").await;
    task_store::expiry(&memory, "m").await;
    task_store::bound_of_two(&InMemoryTaskStore::new(2), "m").await;

    let Some(redis) = RedisServer::start() else {
        return;
    };
    let stores = RedisConfig::new(redis.url())
        .prefix("t6:")
        .connect()
        .await
        .unwrap();
    let store = stores.task_store();
    task_store::lifecycle(&*store, "r").await;
    task_store::listing(&*store, "r").await;
    task_store::expiry(&*store, "r").await;
    let small = RedisConfig::new(redis.url())
        .prefix("t6:")
        .max_tasks_per_owner(2)
        .connect()
        .await
        .unwrap()
        .task_store();
    task_store::bound_of_two(&*small, "r-bound").await;
    // The bound is per owner: another one still has room.
    for n in ["x", "y"] {
        let r = TaskRecord::new(format!("other-{n}"), None, Some("other".into()));
        small.create(r).await.unwrap();
    }
    // The same tasks seen through another connection (another replica).
    let other = RedisConfig::new(redis.url())
        .prefix("t6:")
        .connect()
        .await
        .unwrap()
        .task_store();
    assert_eq!(other.get("r-a").await, store.get("r-a").await);
    assert!(other.get("r-a").await.unwrap().is_some());

    // Every key expires: no counter outlives the tasks.
    for (k, ttl) in keys_with_ttl(redis.port, "t6:") {
        assert!(0 < ttl && ttl <= 24 * 3600 * 1000, "{k}: {ttl}");
        assert!(
            k.starts_with("t6:{tasks}:"),
            "{k}: under the tasks' hash tag"
        );
    }
    assert_eq!(int(redis.port, &["ZCARD", "t6:{tasks}:tasks:o:r-bound"]), 2);
}

#[tokio::test]
async fn task_updates_from_replicas_are_atomic() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let connect = || async {
        RedisConfig::new(redis.url())
            .prefix("t7:")
            .max_task_ttl(Duration::from_secs(30))
            .connect()
            .await
            .unwrap()
            .task_store()
    };
    let (a, b) = (connect().await, connect().await);
    for round in 0..5 {
        let id = format!("race-{round}");
        a.create(TaskRecord::new(&id, None, None)).await.unwrap();
        // Twenty writers on two replicas race to finish it: one wins, the rest are refused.
        let mut writers = Vec::new();
        for i in 0..20 {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            let id = id.clone();
            writers.push(tokio::spawn(async move {
                let done = CallToolResult::success(vec![ContentBlock::text(format!("w{i}"))]);
                let update = if i % 3 == 0 {
                    TaskUpdate::cancelled()
                } else {
                    TaskUpdate::completed(done)
                };
                store.update(&id, update).await
            }));
        }
        let mut won = Vec::new();
        for w in writers {
            match w.await.unwrap() {
                Ok(r) => won.push(r),
                Err(TaskStoreError::Terminal(_)) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(won.len(), 1, "exactly one writer finishes the task");
        assert_eq!(b.get(&id).await.unwrap(), Some(won.remove(0)));
    }
    // An unlimited task is kept at most `max_task_ttl`.
    a.create(TaskRecord::new("forever", None, None))
        .await
        .unwrap();
    let ttl = int(redis.port, &["PTTL", "t7:{tasks}:task:forever"]);
    assert!(20_000 < ttl && ttl <= 30_000, "{ttl}");
}

/// Runs `f` and checks that it fails as a backend error within the timeout (plus slack).
async fn task_store_down_in_time<T: std::fmt::Debug>(
    what: &str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, TaskStoreError>>,
) {
    let started = Instant::now();
    let out = tokio::time::timeout(limit * 5, f)
        .await
        .unwrap_or_else(|_| panic!("{what} hung"));
    assert!(
        matches!(out, Err(TaskStoreError::Backend(_))),
        "{what}: {out:?}"
    );
    assert!(
        started.elapsed() < limit * 2,
        "{what} took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_task_store_without_redis_fails_in_time_and_recovers() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let timeout = Duration::from_millis(300);
    let store = RedisConfig::new(redis.url())
        .prefix("t8:")
        .timeout(timeout)
        .connect()
        .await
        .unwrap()
        .task_store();
    store
        .create(TaskRecord::new("a", None, None))
        .await
        .unwrap();
    redis.stop();
    for _ in 0..2 {
        task_store_down_in_time("get", timeout, store.get("a")).await;
        task_store_down_in_time("update", timeout, store.update("a", TaskUpdate::working())).await;
        task_store_down_in_time(
            "create",
            timeout,
            store.create(TaskRecord::new("b", None, None)),
        )
        .await;
        task_store_down_in_time("list", timeout, store.list(None, None, 10)).await;
        task_store_down_in_time("take", timeout, store.take_input("a")).await;
    }
    let redis = RedisServer::start_on(redis.port);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match store.get("a").await {
            Ok(found) => {
                assert_eq!(found, None, "the new server is empty");
                break;
            }
            Err(e) => assert!(Instant::now() < deadline, "not back: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    store
        .create(TaskRecord::new("a", None, None))
        .await
        .unwrap();
    assert_eq!(store.list(None, None, 10).await.unwrap().tasks.len(), 1);
    drop(redis);
}

fn subscribed(uris: &[&str]) -> SessionRecord {
    SessionRecord {
        subscriptions: uris.iter().map(|u| u.to_string()).collect(),
        ..record("alice")
    }
}

#[tokio::test]
async fn subscribes_on_two_replicas_at_the_same_instant_both_hold() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let connect = || async {
        RedisConfig::new(redis.url())
            .prefix("t8:")
            .connect()
            .await
            .unwrap()
            .session_store()
    };
    let (a, b) = (connect().await, connect().await);
    let ttl = Duration::from_secs(60);
    a.create("s", &subscribed(&[]), ttl).await.unwrap();

    // Both replicas hold the session as loaded, each adds a URI and saves what it has.
    assert_eq!(b.load("s").await, Ok(Some(subscribed(&[]))));
    assert_eq!(a.save("s", &subscribed(&["u://a"]), ttl).await, Ok(true));
    assert_eq!(b.save("s", &subscribed(&["u://b"]), ttl).await, Ok(true));
    let both = subscribed(&["u://a", "u://b"]);
    assert_eq!(a.load("s").await, Ok(Some(both.clone())), "neither is lost");

    // An unsubscribe against the same race: only that URI goes.
    assert_eq!(b.load("s").await, Ok(Some(both)));
    assert_eq!(a.save("s", &subscribed(&["u://b"]), ttl).await, Ok(true));
    let mut level = subscribed(&["u://a", "u://b", "u://c"]);
    level.log_level = Some(mcp::types::LoggingLevel::Debug);
    assert_eq!(b.save("s", &level, ttl).await, Ok(true));
    let mut want = subscribed(&["u://b", "u://c"]);
    want.log_level = Some(mcp::types::LoggingLevel::Debug);
    assert_eq!(a.load("s").await, Ok(Some(want.clone())));

    // A replica that never loaded the session writes the whole set, as before.
    let c = connect().await;
    assert_eq!(c.save("s", &subscribed(&["u://z"]), ttl).await, Ok(true));
    assert_eq!(a.load("s").await, Ok(Some(subscribed(&["u://z"]))));
    assert_every_key_expires(redis.port, "t8:");
}

/// The hash slot of `key`, as the cluster node computes it.
fn slot(port: u16, key: &str) -> i64 {
    int(port, &["CLUSTER", "KEYSLOT", key])
}

#[tokio::test]
async fn every_store_runs_on_a_cluster_node_and_the_keys_of_one_item_share_a_slot() {
    let Some(redis) = RedisServer::start_cluster_node() else {
        return;
    };
    let stores = RedisConfig::new(redis.url())
        .prefix("c:")
        .max_events_per_stream(2)
        .connect()
        .await
        .unwrap();
    let ttl = Duration::from_secs(60);

    // Sessions.
    let sessions = stores.session_store();
    sessions.create("s1", &record("alice"), ttl).await.unwrap();
    assert_eq!(sessions.save("s1", &record("alice"), ttl).await, Ok(true));
    assert_eq!(sessions.touch("s1", ttl).await, Ok(true));
    assert_eq!(sessions.load("s1").await, Ok(Some(record("alice"))));

    // Two streams of the session; a replay; the bound.
    let events = stores.event_store();
    let mut ids = Vec::new();
    for (stream, m) in [("st-a", "1"), ("st-b", "2"), ("st-a", "3"), ("st-a", "4")] {
        ids.push(
            events
                .append(&sid("s1", stream), m.as_bytes())
                .await
                .unwrap(),
        );
    }
    let r = events.replay_after(&ids[0]).await.unwrap().unwrap();
    assert_eq!((r.events.len(), r.truncated), (2, false));

    // The replay guard.
    let guard = stores.replay_guard();
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 60_000;
    assert_eq!(guard.first_use(&[7; 24], later).await, Ok(true));
    assert_eq!(guard.first_use(&[7; 24], later).await, Ok(false));

    // The task store's whole suite, eviction at the bound included.
    let tasks = stores.task_store();
    task_store::lifecycle(&*tasks, "c").await;
    task_store::listing(&*tasks, "c").await;
    task_store::expiry(&*tasks, "c").await;
    let small = RedisConfig::new(redis.url())
        .prefix("c:")
        .max_tasks_per_owner(2)
        .connect()
        .await
        .unwrap()
        .task_store();
    task_store::bound_of_two(&*small, "c-bound").await;

    // The keys of one item share a slot.
    let port = redis.port;
    let session = slot(port, "c:session:{s1}");
    assert_eq!(slot(port, "c:streams:{s1}"), session);
    assert_eq!(
        int(port, &["EXISTS", "c:session:{s1}", "c:streams:{s1}"]),
        2
    );
    for stream in ["st-a", "st-b"] {
        let (events_key, meta) = (
            format!("c:events:{{{stream}}}"),
            format!("c:stream:{{{stream}}}"),
        );
        assert_eq!(int(port, &["EXISTS", &events_key, &meta]), 2);
        assert_eq!(slot(port, &events_key), slot(port, &meta));
    }
    let task_keys: Vec<String> = keys_with_ttl(port, "c:{tasks}:")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(task_keys.len() > 3, "{task_keys:?}");
    let tasks_slot = slot(port, "c:{tasks}:task:x");
    for k in &task_keys {
        assert_eq!(slot(port, k), tasks_slot, "{k}");
    }
    assert_every_key_expires(port, "c:");

    // Forgetting the session deletes its streams, stream by stream.
    events.forget_session("s1").await.unwrap();
    sessions.remove("s1").await.unwrap();
    assert!(
        keys_with_ttl(port, "c:s").is_empty(),
        "{:?}",
        keys_with_ttl(port, "c:s")
    );
    assert!(keys_with_ttl(port, "c:events:").is_empty());
    assert_eq!(events.replay_after(&ids[0]).await, Ok(None));
}

#[tokio::test]
async fn the_stores_and_the_bus_run_on_a_three_primary_cluster() {
    let Some(cluster) = RedisCluster::start() else {
        return;
    };
    let connect = |prefix: &'static str| {
        let urls = cluster.urls();
        async move {
            RedisConfig::cluster(urls)
                .prefix(prefix)
                .max_events_per_stream(2)
                .connect()
                .await
                .unwrap()
        }
    };
    let sa = connect("k:").await;
    // The other replica from one URL.
    let hosts: Vec<String> = cluster
        .nodes
        .iter()
        .map(|n| format!("127.0.0.1:{}", n.port))
        .collect();
    let sb = RedisConfig::new(format!("redis+cluster://{}", hosts.join(",")))
        .prefix("k:")
        .connect()
        .await
        .unwrap();
    let ttl = Duration::from_secs(60);

    // Sessions, and two replicas subscribing at the same instant.
    let (a, b) = (sa.session_store(), sb.session_store());
    let mut sessions = Vec::new();
    for i in 0..20 {
        let id = format!("s{i}");
        a.create(&id, &subscribed(&[]), ttl).await.unwrap();
        assert_eq!(b.load(&id).await, Ok(Some(subscribed(&[]))));
        assert_eq!(a.save(&id, &subscribed(&["u://a"]), ttl).await, Ok(true));
        assert_eq!(b.save(&id, &subscribed(&["u://b"]), ttl).await, Ok(true));
        assert_eq!(a.touch(&id, ttl).await, Ok(true));
        sessions.push(id);
    }
    assert_eq!(
        a.load("s7").await,
        Ok(Some(subscribed(&["u://a", "u://b"])))
    );

    // Event streams of each session, replayed by the other replica, then forgotten.
    let (ea, eb) = (sa.event_store(), sb.event_store());
    let mut firsts = Vec::new();
    for s in &sessions {
        let stream = format!("{s}-st");
        let first = ea.append(&sid(s, &stream), b"1").await.unwrap();
        eb.append(&sid(s, &stream), b"2").await.unwrap();
        let r = eb.replay_after(&first).await.unwrap().unwrap();
        assert_eq!(r.events.len(), 1);
        firsts.push(first);
    }
    eb.forget_session("s3").await.unwrap();
    assert_eq!(ea.replay_after(&firsts[3]).await, Ok(None));
    assert!(ea.replay_after(&firsts[4]).await.unwrap().is_some());

    // The replay guard and the task store's suite.
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
        + 60_000;
    assert_eq!(sa.replay_guard().first_use(&[3; 24], later).await, Ok(true));
    assert_eq!(
        sb.replay_guard().first_use(&[3; 24], later).await,
        Ok(false)
    );
    let tasks = sa.task_store();
    task_store::lifecycle(&*tasks, "k").await;
    task_store::listing(&*tasks, "k").await;
    task_store::expiry(&*tasks, "k").await;

    // The bus: an event from one replica reaches the other once.
    let (bus_a, bus_b) = (sa.bus(), sb.bus());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(bus_a.is_connected() && bus_b.is_connected()) {
        assert!(Instant::now() < deadline, "the buses read");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut rx = bus_b.subscribe();
    for i in 0..5 {
        bus_a.publish(mcp::session::ServerEvent::ResourceUpdated {
            uri: format!("k://{i}"),
        });
    }
    for i in 0..5 {
        let e = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .expect("an event within 5 s");
        assert_eq!(
            e,
            Some(mcp::session::ServerEvent::ResourceUpdated {
                uri: format!("k://{i}")
            })
        );
    }

    // The keys are spread over the primaries.
    let holding = cluster
        .nodes
        .iter()
        .filter(|n| int(n.port, &["DBSIZE"]) > 0)
        .count();
    assert!(holding >= 2, "keys on {holding} of 3 primaries");
}

/// Retries `f` until it succeeds (up to 30 s): calls during a failover fail in bounded
/// time and are retried, as a client retries a 503.
async fn until_ok<T, E: std::fmt::Debug, F: std::future::Future<Output = Result<T, E>>>(
    mut f: impl FnMut() -> F,
) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match f().await {
            Ok(v) => return v,
            Err(e) => assert!(Instant::now() < deadline, "still failing: {e:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_stores_and_the_bus_follow_a_sentinel_failover() {
    let Some(mut sentinels) = RedisSentinels::start() else {
        return;
    };
    let connect = || async {
        RedisConfig::new(sentinels.url())
            .prefix("f:")
            .timeout(Duration::from_millis(500))
            .connect()
            .await
            .unwrap()
    };
    let (sa, sb) = (connect().await, connect().await);
    let ttl = Duration::from_secs(60);
    let (a, b) = (sa.session_store(), sb.session_store());
    a.create("s", &subscribed(&["u://1"]), ttl).await.unwrap();
    let events = sa.event_store();
    let first = events.append(&sid("s", "st"), b"1").await.unwrap();
    let tasks = sa.task_store();
    tasks
        .create(TaskRecord::new("t", None, None))
        .await
        .unwrap();
    let (bus_a, bus_b) = (sa.bus(), sb.bus());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(bus_a.is_connected() && bus_b.is_connected()) {
        assert!(Instant::now() < deadline, "the buses read");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let rx = bus_b.subscribe();
    const N: usize = 30;
    let updated = |i: usize| mcp::session::ServerEvent::ResourceUpdated {
        uri: format!("f://{i}"),
    };
    for i in 0..N / 3 {
        bus_a.publish(updated(i));
    }
    // What was acknowledged is on the replica before the primary goes.
    let (old, new) = (sentinels.primary.port, sentinels.replica.port);
    assert!(matches!(
        raw(old, &["WAIT", "1", "5000"]),
        Ok(support::redis::Resp::Int(1))
    ));
    sentinels.primary.stop();
    // Published while the sentinels fail over.
    for i in N / 3..N {
        bus_a.publish(updated(i));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while sentinels.primary_port() != Some(new) {
        assert!(Instant::now() < deadline, "no failover to {new}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Writes wait for a replica (under Sentinel by default): the old primary comes back as
    // the new one's, synced at once.
    raw(new, &["CONFIG", "SET", "repl-diskless-sync-delay", "0"]).unwrap();
    let n = new.to_string();
    sentinels.primary = RedisServer::start_with(old, &["--replicaof", "127.0.0.1", &n]);

    // Everything acknowledged before is there, read through the new primary.
    let got = until_ok(|| b.load("s")).await;
    assert_eq!(got, Some(subscribed(&["u://1"])));
    let r = until_ok(|| events.replay_after(&first)).await;
    assert!(r.is_some(), "the stream is known");
    assert!(until_ok(|| tasks.get("t")).await.is_some());
    // And written again.
    let both = subscribed(&["u://1", "u://2"]);
    assert!(until_ok(|| b.save("s", &both, ttl)).await);
    let st = sid("s", "st");
    until_ok(|| events.append(&st, b"2")).await;
    assert_eq!(
        until_ok(|| a.load("s")).await,
        Some(subscribed(&["u://1", "u://2"]))
    );
    // Every event, before and during the failover, reached the other bus once, in order.
    let mut rx = rx;
    for i in 0..N {
        let e = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("event {i} within 30 s"));
        assert_eq!(e, Some(updated(i)));
    }
    let late = tokio::time::timeout(Duration::from_millis(500), rx.recv()).await;
    assert!(late.is_err(), "no repeat: {late:?}");
    assert_ne!(old, new);
}

#[tokio::test]
async fn a_write_no_replica_holds_is_not_acknowledged() {
    let Some(primary) = RedisServer::start() else {
        return;
    };
    let rport = RedisServer::free_port().unwrap();
    let p = primary.port.to_string();
    let mut replica = RedisServer::start_with(rport, &["--replicaof", "127.0.0.1", &p]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while !support::redis::info(rport, &["INFO", "replication"]).contains("master_link_status:up") {
        assert!(Instant::now() < deadline, "the replica did not sync");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stores = RedisConfig::new(primary.url())
        .prefix("w:")
        .timeout(Duration::from_millis(600))
        .wait_for_replicas(1, Duration::from_millis(200))
        .when_fewer_replicas(FewerReplicas::Refuse)
        .connect()
        .await
        .unwrap();
    let (sessions, events, tasks) = (
        stores.session_store(),
        stores.event_store(),
        stores.task_store(),
    );
    let guard = stores.replay_guard();
    let ttl = Duration::from_secs(60);
    let later = u64::try_from(
        (std::time::SystemTime::now() + ttl)
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();

    // With the replica there, each write is acknowledged once the replica holds it.
    sessions.create("s", &record("alice"), ttl).await.unwrap();
    assert_eq!(
        int(rport, &["EXISTS", "w:session:{s}"]),
        1,
        "on the replica"
    );
    events.append(&sid("s", "st"), b"1").await.unwrap();
    tasks
        .create(TaskRecord::new("t", None, None))
        .await
        .unwrap();
    assert_eq!(guard.first_use(&[7; 24], later).await, Ok(true));
    // What waiting costs: a session created with and without the wait, 200 each, one at a
    // time (`--nocapture` prints it; BENCHMARKS.md).
    let plain = RedisConfig::new(primary.url())
        .prefix("w:")
        .connect()
        .await
        .unwrap();
    let median = |store: std::sync::Arc<mcp::backends::redis::RedisSessionStore>| async move {
        let mut took = Vec::new();
        for i in 0..200 {
            let t = Instant::now();
            store
                .create(&format!("m{i}"), &record("m"), ttl)
                .await
                .unwrap();
            took.push(t.elapsed());
        }
        took.sort();
        took[100]
    };
    let (waited, unwaited) = (
        median(sessions.clone()).await,
        median(plain.session_store()).await,
    );
    eprintln!("session create, median of 200: {waited:?} with WAIT 1, {unwaited:?} without");

    // The default, accepting fewer replicas: with the replica there, nothing is counted.
    let accepting = RedisConfig::new(primary.url())
        .prefix("w:")
        .timeout(Duration::from_millis(600))
        .wait_for_replicas(1, Duration::from_millis(200))
        .connect()
        .await
        .unwrap();
    let lenient = accepting.session_store();
    lenient.create("a1", &record("a"), ttl).await.unwrap();
    assert_eq!(accepting.under_replicated_writes(), 0);

    // Without it, under `Refuse` nothing is acknowledged: each write fails (a 503 on HTTP)
    // in bounded time.
    replica.stop();
    let unreplicated =
        |e: &StoreError| matches!(e, StoreError::Unavailable(m) if m.contains("WAIT"));
    let t = Instant::now();
    let e = sessions
        .create("s2", &record("bob"), ttl)
        .await
        .unwrap_err();
    assert!(unreplicated(&e), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    let e = sessions.save("s", &record("alice"), ttl).await.unwrap_err();
    assert!(unreplicated(&e), "{e:?}");
    let e = events.append(&sid("s", "st"), b"2").await.unwrap_err();
    assert!(unreplicated(&e), "{e:?}");
    let e = guard.first_use(&[8; 24], later).await.unwrap_err();
    assert!(unreplicated(&e), "{e:?}");
    let e = tasks
        .create(TaskRecord::new("t2", None, None))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, TaskStoreError::Backend(m) if m.contains("WAIT")),
        "{e:?}"
    );
    // Reads still answer.
    assert!(sessions.load("s").await.unwrap().is_some());

    // Under `Accept` (the default) the write is acknowledged and counted; the first one
    // waits the whole 200 ms, the next ones (the shortfall remembered) hardly wait.
    lenient.create("a2", &record("a"), ttl).await.unwrap();
    assert_eq!(accepting.under_replicated_writes(), 1);
    let t = Instant::now();
    for i in 0..10 {
        lenient
            .create(&format!("a3-{i}"), &record("a"), ttl)
            .await
            .unwrap();
    }
    assert_eq!(accepting.under_replicated_writes(), 11);
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "ten writes short of a replica do not each wait 200 ms: {:?}",
        t.elapsed()
    );
    assert!(lenient.load("a3-9").await.unwrap().is_some());

    // A deployment that waits for no replica is told at once.
    plain
        .session_store()
        .create("s3", &record("carol"), ttl)
        .await
        .unwrap();
}
