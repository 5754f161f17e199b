//! Two HTTP servers sharing the Redis stores (features `http` and `redis`), as two replicas
//! behind a load balancer: a session opened on one is served by the other, a stream's
//! events are replayed by the replica the client resumes on, with Redis gone a request
//! that needs the store is a 503 (with `Retry-After`) in bounded time, served again once
//! Redis is back, and a resource update published on one replica reaches a legacy
//! session's stream on another for URIs it subscribed to through a third (the Redis bus and the stored subscriptions);
//! a 2026-07-28 listen stream on one replica hears every update published on the other
//! exactly once while every Redis connection is killed again and again (`CLIENT KILL`).

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::backends::redis::{RedisConfig, RedisStores};
use mcp::prelude::*;
use mcp::session::{EventStore, SessionStore};
use mcp::transport::http::HttpOptions;
use serde_json::{Value, json};
use support::http::{self, Resp, Served, read_until, sse_events};
use support::redis::RedisServer;

/// Who the server thinks the client is.
#[mcp::tool]
async fn whoami(ctx: &Context) -> String {
    ctx.client_info()
        .map(|c| c.name.clone())
        .unwrap_or_default()
}

/// Reports progress three times, then answers (an SSE answer with four events and ids).
#[mcp::tool]
async fn count(ctx: &Context) -> String {
    for i in 1..=3 {
        ctx.progress(f64::from(i), Some(3.0), None).await.ok();
    }
    "counted".into()
}

/// The session's log level, as this replica sees it.
#[mcp::tool]
async fn level(ctx: &Context) -> String {
    ctx.log_level()
        .map(|l| format!("{l:?}").to_lowercase())
        .unwrap_or_else(|| "none".into())
}

#[mcp::server(name = "redis-test", tools(whoami, count, level))]
struct RedisTest;

async fn start(stores: &RedisStores) -> Served {
    let opts = HttpOptions {
        session_store: stores.session_store(),
        event_store: Some(stores.event_store()),
        ..HttpOptions::default()
    };
    http::serve(RedisTest.into_server(), opts).await
}

async fn send(addr: SocketAddr, method: &str, session: Option<&str>, body: Option<Value>) -> Resp {
    http::mcp_send(addr, method, session, body, None).await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "roaming-client", "version": "1"}}})
}

fn whoami_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": "whoami", "arguments": {}}})
}

fn text(r: &Resp) -> String {
    let answer = if r.body.starts_with('{') {
        r.json()
    } else {
        r.events()
            .into_iter()
            .find(|e| e.get("id").is_some())
            .unwrap_or_else(|| panic!("an answer: {}", r.body))
    };
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {}", r.body))
        .to_owned()
}

async fn connect(redis: &RedisServer) -> RedisStores {
    RedisConfig::new(redis.url())
        .prefix("http:")
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap()
}

#[tokio::test]
async fn two_replicas_share_sessions_and_see_redis_go_and_come_back() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let (a, b) = (start(&sa).await, start(&sb).await);

    let r = send(a.addr, "POST", None, Some(initialize())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    assert!(
        sa.session_store().load(&sid).await.unwrap().is_some(),
        "in Redis"
    );

    // B never saw the session: it loads it from Redis.
    let r = send(b.addr, "POST", Some(&sid), Some(whoami_call())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&r), "roaming-client");

    // Redis gone: a new session, or one this replica does not hold, is a 503 (in time).
    redis.stop();
    let started = std::time::Instant::now();
    let r = send(b.addr, "POST", None, Some(initialize())).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert_eq!(
        r.header("retry-after"),
        Some("1"),
        "a 503 says when to retry"
    );
    let c = start(&sb).await;
    let r = send(c.addr, "POST", Some(&sid), Some(whoami_call())).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(started.elapsed() < Duration::from_secs(3), "bounded");

    // Back (empty: no persistence): new sessions work again on every replica, and one
    // opened on B is served by C.
    let redis = RedisServer::start_on(redis.port);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let sid = loop {
        let r = send(b.addr, "POST", None, Some(initialize())).await;
        if r.status == 200 {
            break r.header("mcp-session-id").expect("a session id").to_owned();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not back: {}",
            r.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let r = send(c.addr, "POST", Some(&sid), Some(whoami_call())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&r), "roaming-client");

    // DELETE on C ends it in Redis: a replica that never held it answers 404.
    let r = send(c.addr, "DELETE", Some(&sid), None).await;
    assert!(r.status == 200 || r.status == 204, "{}", r.status);
    assert_eq!(sa.session_store().load(&sid).await, Ok(None));
    let d = start(&sa).await;
    let r = send(d.addr, "POST", Some(&sid), Some(whoami_call())).await;
    assert_eq!(r.status, 404, "{}", r.body);
    drop(redis);
}

/// The (id, data) of each event of an SSE body.
/// A replica that already holds a session sees, on its next request, what another replica
/// changed (the log level) or ended (`DELETE`): it reads the session back from Redis on
/// every request, not only when its copy is refreshed.
#[tokio::test]
async fn a_change_through_one_replica_holds_at_once_on_another() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let (a, b) = (start(&sa).await, start(&sb).await);
    let r = send(a.addr, "POST", None, Some(initialize())).await;
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let level_call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                            "params": {"name": "level", "arguments": {}}});
    let r = send(b.addr, "POST", Some(&sid), Some(level_call.clone())).await;
    assert_eq!(text(&r), "none", "B holds the session now: {}", r.body);

    let set = json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel",
                     "params": {"level": "warning"}});
    let r = send(a.addr, "POST", Some(&sid), Some(set)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = send(b.addr, "POST", Some(&sid), Some(level_call.clone())).await;
    assert_eq!(text(&r), "warning", "set through A, seen by B: {}", r.body);

    let r = send(a.addr, "DELETE", Some(&sid), None).await;
    assert!(r.status == 200 || r.status == 204, "{}", r.status);
    let r = send(b.addr, "POST", Some(&sid), Some(level_call)).await;
    assert_eq!(r.status, 404, "ended through A, gone on B: {}", r.body);
}

#[tokio::test]
async fn a_stream_written_on_one_replica_is_resumed_on_another() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let (a, b) = (start(&sa).await, start(&sb).await);
    let r = send(a.addr, "POST", None, Some(initialize())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let r = send(
        a.addr,
        "POST",
        Some(&sid),
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);

    // The whole stream on A: priming event, three progress notifications, the answer.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let r = send(a.addr, "POST", Some(&sid), Some(call)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let on_a = sse_events(&r.body);
    assert_eq!(on_a.len(), 5, "{}", r.body);
    assert_eq!(on_a[0].1, "", "the priming event");

    // A client that saw only the first notification resumes on B: B has never held the
    // session nor the stream, and replays the rest from Redis, the answer last.
    let r = http::mcp_send(b.addr, "GET", Some(&sid), None, Some(&on_a[1].0)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let on_b = sse_events(&r.body);
    assert_eq!(on_b, on_a[2..].to_vec());
    let answer: Value = serde_json::from_str(&on_b[2].1).unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "counted");

    // An id B cannot find is a 400; DELETE forgets the stream everywhere.
    let r = http::mcp_send(b.addr, "GET", Some(&sid), None, Some("ffffffff-1")).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let r = send(b.addr, "DELETE", Some(&sid), None).await;
    assert!(r.status == 200 || r.status == 204, "{}", r.status);
    // The session's streams are forgotten in the background once it ends: wait for it.
    let mut left = sa.event_store().replay_after(&on_a[1].0).await;
    for _ in 0..60 {
        if left == Ok(None) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        left = sa.event_store().replay_after(&on_a[1].0).await;
    }
    assert_eq!(left, Ok(None), "forgotten");
}

/// A replica with a resource and change notifications over the stores' Redis bus; its
/// handle publishes.
async fn start_with_bus(stores: &RedisStores) -> (Served, mcp::ServerHandle) {
    use mcp_core::types::{ReadResourceResult, Resource, ResourceContents};
    let server = Server::builder("bus-test", "1.0.0")
        .subscription_bus(stores.bus())
        .registry(|r| {
            r.add_resource(Resource::new("notes://1", "note"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "v")],
                    ..Default::default()
                })
            });
        })
        .build();
    let handle = server.handle();
    let opts = HttpOptions {
        session_store: stores.session_store(),
        event_store: Some(stores.event_store()),
        ..HttpOptions::default()
    };
    (http::serve(server, opts).await, handle)
}

#[tokio::test]
async fn a_legacy_session_hears_updates_on_the_replica_holding_its_stream() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb, sc) = (
        connect(&redis).await,
        connect(&redis).await,
        connect(&redis).await,
    );
    let ((a, ha), (b, _hb), (c, _hc)) = (
        start_with_bus(&sa).await,
        start_with_bus(&sb).await,
        start_with_bus(&sc).await,
    );
    // Initialized on A, its GET stream on C (which takes the session over), subscribed to
    // one note through B and to another through C (whose copy has not seen B's change).
    let r = send(a.addr, "POST", None, Some(initialize())).await;
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send(c.addr, "POST", Some(&sid), Some(note)).await.status,
        202
    );
    let get = http::request(c.addr, "GET", "/mcp")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25");
    let r = http::send(c.addr, get, String::new()).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let sub = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                     "params": {"uri": "notes://1"}});
    let r = send(b.addr, "POST", Some(&sid), Some(sub)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sub = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe",
                     "params": {"uri": "notes://2"}});
    let r = send(c.addr, "POST", Some(&sid), Some(sub)).await;
    assert_eq!(r.status, 200, "{}", r.body);

    let mut buf = String::new();
    for uri in ["notes://1", "notes://2"] {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !buf.contains(&format!(r#""uri":"{uri}""#)) {
            // Published on A until C's bus, subscribed in the background, carries it.
            ha.resource_updated(uri);
            match tokio::time::timeout(Duration::from_millis(200), body.frame()).await {
                Ok(Some(Ok(f))) => buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap())),
                Ok(other) => panic!("the stream ended: {other:?}"),
                Err(_) => assert!(
                    tokio::time::Instant::now() < deadline,
                    "{uri} not on C: {buf}"
                ),
            }
        }
    }
    // Both subscriptions are in the store (neither write undid the other).
    let stored = sa.session_store().load(&sid).await.unwrap().unwrap();
    assert_eq!(stored.subscriptions, ["notes://1", "notes://2"]);
    drop((a, b, c));
}

/// Asks the client for its roots (a server-to-client request) and says how many it has.
#[mcp::tool]
async fn roots(ctx: &Context) -> Result<String, McpError> {
    Ok(format!("{} roots", ctx.roots().await?.len()))
}

/// Calls of `wait` that saw their cancellation.
static WAITS_CANCELLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Waits until cancelled (or 30 s).
#[mcp::tool]
async fn wait(token: mcp::CancellationToken) -> String {
    tokio::select! {
        _ = token.cancelled() => {
            WAITS_CANCELLED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            "cancelled".into()
        }
        _ = tokio::time::sleep(Duration::from_secs(30)) => "waited".into(),
    }
}

#[mcp::server(name = "relay-test", tools(roots, wait))]
struct RelayTest;

#[tokio::test]
async fn an_answer_or_a_cancellation_posted_to_another_replica_reaches_the_request() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let mut replicas = Vec::new();
    let mut relays = Vec::new();
    for stores in [&sa, &sb] {
        let relay = stores.answer_relay();
        relays.push(relay.clone());
        let opts = HttpOptions {
            session_store: stores.session_store(),
            event_store: Some(stores.event_store()),
            answer_relay: Some(relay),
            ..HttpOptions::default()
        };
        replicas.push(http::serve(RelayTest.into_server(), opts).await);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !relays.iter().all(|r| r.is_connected()) {
        assert!(
            std::time::Instant::now() < deadline,
            "relays not subscribed"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (a, b) = (&replicas[0], &replicas[1]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
        "clientInfo": {"name": "roaming-client", "version": "1"}}});
    let r = send(a.addr, "POST", None, Some(init)).await;
    let sid = r.header("mcp-session-id").unwrap().to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send(a.addr, "POST", Some(&sid), Some(note)).await.status,
        202
    );

    // The call runs on A; its roots/list request comes on the call's stream.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "roots", "arguments": {}}});
    let req = http::request(a.addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25");
    let r = http::send(a.addr, req, call.to_string()).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let ask = loop {
        let f = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("the roots request within 5 s")
            .unwrap()
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
        if let Some((_, data)) = sse_events(&buf)
            .into_iter()
            .find(|(_, d)| d.contains("roots/list"))
        {
            break serde_json::from_str::<Value>(&data).unwrap();
        }
    };
    // Answered through B, which never sent it.
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
                        "result": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}});
    let r = send(b.addr, "POST", Some(&sid), Some(answer)).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !buf.contains("2 roots") {
        let f = tokio::time::timeout_at(deadline, body.frame())
            .await
            .unwrap_or_else(|_| panic!("no answer on A: {buf}"))
            .expect("the stream goes on to the answer")
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
    }
    let id = ask["id"].as_str().unwrap();
    assert!(
        id.starts_with("srv-") && id != "srv-1",
        "a random start: {id}"
    );

    // A call running on A, cancelled by a notifications/cancelled posted to B.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "wait", "arguments": {}}});
    let (a_addr, sid_a) = (a.addr, sid.clone());
    let waiting = tokio::spawn(async move { send(a_addr, "POST", Some(&sid_a), Some(call)).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 3, "reason": "the user changed their mind"}});
    let r = send(b.addr, "POST", Some(&sid), Some(cancel)).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while WAITS_CANCELLED.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the call on A never saw the cancellation sent to B"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    waiting.abort();
    assert_eq!(relays.iter().map(|r| r.dropped()).sum::<u64>(), 0);
}

/// Sessions beyond `max_sessions` leave this process, not a shared store: the one the live
/// map evicted first is adopted again from Redis on its next request, and every session's
/// key expires after the idle timeout (then it is 404 everywhere).
#[tokio::test]
async fn a_session_evicted_at_the_cap_is_served_from_redis_until_its_key_expires() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let stores = connect(&redis).await;
    let idle = Duration::from_secs(3);
    let opts = HttpOptions {
        session_store: stores.session_store(),
        event_store: Some(stores.event_store()),
        max_sessions: 4,
        session_idle_timeout: idle,
        ..HttpOptions::default()
    };
    let served = http::serve(RedisTest.into_server(), opts).await;
    let addr = served.addr;

    // The first session has a stream stored before it is evicted.
    let r = send(addr, "POST", None, Some(initialize())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let first = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        send(addr, "POST", Some(&first), Some(note)).await.status,
        202
    );
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let r = send(addr, "POST", Some(&first), Some(call)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let stored = sse_events(&r.body);
    assert_eq!(stored.len(), 5, "{}", r.body);

    let mut sids = vec![first];
    for _ in 0..19 {
        let r = send(addr, "POST", None, Some(initialize())).await;
        assert_eq!(r.status, 200, "{}", r.body);
        sids.push(r.header("mcp-session-id").expect("a session id").to_owned());
    }
    // The first was evicted 16 sessions ago; Redis still holds it.
    let r = send(addr, "POST", Some(&sids[0]), Some(whoami_call())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&r), "roaming-client");
    // Evicted here, not ended: its stream is still replayed from Redis.
    let r = http::mcp_send(addr, "GET", Some(&sids[0]), None, Some(&stored[0].0)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        sse_events(&r.body),
        stored[1..].to_vec(),
        "every stored event"
    );

    // Every session key has an expiry within the idle timeout.
    let keys = support::redis::keys_with_ttl(redis.port, "http:session:");
    assert_eq!(keys.len(), sids.len(), "{keys:?}");
    for (k, ttl) in &keys {
        assert!(
            *ttl > 0 && *ttl <= idle.as_millis() as i64,
            "{k} expires in {ttl} ms"
        );
    }
    // Abandoned, they expire: the keys go, and the first session is unknown.
    tokio::time::sleep(idle + Duration::from_millis(500)).await;
    let keys = support::redis::keys_with_ttl(redis.port, "http:session:");
    assert!(keys.is_empty(), "left behind: {keys:?}");
    let r = send(addr, "POST", Some(&sids[0]), Some(whoami_call())).await;
    assert_eq!(r.status, 404, "{}", r.body);
}

#[tokio::test]
async fn a_listen_stream_hears_every_update_once_while_redis_connections_are_killed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let ((a, ha), (b, _hb)) = (start_with_bus(&sa).await, start_with_bus(&sb).await);
    const N: usize = 40;
    let uris: Vec<String> = (0..N).map(|i| format!("notes://k/{i}")).collect();
    let mut filter = uris.clone();
    filter.push("notes://probe".into());
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": support::modern(json!({"notifications": {"resourceSubscriptions": filter}}))});
    let req = http::request(b.addr, "POST", "/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen");
    let r = http::send(b.addr, req, listen.to_string()).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    read_until(&mut body, &mut buf, |b| {
        b.contains("notifications/subscriptions/acknowledged")
    })
    .await;
    // B's bus reads: a probe published on A arrives.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !buf.contains(r#""uri":"notes://probe""#) {
        ha.resource_updated("notes://probe");
        if let Ok(Some(Ok(f))) =
            tokio::time::timeout(Duration::from_millis(200), body.frame()).await
        {
            buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no probe on B: {buf}"
        );
    }

    // Every Redis connection of both replicas killed again and again while A publishes.
    let port = redis.port;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killed = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(0));
    let killer = {
        let (stop, killed) = (stop.clone(), killed.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(support::redis::Resp::Int(n)) =
                    support::redis::raw(port, &["CLIENT", "KILL", "TYPE", "normal"])
                {
                    killed.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    // Publishing starts once the killing has (on a busy machine the thread may start late
    // and every update would go through untouched).
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while killed.load(std::sync::atomic::Ordering::Relaxed) == 0 {
        assert!(tokio::time::Instant::now() < deadline, "nothing was killed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for (i, uri) in uris.iter().enumerate() {
        ha.resource_updated(uri);
        if i % 4 == 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
    let count = |b: &str, uri: &str| b.matches(&format!(r#""uri":"{uri}""#)).count();
    let all = |b: &str| uris.iter().all(|u| count(b, u) >= 1);
    read_until(&mut body, &mut buf, all).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    killer.join().unwrap();
    // No repeat arrives late.
    let late = tokio::time::timeout(Duration::from_millis(500), body.frame()).await;
    if let Ok(Some(Ok(f))) = late {
        buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
    }
    for uri in &uris {
        assert_eq!(count(&buf, uri), 1, "{uri} once: {buf}");
    }
    drop((a, b));
}

/// Redis commands per request of each kind, as `MONITOR` sees them (commands clients sent,
/// and commands the scripts ran), each kind measured warm (its second run: the scripts are
/// loaded): printed for `BENCHMARKS.md`, bounded here. The bus's own reads (`XREAD`, per
/// replica every 2 s, not per request) are left out. With `MCP_TEST_WAIT=1`, Redis has a
/// replica and every write a client is told of waits for it (`WAIT`, as under Sentinel).
#[tokio::test]
async fn redis_commands_per_request_of_each_kind() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let waits = std::env::var_os("MCP_TEST_WAIT").is_some();
    let _replica = waits.then(|| {
        let port = RedisServer::free_port().unwrap();
        let replica =
            RedisServer::start_with(port, &["--replicaof", "127.0.0.1", &redis.port.to_string()]);
        while !support::redis::info(port, &["INFO", "replication"])
            .contains("master_link_status:up")
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        replica
    });
    let stores = if waits {
        RedisConfig::new(redis.url())
            .prefix("http:")
            .timeout(Duration::from_millis(300))
            .wait_for_replicas(1, Duration::from_millis(150))
            .connect()
            .await
            .unwrap()
    } else {
        connect(&redis).await
    };
    let a = start(&stores).await;
    let (b, _hb) = start_with_bus(&stores).await;
    let mut m = support::redis::Monitor::start(redis.port);
    let bus = ["XREAD", "XREVRANGE"];
    let mut rows = Vec::new();

    let mut sid = String::new();
    let mut init = None;
    for _ in 0..2 {
        let (r, c) = m
            .around(&bus, send(a.addr, "POST", None, Some(initialize())))
            .await;
        sid = r.header("mcp-session-id").unwrap().to_owned();
        init = Some(c);
    }
    rows.push(("legacy initialize", init.unwrap()));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (_, c) = m
        .around(&bus, send(a.addr, "POST", Some(&sid), Some(note)))
        .await;
    rows.push(("legacy notifications/initialized", c));
    let mut call = None;
    for _ in 0..2 {
        let (r, c) = m
            .around(&bus, send(a.addr, "POST", Some(&sid), Some(whoami_call())))
            .await;
        assert_eq!(text(&r), "roaming-client");
        call = Some(c);
    }
    let call = call.unwrap();
    rows.push(("legacy tools/call, JSON answer", call));
    let count = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                       "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let mut stream = None;
    let mut first = String::new();
    for _ in 0..2 {
        let (r, c) = m
            .around(&bus, send(a.addr, "POST", Some(&sid), Some(count.clone())))
            .await;
        assert_eq!(text(&r), "counted");
        first = r
            .body
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .unwrap()
            .to_owned();
        stream = Some(c);
    }
    rows.push((
        "legacy tools/call, SSE answer of 5 events (priming, 3 progress, answer)",
        stream.unwrap(),
    ));
    let mut resume = None;
    for _ in 0..2 {
        let (r, c) = m
            .around(
                &bus,
                http::mcp_send(a.addr, "GET", Some(&sid), None, Some(&first)),
            )
            .await;
        assert_eq!(r.status, 200);
        resume = Some(c);
    }
    rows.push((
        "resume of that stream (GET, Last-Event-ID)",
        resume.unwrap(),
    ));

    let modern = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": support::modern(json!({"name": "whoami", "arguments": {}}))});
    let req = || {
        http::request(a.addr, "POST", "/mcp")
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "whoami")
    };
    let (r, stateless) = m
        .around(&bus, http::send(a.addr, req(), modern.to_string()))
        .await;
    assert_eq!(r.status(), 200);
    rows.push(("2026-07-28 tools/call (stateless)", stateless));

    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": support::modern(json!({"notifications": {"resourceSubscriptions": ["notes://1"]}}))});
    let req = http::request(b.addr, "POST", "/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen");
    let (mut body, open) = m
        .around(&bus, async {
            let r = http::send(b.addr, req, listen.to_string()).await;
            let mut body = r.into_body();
            let mut buf = String::new();
            read_until(&mut body, &mut buf, |b| b.contains("acknowledged")).await;
            body
        })
        .await;
    rows.push(("2026-07-28 subscriptions/listen, opened", open));
    let mut updates = None;
    for _ in 0..2 {
        let ((), c) = m
            .around(&bus, async {
                _hb.resource_updated("notes://1");
                let mut buf = String::new();
                read_until(&mut body, &mut buf, |b| b.contains("notes://1")).await;
            })
            .await;
        updates = Some(c);
    }
    rows.push((
        "a resource update published, heard on a listen stream",
        updates.unwrap(),
    ));

    eprintln!("| request | commands sent | commands in scripts |");
    eprintln!("| --- | ---: | ---: |");
    for (what, c) in &rows {
        eprintln!("| {what} | {} | {} |", c.round_trips, c.inner);
    }
    assert_eq!(stateless.round_trips, 0, "a stateless call needs no Redis");
    assert_eq!(
        open.round_trips, 0,
        "a listen stream costs no Redis call of its own"
    );
    assert!(call.round_trips <= 2, "{call:?}");
    drop((a, b));
}
