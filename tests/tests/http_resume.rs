//! Resumability of legacy Streamable HTTP through a real HTTP client on loopback: an SSE
//! connection dropped mid-stream and resumed with `Last-Event-ID` delivers every event
//! exactly once and then the response; 2025-11-25 polling (priming event, `retry:`, the
//! server closing the connection); the standalone GET stream; 2026 ignores it all.

mod support;

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::CancellationToken;
use mcp::prelude::*;
use mcp::transport::http::{HttpHandle, HttpOptions, SseStreamControl};
use serde_json::{Value, json};
use support::http;

#[derive(serde::Deserialize)]
struct NoArgs {}

/// Emits 8 `notifications/message` on the session's standalone stream when it sees the
/// `test/emit` notification.
struct Emitter;

impl Middleware for Emitter {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "test/emit" {
            let peer = ctx.peer().clone();
            tokio::spawn(async move {
                for i in 1..=8 {
                    tokio::time::sleep(Duration::from_millis(40)).await;
                    let p = serde_json::value::to_raw_value(&json!({"level": "info", "data": i}))
                        .unwrap();
                    peer.notify_raw("notifications/message", Some(&p))
                        .await
                        .unwrap();
                }
            });
            return Ok(mcp::Reply::None);
        }
        next.run(ctx).await
    }
}

fn server() -> Server<impl mcp::middleware::Chain> {
    Server::builder("resume-test", "1.0.0")
        .tool(
            Tool::new("ticker").with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                for i in 1..=10 {
                    tokio::time::sleep(Duration::from_millis(40)).await;
                    ctx.progress(f64::from(i), Some(10.0), None).await.ok();
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("ticked")]))
            },
        )
        .tool(
            Tool::new("test_reconnection")
                .with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let Some(control) = ctx.extensions().get::<SseStreamControl>().cloned() else {
                    return Ok(CallToolResult::success(vec![ContentBlock::text(
                        "no control",
                    )]));
                };
                tokio::time::sleep(Duration::from_millis(50)).await;
                control.close_connection().await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                ctx.progress(1.0, None, None).await.ok();
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "reconnected",
                )]))
            },
        )
        .middleware(Emitter)
        .without_tracing()
        .build()
}

struct Running {
    addr: SocketAddr,
    handle: HttpHandle,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn start(opts: HttpOptions) -> Running {
    let (router, handle) = server().http_router(opts);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move {
        mcp::transport::http::axum::serve(listener, router)
            .with_graceful_shutdown(async move { st.cancelled().await })
            .await
    });
    Running { addr, handle, stop }
}

async fn open(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> hyper::Response<hyper::body::Incoming> {
    let mut b = http::request(addr, method, "/mcp");
    if body.is_some() {
        b = b
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
    } else {
        b = b.header("accept", "text/event-stream");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    http::send(addr, b, body.map(|b| b.to_string()).unwrap_or_default()).await
}

async fn text(r: hyper::Response<hyper::body::Incoming>) -> String {
    let b = tokio::time::timeout(Duration::from_secs(10), r.into_body().collect())
        .await
        .expect("body in time")
        .unwrap()
        .to_bytes();
    String::from_utf8_lossy(&b).into_owned()
}

#[derive(Debug, Clone, Default)]
struct Event {
    id: Option<String>,
    retry: Option<String>,
    data: String,
}

impl Event {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// The complete events in `buf` (comments skipped).
fn parse(buf: &str) -> Vec<Event> {
    let complete = match buf.rfind("\n\n") {
        Some(i) => &buf[..i],
        None => return Vec::new(),
    };
    complete
        .split("\n\n")
        .filter(|b| b.lines().any(|l| !l.starts_with(':')))
        .map(|b| {
            let mut e = Event::default();
            let mut data = Vec::new();
            for l in b.lines() {
                if let Some(v) = l.strip_prefix("id: ") {
                    e.id = Some(v.to_owned());
                } else if let Some(v) = l.strip_prefix("retry: ") {
                    e.retry = Some(v.to_owned());
                } else if let Some(v) = l.strip_prefix("data: ") {
                    data.push(v);
                } else if l == "data:" {
                    data.push("");
                }
            }
            e.data = data.join("\n");
            e
        })
        .collect()
}

/// Reads until `until` holds for the events so far.
async fn read_until(
    body: &mut hyper::body::Incoming,
    buf: &mut String,
    until: impl Fn(&[Event]) -> bool,
) -> Vec<Event> {
    loop {
        let ev = parse(buf);
        if until(&ev) {
            return ev;
        }
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("event in time")
            .expect("stream open")
            .unwrap();
        if let Ok(d) = frame.into_data() {
            buf.push_str(&String::from_utf8_lossy(&d));
        }
    }
}

/// Reads to the end of the stream.
async fn read_to_end(mut body: hyper::body::Incoming, mut buf: String) -> Vec<Event> {
    loop {
        match tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("stream ends in time")
        {
            None => return parse(&buf),
            Some(f) => {
                if let Ok(d) = f.unwrap().into_data() {
                    buf.push_str(&String::from_utf8_lossy(&d));
                }
            }
        }
    }
}

async fn session(addr: SocketAddr, version: &str) -> String {
    let r = open(
        addr,
        "POST",
        &[],
        Some(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        ),
    )
    .await;
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    text(r).await;
    let r = open(
        addr,
        "POST",
        &[("mcp-session-id", &sid), ("mcp-protocol-version", version)],
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status(), 202);
    sid
}

fn ticker_call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "ticker", "arguments": {}, "_meta": {"progressToken": "t"}}})
}

fn progress_values(ev: &[Event]) -> Vec<f64> {
    ev.iter()
        .map(Event::json)
        .filter(|m| m["method"] == "notifications/progress")
        .map(|m| m["params"]["progress"].as_f64().unwrap())
        .collect()
}

fn is_response(e: &Event, id: u64) -> bool {
    let m = e.json();
    m["id"] == id && m.get("result").is_some()
}

fn expected_ticks() -> Vec<f64> {
    (1..=10).map(f64::from).collect()
}

#[tokio::test]
async fn dropped_post_stream_resumes_with_every_event_exactly_once() {
    let s = start(HttpOptions::default()).await;
    let sid = session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = open(s.addr, "POST", &h, Some(ticker_call(2))).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut body = r.into_body();
    let mut buf = String::new();
    // The priming event, then three progress notifications; then the connection drops.
    let first = read_until(&mut body, &mut buf, |ev| ev.len() >= 4).await;
    drop(body);
    assert_eq!(first[0].data, "", "priming event: empty data");
    assert_eq!(first[0].retry.as_deref(), Some("1000"));
    assert!(first.iter().all(|e| e.id.is_some()), "{first:?}");
    let last = first.last().unwrap().id.clone().unwrap();
    // The tool goes on while nobody listens.
    tokio::time::sleep(Duration::from_millis(150)).await;

    let mut rh = h.to_vec();
    rh.push(("last-event-id", &last));
    let r = open(s.addr, "GET", &rh, None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let rest = read_to_end(r.into_body(), String::new()).await;
    assert!(is_response(rest.last().unwrap(), 2), "{rest:?}");
    assert_eq!(
        rest.last().unwrap().json()["result"]["content"][0]["text"],
        "ticked"
    );

    let mut all = first.clone();
    all.extend(rest.iter().cloned());
    assert_eq!(
        progress_values(&all),
        expected_ticks(),
        "each event exactly once"
    );
    let ids: std::collections::HashSet<_> = all.iter().map(|e| e.id.clone().unwrap()).collect();
    assert_eq!(ids.len(), all.len(), "unique ids");
    assert_eq!(all.iter().filter(|e| is_response(e, 2)).count(), 1);
    // Every id names the same stream.
    let stream = |id: &str| id.rsplit_once('-').unwrap().0.to_owned();
    assert!(
        all.iter()
            .all(|e| stream(e.id.as_ref().unwrap()) == stream(&last))
    );

    // Resuming again after the response: nothing more, the stream ends.
    let final_id = rest.last().unwrap().id.clone().unwrap();
    let mut rh = h.to_vec();
    rh.push(("last-event-id", &final_id));
    let r = open(s.addr, "GET", &rh, None).await;
    assert_eq!(r.status(), 200);
    assert!(read_to_end(r.into_body(), String::new()).await.is_empty());

    assert!(s.handle.stats().events_buffered > 0);
    let r = open(s.addr, "DELETE", &h, None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(s.handle.stats().events_buffered, 0);
}

#[tokio::test]
async fn polling_server_closes_after_priming_and_the_client_resumes_by_get() {
    let s = start(HttpOptions {
        sse_close_after: Some(Duration::ZERO),
        sse_retry: Some(Duration::from_millis(250)),
        ..HttpOptions::default()
    })
    .await;
    let sid = session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = open(s.addr, "POST", &h, Some(ticker_call(3))).await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let ev = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(ev.len(), 1, "only the priming event: {ev:?}");
    assert_eq!(ev[0].data, "");
    assert_eq!(ev[0].retry.as_deref(), Some("250"));
    let mut last = ev[0].id.clone().unwrap();

    // Poll until the response arrives; each GET resumes where the last one stopped.
    let mut all = Vec::new();
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut rh = h.to_vec();
        rh.push(("last-event-id", &last));
        let r = open(s.addr, "GET", &rh, None).await;
        assert_eq!(r.status(), 200);
        let mut body = r.into_body();
        let mut buf = String::new();
        // Take what is there (at least one event), then drop the connection.
        let got = read_until(&mut body, &mut buf, |ev| !ev.is_empty()).await;
        drop(body);
        last = got.last().unwrap().id.clone().unwrap();
        let done = got.iter().any(|e| is_response(e, 3));
        all.extend(got);
        if done {
            break;
        }
    }
    assert_eq!(progress_values(&all), expected_ticks());
    assert_eq!(all.iter().filter(|e| is_response(e, 3)).count(), 1);
    assert!(is_response(all.last().unwrap(), 3));
}

#[tokio::test]
async fn standalone_get_stream_resumes() {
    let s = start(HttpOptions::default()).await;
    let sid = session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = open(s.addr, "GET", &h, None).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let ev = read_until(&mut body, &mut buf, |ev| !ev.is_empty()).await;
    assert_eq!(ev[0].data, "", "priming event");
    assert!(ev[0].id.is_some());

    let r = open(
        s.addr,
        "POST",
        &h,
        Some(json!({"jsonrpc": "2.0", "method": "test/emit"})),
    )
    .await;
    assert_eq!(r.status(), 202);
    let first = read_until(&mut body, &mut buf, |ev| ev.len() >= 4).await;
    drop(body);
    let last = first.last().unwrap().id.clone().unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let mut rh = h.to_vec();
    rh.push(("last-event-id", &last));
    let r = open(s.addr, "GET", &rh, None).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let already = first.len() - 1;
    let rest = read_until(&mut body, &mut buf, |ev| ev.len() + already >= 8).await;
    let data: Vec<i64> = first[1..]
        .iter()
        .chain(rest.iter())
        .map(|e| e.json()["params"]["data"].as_i64().unwrap())
        .collect();
    assert_eq!(
        data,
        (1..=8).collect::<Vec<_>>(),
        "each message exactly once"
    );
    // Nothing else comes.
    let more = tokio::time::timeout(Duration::from_millis(200), body.frame()).await;
    assert!(more.is_err(), "no further events");
}

#[tokio::test]
async fn older_revisions_get_ids_without_priming_and_ids_are_checked() {
    let s = start(HttpOptions::default()).await;
    let sid = session(s.addr, "2025-06-18").await;
    let other = session(s.addr, "2025-06-18").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let r = open(s.addr, "POST", &h, Some(ticker_call(4))).await;
    let ev = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(ev.len(), 11, "no priming event: {ev:?}");
    assert!(ev.iter().all(|e| e.id.is_some() && e.retry.is_none()));
    let id = ev[3].id.clone().unwrap();

    // Another session's event id, and an unknown one: 400.
    let oh = [
        ("mcp-session-id", other.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
        ("last-event-id", id.as_str()),
    ];
    assert_eq!(open(s.addr, "GET", &oh, None).await.status(), 400);
    let mut bad = h.to_vec();
    bad.push(("last-event-id", "nope-7"));
    assert_eq!(open(s.addr, "GET", &bad, None).await.status(), 400);
    // The right session gets the rest.
    let mut ok = h.to_vec();
    ok.push(("last-event-id", id.as_str()));
    let r = open(s.addr, "GET", &ok, None).await;
    let rest = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(rest.len(), 7);
    assert!(is_response(rest.last().unwrap(), 4));
}

#[tokio::test]
async fn modern_requests_ignore_last_event_id() {
    let s = start(HttpOptions::default()).await;
    let mut call = ticker_call(5);
    call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
    call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({});
    call["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] =
        json!({"name": "t", "version": "1"});
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "ticker"),
        ("last-event-id", "whatever-3"),
    ];
    let r = open(s.addr, "POST", &h, Some(call)).await;
    assert_eq!(r.status(), 200);
    let ev = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(ev.len(), 11);
    assert!(ev.iter().all(|e| e.id.is_none()), "no ids on 2026 streams");
    let r = open(
        s.addr,
        "GET",
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("last-event-id", "whatever-3"),
        ],
        None,
    )
    .await;
    assert_eq!(r.status(), 405);
}

#[tokio::test]
async fn without_an_event_store_streams_carry_no_ids() {
    let s = start(HttpOptions {
        event_store: None,
        ..HttpOptions::default()
    })
    .await;
    let sid = session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = open(s.addr, "POST", &h, Some(ticker_call(6))).await;
    let ev = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(ev.len(), 11);
    assert!(ev.iter().all(|e| e.id.is_none()));
    // Last-Event-ID is then ignored: a plain stream.
    let mut rh = h.to_vec();
    rh.push(("last-event-id", "x-1"));
    assert_eq!(open(s.addr, "GET", &rh, None).await.status(), 200);
    assert_eq!(s.handle.stats().events_buffered, 0);
}

#[tokio::test]
async fn a_handler_closes_its_stream_and_the_client_resumes() {
    let s = start(HttpOptions::default()).await;
    let sid = session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_reconnection", "arguments": {}, "_meta": {"progressToken": 1}}});
    let r = open(s.addr, "POST", &h, Some(call.clone())).await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let ev = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(ev.len(), 1, "the priming event, then the close: {ev:?}");
    assert_eq!(ev[0].data, "");
    assert_eq!(ev[0].retry.as_deref(), Some("1000"));
    let last = ev[0].id.clone().unwrap();
    let mut rh = h.to_vec();
    rh.push(("last-event-id", &last));
    let r = open(s.addr, "GET", &rh, None).await;
    let rest = read_to_end(r.into_body(), String::new()).await;
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert_eq!(rest[0].json()["method"], "notifications/progress");
    assert!(is_response(&rest[1], 7));
    assert_eq!(
        rest[1].json()["result"]["content"][0]["text"],
        "reconnected"
    );

    // Only 2025-11-25 sessions (which prime their streams) get the control.
    let old = session(s.addr, "2025-06-18").await;
    let r = open(
        s.addr,
        "POST",
        &[
            ("mcp-session-id", old.as_str()),
            ("mcp-protocol-version", "2025-06-18"),
        ],
        Some(call),
    )
    .await;
    let body = text(r).await;
    assert!(body.contains("no control"), "{body}");
}

/// A stream cut before its answer, whose events (the answer among them) were then evicted:
/// resuming it is `410 Gone` with an error the client can act on, never a 200 that leaves
/// the call waiting. A stream that lost events but still holds its answer gets it.
#[tokio::test]
async fn a_resume_whose_answer_was_evicted_is_410_gone() {
    // Two events per session: three ticker calls (eleven events each) push out the first
    // call's answer, and all but the answer of the second.
    let store = std::sync::Arc::new(mcp::session::InMemoryEventStore::new(2));
    let s = start(HttpOptions {
        event_store: Some(store),
        ..HttpOptions::default()
    })
    .await;
    let sid = session(s.addr, "2025-06-18").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let mut first_ids = Vec::new();
    for call in 1..=3 {
        let r = open(s.addr, "POST", &h, Some(ticker_call(call))).await;
        let ev = read_to_end(r.into_body(), String::new()).await;
        assert!(is_response(ev.last().unwrap(), call), "{ev:?}");
        first_ids.push(ev[0].id.clone().unwrap());
    }
    let resume = async |last: &str| {
        let mut with = h.to_vec();
        with.push(("last-event-id", last));
        open(s.addr, "GET", &with, None).await
    };
    let r = resume(&first_ids[0]).await;
    assert_eq!(r.status(), 410);
    let body: Value = serde_json::from_str(&text(r).await).unwrap();
    assert_eq!(body["error"]["code"], -32000, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("send the request again"),
        "{body}"
    );
    // The second call lost its progress but kept its answer: that is delivered.
    let r = resume(&first_ids[1]).await;
    assert_eq!(r.status(), 200);
    let rest = read_to_end(r.into_body(), String::new()).await;
    assert!(is_response(rest.last().unwrap(), 2), "{rest:?}");
}
