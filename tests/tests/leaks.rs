//! Fault tests that count what a server holds: a handler that never returns meets its
//! timeout alone; a client that vanishes mid-stream (legacy session with its GET stream and
//! a streaming call, a 2026 streaming call) leaves no task, handler, session or file
//! descriptor behind; 10,000 connect/disconnect cycles, clean and abrupt, leak nothing.
//!
//! Tasks are the test runtime's live tasks, descriptors the entries of `/proc/self/fd`. The
//! tests of this file run one at a time (they count the whole process's descriptors).

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::ServerOptions;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use serde_json::{Value, json};
use support::Wire;
use support::http::{self, Resp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One test at a time: each counts the descriptors of the whole process.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const V25: &str = "2025-11-25";
const V26: &str = "2026-07-28";

/// Handlers started, and handler futures dropped (finished, cancelled or torn down).
#[derive(Default)]
struct Counts {
    started: AtomicUsize,
    dropped: AtomicUsize,
}

/// Counts its handler as dropped when the handler's future goes away.
struct Alive(Arc<Counts>);

impl Alive {
    fn new(c: &Arc<Counts>) -> Self {
        c.started.fetch_add(1, Ordering::SeqCst);
        Alive(c.clone())
    }
}

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.dropped.fetch_add(1, Ordering::SeqCst);
    }
}

/// `hang` never returns; `ticker` reports progress every 20 ms until torn down; `add` adds.
fn server(counts: &Arc<Counts>, options: ServerOptions) -> Server {
    let (c1, c2) = (counts.clone(), counts.clone());
    Server::builder("leaks", "1")
        .tool(Tool::new("hang"), move |_ctx, _: Value| {
            let alive = Alive::new(&c1);
            async move {
                let _alive = alive;
                std::future::pending::<()>().await;
                Ok(CallToolResult::success(vec![]))
            }
        })
        .tool(Tool::new("ticker"), move |ctx: Context, _: Value| {
            let alive = Alive::new(&c2);
            async move {
                let _alive = alive;
                for i in 0.. {
                    ctx.progress(f64::from(i), None, None).await.ok();
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok(CallToolResult::success(vec![]))
            }
        })
        .tool(Tool::new("add"), |_ctx, a: Value| async move {
            let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            Ok(CallToolResult::success(vec![ContentBlock::text(
                sum.to_string(),
            )]))
        })
        .options(options)
        .build()
}

async fn serve(server: Server, opts: HttpOptions) -> (SocketAddr, LoopbackHttp) {
    let http = LoopbackHttp::start(&server, opts).await.unwrap();
    (http.addr(), http)
}

fn fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Waits (5 s at most) until `now()` is back to `before` or below.
async fn settles(what: &str, before: usize, now: impl Fn() -> usize) {
    for _ in 0..250 {
        if now() <= before {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what}: {} now, {before} before", now());
}

fn call(id: u64, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": args, "_meta": {"progressToken": id}}})
}

fn modern_call(id: u64, name: &str, args: Value) -> Value {
    let mut c = call(id, name, args);
    c["params"]["_meta"] = support::envelope();
    c["params"]["_meta"]["progressToken"] = json!(id);
    c
}

fn modern_headers(name: &str) -> Vec<(&'static str, String)> {
    vec![
        ("mcp-protocol-version", V26.to_owned()),
        ("mcp-method", "tools/call".to_owned()),
        ("mcp-name", name.to_owned()),
    ]
}

/// Writes one request on a new connection and hands the connection back unread: the test
/// decides how much of the answer it reads and when it vanishes.
async fn raw(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, String)],
    body: Option<&Value>,
) -> TcpStream {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1:{}\r\naccept: application/json, text/event-stream\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        addr.port(),
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(req.as_bytes()).await.unwrap();
    tcp
}

/// Reads from `tcp` until `needle` has arrived (5 s at most).
async fn read_until(tcp: &mut TcpStream, needle: &str) -> String {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let read = async {
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(
                n > 0,
                "closed before {needle:?}: {}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buf[..n]);
        }
    };
    tokio::time::timeout(Duration::from_secs(5), read)
        .await
        .unwrap_or_else(|_| panic!("no {needle:?} in 5 s"));
    String::from_utf8_lossy(&seen).into_owned()
}

async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: Value) -> Resp {
    let mut req = http::request(addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    Resp::read(http::send(addr, req, body.to_string()).await).await
}

async fn legacy_session(addr: SocketAddr) -> String {
    let r = post(
        addr,
        &[],
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": V25, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    let r = post(
        addr,
        &[("mcp-session-id", &sid), ("mcp-protocol-version", V25)],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202);
    sid
}

/// A 2026 `tools/call` of `name`, its headers included.
async fn modern_post(addr: SocketAddr, id: u64, name: &str, args: Value) -> Resp {
    let h = modern_headers(name);
    let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
    post(addr, &h, modern_call(id, name, args)).await
}

fn legacy_headers(sid: &str) -> Vec<(&'static str, String)> {
    vec![
        ("mcp-session-id", sid.to_owned()),
        ("mcp-protocol-version", V25.to_owned()),
    ]
}

#[tokio::test]
async fn a_handler_that_never_returns_times_out_without_holding_up_others() {
    let _one = SERIAL.lock().await;
    let counts = Arc::new(Counts::default());
    let options = ServerOptions {
        request_timeout: Some(Duration::from_millis(300)),
        ..Default::default()
    };

    // A byte stream: the quick call is answered first, the hanging one then times out.
    let mut w = Wire::new(server(&counts, options.clone()).serve_in_memory());
    w.initialize(V25).await;
    w.send(&call(1, "hang", json!({}))).await;
    w.send(&call(2, "add", json!({"a": 2, "b": 3}))).await;
    let first = w.recv().await;
    assert_eq!(first["id"], 2, "the quick call is not held up: {first}");
    assert_eq!(first["result"]["content"][0]["text"], "5");
    let timed_out = w.recv().await;
    assert_eq!(timed_out["id"], 1);
    assert_eq!(
        timed_out["error"],
        json!({"code": -32603, "message": "Request timed out"})
    );
    assert_eq!(
        counts.dropped.load(Ordering::SeqCst),
        1,
        "the handler is dropped"
    );

    // HTTP, both eras: the same, and nothing stays in flight.
    let (addr, stop) = serve(server(&counts, options), HttpOptions::default()).await;
    let sid = legacy_session(addr).await;
    let hanging = tokio::spawn(async move {
        let hdrs = [
            ("mcp-session-id", sid.as_str()),
            ("mcp-protocol-version", V25),
        ];
        post(addr, &hdrs, call(1, "hang", json!({}))).await
    });
    let modern = tokio::spawn(modern_post(addr, 2, "hang", json!({})));
    let r = modern_post(addr, 3, "add", json!({"a": 1, "b": 1})).await;
    assert!(!modern.is_finished() && !hanging.is_finished());
    assert_eq!(r.json()["result"]["content"][0]["text"], "2", "{}", r.body);
    let (modern, legacy) = (modern.await.unwrap(), hanging.await.unwrap());
    for (r, id) in [(modern, 2), (legacy, 1)] {
        let answer = r.events().pop().unwrap_or_else(|| r.json());
        assert_eq!(answer["id"], id, "{}", r.body);
        assert_eq!(
            answer["error"]["message"], "Request timed out",
            "{}",
            r.body
        );
    }
    assert_eq!(counts.started.load(Ordering::SeqCst), 3);
    assert_eq!(counts.dropped.load(Ordering::SeqCst), 3);
    drop(stop);
}

#[tokio::test]
async fn a_client_vanishing_mid_stream_releases_everything() {
    let _one = SERIAL.lock().await;
    let counts = Arc::new(Counts::default());
    let opts = HttpOptions {
        session_idle_timeout: Duration::from_millis(400),
        ..Default::default()
    };
    let (addr, stop) = serve(server(&counts, ServerOptions::default()), opts).await;
    // What lives as long as the server (the session reaper, say) is in the baseline.
    let warm = legacy_session(addr).await;
    let r = modern_post(addr, 1, "add", json!({"a": 1, "b": 1})).await;
    assert_eq!(r.status, 200);
    tokio::time::sleep(Duration::from_millis(600)).await; // `warm` expires
    let (fds0, tasks0) = (fds(), tasks());

    // A legacy session with its GET stream and a call streaming progress, a 2026 call
    // streaming progress: all mid-stream when the client vanishes.
    let sid = legacy_session(addr).await;
    let mut get = raw(addr, "GET", &legacy_headers(&sid), None).await;
    read_until(&mut get, "200 OK").await;
    let mut legacy = raw(
        addr,
        "POST",
        &legacy_headers(&sid),
        Some(&call(7, "ticker", json!({}))),
    )
    .await;
    read_until(&mut legacy, "notifications/progress").await;
    let mut modern = raw(
        addr,
        "POST",
        &modern_headers("ticker"),
        Some(&modern_call(8, "ticker", json!({}))),
    )
    .await;
    read_until(&mut modern, "notifications/progress").await;
    assert_eq!(counts.started.load(Ordering::SeqCst), 2);
    assert!(
        fds() > fds0 && tasks() > tasks0,
        "the streams hold something"
    );
    drop((get, legacy, modern));

    // The 2026 call is cancelled at once; the legacy one when its session expires.
    let c = counts.clone();
    settles("handlers running", 0, move || {
        c.started.load(Ordering::SeqCst) - c.dropped.load(Ordering::SeqCst)
    })
    .await;
    settles("file descriptors", fds0, fds).await;
    settles("tasks", tasks0, tasks).await;
    for sid in [sid, warm] {
        let r = post(
            addr,
            &[("mcp-session-id", &sid), ("mcp-protocol-version", V25)],
            json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
        )
        .await;
        assert_eq!(r.status, 404, "session {sid} is gone");
    }
    drop(stop);
}

/// One connect/disconnect cycle of kind `i % 5`.
async fn cycle(addr: SocketAddr, i: usize) {
    match i % 5 {
        // connect, close
        0 => drop(TcpStream::connect(addr).await.unwrap()),
        // half a request line, close
        1 => {
            let mut tcp = TcpStream::connect(addr).await.unwrap();
            tcp.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127")
                .await
                .unwrap();
        }
        // a whole 2026 call, gone before its answer is read
        2 => drop(
            raw(
                addr,
                "POST",
                &modern_headers("add"),
                Some(&modern_call(1, "add", json!({"a": 1}))),
            )
            .await,
        ),
        // a whole 2026 call and its answer
        3 => {
            let mut tcp = raw(
                addr,
                "POST",
                &modern_headers("add"),
                Some(&modern_call(1, "add", json!({"a": 1}))),
            )
            .await;
            read_until(&mut tcp, "\"result\"").await;
        }
        // a legacy session opened and abandoned (evicted or expired later)
        _ => {
            let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": V25, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
            let mut tcp = raw(addr, "POST", &[], Some(&init)).await;
            read_until(&mut tcp, "\"result\"").await;
        }
    }
}

#[tokio::test]
async fn ten_thousand_connect_disconnect_cycles_leak_nothing() {
    let _one = SERIAL.lock().await;
    let counts = Arc::new(Counts::default());
    let opts = HttpOptions {
        session_idle_timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let (addr, stop) = serve(server(&counts, ServerOptions::default()), opts).await;
    let warm = legacy_session(addr).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let (fds0, tasks0) = (fds(), tasks());

    // Sixteen clients at a time, 10,000 cycles in all.
    let mut running = tokio::task::JoinSet::new();
    for i in 0..10_000 {
        if running.len() == 16 {
            running.join_next().await.unwrap().unwrap();
        }
        running.spawn(cycle(addr, i));
    }
    while let Some(done) = running.join_next().await {
        done.unwrap();
    }
    settles("file descriptors", fds0, fds).await;
    settles("tasks", tasks0, tasks).await;
    let r = post(
        addr,
        &[("mcp-session-id", &warm), ("mcp-protocol-version", V25)],
        json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 404, "sessions expire");

    // The byte-stream transport: 10,000 connections opened, used and dropped.
    let server = server(&counts, ServerOptions::default());
    for i in 0..10_000u64 {
        let mut w = Wire::new(server.serve_in_memory());
        if i % 2 == 0 {
            w.initialize(V25).await;
        }
    }
    settles("tasks after the byte streams", tasks0, tasks).await;
    settles("file descriptors after the byte streams", fds0, fds).await;
    drop(stop);
}
