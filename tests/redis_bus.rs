//! The Redis subscription bus (feature `redis`) against a real `redis-server` each test
//! starts on a free loopback port: an event published on one bus reaches the subscribers of
//! every bus on the same prefix exactly once (its own included) and no bus on another
//! prefix; garbage on the channel is skipped; with Redis stopped publishing neither blocks
//! nor panics, and once Redis is back delivery resumes on the same buses.
//!
//! Without `redis-server` on the PATH the tests fail when `CI` is set and are skipped
//! (with a message) otherwise.

mod support;

use std::time::{Duration, Instant};

use mcp::runtime::backends::redis::{RedisBus, RedisConfig, RedisStores};
use mcp::runtime::{ServerEvent, SubscriptionBus};
use support::redis::{RedisServer, Resp, raw};

async fn stores(redis: &RedisServer, prefix: &str) -> RedisStores {
    RedisConfig::new(redis.url())
        .prefix(prefix)
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap()
}

/// Waits (up to 10 s) until every bus is subscribed.
async fn connected(buses: &[&RedisBus]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !buses.iter().all(|b| b.is_connected()) {
        assert!(Instant::now() < deadline, "not subscribed: {buses:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The next event within 5 s.
async fn next(rx: &mut mcp::runtime::subscriptions::BusReceiver) -> ServerEvent {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("an event within 5 s")
        .expect("the bus is alive")
}

/// Nothing arrives within 300 ms.
async fn silent(rx: &mut mcp::runtime::subscriptions::BusReceiver) {
    let got = tokio::time::timeout(Duration::from_millis(300), rx.recv()).await;
    assert!(got.is_err(), "unexpected {got:?}");
}

fn updated(uri: &str) -> ServerEvent {
    ServerEvent::ResourceUpdated { uri: uri.into() }
}

#[tokio::test]
async fn an_event_reaches_every_bus_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b1:").await;
    let (a, b) = (s.bus(), s.bus());
    let other = stores(&redis, "elsewhere:").await.bus();
    assert_eq!(a.channel(), "b1:events");
    connected(&[&a, &b, &other]).await;
    let (mut ra, mut rb, mut ro) = (a.subscribe(), b.subscribe(), other.subscribe());
    let mut rb2 = b.subscribe();
    assert_eq!(b.subscribers(), 2);

    a.publish(updated("notes://1"));
    assert_eq!(
        next(&mut ra).await,
        updated("notes://1"),
        "at once, locally"
    );
    assert_eq!(next(&mut rb).await, updated("notes://1"), "through Redis");
    assert_eq!(next(&mut rb2).await, updated("notes://1"));
    // `a`'s own echo came back before this marker: the marker is next, not a second copy.
    b.publish(ServerEvent::ToolsListChanged);
    assert_eq!(next(&mut ra).await, ServerEvent::ToolsListChanged);
    assert_eq!(next(&mut rb).await, ServerEvent::ToolsListChanged);
    assert_eq!(next(&mut rb2).await, ServerEvent::ToolsListChanged);
    let mut params = serde_json::Map::new();
    params.insert("status".into(), "completed".into());
    a.publish(ServerEvent::task("t1", params.clone()));
    assert_eq!(next(&mut ra).await, ServerEvent::task("t1", params.clone()));
    assert_eq!(next(&mut rb).await, ServerEvent::task("t1", params));
    silent(&mut ra).await;
    silent(&mut ro).await;
    assert_eq!((a.dropped(), b.dropped()), (0, 0));

    // Dropping a bus ends its subscriptions.
    drop(b);
    let end = tokio::time::timeout(Duration::from_secs(5), async {
        while rb.recv().await.is_some() {}
    })
    .await;
    assert!(end.is_ok(), "the subscription of a dropped bus ends");
}

#[tokio::test]
async fn garbage_on_the_channel_is_skipped() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b2:").await;
    let (a, b) = (s.bus(), s.bus());
    connected(&[&a, &b]).await;
    let mut rb = b.subscribe();
    for junk in [
        "not json",
        "{\"origin\":\"x\",\"method\":\"notifications/unknown\"}",
        "{\"origin\":\"x\",\"method\":\"notifications/resources/updated\"}",
        "[1,2,3]",
        "",
    ] {
        let subscribers = raw(redis.port, &["PUBLISH", "b2:events", junk]).unwrap();
        assert_eq!(subscribers, Resp::Int(2), "both buses listen");
    }
    a.publish(updated("notes://2"));
    assert_eq!(
        next(&mut rb).await,
        updated("notes://2"),
        "only the real event"
    );
    silent(&mut rb).await;
    assert!(b.is_connected(), "still subscribed");
}

#[tokio::test]
async fn with_redis_away_publishing_goes_on_and_delivery_resumes_when_it_is_back() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b3:").await;
    let (a, b) = (s.bus(), s.bus());
    connected(&[&a, &b]).await;
    let (mut ra, mut rb) = (a.subscribe(), b.subscribe());
    a.publish(updated("before"));
    assert_eq!(next(&mut rb).await, updated("before"));
    assert_eq!(next(&mut ra).await, updated("before"));

    redis.stop();
    let deadline = Instant::now() + Duration::from_secs(10);
    while a.is_connected() || b.is_connected() {
        assert!(Instant::now() < deadline, "the lost connection is noticed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Thousands of events, more than the queue holds: none waits for Redis.
    let t = Instant::now();
    for i in 0..5000 {
        a.publish(updated(&format!("down/{i}")));
    }
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    // This process's subscribers still get them (the newest, their ring having overrun).
    let mut fresh = a.subscribe();
    a.publish(updated("local"));
    assert_eq!(next(&mut fresh).await, updated("local"));
    let deadline = Instant::now() + Duration::from_secs(10);
    while a.dropped() < 5000 {
        assert!(Instant::now() < deadline, "dropped {}", a.dropped());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Nothing reached `b` meanwhile.
    silent(&mut rb).await;

    // Back on the same port: both buses resubscribe by themselves.
    let redis = RedisServer::start_on(redis.port);
    connected(&[&a, &b]).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut got = Vec::new();
    loop {
        // The first publishes after the outage may still meet the old connection.
        a.publish(updated("after"));
        match tokio::time::timeout(Duration::from_millis(300), rb.recv()).await {
            Ok(Some(e)) => {
                got.push(e);
                break;
            }
            Ok(None) => panic!("the bus ended"),
            Err(_) => assert!(Instant::now() < deadline, "no delivery after the outage"),
        }
    }
    assert_eq!(got, [updated("after")]);
    b.publish(ServerEvent::PromptsListChanged);
    loop {
        // `a`'s subscriber: its own events once each, then `b`'s.
        match next(&mut ra).await {
            ServerEvent::PromptsListChanged => break,
            ServerEvent::ResourceUpdated { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    drop(redis);
}
