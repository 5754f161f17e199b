//! Graceful shutdown of `serve_http_on` through a real HTTP client on loopback: when the
//! stop token fires, answers in flight still arrive on their SSE streams (2025 and 2026
//! POSTs, the 2024-11-05 session stream), standalone GET streams end cleanly, no new
//! connection is taken, and what outlives the grace period is cancelled and answered with
//! a "shutting down" error.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::CancellationToken;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use serde_json::{Value, json};
use support::http;
use tokio::sync::Notify;

#[derive(serde::Deserialize)]
struct NoArgs {}

/// `slow` reports progress, then waits for `release` before it answers.
#[derive(Default)]
struct Gate {
    release: Notify,
    started: AtomicUsize,
    finished: AtomicUsize,
    cancelled: AtomicUsize,
}

struct CountDrop(Arc<Gate>, bool);

impl Drop for CountDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn server(gate: Arc<Gate>) -> Server {
    Server::builder("shutdown-test", "1.0.0")
        .tool(
            Tool::new("slow").with_input_schema(json!({"type": "object", "properties": {}})),
            move |ctx: Context, _: NoArgs| {
                let gate = gate.clone();
                async move {
                    let mut guard = CountDrop(gate.clone(), false);
                    gate.started.fetch_add(1, Ordering::SeqCst);
                    ctx.progress(1.0, Some(2.0), None).await.ok();
                    gate.release.notified().await;
                    guard.1 = true;
                    gate.finished.fetch_add(1, Ordering::SeqCst);
                    Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
                }
            },
        )
        .without_tracing()
        .build()
}

struct Running {
    addr: SocketAddr,
    stop: CancellationToken,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
    gate: Arc<Gate>,
}

async fn start(grace: Duration) -> Running {
    let gate = Arc::new(Gate::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = HttpOptions {
        shutdown_grace: grace,
        legacy_sse: Some(("/sse".into(), "/messages".into())),
        ..HttpOptions::default()
    };
    let s = server(gate.clone());
    let stop = CancellationToken::new();
    let st = stop.clone();
    let served = tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    Running {
        addr,
        stop,
        served,
        gate,
    }
}

async fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> hyper::Response<hyper::body::Incoming> {
    let mut b =
        http::request(addr, method, path).header("accept", "application/json, text/event-stream");
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    http::send(addr, b, body.map(|b| b.to_string()).unwrap_or_default()).await
}

/// An SSE body being read: its `data` payloads as JSON.
struct Events {
    body: hyper::body::Incoming,
    buf: String,
}

impl Events {
    fn new(r: hyper::Response<hyper::body::Incoming>) -> Self {
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "text/event-stream");
        Self {
            body: r.into_body(),
            buf: String::new(),
        }
    }

    fn parsed(&self) -> Vec<Value> {
        self.buf
            .split("\n\n")
            .filter(|e| e.ends_with('}') || e.contains("data: {"))
            .filter_map(|e| {
                let d: String = e.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
                serde_json::from_str(&d).ok()
            })
            .collect()
    }

    /// Reads until `n` JSON events arrived.
    async fn until(&mut self, n: usize) -> Vec<Value> {
        while self.parsed().len() < n || !self.buf.ends_with("\n\n") {
            let f = tokio::time::timeout(Duration::from_secs(5), self.body.frame())
                .await
                .expect("event in time")
                .expect("stream open")
                .unwrap();
            if let Ok(d) = f.into_data() {
                self.buf.push_str(&String::from_utf8_lossy(&d));
            }
        }
        self.parsed()
    }

    /// Reads to the end: it must be a clean end of the body, not a reset.
    async fn read_to_end(&mut self) {
        loop {
            let f = tokio::time::timeout(Duration::from_secs(5), self.body.frame())
                .await
                .expect("the stream ends in time");
            match f {
                None => return,
                Some(Ok(f)) => {
                    if let Ok(d) = f.into_data() {
                        self.buf.push_str(&String::from_utf8_lossy(&d));
                    }
                }
                Some(Err(e)) => panic!("the stream broke instead of ending: {e}"),
            }
        }
    }
}

fn slow_call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": id}}})
}

fn modern_slow_call(id: u64) -> Value {
    let mut v = slow_call(id);
    v["params"]["_meta"] = json!({
        "progressToken": id,
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    v
}

/// A 2025-06-18 session: its id.
async fn session(addr: SocketAddr) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = open(addr, "POST", "/mcp", &[], Some(&init)).await;
    assert_eq!(r.status(), 200);
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        open(addr, "POST", "/mcp", &h, Some(&note)).await.status(),
        202
    );
    sid
}

async fn wait_for(cond: impl Fn() -> bool) {
    for _ in 0..200 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not met in time");
}

fn result_text(v: &Value) -> &str {
    v["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::test]
async fn stop_drains_answers_in_flight_and_ends_standalone_streams() {
    let s = start(Duration::from_secs(10)).await;
    let a = s.addr;
    let sid = session(a).await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    // The session's standalone GET stream, and a 2025 and a 2026 POST whose tool is
    // mid-way (its progress arrived) when the stop comes.
    let mut get = Events::new(open(a, "GET", "/mcp", &h, None).await);
    let mut legacy = Events::new(open(a, "POST", "/mcp", &h, Some(&slow_call(1))).await);
    let modern_h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "slow"),
    ];
    let mut modern =
        Events::new(open(a, "POST", "/mcp", &modern_h, Some(&modern_slow_call(2))).await);
    assert_eq!(legacy.until(1).await[0]["method"], "notifications/progress");
    assert_eq!(modern.until(1).await[0]["method"], "notifications/progress");
    wait_for(|| s.gate.started.load(Ordering::SeqCst) == 2).await;

    s.stop.cancel();
    // The standalone stream ends cleanly at once.
    get.read_to_end().await;
    // No new connection is taken.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        tokio::net::TcpStream::connect(a).await.is_err(),
        "the listener is closed"
    );
    assert!(!s.served.is_finished(), "answers are still in flight");

    // The tools finish: both answers arrive, then their streams end.
    s.gate.release.notify_waiters();
    let ev = legacy.until(2).await;
    assert_eq!(ev[1]["id"], 1);
    assert_eq!(result_text(&ev[1]), "done");
    legacy.read_to_end().await;
    let ev = modern.until(2).await;
    assert_eq!(ev[1]["id"], 2);
    assert_eq!(result_text(&ev[1]), "done");
    modern.read_to_end().await;

    let r = tokio::time::timeout(Duration::from_secs(5), s.served)
        .await
        .expect("serve returns once drained");
    r.unwrap().unwrap();
    assert_eq!(s.gate.finished.load(Ordering::SeqCst), 2);
    assert_eq!(s.gate.cancelled.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_2024_11_05_stream_carries_its_answers_then_ends() {
    let s = start(Duration::from_secs(10)).await;
    let a = s.addr;
    let r = open(a, "GET", "/sse", &[], None).await;
    let mut sse = Events {
        body: r.into_body(),
        buf: String::new(),
    };
    // The endpoint event is not JSON: read until it is there.
    while !sse.buf.contains("sessionId=") || !sse.buf.ends_with("\n\n") {
        let f = sse.body.frame().await.unwrap().unwrap();
        sse.buf
            .push_str(&String::from_utf8_lossy(&f.into_data().unwrap()));
    }
    let endpoint = sse
        .buf
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap()
        .to_owned();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    assert_eq!(
        open(a, "POST", &endpoint, &[], Some(&init)).await.status(),
        202
    );
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        open(a, "POST", &endpoint, &[], Some(&note)).await.status(),
        202
    );
    assert_eq!(
        open(a, "POST", &endpoint, &[], Some(&slow_call(1)))
            .await
            .status(),
        202
    );
    // initialize's answer, then the progress.
    assert_eq!(sse.until(2).await[1]["method"], "notifications/progress");

    s.stop.cancel();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!s.served.is_finished(), "the stream waits for its answer");
    s.gate.release.notify_waiters();
    let ev = sse.until(3).await;
    assert_eq!(ev[2]["id"], 1);
    assert_eq!(result_text(&ev[2]), "done");
    sse.read_to_end().await;
    tokio::time::timeout(Duration::from_secs(5), s.served)
        .await
        .expect("serve returns once drained")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn what_outlives_the_grace_period_is_cancelled() {
    let s = start(Duration::from_millis(300)).await;
    let a = s.addr;
    let modern_h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "slow"),
    ];
    let mut modern =
        Events::new(open(a, "POST", "/mcp", &modern_h, Some(&modern_slow_call(1))).await);
    modern.until(1).await;
    let sid = session(a).await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let mut legacy = Events::new(open(a, "POST", "/mcp", &h, Some(&slow_call(2))).await);
    legacy.until(1).await;

    let t0 = std::time::Instant::now();
    s.stop.cancel();
    tokio::time::timeout(Duration::from_secs(5), s.served)
        .await
        .expect("serve returns after the grace period")
        .unwrap()
        .unwrap();
    assert!(
        t0.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t0.elapsed()
    );
    // Both handlers were cancelled, none finished.
    wait_for(|| s.gate.cancelled.load(Ordering::SeqCst) == 2).await;
    assert_eq!(s.gate.finished.load(Ordering::SeqCst), 0);
    // Each call is answered: an error saying the server is shutting down.
    for (id, mut events) in [(1, modern), (2, legacy)] {
        events.read_to_end().await;
        let last = events.parsed().pop().unwrap();
        assert_eq!(last["id"], id, "{last}");
        assert_eq!(last["error"]["code"], -32000, "{last}");
        let msg = last["error"]["message"].as_str().unwrap();
        assert!(msg.contains("shutting down"), "{msg}");
    }
}

#[tokio::test]
async fn a_mounted_router_refuses_new_requests_while_draining() {
    let gate = Arc::new(Gate::default());
    let opts = HttpOptions {
        legacy_sse: Some(("/sse".into(), "/messages".into())),
        ..HttpOptions::default()
    };
    let (router, handle) = server(gate).http_router(opts);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = listener.local_addr().unwrap();
    let app = mcp::transport::http::axum::Router::new().nest("/api", router);
    tokio::spawn(async move { mcp::transport::http::axum::serve(listener, app).await });
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    assert_eq!(
        open(a, "POST", "/api/mcp", &[], Some(&init)).await.status(),
        200
    );
    handle.drain();
    let r = open(a, "POST", "/api/mcp", &[], Some(&init)).await;
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["connection"], "close");
    assert_eq!(
        handle.stats().sessions,
        1,
        "draining ends no session by itself"
    );
    handle.shutdown();
    assert_eq!(open(a, "GET", "/api/sse", &[], None).await.status(), 503);
}
