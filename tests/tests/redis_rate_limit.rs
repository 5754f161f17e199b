//! A rate limit that holds across replicas (features `http`, `client`, `redis`): the
//! `RedisRateStore` (one script per decision, on Redis's clock) shared by two connections
//! admits a bucket's burst exactly, refuses the rest with the wait until a token, refills,
//! expires its key once refilled and fails closed, in bounded time, when Redis is gone;
//! then `examples/everything --rate-limit add=N` as three replicas behind nginx
//! (`deploy/cluster.sh`): calls sent round-robin are admitted exactly `N` times per caller
//! (the client's address, one bucket for its legacy session and its 2026 calls), wherever
//! they land.
//!
//! Needs `redis-server` (and nginx for the cluster): without them the tests fail when `CI`
//! is set and are skipped (with a message) otherwise.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use mcp::backends::redis::{RedisConfig, RedisRateStore};
use mcp::policies::{Decision, Limit, RateStore};
use serde_json::{Value, json};
use support::cluster::{Cluster, REPLICAS};
use support::http::{self, Resp};
use support::redis::{RedisServer, Resp as Raw, raw};

/// A store over its own connection to `redis` (one per replica, as in a deployment).
async fn store(redis: &RedisServer, timeout: Duration) -> std::sync::Arc<RedisRateStore> {
    RedisConfig::new(redis.url())
        .prefix("rl:")
        .timeout(timeout)
        .connect()
        .await
        .unwrap()
        .rate_store()
}

#[tokio::test]
async fn two_replicas_share_one_bucket_and_it_refills_on_redis_time() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        store(&redis, Duration::from_secs(2)).await,
        store(&redis, Duration::from_secs(2)).await,
    );
    // Five a minute: the burst admitted once between the two, alternately.
    let limit = Limit::per_minute(5);
    for i in 0..5 {
        let s = if i % 2 == 0 { &a } else { &b };
        assert_eq!(s.take("k", limit).await.unwrap(), Decision::Admitted, "{i}");
    }
    for s in [&a, &b] {
        let Decision::Refused { retry_after } = s.take("k", limit).await.unwrap() else {
            panic!("the sixth call in a minute is over the limit");
        };
        // A token every 12 s, and none was there: the wait is at most 12 s, about that.
        assert!(
            retry_after <= Duration::from_secs(12) && retry_after > Duration::from_secs(11),
            "{retry_after:?}"
        );
    }
    // Another key has its own bucket.
    assert_eq!(a.take("other", limit).await.unwrap(), Decision::Admitted);

    // The key expires once the bucket would have refilled (a fresh bucket equals it).
    let Ok(Raw::Int(ttl)) = raw(redis.port, &["PTTL", "rl:rate:k"]) else {
        panic!("PTTL");
    };
    assert!(ttl > 0 && ttl <= 60_001, "PTTL {ttl}");

    // A fast bucket refills: after the wait it says, a call is admitted again.
    let fast = Limit::per_second(20).burst(1);
    assert_eq!(a.take("f", fast).await.unwrap(), Decision::Admitted);
    let Decision::Refused { retry_after } = b.take("f", fast).await.unwrap() else {
        panic!("a burst of one admits one");
    };
    assert!(retry_after <= Duration::from_millis(50), "{retry_after:?}");
    tokio::time::sleep(retry_after + Duration::from_millis(5)).await;
    assert_eq!(b.take("f", fast).await.unwrap(), Decision::Admitted);
}

#[tokio::test]
async fn concurrent_calls_from_two_replicas_take_exactly_the_burst() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (a, b) = (
        store(&redis, Duration::from_secs(2)).await,
        store(&redis, Duration::from_secs(2)).await,
    );
    let limit = Limit::per_minute(10);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..60 {
        let s = if i % 2 == 0 { a.clone() } else { b.clone() };
        calls.spawn(async move { s.take("burst", limit).await.unwrap() });
    }
    let decisions = calls.join_all().await;
    let admitted = decisions
        .iter()
        .filter(|d| **d == Decision::Admitted)
        .count();
    assert_eq!(admitted, 10, "{decisions:?}");
}

#[tokio::test]
async fn a_store_without_redis_refuses_in_bounded_time() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let timeout = Duration::from_millis(300);
    let s = store(&redis, timeout).await;
    let limit = Limit::per_second(100);
    assert_eq!(s.take("k", limit).await.unwrap(), Decision::Admitted);
    redis.stop();
    let started = Instant::now();
    let e = s
        .take("k", limit)
        .await
        .expect_err("no decision without Redis");
    assert!(started.elapsed() < timeout * 2, "{:?}", started.elapsed());
    assert_eq!(e.to_wire().code, -32603, "an internal error: {e:?}");
    assert!(e.to_string().contains("rate limit store"), "{e}");
}

/// The answer of a `tools/call` through nginx: a JSON body or a one-answer SSE stream.
fn answer(r: &Resp) -> Value {
    assert_eq!(r.status, 200, "{}", r.body);
    if r.body.starts_with('{') {
        r.json()
    } else {
        r.events()
            .into_iter()
            .find(|m| m.get("id").is_some())
            .unwrap_or_else(|| panic!("no answer: {}", r.body))
    }
}

/// `n` calls of `add` through nginx with `headers` and `params`' `_meta`; for each, the
/// replica that answered and whether the call was admitted (a refusal must be the rate
/// limit's, saying when to retry).
async fn calls(
    c: &Cluster,
    headers: &[(&str, &str)],
    meta: Option<Value>,
    n: u64,
) -> Vec<(u16, bool)> {
    let mut seen = Vec::new();
    for id in 1..=n {
        let mut params = json!({"name": "add", "arguments": {"a": 20, "b": 22}});
        if let Some(meta) = &meta {
            params["_meta"] = meta.clone();
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let mut req = http::request(c.addr(), "POST", "/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let r = Resp::read(http::send(c.addr(), req, body.to_string()).await).await;
        let replica = c.replica(&r.headers);
        let a = answer(&r);
        let admitted = match a.get("error") {
            None => {
                assert_eq!(a["result"]["content"][0]["text"], "42", "{a}");
                true
            }
            Some(e) => {
                assert_eq!(e["code"], -32029, "{a}");
                assert!(e["data"]["retryAfterMs"].as_u64().unwrap() > 0, "{a}");
                false
            }
        };
        seen.push((replica, admitted));
    }
    seen
}

/// Asserts exactly `limit` admitted among `seen`, and both the admitted and the refused
/// calls answered by more than one replica.
fn assert_held(seen: &[(u16, bool)], limit: usize, who: &str) {
    let mut by: BTreeMap<bool, HashSet<u16>> = BTreeMap::new();
    for (replica, admitted) in seen {
        by.entry(*admitted).or_default().insert(*replica);
    }
    let admitted = seen.iter().filter(|(_, a)| *a).count();
    assert_eq!(admitted, limit, "{who}: {seen:?}");
    assert!(
        by[&true].len() > 1,
        "{who}: admitted on one replica: {seen:?}"
    );
    assert!(
        by[&false].len() > 1,
        "{who}: refused on one replica: {seen:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_limit_holds_across_three_replicas_behind_nginx() {
    const LIMIT: u64 = 7;
    let Some(c) = Cluster::start_with_args(&format!("--rate-limit add={LIMIT}")) else {
        return;
    };
    // A legacy session: its calls land round-robin on the replicas, one bucket for them all.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "rate-test", "version": "0"}}});
    let req = http::request(c.addr(), "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let r = Resp::read(http::send(c.addr(), req, init.to_string()).await).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let legacy = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let req = http::request(c.addr(), "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header(legacy[0].0, legacy[0].1)
        .header(legacy[1].0, legacy[1].1);
    let r = Resp::read(http::send(c.addr(), req, note.to_string()).await).await;
    assert_eq!(r.status, 202, "{}", r.body);

    let n = 3 * u64::from(REPLICAS) * 2;
    assert_held(
        &calls(&c, &legacy, None, n).await,
        LIMIT as usize,
        "session",
    );

    // The caller is its address, not its session: the same client's 2026-07-28 calls (no
    // session) meet the bucket its legacy session emptied, on every replica. (At most one
    // token can have come back meanwhile: the bucket refills one per 60/7 s.)
    let modern = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ];
    let seen = calls(&c, &modern, Some(support::envelope()), n).await;
    let admitted = seen.iter().filter(|(_, a)| *a).count();
    assert!(admitted <= 1, "2026-07-28: {seen:?}");
    let refused_on: HashSet<u16> = (seen.iter())
        .filter(|(_, a)| !*a)
        .map(|(r, _)| *r)
        .collect();
    assert!(refused_on.len() > 1, "refused on one replica: {seen:?}");
}
