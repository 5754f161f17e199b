//! The Redis subscription bus (feature `redis`) against a real `redis-server` each test
//! starts on a free loopback port: an event published on one bus reaches the subscribers of
//! every bus on the same prefix exactly once (its own included) and no bus on another
//! prefix; garbage on the stream is skipped; with every connection killed again and again
//! (`CLIENT KILL`) while two buses publish, and with Redis killed and restarted while one
//! publishes, every event reaches every subscriber of every bus exactly once, in order.
//!
//! Without `redis-server` on the PATH the tests fail when `CI` is set and are skipped
//! (with a message) otherwise.

mod support;

use std::time::{Duration, Instant};

use mcp::backends::redis::{RedisBus, RedisConfig, RedisStores};
use mcp::session::BusReceiver;
use mcp::session::{ServerEvent, SubscriptionBus};
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
async fn next(rx: &mut BusReceiver) -> ServerEvent {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("an event within 5 s")
        .expect("the bus is alive")
}

/// Nothing arrives within 300 ms.
async fn silent(rx: &mut BusReceiver) {
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
    assert_eq!(a.stream_key(), "b1:bus");
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
async fn garbage_on_the_stream_is_skipped() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b2:").await;
    let (a, b) = (s.bus(), s.bus());
    connected(&[&a, &b]).await;
    let mut rb = b.subscribe();
    for junk in [
        &["m", "not json"][..],
        &["o", "x", "n", "1", "m", "not json"],
        &[
            "o",
            "x",
            "n",
            "2",
            "m",
            "{\"method\":\"notifications/unknown\"}",
        ],
        &[
            "o",
            "x",
            "n",
            "3",
            "m",
            "{\"method\":\"notifications/resources/updated\"}",
        ],
        &["o", "x", "n", "not a number", "m", "{}"],
        &["o", "x", "n", "4", "m", "[1,2,3]"],
        &["o", "x", "n", "5", "m", ""],
        &["unrelated", "field"],
    ] {
        let mut args = vec!["XADD", "b2:bus", "*"];
        args.extend_from_slice(junk);
        assert!(matches!(
            raw(redis.port, &args).unwrap(),
            Resp::Bulk(Some(_))
        ));
    }
    a.publish(updated("notes://2"));
    assert_eq!(
        next(&mut rb).await,
        updated("notes://2"),
        "only the real event"
    );
    silent(&mut rb).await;
    assert!(b.is_connected(), "still reading");
}

/// What `rx` receives until it holds `n` events (each within 10 s).
async fn collect(mut rx: BusReceiver, n: usize) -> (Vec<ServerEvent>, bool) {
    let mut got = Vec::new();
    let mut lagged = false;
    while got.len() < n {
        let e = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("stuck after {} events: {got:?}", got.len()))
            .expect("the bus is alive");
        lagged |= rx.take_lagged();
        got.push(e);
    }
    // Nothing more: no repeat arrives late.
    let late = tokio::time::timeout(Duration::from_millis(500), rx.recv()).await;
    assert!(late.is_err(), "a late extra {late:?}");
    (got, lagged | rx.take_lagged())
}

/// The URIs of `got` that start with `tag`, in the order received.
fn uris(got: &[ServerEvent], tag: &str) -> Vec<String> {
    got.iter()
        .filter_map(|e| match e {
            ServerEvent::ResourceUpdated { uri } if uri.starts_with(tag) => Some(uri.clone()),
            _ => None,
        })
        .collect()
}

fn numbered(tag: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{tag}{i}")).collect()
}

#[tokio::test]
async fn with_connections_killed_while_two_buses_publish_every_event_arrives_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b4:").await;
    let (a, b, c) = (s.bus(), s.bus(), s.bus());
    connected(&[&a, &b, &c]).await;
    const N: usize = 300;
    // Each bus's subscribers, draining as a listen stream does.
    let mut drains = Vec::new();
    for bus in [&a, &b, &c] {
        for _ in 0..2 {
            drains.push(tokio::spawn(collect(bus.subscribe(), 2 * N)));
        }
    }
    // Every connection of every bus killed, again and again, while both publish.
    let port = redis.port;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut killed = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(Resp::Int(n)) = raw(port, &["CLIENT", "KILL", "TYPE", "normal"]) {
                    killed += n;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            killed
        })
    };
    for i in 0..N {
        a.publish(updated(&format!("a/{i}")));
        b.publish(updated(&format!("b/{i}")));
        if i % 4 == 3 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    for d in drains {
        let (got, lagged) = d.await.unwrap();
        assert!(!lagged, "no subscriber fell behind");
        assert_eq!(
            uris(&got, "a/"),
            numbered("a/", N),
            "a's events, once, in order"
        );
        assert_eq!(
            uris(&got, "b/"),
            numbered("b/", N),
            "b's events, once, in order"
        );
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let killed = killer.join().unwrap();
    assert!(killed > 0, "connections were killed");
    assert_eq!((a.dropped(), b.dropped(), c.dropped()), (0, 0, 0));
}

#[tokio::test]
async fn with_redis_killed_and_restarted_while_one_publishes_every_event_arrives_once() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b3:").await;
    let (a, b, c) = (s.bus(), s.bus(), s.bus());
    // On a prefix of their own: a bus with a short queue, and one that listens to it.
    let s2 = stores(&redis, "b3s:").await;
    let (small, listener) = (s2.bus_with_queue(8), s2.bus());
    connected(&[&a, &b, &c, &small, &listener]).await;
    let mut rb = listener.subscribe();
    const N: usize = 40;
    let mut drains = Vec::new();
    for bus in [&a, &b, &c] {
        drains.push(tokio::spawn(collect(bus.subscribe(), 2 * N + 1)));
    }
    for i in 0..N {
        a.publish(updated(&format!("before/{i}")));
    }
    // Read by `b` and `c` before Redis goes: a Redis without persistence takes what it
    // holds with it.
    let mut seen = b.subscribe();
    while next(&mut seen).await != updated(&format!("before/{}", N - 1)) {}
    // `c` may still be delivering the last `before/*` events (reading them is what `b`
    // waited for, not `c`): those may come first, nothing else.
    let mut seen = c.subscribe();
    a.publish(ServerEvent::ToolsListChanged);
    loop {
        match next(&mut seen).await {
            ServerEvent::ToolsListChanged => break,
            ServerEvent::ResourceUpdated { uri } if uri.starts_with("before/") => {}
            other => panic!("c saw {other:?} before the list change"),
        }
    }
    drop(seen);

    redis.stop();
    let deadline = Instant::now() + Duration::from_secs(10);
    while [&a, &b, &c, &small, &listener]
        .iter()
        .any(|x| x.is_connected())
    {
        assert!(Instant::now() < deadline, "the lost connection is noticed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for i in 0..N {
        a.publish(updated(&format!("down/{i}")));
    }
    // A bus with a short queue keeps what it holds and counts what it could not.
    let mut small_rx = small.subscribe();
    for i in 0..20 {
        small.publish(updated(&format!("small/{i}")));
    }
    assert_eq!(
        next(&mut small_rx).await,
        updated("small/0"),
        "locally at once"
    );
    let dropped = small.dropped();
    assert!((11..=12).contains(&dropped), "dropped {dropped}");

    // Back on the same port, empty: the buses reconnect, `a` appends what waited.
    let redis = RedisServer::start_on(redis.port);
    for d in drains {
        let (got, lagged) = d.await.unwrap();
        assert!(!lagged);
        assert_eq!(uris(&got, "before/"), numbered("before/", N));
        assert_eq!(uris(&got, "down/"), numbered("down/", N), "once, in order");
        assert_eq!(got[N], ServerEvent::ToolsListChanged);
    }
    // The short queue's events that were kept reach the other bus too, in order.
    let mut kept = Vec::new();
    while kept.len() < 20 - dropped as usize {
        match next(&mut rb).await {
            ServerEvent::ResourceUpdated { uri } if uri.starts_with("small/") => kept.push(uri),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(kept, numbered("small/", 20 - dropped as usize));
    silent(&mut rb).await;
    assert_eq!(a.dropped(), 0);
    drop(redis);
}

/// The answer relay rides a stream as the bus does: with every connection killed again and
/// again while two relays forward, each message reaches each other relay once, in order.
#[tokio::test]
async fn with_connections_killed_while_two_relays_forward_every_message_arrives_once() {
    use mcp::session::{AnswerRelay, Relayed, RelayedAnswer};
    use serde_json::value::RawValue;
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "r1:").await;
    let relays = [s.answer_relay(), s.answer_relay(), s.answer_relay()];
    assert_eq!(relays[0].stream_key(), "r1:answers");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !relays.iter().all(|r| r.is_connected()) {
        assert!(Instant::now() < deadline, "not reading: {relays:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // What each relay hears: (session, id) of each message, in order of arrival.
    let heard: Vec<_> = relays
        .iter()
        .map(|r| {
            let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
            let to = got.clone();
            r.on_message(Box::new(move |m| {
                let said = match m {
                    Relayed::Answer(a) => format!("{}/{}", a.session, a.id),
                    Relayed::Cancel { session, id } => format!("{session}/{id}"),
                    _ => "other".into(),
                };
                to.lock().unwrap().push(said);
            }));
            got
        })
        .collect();
    let port = redis.port;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let killer = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut killed = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(Resp::Int(n)) = raw(port, &["CLIENT", "KILL", "TYPE", "normal"]) {
                    killed += n;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            killed
        })
    };
    const N: usize = 200;
    for i in 0..N {
        relays[0].forward(Relayed::Answer(RelayedAnswer {
            session: "a".into(),
            id: mcp_core::jsonrpc::RequestId::Number(i as i64),
            outcome: Ok(RawValue::from_string("{}".into()).unwrap()),
        }));
        relays[1].forward(Relayed::Cancel {
            session: "b".into(),
            id: mcp_core::jsonrpc::RequestId::Number(i as i64),
        });
        if i % 4 == 3 {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    let of = |got: &[String], tag: &str| -> Vec<String> {
        got.iter().filter(|s| s.starts_with(tag)).cloned().collect()
    };
    let want = |tag: &str| -> Vec<String> { (0..N).map(|i| format!("{tag}{i}")).collect() };
    let expected = [(false, true), (true, false), (true, true)];
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let done = heard.iter().zip(expected).all(|(h, (ha, hb))| {
            let h = h.lock().unwrap();
            (!ha || of(&h, "a/").len() >= N) && (!hb || of(&h, "b/").len() >= N)
        });
        if done || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // No repeat arrives late.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(killer.join().unwrap() > 0, "connections were killed");
    for (i, (h, (ha, hb))) in heard.iter().zip(expected).enumerate() {
        let h = h.lock().unwrap();
        let (a, b) = (of(&h, "a/"), of(&h, "b/"));
        assert_eq!(
            a,
            if ha { want("a/") } else { vec![] },
            "relay {i}: a's, once, in order"
        );
        assert_eq!(
            b,
            if hb { want("b/") } else { vec![] },
            "relay {i}: b's, once, in order"
        );
    }
    assert_eq!(relays.iter().map(|r| r.dropped()).sum::<u64>(), 0);
}

/// A bus that finds entries lost to it (an origin's numbers skip: trimmed past while it was
/// away, or lost by Redis) marks its subscribers lagged when it reads the entry that shows
/// it, and counts it; repeats and the next numbers do not.
#[tokio::test]
async fn a_bus_that_lost_entries_marks_its_subscribers_lagged() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let s = stores(&redis, "b6:").await;
    let b = s.bus();
    connected(&[&b]).await;
    let rx = b.subscribe();
    let event =
        |uri: &str| format!(r#"{{"method":"notifications/resources/updated","uri":"{uri}"}}"#);
    for (n, uri) in [
        ("1", "x/1"),
        ("2", "x/2"),
        ("2", "x/2"),
        ("5", "x/5"),
        ("6", "x/6"),
    ] {
        let m = event(uri);
        let args = ["XADD", "b6:bus", "*", "o", "elsewhere", "n", n, "m", &m];
        assert!(matches!(
            raw(redis.port, &args).unwrap(),
            Resp::Bulk(Some(_))
        ));
    }
    let mut rx = rx;
    let mut marks = Vec::new();
    for want in ["x/1", "x/2", "x/5", "x/6"] {
        assert_eq!(next(&mut rx).await, updated(want));
        marks.push(rx.take_lagged());
    }
    silent(&mut rx).await;
    // The mark is the bus's, not a position in the ring: a subscriber finds it with the
    // first event it reads after the bus saw the loss, x/5 at the latest.
    assert_eq!(
        marks.iter().filter(|m| **m).count(),
        1,
        "marked once: {marks:?}"
    );
    assert!(!marks[3], "with x/5 at the latest: {marks:?}");
    assert_eq!(b.gaps(), 1);
    // A subscriber that came after the mark does not inherit it.
    let mut late = b.subscribe();
    let m = event("x/7");
    raw(
        redis.port,
        &["XADD", "b6:bus", "*", "o", "elsewhere", "n", "7", "m", &m],
    )
    .unwrap();
    assert_eq!(next(&mut late).await, updated("x/7"));
    assert!(!late.take_lagged());
}
