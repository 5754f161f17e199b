//! Two HTTP replicas on one real `redis-server` (features `http` and `redis`), each the
//! other's stand-in behind a load balancer, for what must not be lost between them: a
//! legacy stream cut while its request runs on one replica and resumed through the other
//! goes on live there, every later event and the answer exactly once, then ends; a
//! 2026-07-28 listen stream on a replica whose bus finds it lost events (an origin's
//! numbers skip) is resynchronised: one notification for everything it watches.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::backends::redis::{RedisConfig, RedisStores};
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use serde_json::{Value, json};
use support::http::{self, Resp, Served, read_to_end, read_until, sse_events};
use support::redis::RedisServer;

/// Opened by the test: each permit lets one `gated` call go on past its first progress.
static GATE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(0);

/// Reports progress once, waits for the test (at most 20 s), reports twice more, answers.
#[mcp::tool]
async fn gated(ctx: &Context) -> String {
    ctx.progress(1.0, Some(3.0), None).await.ok();
    if let Ok(Ok(p)) = tokio::time::timeout(Duration::from_secs(20), GATE.acquire()).await {
        p.forget();
    }
    for i in 2..=3 {
        ctx.progress(f64::from(i), Some(3.0), None).await.ok();
    }
    "through the gate".into()
}

#[mcp::server(name = "redis-live", tools(gated))]
struct LiveTest;

async fn connect(redis: &RedisServer) -> RedisStores {
    RedisConfig::new(redis.url())
        .prefix("live:")
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap()
}

async fn start(stores: &RedisStores) -> Served {
    let opts = HttpOptions {
        session_store: stores.session_store(),
        event_store: Some(stores.event_store()),
        answer_relay: Some(stores.answer_relay()),
        ..HttpOptions::default()
    };
    http::serve(LiveTest.into_server(), opts).await
}

async fn send(addr: SocketAddr, session: Option<&str>, body: Value) -> Resp {
    http::mcp_send(addr, "POST", session, Some(body), None).await
}

/// A 2025-11-25 session opened on `addr`.
async fn open_session(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "roaming-client", "version": "1"}}});
    let r = send(addr, None, init).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(addr, Some(&sid), note).await.status, 202);
    sid
}

#[tokio::test]
async fn a_stream_resumed_on_another_replica_goes_on_live_to_its_answer() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (sa, sb) = (connect(&redis).await, connect(&redis).await);
    let (a, b) = (start(&sa).await, start(&sb).await);
    let sid = open_session(a.addr).await;

    // The call runs on A; its connection is cut after the first progress notification.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "gated", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let r = http::send(
        a.addr,
        http::mcp_request(a.addr, "POST", Some(&sid), None),
        call.to_string(),
    )
    .await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    read_until(&mut body, &mut buf, |b| {
        sse_events(b)
            .iter()
            .any(|(_, d)| d.contains("notifications/progress"))
    })
    .await;
    drop(body);
    let on_a = sse_events(&buf);
    let seen = on_a.last().expect("the progress").0.clone();

    // Resumed through B, which holds neither the session nor the stream, while the call
    // still waits: B stays open with nothing new...
    let r = http::send(
        b.addr,
        http::mcp_request(b.addr, "GET", Some(&sid), Some(&seen)),
        String::new(),
    )
    .await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let early = tokio::time::timeout(Duration::from_millis(600), async {
        loop {
            match body.frame().await {
                Some(Ok(f)) => {
                    if let Ok(d) = f.into_data() {
                        buf.push_str(&String::from_utf8_lossy(&d));
                    }
                }
                other => return other.map(|_| ()),
            }
        }
    })
    .await;
    assert!(early.is_err(), "the resumed stream ended early: {buf}");
    assert!(sse_events(&buf).is_empty(), "nothing new yet: {buf}");

    // ... and once the call goes on (on A), B carries its later events and its answer,
    // each once, in order, then ends.
    GATE.add_permits(1);
    read_to_end(&mut body, &mut buf).await;
    let on_b = sse_events(&buf);
    let progress: Vec<f64> = on_b
        .iter()
        .filter_map(|(_, d)| serde_json::from_str::<Value>(d).ok())
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, vec![2.0, 3.0], "{buf}");
    assert_eq!(on_b.len(), 3, "two notifications and the answer: {buf}");
    let answer: Value = serde_json::from_str(&on_b[2].1).unwrap();
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["content"][0]["text"], "through the gate");
    let seq = |id: &str| id.rsplit_once('-').unwrap().1.parse::<u64>().unwrap();
    let mut last = seq(&seen);
    for (id, _) in &on_b {
        assert!(seq(id) > last, "ids in order, none repeated: {buf}");
        last = seq(id);
    }

    drop((a, b));
}

/// A 2026-07-28 listen stream for `uris` on a replica whose bus reads `stores`' stream.
async fn listen_on_bus(
    stores: &RedisStores,
    uris: &[&str],
) -> (Served, hyper::body::Incoming, String) {
    let server = Server::builder("lag-test", "1.0.0")
        .subscription_bus(stores.bus())
        .subscriptions(true)
        .build();
    let served = http::serve(server, HttpOptions::default()).await;
    let addr = served.addr;
    let listen = json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": support::modern(json!({"notifications": {"resourceSubscriptions": uris}}))});
    let req = http::request(addr, "POST", "/mcp")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen");
    let r = http::send(addr, req, listen.to_string()).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    read_until(&mut body, &mut buf, |b| {
        b.contains("notifications/subscriptions/acknowledged")
    })
    .await;
    (served, body, buf)
}

#[tokio::test]
async fn a_listen_stream_on_a_bus_that_lost_events_is_resynchronised() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let stores = connect(&redis).await;
    let (_b, mut body, mut buf) = listen_on_bus(&stores, &["notes://a", "notes://b"]).await;
    // Entries from another replica, as its bus appends them (origin, number, event); the
    // bus reads from the stream's newest entry on: wait until it hears one.
    let append = |n: u64, uri: &str| {
        let m = format!(r#"{{"method":"notifications/resources/updated","uri":"{uri}"}}"#);
        let n = n.to_string();
        let args = ["XADD", "live:bus", "*", "o", "other", "n", &n, "m", &m];
        support::redis::raw(redis.port, &args).unwrap();
    };
    let updates = |b: &str, uri: &str| b.matches(&format!(r#""uri":"{uri}""#)).count();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut n = 0;
    while updates(&buf, "notes://a") == 0 {
        n += 1;
        append(n, "notes://a");
        if let Ok(Some(Ok(f))) =
            tokio::time::timeout(Duration::from_millis(200), body.frame()).await
        {
            buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bus never read: {buf}"
        );
    }
    // What was appended before the bus read is not for it: count what came.
    while let Ok(Some(Ok(f))) = tokio::time::timeout(Duration::from_millis(300), body.frame()).await
    {
        buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
    }
    let heard = updates(&buf, "notes://a");
    assert_eq!(updates(&buf, "notes://b"), 0, "{buf}");

    // Number n + 1 never comes (trimmed, or lost with Redis): n + 2 shows the loss, and
    // the stream re-sends everything it watches, notes://b included, once.
    append(n + 2, "notes://a");
    read_until(&mut body, &mut buf, |b| updates(b, "notes://b") >= 1).await;
    read_until(&mut body, &mut buf, |b| updates(b, "notes://a") > heard).await;
    let late = tokio::time::timeout(Duration::from_millis(500), body.frame()).await;
    if let Ok(Some(Ok(f))) = late {
        buf.push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
    }
    assert_eq!(updates(&buf, "notes://b"), 1, "{buf}");
    assert_eq!(updates(&buf, "notes://a"), heard + 1, "{buf}");
}
