//! The deployment of `deploy/cluster.sh` end to end (features `http`, `client`, `redis`):
//! Redis, three `examples/everything` replicas sharing it, nginx in front (round-robin, no
//! stickiness), and every request of this test through nginx only. One cluster, one test,
//! in steps: a legacy session served by every replica; an SSE stream cut and resumed on
//! another replica, every event exactly once; a replica SIGKILLed mid-stream, its events
//! replayed by a survivor; `restart-all` under a live session; Redis stopped (503 in
//! bounded time, the stateless 2026-07-28 revision unaffected) and started again; an
//! unknown session a 404; a 2026-07-28 `requestState` sealed on one replica, opened on
//! another and refused on a third when replayed; a resource update made on one replica
//! heard once by listen streams and legacy GET streams held by the others; a legacy
//! elicitation asked on one replica answered through another; tasks (both eras) started on
//! one replica, polled, answered and cancelled through the others.
//!
//! Needs `redis-server` and `nginx` (Debian's packages): without them the test fails when
//! `CI` is set (`.ci/run` installs both) and says `SKIPPED` otherwise.

mod support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper::body::Incoming;
use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::version::ProtocolVersion as V;
use serde_json::{Value, json};
use support::http::{self, Resp};

use support::cluster::{Cluster, REPLICAS};

/// A raw request through nginx: one connection, every header under the test's control.
async fn open(
    c: &Cluster,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> hyper::Response<Incoming> {
    let mut b = http::request(c.addr(), method, "/mcp");
    b = if body.is_some() {
        b.header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
    } else {
        b.header("accept", "text/event-stream")
    };
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let body = body.map(Value::to_string).unwrap_or_default();
    tokio::time::timeout(Duration::from_secs(10), http::send(c.addr(), b, body))
        .await
        .expect("an answer in time")
}

async fn send(c: &Cluster, headers: &[(&str, &str)], body: &Value) -> Resp {
    Resp::read(open(c, "POST", headers, Some(body)).await).await
}

fn legacy(sid: &str) -> [(&str, &str); 2] {
    [
        ("mcp-session-id", sid),
        ("mcp-protocol-version", "2025-11-25"),
    ]
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "cluster-test", "version": "1"}}})
}

fn add(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "add", "arguments": {"a": 20, "b": 22}}})
}

fn countdown(id: u64, steps: u32, delay_ms: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "countdown", "arguments": {"steps": steps, "delay_ms": delay_ms},
        "_meta": {"progressToken": format!("p{id}")}}})
}

/// A legacy session opened through nginx (initialize, then initialized).
async fn session(c: &Cluster) -> String {
    let r = send(c, &[], &initialize()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = send(c, &legacy(&sid), &note).await;
    assert_eq!(r.status, 202, "{}", r.body);
    sid
}

/// The text of a JSON (or one-answer SSE) `tools/call` response.
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

#[derive(Debug, Clone, PartialEq)]
struct Event {
    id: String,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// The complete events in `buf` (comments and id-less blocks skipped).
fn parse(buf: &str) -> Vec<Event> {
    let Some(end) = buf.rfind("\n\n") else {
        return Vec::new();
    };
    buf[..end]
        .split("\n\n")
        .filter_map(|block| {
            let mut id = None;
            let mut data = Vec::new();
            for l in block.lines() {
                if let Some(v) = l.strip_prefix("id: ") {
                    id = Some(v.to_owned());
                } else if let Some(v) = l.strip_prefix("data: ") {
                    data.push(v);
                }
            }
            Some(Event {
                id: id?,
                data: data.join("\n"),
            })
        })
        .collect()
}

/// Reads `body` into `buf` until `until` holds for its events, it ends, or it fails (a
/// cut); each frame within 5 s. Whether the stream is over (ended or cut).
async fn read(body: &mut Incoming, buf: &mut String, until: impl Fn(&[Event]) -> bool) -> bool {
    loop {
        if until(&parse(buf)) {
            return false;
        }
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("an event (or the end) within 5 s");
        match frame {
            None | Some(Err(_)) => return true,
            Some(Ok(f)) => {
                if let Ok(d) = f.into_data() {
                    buf.push_str(&String::from_utf8_lossy(&d));
                }
            }
        }
    }
}

fn progress(ev: &[Event]) -> Vec<f64> {
    ev.iter()
        .map(Event::json)
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect()
}

fn answers(ev: &[Event], id: u64) -> usize {
    ev.iter()
        .filter(|e| {
            let m = e.json();
            m["id"] == id && m.get("result").is_some()
        })
        .count()
}

/// Resumes with `Last-Event-ID` through nginx until the answer to `id` arrives (a replica
/// that does not run the stream replays what Redis holds and follows it live, but ends it
/// after a few seconds without an event: resume again). The events after `last`, and the
/// replica of each resumption.
async fn resume_to_answer(
    c: &Cluster,
    sid: &str,
    id: u64,
    mut last: String,
) -> (Vec<Event>, Vec<u16>) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    let mut served = Vec::new();
    while answers(&got, id) == 0 {
        assert!(Instant::now() < deadline, "no answer to {id}: {got:?}");
        let mut h = legacy(sid).to_vec();
        h.push(("last-event-id", &last));
        let r = open(c, "GET", &h, None).await;
        assert_eq!(r.status(), 200, "resuming after {last}");
        served.push(c.replica(r.headers()));
        let mut body = r.into_body();
        let mut buf = String::new();
        read(&mut body, &mut buf, |ev| answers(ev, id) > 0).await;
        let ev = parse(&buf);
        if let Some(e) = ev.last() {
            last = e.id.clone();
        } else {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        got.extend(ev);
    }
    (got, served)
}

fn assert_unique_ids(ev: &[Event]) {
    let ids: HashSet<_> = ev.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids.len(), ev.len(), "every event once: {ev:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_behind_nginx_serves_sessions_through_failures() {
    let Some(c) = Cluster::start() else {
        return;
    };
    let started = Instant::now();

    // 1. A legacy session with the SDK's client, its calls spread over the replicas.
    let client = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .request_timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(10))
        .connect_http(&c.url)
        .await
        .expect("a legacy session through nginx");
    let sdk_sid = client.http_session_id().expect("a session id");
    for round in 0..2 {
        let tools = client.list_tools(None).await.unwrap();
        assert!(tools.tools.iter().any(|t| t.name == "countdown"));
        let r = client
            .call_tool("add", json!({"a": round, "b": 2}))
            .await
            .unwrap();
        let said = serde_json::to_value(&r.content[0]).unwrap();
        assert_eq!(said["text"], (round + 2).to_string());
        let r = client.read_resource("everything://readme").await.unwrap();
        let readme = serde_json::to_value(&r.contents[0]).unwrap();
        assert!(readme["text"].as_str().unwrap().starts_with("# everything"));
        let r = client.get_prompt("greet", [("name", "Ada")]).await.unwrap();
        let msg = serde_json::to_value(&r.messages[0]).unwrap();
        assert_eq!(msg["content"]["text"], "Please greet Ada warmly.");
    }
    let served = c.replicas_in_log(&sdk_sid);
    assert!(
        served.len() >= 2,
        "one session on several replicas: {served:?}"
    );
    eprintln!("step 1: 8 calls of one session served by {served:?}");
    client.close().await.unwrap();

    // 2. An SSE stream cut after three progress notifications, resumed with Last-Event-ID
    // on other replicas: every event exactly once, the answer last.
    let sid = session(&c).await;
    let r = open(&c, "POST", &legacy(&sid), Some(&countdown(2, 10, 150))).await;
    assert_eq!(r.status(), 200);
    let runs_on = c.replica(r.headers());
    let mut body = r.into_body();
    let mut buf = String::new();
    read(&mut body, &mut buf, |ev| progress(ev).len() >= 3).await;
    drop(body);
    let first = parse(&buf);
    assert_eq!(first[0].data, "", "the priming event");
    let (rest, resumed_on) = resume_to_answer(&c, &sid, 2, first.last().unwrap().id.clone()).await;
    let mut all = first.clone();
    all.extend(rest);
    assert_unique_ids(&all);
    assert_eq!(progress(&all), (1..=10).map(f64::from).collect::<Vec<_>>());
    assert_eq!(answers(&all, 2), 1);
    assert_eq!(answers(&all[all.len() - 1..], 2), 1, "the answer last");
    assert!(
        resumed_on.iter().any(|&n| n != runs_on),
        "resumed on another replica than {runs_on}: {resumed_on:?}"
    );
    eprintln!("step 2: stream on replica {runs_on}, resumed on {resumed_on:?}");
    let step2 = all;

    // 3. The replica running a stream SIGKILLed mid-way: a survivor replays every event the
    // client had an id for (the tool died with its replica: no answer comes).
    let r = open(&c, "POST", &legacy(&sid), Some(&countdown(3, 40, 100))).await;
    assert_eq!(r.status(), 200);
    let victim = c.replica(r.headers());
    let mut body = r.into_body();
    let mut buf = String::new();
    read(&mut body, &mut buf, |ev| progress(ev).len() >= 4).await;
    c.script(&["kill", &victim.to_string()], 30);
    // What was on its way before the kill is the client's too; then the stream is cut.
    let cut = read(&mut body, &mut buf, |_| false).await;
    assert!(cut);
    let received = parse(&buf);
    assert!(progress(&received).len() < 40, "cut before the end");
    assert_eq!(answers(&received, 3), 0);
    let mut h = legacy(&sid).to_vec();
    h.push(("last-event-id", &received[0].id));
    let r = open(&c, "GET", &h, None).await;
    assert_eq!(r.status(), 200);
    let survivor = c.replica(r.headers());
    assert_ne!(survivor, victim);
    let mut body = r.into_body();
    let mut buf = String::new();
    assert!(
        read(&mut body, &mut buf, |_| false).await,
        "the replay ends"
    );
    let replayed = parse(&buf);
    assert_unique_ids(&replayed);
    assert!(
        replayed.len() >= received.len() - 1 && replayed[..received.len() - 1] == received[1..],
        "every received event after the first replayed, in order:\n{received:?}\n{replayed:?}"
    );
    eprintln!(
        "step 3: replica {victim} killed after {} events, replica {survivor} replayed {}",
        received.len(),
        replayed.len()
    );

    // 4. Every replica restarted, one after another: the sessions carry on (the raw one and
    // the SDK client's, which keeps its id and never initializes again), and their streams
    // still replay from Redis.
    let live = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .request_timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(10))
        .connect_http(&c.url)
        .await
        .expect("a second SDK session");
    let live_sid = live.http_session_id().expect("a session id");
    live.call_tool("add", json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    c.script(&["restart-all"], 120);
    for i in 0..3 {
        let r = live
            .call_tool("add", json!({"a": i, "b": 1}))
            .await
            .unwrap();
        let said = serde_json::to_value(&r.content[0]).unwrap();
        assert_eq!(said["text"], (i + 1).to_string());
    }
    assert_eq!(live.http_session_id().as_deref(), Some(live_sid.as_str()));
    assert_eq!(
        live.http_reinitializations(),
        0,
        "the same session throughout"
    );
    live.close().await.unwrap();
    let mut after = HashSet::new();
    for i in 0..3 {
        let r = send(&c, &legacy(&sid), &add(40 + i)).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(text(&r), "42");
        after.insert(c.replica(&r.headers));
    }
    assert!(after.len() >= 2, "{after:?}");
    let mut h = legacy(&sid).to_vec();
    h.push(("last-event-id", &step2[0].id));
    let r = open(&c, "GET", &h, None).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    read(&mut body, &mut buf, |ev| answers(ev, 2) > 0).await;
    assert_eq!(
        parse(&buf),
        step2[1..],
        "step 2's stream replayed after restart-all"
    );
    eprintln!("step 4: after restart-all, the session served by {after:?}");

    // 5. Redis stopped: what needs it is a 503 within the store's timeout, on every
    // replica; a stateless 2026-07-28 call needs nothing and is served.
    c.script(&["redis-stop"], 30);
    for _ in 0..REPLICAS {
        let t = Instant::now();
        let r = send(&c, &[], &initialize()).await;
        assert_eq!(r.status, 503, "{}", r.body);
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        let t = Instant::now();
        let r = send(&c, &legacy("00000000000000000000000000000000"), &add(5)).await;
        assert_eq!(
            r.status, 503,
            "an unknown session cannot be looked up: {}",
            r.body
        );
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    let modern = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": support::modern(json!({"name": "add", "arguments": {"a": 2, "b": 2}}))});
    let mh = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ];
    for _ in 0..REPLICAS {
        let r = send(&c, &mh, &modern).await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(text(&r), "4");
    }
    c.script(&["redis-start"], 30);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut back = HashSet::new();
    while back.len() < usize::from(REPLICAS) {
        let r = send(&c, &[], &initialize()).await;
        if r.status == 200 {
            back.insert(c.replica(&r.headers));
        } else {
            assert!(
                Instant::now() < deadline,
                "not back: {} {}",
                r.status,
                r.body
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let fresh = session(&c).await;
    for i in 0..3 {
        let r = send(&c, &legacy(&fresh), &add(50 + i)).await;
        assert_eq!(r.status, 200, "{}", r.body);
        let r = send(&c, &legacy(&sid), &add(60 + i)).await;
        assert_eq!(r.status, 200, "the old session, kept by Redis: {}", r.body);
    }
    eprintln!("step 5: 503 without Redis, 2026-07-28 served, back without restarts");

    // 6. A session nobody knows, or one the client ended (the SDK's DELETE), is a 404 on
    // every replica, never a 401.
    for id in ["0123456789abcdef0123456789abcdef", sdk_sid.as_str()] {
        for _ in 0..REPLICAS {
            let r = send(&c, &legacy(id), &add(7)).await;
            assert_eq!(r.status, 404, "{id}: {}", r.body);
        }
    }
    eprintln!("step 6: unknown sessions are 404");

    // 7. A 2026-07-28 multi-round-trip request: the `requestState` sealed by one replica
    // opens on another (one shared key), and its replay on a third is refused (one shared
    // replay guard, in Redis).
    let mut caps = support::envelope();
    caps["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
    let ask = |id: u64, extra: Value| {
        let mut params = json!({"name": "ask_name", "arguments": {}, "_meta": caps.clone()});
        if let Value::Object(m) = extra {
            for (k, v) in m {
                params[k] = v;
            }
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let ah = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ask_name"),
    ];
    let r = send(&c, &ah, &ask(1, json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sealed_on = c.replica(&r.headers);
    let res = &r.json()["result"];
    assert_eq!(res["resultType"], "input_required", "{}", r.body);
    let key = res["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    let answer = json!({
        "inputResponses": {key.as_str(): {"action": "accept", "content": {"name": "Ada", "age": 36}}},
        "requestState": res["requestState"]});
    let r = send(&c, &ah, &ask(2, answer.clone())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let opened_on = c.replica(&r.headers);
    assert_ne!(opened_on, sealed_on, "round-robin: another replica");
    assert_eq!(text(&r), "Hello, Ada (36)!");
    let r = send(&c, &ah, &ask(3, answer)).await;
    let replayed_on = c.replica(&r.headers);
    assert_ne!(replayed_on, opened_on);
    assert_eq!(
        r.json()["error"]["message"],
        "Invalid or expired requestState",
        "{}",
        r.body
    );
    eprintln!(
        "step 7: requestState sealed on {sealed_on}, opened on {opened_on}, replay refused on {replayed_on}"
    );

    // 8. A resource update on one replica reaches the subscribers every replica holds (the
    // Redis bus): 2026-07-28 listen streams and the GET streams of legacy sessions that
    // subscribed (through whichever replica) to the note.
    let streams = subscribers(&c).await;
    // A probe until every stream hears one: each replica's bus is subscribed again after
    // step 5's Redis restart (within its reconnect backoff).
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut probes = 0;
    let mut heard = vec![0; streams.len()];
    let mut streams = streams;
    while heard.contains(&0) {
        assert!(
            Instant::now() < deadline,
            "probes not heard: {heard:?} {:?}",
            streams
                .iter()
                .map(|s| (s.kind, s.replica, &s.buf))
                .collect::<Vec<_>>()
        );
        probes += 1;
        touch(&c, 0, 100 + probes).await;
        for (s, n) in streams.iter_mut().zip(&mut heard) {
            *n = s.updates_within(PROBE, 1, Duration::from_millis(500)).await;
        }
    }
    // The update, once, through one replica.
    let touched_on = touch(&c, 7, 200).await;
    for s in &mut streams {
        assert_eq!(
            s.updates_within(NOTE, 1, Duration::from_secs(10)).await,
            1,
            "{} stream on replica {} hears the update made on replica {touched_on}",
            s.kind,
            s.replica
        );
    }
    // A last probe behind it: no stream got the update twice meanwhile (say, a replica
    // hearing its own publication back from Redis).
    touch(&c, 0, 300).await;
    for s in &mut streams {
        let probes_seen = s.updates(PROBE);
        s.updates_within(PROBE, probes_seen + 1, Duration::from_secs(10))
            .await;
        assert_eq!(s.updates(NOTE), 1, "{} on {}: {}", s.kind, s.replica, s.buf);
    }
    for kind in ["listen", "legacy"] {
        assert!(
            streams
                .iter()
                .any(|s| s.kind == kind && s.replica != touched_on),
            "a {kind} stream on a replica other than {touched_on}: {:?}",
            streams
                .iter()
                .map(|s| (s.kind, s.replica))
                .collect::<Vec<_>>()
        );
    }
    eprintln!(
        "step 8: note updated on replica {touched_on}, heard on {:?}",
        streams
            .iter()
            .map(|s| (s.kind, s.replica))
            .collect::<Vec<_>>()
    );

    // 9. A legacy elicitation asked by one replica and answered through another: the
    // answer is relayed over Redis to the replica whose call waits for it.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "cluster-test", "version": "1"}}});
    let r = send(&c, &[], &init).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let asker = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(send(&c, &legacy(&asker), &note).await.status, 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "ask_name", "arguments": {}}});
    let r = open(&c, "POST", &legacy(&asker), Some(&call)).await;
    assert_eq!(r.status(), 200);
    let asked_on = c.replica(r.headers());
    let mut body = r.into_body();
    let mut buf = String::new();
    let elicitation = |ev: &[Event]| {
        ev.iter()
            .map(Event::json)
            .find(|m| m["method"] == "elicitation/create")
    };
    read(&mut body, &mut buf, |ev| elicitation(ev).is_some()).await;
    let ask = elicitation(&parse(&buf)).unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"name": "Ada", "age": 36}}});
    let r = send(&c, &legacy(&asker), &answer).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let answered_on = c.replica(&r.headers);
    assert_ne!(answered_on, asked_on, "round-robin: another replica");
    read(&mut body, &mut buf, |ev| answers(ev, 2) > 0).await;
    let result = parse(&buf)
        .iter()
        .map(Event::json)
        .find(|m| m["id"] == 2)
        .unwrap();
    assert_eq!(result["result"]["content"][0]["text"], "Hello, Ada (36)!");
    eprintln!("step 9: elicitation asked on replica {asked_on}, answered through {answered_on}");

    // 10. Tasks in Redis: a task runs on one replica, the others poll it, answer its input
    // and cancel it, and the one running it stops.
    modern_task_across_replicas(&c).await;
    legacy_task_across_replicas(&c).await;
    eprintln!(
        "step 10: tasks across replicas; all steps in {:?}",
        started.elapsed()
    );
}

/// The answer of a JSON or one-answer SSE response.
fn answer_of(r: &Resp) -> Value {
    if r.body.starts_with('{') {
        return r.json();
    }
    r.events()
        .into_iter()
        .find(|e| e.get("id").is_some())
        .unwrap_or_else(|| panic!("an answer: {}", r.body))
}

/// A 2026-07-28 request declaring elicitation and the tasks extension.
async fn modern_call(c: &Cluster, id: u64, method: &str, params: Value) -> Resp {
    let mut meta = support::envelope();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({
        "elicitation": {"form": {}},
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    });
    let mut params = params;
    params["_meta"] = meta;
    // Mcp-Name: the tool's name, or the task's id.
    let name = params["name"]
        .as_str()
        .or(params["taskId"].as_str())
        .unwrap_or_default()
        .to_owned();
    let mut h = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if !name.is_empty() {
        h.push(("mcp-name", &name));
    }
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let r = send(c, &h, &body).await;
    assert_eq!(r.status, 200, "{method}: {}", r.body);
    r
}

/// Sends `filler` until a response comes from `replica`: round-robin then sends the next
/// request to another one.
async fn after(c: &Cluster, replica: u16, filler: impl AsyncFn() -> Resp) {
    for _ in 0..=2 * REPLICAS {
        if c.replica(&filler().await.headers) == replica {
            return;
        }
    }
    panic!("replica {replica} never answered");
}

/// `stopped_approvals` summed over the replicas (`stats` called until each answered).
async fn stopped_approvals(c: &Cluster) -> u64 {
    let mut by_replica = std::collections::HashMap::new();
    for i in 0..4 * REPLICAS {
        let r = modern_call(
            c,
            900 + u64::from(i),
            "tools/call",
            json!({"name": "stats"}),
        )
        .await;
        let n = r.json()["result"]["structuredContent"]["stopped_approvals"]
            .as_u64()
            .unwrap_or_else(|| panic!("stats: {}", r.body));
        by_replica.insert(c.replica(&r.headers), n);
        if by_replica.len() == usize::from(REPLICAS) {
            return by_replica.values().sum();
        }
    }
    panic!("stats not served by every replica: {by_replica:?}");
}

/// Polls 2026-07-28 `tasks/get` through nginx until `done`: the task and every replica that
/// answered.
async fn poll_modern(
    c: &Cluster,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> (Value, HashSet<u16>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = HashSet::new();
    loop {
        let r = modern_call(c, 800, "tasks/get", json!({"taskId": id})).await;
        seen.insert(c.replica(&r.headers));
        let task = r.json()["result"].clone();
        if done(&task) {
            return (task, seen);
        }
        assert!(Instant::now() < deadline, "task {id}: {task}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// 2026-07-28: `approve` becomes a task on one replica; its question is read and answered
/// (`tasks/update`) through others, and the result read back; a second one is cancelled
/// through another replica while it waits, and the replica running it stops it.
async fn modern_task_across_replicas(c: &Cluster) {
    let before = stopped_approvals(c).await;
    let start = |id: u64, change: &str| {
        let args = json!({"change": change, "wait_ms": 200});
        modern_call(
            c,
            id,
            "tools/call",
            json!({"name": "approve", "arguments": args}),
        )
    };
    let r = start(10, "8a").await;
    let res = r.json()["result"].clone();
    assert_eq!(res["resultType"], "task", "{}", r.body);
    let runs_on = c.replica(&r.headers);
    let id = res["taskId"].as_str().unwrap().to_owned();
    let (task, seen) = poll_modern(c, &id, |t| t["status"] == "input_required").await;
    let key = task["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let get = || modern_call(c, 11, "tasks/get", json!({"taskId": id}));
    after(c, runs_on, get).await;
    let answer = json!({"taskId": id, "inputResponses": {
        key.as_str(): {"action": "accept", "content": {"approved": true}}}});
    let r = modern_call(c, 12, "tasks/update", answer).await;
    let answered_on = c.replica(&r.headers);
    assert_ne!(
        answered_on, runs_on,
        "the input answered on another replica"
    );
    assert_eq!(r.json()["result"]["resultType"], "complete", "{}", r.body);
    let (done, seen_done) = poll_modern(c, &id, |t| t["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "8a: applied",
        "{done}"
    );
    let pollers: HashSet<u16> = seen.union(&seen_done).copied().collect();
    assert!(pollers.iter().any(|&n| n != runs_on), "{pollers:?}");

    let r = start(13, "8b").await;
    let runs_on_b = c.replica(&r.headers);
    let id = r.json()["result"]["taskId"].as_str().unwrap().to_owned();
    poll_modern(c, &id, |t| t["status"] == "input_required").await;
    let get = || modern_call(c, 14, "tasks/get", json!({"taskId": id}));
    after(c, runs_on_b, get).await;
    let r = modern_call(c, 15, "tasks/cancel", json!({"taskId": id})).await;
    let cancelled_on = c.replica(&r.headers);
    assert_ne!(cancelled_on, runs_on_b);
    let (task, _) = poll_modern(c, &id, |t| t["status"] != "input_required").await;
    assert_eq!(task["status"], "cancelled", "{task}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while stopped_approvals(c).await != before + 1 {
        assert!(
            Instant::now() < deadline,
            "replica {runs_on_b} did not stop the task"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "step 10a: 2026 task on {runs_on}, answered on {answered_on}, polled on {pollers:?}; \
         task on {runs_on_b} cancelled on {cancelled_on}, stopped on {runs_on_b}"
    );
}

/// 2025-11-25: a task-augmented `approve` runs on one replica; `tasks/get`, `tasks/cancel`
/// and `tasks/result` of the session go to others, and the replica running it stops it.
async fn legacy_task_across_replicas(c: &Cluster) {
    let before = stopped_approvals(c).await;
    let sid = session(c).await;
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
        "name": "approve", "arguments": {"change": "8c", "wait_ms": 30000},
        "task": {"ttl": 60000}}});
    let r = send(c, &legacy(&sid), &call).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let runs_on = c.replica(&r.headers);
    let task = answer_of(&r)["result"]["task"].clone();
    assert_eq!(task["status"], "working", "{}", r.body);
    let id = task["taskId"].as_str().unwrap().to_owned();
    let method =
        |n: u64, m: &str| json!({"jsonrpc": "2.0", "id": n, "method": m, "params": {"taskId": id}});
    let get = async || send(c, &legacy(&sid), &method(21, "tasks/get")).await;
    after(c, runs_on, get).await;
    let r = get().await;
    let polled_on = c.replica(&r.headers);
    assert_ne!(polled_on, runs_on);
    assert_eq!(answer_of(&r)["result"]["status"], "working", "{}", r.body);
    after(c, runs_on, get).await;
    let r = send(c, &legacy(&sid), &method(22, "tasks/cancel")).await;
    let cancelled_on = c.replica(&r.headers);
    assert_ne!(cancelled_on, runs_on);
    assert_eq!(answer_of(&r)["result"]["status"], "cancelled", "{}", r.body);
    let mut results_on = HashSet::new();
    for n in 0..REPLICAS {
        let r = send(c, &legacy(&sid), &method(23 + u64::from(n), "tasks/result")).await;
        results_on.insert(c.replica(&r.headers));
        let err = &answer_of(&r)["error"];
        assert_eq!(err["code"], -32602, "{}", r.body);
        assert!(
            err["message"].as_str().unwrap().contains("cancelled"),
            "{err}"
        );
    }
    assert_eq!(results_on.len(), usize::from(REPLICAS));
    let deadline = Instant::now() + Duration::from_secs(5);
    while stopped_approvals(c).await != before + 1 {
        assert!(
            Instant::now() < deadline,
            "replica {runs_on} did not stop the task"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    eprintln!(
        "step 10b: 2025-11-25 task on {runs_on}, polled on {polled_on}, cancelled on \
         {cancelled_on}, stopped on {runs_on}, its result refused on {results_on:?}"
    );
}

const PROBE: &str = "everything://notes/0";
const NOTE: &str = "everything://notes/7";

/// An open SSE stream that subscribed to [`PROBE`] and [`NOTE`].
struct Subscriber {
    kind: &'static str,
    replica: u16,
    body: Incoming,
    buf: String,
}

impl Subscriber {
    /// How many `notifications/resources/updated` for `uri` arrived so far.
    fn updates(&self, uri: &str) -> usize {
        self.buf
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .filter(|m| m["method"] == "notifications/resources/updated")
            .filter(|m| m["params"]["uri"] == uri)
            .count()
    }

    /// Reads until `n` updates of `uri` arrived or `within` passed; how many arrived.
    async fn updates_within(&mut self, uri: &str, n: usize, within: Duration) -> usize {
        let deadline = tokio::time::Instant::now() + within;
        while self.updates(uri) < n {
            match tokio::time::timeout_at(deadline, self.body.frame()).await {
                Err(_) => break,
                Ok(Some(Ok(f))) => {
                    if let Ok(d) = f.into_data() {
                        self.buf.push_str(&String::from_utf8_lossy(&d));
                    }
                }
                Ok(other) => panic!("{} stream on {} ended: {other:?}", self.kind, self.replica),
            }
        }
        self.updates(uri)
    }
}

/// Listen streams (2026-07-28) and legacy sessions' GET streams, all subscribed to
/// [`PROBE`] and [`NOTE`], until each kind has streams on at least two replicas.
async fn subscribers(c: &Cluster) -> Vec<Subscriber> {
    let mut out: Vec<Subscriber> = Vec::new();
    let spread = |out: &[Subscriber], kind| {
        let on: HashSet<u16> = out
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.replica)
            .collect();
        on.len() >= 2
    };
    let mut id = 1000;
    while !spread(&out, "listen") {
        assert!(out.len() < 8, "listen streams all on one replica");
        id += 1;
        let listen = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": support::modern(json!({"notifications": {"resourceSubscriptions": [PROBE, NOTE]}}))});
        let h = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "subscriptions/listen"),
        ];
        let r = open(c, "POST", &h, Some(&listen)).await;
        assert_eq!(r.status(), 200);
        let mut s = Subscriber {
            kind: "listen",
            replica: c.replica(r.headers()),
            body: r.into_body(),
            buf: String::new(),
        };
        // Subscribed once acknowledged.
        while !s.buf.contains("notifications/subscriptions/acknowledged") {
            let f = tokio::time::timeout(Duration::from_secs(5), s.body.frame())
                .await
                .expect("the acknowledgement within 5 s")
                .expect("the stream stays open")
                .unwrap();
            if let Ok(d) = f.into_data() {
                s.buf.push_str(&String::from_utf8_lossy(&d));
            }
        }
        out.push(s);
    }
    let before = out.len();
    while !spread(&out[before..], "legacy") {
        assert!(out.len() < before + 8, "legacy streams all on one replica");
        let sid = session(c).await;
        for uri in [PROBE, NOTE] {
            id += 1;
            let sub = json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
                "params": {"uri": uri}});
            let r = send(c, &legacy(&sid), &sub).await;
            assert_eq!(r.status, 200, "{}", r.body);
        }
        let r = open(c, "GET", &legacy(&sid), None).await;
        assert_eq!(r.status(), 200);
        out.push(Subscriber {
            kind: "legacy",
            replica: c.replica(r.headers()),
            body: r.into_body(),
            buf: String::new(),
        });
    }
    out
}

/// `touch_note` `note` through nginx (a 2026-07-28 call); the replica that ran it.
async fn touch(c: &Cluster, note: u32, id: u64) -> u16 {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": support::modern(json!({"name": "touch_note", "arguments": {"id": note}}))});
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "touch_note"),
    ];
    let r = send(c, &h, &call).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&r), format!("note {note} touched"));
    c.replica(&r.headers)
}
