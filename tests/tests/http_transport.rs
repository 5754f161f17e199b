//! The HTTP transports through a real HTTP client on loopback: status tables of both
//! eras, DNS-rebinding checks, the body limit, the legacy session lifecycle, SSE for a
//! progress-reporting tool, cancellation on disconnect (2026) and not (legacy), batches,
//! caps, and the 2024-11-05 HTTP+SSE flow.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::CancellationToken;
use mcp::prelude::*;
use mcp::transport::http::{DnsRebinding, HttpOptions};
use serde_json::{Value, json};
use support::http::{self, Resp};

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct SlowArgs {
    ms: u64,
}

#[derive(Default)]
struct Flags {
    cancelled: AtomicUsize,
    completed: AtomicUsize,
}

fn schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn server(flags: Arc<Flags>) -> Server {
    let f2 = flags.clone();
    Server::builder("http-test", "1.0.0")
        .tool(
            Tool::new("echo").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let has_headers = ctx
                    .extensions()
                    .get::<mcp::transport::http::HttpRequest>()
                    .and_then(|r| r.headers.get("x-test"))
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
                    .unwrap_or_default();
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "x-test={has_headers}"
                ))]))
            },
        )
        .tool(
            Tool::new("progress").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                ctx.progress(1.0, Some(2.0), None).await.ok();
                ctx.progress(2.0, Some(2.0), None).await.ok();
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .tool(
            Tool::new("slow").with_input_schema(
                json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
            ),
            move |ctx: Context, a: SlowArgs| {
                let flags = flags.clone();
                async move {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(a.ms)) => {
                            flags.completed.fetch_add(1, Ordering::SeqCst);
                        }
                        _ = ctx.cancellation().cancelled() => {
                            flags.cancelled.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Ok(CallToolResult::success(vec![ContentBlock::text(
                        "slow done",
                    )]))
                }
            },
        )
        .registry(move |_r| {
            let _ = f2;
        })
        .without_tracing()
        .build()
}

struct Running {
    addr: SocketAddr,
    flags: Arc<Flags>,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn start(opts: HttpOptions) -> Running {
    let flags = Arc::new(Flags::default());
    let s = server(flags.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    // The 2024-11-05 transport is opt-in; these tests drive it too.
    let opts = HttpOptions {
        legacy_sse: opts
            .legacy_sse
            .or(Some(("/sse".into(), "/messages".into()))),
        ..opts
    };
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    Running { addr, flags, stop }
}

async fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> hyper::Response<hyper::body::Incoming> {
    let mut b = hyper::Request::builder().method(method).uri(path);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        b = b.header("host", format!("127.0.0.1:{}", addr.port()));
    }
    if body.is_some() {
        b = b
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    http::send(addr, b, body.unwrap_or_default()).await
}

async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<String>,
) -> Resp {
    Resp::read(open(addr, method, path, headers, body).await).await
}

async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: Value) -> Resp {
    call(addr, "POST", "/mcp", headers, Some(body.to_string())).await
}

const V26: &str = "2026-07-28";

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V26,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    })
}

fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = modern_meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn legacy_session(addr: SocketAddr, version: &str) -> String {
    let r = post(
        addr,
        &[],
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["protocolVersion"], version);
    let sid = r.header("mcp-session-id").expect("session id").to_owned();
    assert!(sid.len() >= 32 && sid.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let r = post(
        addr,
        &[("mcp-session-id", &sid), ("mcp-protocol-version", version)],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    sid
}

#[tokio::test]
async fn modern_status_table() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let h = |m: &'static str| vec![("mcp-protocol-version", V26), ("mcp-method", m)];

    // A result: 200 JSON, serverInfo stamped.
    let r = post(a, &h("tools/list"), modern(1, "tools/list", json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.header("mcp-session-id").is_none(), "no session on 2026");
    assert!(r.json()["result"]["tools"].is_array());

    // Header/body mismatch: 400 -32020.
    let r = post(a, &h("tools/call"), modern(2, "tools/list", json!({}))).await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    assert_eq!(r.json()["id"], 2);
    // Missing Mcp-Method: 400 -32020.
    let r = post(
        a,
        &[("mcp-protocol-version", V26)],
        modern(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    // Missing Mcp-Name on tools/call.
    let r = post(
        a,
        &h("tools/call"),
        modern(4, "tools/call", json!({"name": "echo"})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );

    // Unsupported version: 400 -32022 with the supported list.
    let mut body = modern(5, "tools/list", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let r = post(
        a,
        &[
            ("mcp-protocol-version", "2099-01-01"),
            ("mcp-method", "tools/list"),
        ],
        body,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32022))
    );
    assert_eq!(r.json()["error"]["data"]["supported"], json!([V26]));

    // Missing _meta: 400 -32602.
    let r = post(
        a,
        &h("tools/list"),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {}}),
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );

    // Unknown (and removed) methods: 404 -32601.
    for m in ["nope/nothing", "ping", "initialize"] {
        let r = post(a, &h(m), modern(7, m, json!({}))).await;
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (404, json!(-32601)),
            "{m}"
        );
    }

    // A legacy handshake (no envelope) where 2026 is spoken: 400 -32022 naming every
    // revision served (the legacy ones are reached by `initialize` without the 2026
    // header), as on a modern stream (tests/admission.rs).
    let init = json!({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = post(a, &h("initialize"), init).await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32022))
    );
    assert_eq!(
        r.json()["error"]["data"]["supported"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", V26])
    );

    // A notification: 202, no body.
    let r = post(
        a,
        &h("notifications/initialized"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"_meta": modern_meta()}}),
    )
    .await;
    assert_eq!(r.status, 202);

    // Parse error: 400 -32700.
    let r = call(
        a,
        "POST",
        "/mcp",
        &h("tools/list"),
        Some("{not json".into()),
    )
    .await;
    assert_eq!(r.status, 400);
    // GET / DELETE on 2026: 405.
    for m in ["GET", "DELETE"] {
        let r = call(
            a,
            m,
            "/mcp",
            &[
                ("mcp-protocol-version", V26),
                ("accept", "text/event-stream"),
            ],
            None,
        )
        .await;
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.header("allow"), Some("POST"), "{m}");
    }
    // PUT: 405, and this server serves the legacy era too.
    let r = call(a, "PUT", "/mcp", &[], None).await;
    assert_eq!(r.status, 405);
    assert_eq!(r.header("allow"), Some("GET, POST, DELETE"));
    // The 2024-11-05 paths: one method each.
    let r = call(a, "POST", "/sse", &[], Some("{}".into())).await;
    assert_eq!((r.status, r.header("allow")), (405, Some("GET")));
    let r = call(a, "GET", "/messages?sessionId=x", &[], None).await;
    assert_eq!((r.status, r.header("allow")), (405, Some("POST")));

    // The handler sees the HTTP headers.
    let mut hh = h("tools/call");
    hh.push(("mcp-name", "echo"));
    hh.push(("x-test", "yes"));
    let r = post(
        a,
        &hh,
        modern(8, "tools/call", json!({"name": "echo", "arguments": {}})),
    )
    .await;
    assert_eq!(r.json()["result"]["content"][0]["text"], "x-test=yes");
}

#[tokio::test]
async fn modern_only_server_refuses_get_delete_and_initialize() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = Server::builder("m", "1")
        .supported_versions(mcp::version::SupportedVersions::only(&[
            ProtocolVersion::V2026_07_28,
        ]))
        .build();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { s.serve_http_on(listener, HttpOptions::default(), st).await });
    assert_eq!(
        call(
            addr,
            "GET",
            "/mcp",
            &[("accept", "text/event-stream")],
            None
        )
        .await
        .status,
        405
    );
    assert_eq!(
        call(addr, "DELETE", "/mcp", &[("mcp-session-id", "x")], None)
            .await
            .status,
        405
    );
    let r = post(
        addr,
        &[],
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (400, json!(-32022))
    );
    stop.cancel();
}

#[tokio::test]
async fn legacy_session_lifecycle_and_both_eras_on_one_endpoint() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let sid = legacy_session(a, "2025-11-25").await;
    let hs = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let r = post(
        a,
        &hs,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["tools"].as_array().unwrap().len(), 3);

    // A modern request on the same endpoint meanwhile.
    let r = post(
        a,
        &[("mcp-protocol-version", V26), ("mcp-method", "tools/list")],
        modern(3, "tools/list", json!({})),
    )
    .await;
    assert_eq!(r.status, 200);
    assert!(r.json()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());

    // No session header: 400; unknown session: 404; unsupported version header: 400.
    let r = post(
        a,
        &[],
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
    )
    .await;
    assert_eq!(r.status, 400);
    let r = post(
        a,
        &[("mcp-session-id", "nope")],
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}),
    )
    .await;
    assert_eq!(r.status, 404);
    let r = post(
        a,
        &[
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "1999-01-01"),
        ],
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    )
    .await;
    assert_eq!(r.status, 400);
    // No version header: assumed 2025-03-26, still served.
    let r = post(
        a,
        &[("mcp-session-id", &sid)],
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 200);
    // A response from the client: 202.
    let r = post(
        a,
        &hs,
        json!({"jsonrpc": "2.0", "id": "srv-99", "result": {}}),
    )
    .await;
    assert_eq!(r.status, 202);
    // A batch outside 2025-03-26: 400.
    let r = post(
        a,
        &hs,
        json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]),
    )
    .await;
    assert_eq!(r.status, 400);

    // DELETE ends it; then 404 everywhere.
    assert_eq!(call(a, "DELETE", "/mcp", &hs, None).await.status, 200);
    let r = post(
        a,
        &hs,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
    .await;
    assert_eq!(r.status, 404);
    assert_eq!(call(a, "DELETE", "/mcp", &hs, None).await.status, 404);
    let r = call(
        a,
        "GET",
        "/mcp",
        &[("mcp-session-id", &sid), ("accept", "text/event-stream")],
        None,
    )
    .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn batches_in_2025_03_26() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let sid = legacy_session(a, "2025-03-26").await;
    let r = post(
        a,
        &[("mcp-session-id", &sid)],
        json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        ]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let ids: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!(1), json!(2)]);
}

#[tokio::test]
async fn origin_and_host_validation() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let body = modern(1, "tools/list", json!({})).to_string();
    let h = |extra: (&'static str, &'static str)| {
        vec![
            ("mcp-protocol-version", V26),
            ("mcp-method", "tools/list"),
            extra,
        ]
    };
    let r = call(
        a,
        "POST",
        "/mcp",
        &h(("host", "evil.example")),
        Some(body.clone()),
    )
    .await;
    assert_eq!(r.status, 403);
    let r = call(
        a,
        "POST",
        "/mcp",
        &h(("origin", "http://evil.example")),
        Some(body.clone()),
    )
    .await;
    assert_eq!(r.status, 403);
    let r = call(
        a,
        "POST",
        "/mcp",
        &h(("origin", "http://localhost:1234")),
        Some(body.clone()),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = call(a, "GET", "/sse", &[("host", "evil.example")], None).await;
    assert_eq!(r.status, 403);

    // An allow-list.
    let s2 = start(HttpOptions {
        dns_rebinding: DnsRebinding::Allow {
            hosts: vec!["127.0.0.1".into()],
            origins: vec!["https://app.example".into()],
        },
        ..HttpOptions::default()
    })
    .await;
    let r = call(
        s2.addr,
        "POST",
        "/mcp",
        &h(("origin", "https://app.example")),
        Some(body.clone()),
    )
    .await;
    assert_eq!(r.status, 200);
    let r = call(
        s2.addr,
        "POST",
        "/mcp",
        &h(("origin", "http://localhost")),
        Some(body),
    )
    .await;
    assert_eq!(r.status, 403);
}

#[tokio::test]
async fn body_limit_is_413() {
    let s = start(HttpOptions {
        max_body: 1024,
        ..HttpOptions::default()
    })
    .await;
    let big =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(4096)}});
    let r = post(s.addr, &[], big).await;
    assert_eq!(r.status, 413);
}

/// A declared `Content-Length` above the limit is refused at once, before the body: the 413
/// arrives although no byte of the body is ever sent.
#[tokio::test]
async fn a_declared_length_above_the_limit_is_413_before_the_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = start(HttpOptions::default()).await;
    let mut tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 2000000000\r\n\r\n",
        s.addr.port()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let status_line = tokio::time::timeout(Duration::from_secs(2), async {
        let mut buf = [0u8; 1024];
        loop {
            if let Some(end) = got.windows(2).position(|w| w == b"\r\n") {
                return String::from_utf8_lossy(&got[..end]).into_owned();
            }
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed without an answer: {got:?}");
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("no answer within 2 s");
    assert!(status_line.starts_with("HTTP/1.1 413"), "{status_line}");
}

/// What a raw connection hears within `within`: the status line, or `None` when it was
/// closed with no answer.
async fn status_line_or_close(tcp: &mut tokio::net::TcpStream, within: Duration) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    tokio::time::timeout(within, async {
        let mut buf = [0u8; 1024];
        loop {
            if let Some(end) = got.windows(2).position(|w| w == b"\r\n") {
                return Some(String::from_utf8_lossy(&got[..end]).into_owned());
            }
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("still open after {within:?}: {got:?}"))
}

/// Slow clients cannot hold connections: headers that never finish end the connection
/// after `header_read_timeout`, a body that stalls is answered 408.
#[tokio::test]
async fn slow_headers_and_stalled_bodies_time_out() {
    use tokio::io::AsyncWriteExt;
    let s = start(HttpOptions {
        header_read_timeout: Duration::from_millis(300),
        body_idle_timeout: Duration::from_millis(300),
        ..HttpOptions::default()
    })
    .await;
    let mut slowloris = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    slowloris
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let heard = status_line_or_close(&mut slowloris, Duration::from_secs(5)).await;
    assert!(
        heard
            .as_deref()
            .is_none_or(|l| l.starts_with("HTTP/1.1 408")),
        "{heard:?}"
    );

    let mut stalled = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        s.addr.port()
    );
    stalled.write_all(head.as_bytes()).await.unwrap();
    let heard = status_line_or_close(&mut stalled, Duration::from_secs(5)).await;
    assert_eq!(heard.as_deref(), Some("HTTP/1.1 408 Request Timeout"));
}

/// Past `max_connections` with every connection busy (a request in progress: here a body
/// still arriving), a new connection is answered 503 and closed at once, and served again
/// once a connection ends.
#[tokio::test]
async fn connections_beyond_the_cap_hear_503_when_every_one_is_busy() {
    let s = start(HttpOptions {
        max_connections: 2,
        ..HttpOptions::default()
    })
    .await;
    let held: Vec<_> = busy_connections(s.addr, 2).await;
    let mut third = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    let heard = status_line_or_close(&mut third, Duration::from_secs(5)).await;
    assert_eq!(heard.as_deref(), Some("HTTP/1.1 503 Service Unavailable"));
    drop(held);
    // The slots come back once the held connections are closed.
    let mut served = false;
    for _ in 0..50 {
        let r = post(s.addr, &[], modern(1, "tools/list", json!({}))).await;
        if r.status != 503 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        served,
        "never served again after the held connections closed"
    );
}

/// Past `max_connections`, connections that hold a place without using it (idle, or still
/// sending their request head) make room: the oldest is closed and the new client served,
/// while a connection with a request in progress is kept.
#[tokio::test]
async fn at_the_connection_cap_the_oldest_idle_connection_makes_room() {
    use tokio::io::AsyncWriteExt;
    let s = start(HttpOptions {
        max_connections: 3,
        ..HttpOptions::default()
    })
    .await;
    let mut busy = busy_connections(s.addr, 1).await;
    let mut idle = idle_connections(s.addr, 1).await;
    let mut heading = tokio::net::TcpStream::connect(s.addr).await.unwrap();
    heading
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    // Each new client is served within a second, taking the place of the oldest idle one
    // (and keeps its connection open: the next one evicts the older `heading`, not it).
    let mut clients = Vec::new();
    for evicted in [&mut idle[0], &mut heading] {
        let started = std::time::Instant::now();
        let mut tcp = tokio::net::TcpStream::connect(s.addr).await.unwrap();
        let body = modern(1, "tools/list", json!({})).to_string();
        let req = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V26}\r\n\
             Mcp-Method: tools/list\r\nContent-Length: {}\r\n\r\n{body}",
            s.addr.port(),
            body.len()
        );
        tcp.write_all(req.as_bytes()).await.unwrap();
        let heard = status_line_or_close(&mut tcp, Duration::from_secs(5)).await;
        assert_eq!(heard.as_deref(), Some("HTTP/1.1 200 OK"));
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(
            status_line_or_close(evicted, Duration::from_secs(2)).await,
            None,
            "the oldest idle connection was closed"
        );
        clients.push(tcp);
    }
    // The busy connection was kept: its request completes.
    busy[0].write_all(&[b' '; 100]).await.unwrap();
    let heard = status_line_or_close(&mut busy[0], Duration::from_secs(5)).await;
    assert!(
        heard.as_deref().is_some_and(|l| l.starts_with("HTTP/1.1 ")),
        "{heard:?}"
    );
}

/// `n` connections each with a request in progress: its head sent, its body (100 bytes
/// declared) not.
async fn busy_connections(addr: SocketAddr, n: usize) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let mut held = Vec::new();
    for _ in 0..n {
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n",
            addr.port()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        held.push(tcp);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    held
}

/// `n` connections opened and left idle (no request yet), each accepted by the server.
async fn idle_connections(addr: SocketAddr, n: usize) -> Vec<tokio::net::TcpStream> {
    let mut held = Vec::new();
    for _ in 0..n {
        held.push(tokio::net::TcpStream::connect(addr).await.unwrap());
    }
    // Let the accept loop take them before the next one arrives.
    tokio::time::sleep(Duration::from_millis(200)).await;
    held
}

#[tokio::test]
async fn idle_sessions_expire() {
    let s = start(HttpOptions {
        session_idle_timeout: Duration::from_millis(300),
        ..HttpOptions::default()
    })
    .await;
    let sid = legacy_session(s.addr, "2025-06-18").await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let r = post(
        s.addr,
        &[("mcp-session-id", &sid)],
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
    )
    .await;
    assert_eq!(r.status, 404, "expired");
}

/// Sessions opened and abandoned do not lock new clients out: at the cap the least
/// recently used idle session makes room; a busy one (its GET stream open) is kept, and
/// only when every session is busy does `initialize` get 503.
#[tokio::test]
async fn the_session_cap_evicts_the_least_recently_used_idle_session() {
    let s = start(HttpOptions {
        max_sessions: 2,
        ..HttpOptions::default()
    })
    .await;
    let a = s.addr;
    let get_stream = async |sid: &str| {
        let r = open(
            a,
            "GET",
            "/mcp",
            &[("mcp-session-id", sid), ("accept", "text/event-stream")],
            None,
        )
        .await;
        assert_eq!(r.status(), 200);
        r
    };
    let busy = legacy_session(a, "2025-11-25").await;
    let _busy_stream = get_stream(&busy).await;
    // Abandoned sessions, one after the other, each taking the idle one's place.
    for _ in 0..5 {
        legacy_session(a, "2025-11-25").await;
    }
    // The busy session was never the one evicted: it still answers, its stream still open.
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let r = post(
        a,
        &[
            ("mcp-session-id", &busy),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        ping.clone(),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // Had it been evicted (and adopted again from the store), its stream would be gone
    // and a second GET would be let in; it is 409: the first one is still attached.
    let second = call(
        a,
        "GET",
        "/mcp",
        &[("mcp-session-id", &busy), ("accept", "text/event-stream")],
        None,
    )
    .await;
    assert_eq!(second.status, 409);
    // Both sessions busy: a new client is refused, not someone else's session evicted.
    let other = legacy_session(a, "2025-11-25").await;
    let _other_stream = get_stream(&other).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    assert_eq!(post(a, &[], init).await.status, 503);
}

/// One session cannot take every in-flight slot: past its share its requests get 503,
/// while another session is still served.
#[tokio::test]
async fn one_session_gets_only_its_share_of_the_in_flight_slots() {
    let s = start(HttpOptions {
        max_in_flight: 8,
        max_in_flight_per_session: 2,
        ..HttpOptions::default()
    })
    .await;
    let a = s.addr;
    let greedy = legacy_session(a, "2025-11-25").await;
    let other = legacy_session(a, "2025-11-25").await;
    let slow_call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "slow", "arguments": {"ms": 800}}})
    };
    let mut running = Vec::new();
    for id in 1..=2 {
        let (sid, body) = (greedy.clone(), slow_call(id));
        running.push(tokio::spawn(async move {
            post(
                a,
                &[
                    ("mcp-session-id", &sid),
                    ("mcp-protocol-version", "2025-11-25"),
                ],
                body,
            )
            .await
        }));
    }
    tokio::time::sleep(Duration::from_millis(250)).await;
    let v = ("mcp-protocol-version", "2025-11-25");
    let r = post(a, &[("mcp-session-id", &greedy), v], slow_call(3)).await;
    assert_eq!(r.status, 503, "past its share: {}", r.body);
    assert!(r.body.contains("for this session"), "{}", r.body);
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    let r = post(a, &[("mcp-session-id", &other), v], ping).await;
    assert_eq!(r.status, 200, "another session is served: {}", r.body);
    for t in running {
        assert_eq!(t.await.unwrap().status, 200);
    }
}

#[tokio::test]
async fn in_flight_cap_is_503() {
    let s = start(HttpOptions {
        max_in_flight: 1,
        ..HttpOptions::default()
    })
    .await;
    let a = s.addr;
    let slow = tokio::spawn(async move {
        post(
            a,
            &[
                ("mcp-protocol-version", V26),
                ("mcp-method", "tools/call"),
                ("mcp-name", "slow"),
            ],
            modern(
                1,
                "tools/call",
                json!({"name": "slow", "arguments": {"ms": 500}}),
            ),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let r = post(
        a,
        &[("mcp-protocol-version", V26), ("mcp-method", "tools/list")],
        modern(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(r.status, 503);
    assert_eq!(slow.await.unwrap().status, 200);
}

#[tokio::test]
async fn sse_for_a_progress_reporting_tool_on_both_eras() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    // Modern.
    let r = post(
        a,
        &[
            ("mcp-protocol-version", V26),
            ("mcp-method", "tools/call"),
            ("mcp-name", "progress"),
        ],
        {
            let mut b = modern(
                1,
                "tools/call",
                json!({"name": "progress", "arguments": {}}),
            );
            b["params"]["_meta"]["progressToken"] = json!("p1");
            b
        },
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    let ev = r.events();
    assert_eq!(ev.len(), 3, "{}", r.body);
    assert_eq!(ev[0]["method"], "notifications/progress");
    assert_eq!(ev[1]["params"]["progress"], 2.0);
    assert_eq!(ev[2]["id"], 1);
    assert_eq!(ev[2]["result"]["content"][0]["text"], "done");

    // Legacy.
    let sid = legacy_session(a, "2025-11-25").await;
    let r = post(
        a,
        &[
            ("mcp-session-id", &sid),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "progress", "arguments": {}, "_meta": {"progressToken": 7}}}),
    )
    .await;
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let ev = r.events();
    assert_eq!(ev.len(), 3, "{}", r.body);
    assert_eq!(ev[0]["params"]["progressToken"], 7);
    assert_eq!(ev[2]["id"], 2);
    // Without a progress token: plain JSON.
    let r = post(
        a,
        &[("mcp-session-id", &sid), ("mcp-protocol-version", "2025-11-25")],
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "progress", "arguments": {}}}),
    )
    .await;
    assert_eq!(r.header("content-type"), Some("application/json"));
}

async fn wait_for(cond: impl Fn() -> bool) -> bool {
    for _ in 0..100 {
        if cond() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn modern_disconnect_cancels_the_handler() {
    let s = start(HttpOptions::default()).await;
    let resp = tokio::time::timeout(
        Duration::from_millis(300),
        open(
            s.addr,
            "POST",
            "/mcp",
            &[
                ("mcp-protocol-version", V26),
                ("mcp-method", "tools/call"),
                ("mcp-name", "slow"),
            ],
            Some(
                modern(
                    1,
                    "tools/call",
                    json!({"name": "slow", "arguments": {"ms": 5000}}),
                )
                .to_string(),
            ),
        ),
    )
    .await;
    assert!(
        resp.is_err(),
        "no answer yet: the client gives up and disconnects"
    );
    let flags = s.flags.clone();
    assert!(
        wait_for(|| flags.cancelled.load(Ordering::SeqCst) == 1).await,
        "the handler was cancelled"
    );
    assert_eq!(s.flags.completed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn legacy_disconnect_does_not_cancel() {
    let s = start(HttpOptions::default()).await;
    let sid = legacy_session(s.addr, "2025-11-25").await;
    let resp = tokio::time::timeout(
        Duration::from_millis(200),
        open(
            s.addr,
            "POST",
            "/mcp",
            &[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-11-25"),
            ],
            Some(
                json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                        "params": {"name": "slow", "arguments": {"ms": 400}}})
                .to_string(),
            ),
        ),
    )
    .await;
    assert!(resp.is_err());
    let flags = s.flags.clone();
    assert!(
        wait_for(|| flags.completed.load(Ordering::SeqCst) == 1).await,
        "ran to the end"
    );
    assert_eq!(s.flags.cancelled.load(Ordering::SeqCst), 0);

    // notifications/cancelled does cancel.
    let a = s.addr;
    let sid2 = sid.clone();
    let pending = tokio::spawn(async move {
        post(
            a,
            &[("mcp-session-id", &sid2)],
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                   "params": {"name": "slow", "arguments": {"ms": 5000}}}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let r = post(
        a,
        &[("mcp-session-id", &sid)],
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 6}}),
    )
    .await;
    assert_eq!(r.status, 202);
    assert!(wait_for(|| flags.cancelled.load(Ordering::SeqCst) == 1).await);
    pending.abort();
}

/// Reads SSE events from a streaming body until `n` data events arrived.
async fn read_events(
    body: &mut hyper::body::Incoming,
    buf: &mut String,
    n: usize,
) -> Vec<(Option<String>, String)> {
    loop {
        let events: Vec<(Option<String>, String)> = buf
            .split("\n\n")
            .filter(|e| e.contains("data:"))
            .map(|e| {
                let name = e
                    .lines()
                    .find_map(|l| l.strip_prefix("event: "))
                    .map(str::to_owned);
                let data = e
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect::<Vec<_>>()
                    .join("\n");
                (name, data)
            })
            .collect();
        if events.len() >= n && buf.ends_with("\n\n") {
            return events;
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

#[tokio::test]
async fn legacy_get_stream_carries_server_messages() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let sid = legacy_session(a, "2025-11-25").await;
    let r = open(
        a,
        "GET",
        "/mcp",
        &[("mcp-session-id", &sid), ("accept", "text/event-stream")],
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    // A second GET stream: 409.
    let r2 = call(
        a,
        "GET",
        "/mcp",
        &[("mcp-session-id", &sid), ("accept", "text/event-stream")],
        None,
    )
    .await;
    assert_eq!(r2.status, 409);
    // Missing Accept: 406.
    let r3 = call(a, "GET", "/mcp", &[("mcp-session-id", &sid)], None).await;
    assert_eq!(r3.status, 406);
    drop(r);
}

#[tokio::test]
async fn http_sse_2024_11_05_flow() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let r = open(a, "GET", "/sse", &[("accept", "text/event-stream")], None).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let ev = read_events(&mut body, &mut buf, 1).await;
    assert_eq!(ev[0].0.as_deref(), Some("endpoint"));
    let endpoint = ev[0].1.clone();
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");

    let r = call(
        a,
        "POST",
        &endpoint,
        &[],
        Some(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        ),
    )
    .await;
    assert_eq!(r.status, 202);
    let ev = read_events(&mut body, &mut buf, 2).await;
    assert_eq!(ev[1].0.as_deref(), Some("message"));
    let init: Value = serde_json::from_str(&ev[1].1).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");

    let r = call(
        a,
        "POST",
        &endpoint,
        &[],
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()),
    )
    .await;
    assert_eq!(r.status, 202);
    let r = call(
        a,
        "POST",
        &endpoint,
        &[],
        Some(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string()),
    )
    .await;
    assert_eq!(r.status, 202);
    let ev = read_events(&mut body, &mut buf, 3).await;
    let list: Value = serde_json::from_str(&ev[2].1).unwrap();
    assert_eq!(list["id"], 2);
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 3);

    // Unknown session: 404. Dropping the stream ends the session.
    let r = call(
        a,
        "POST",
        "/messages?sessionId=nope",
        &[],
        Some("{}".into()),
    )
    .await;
    assert_eq!(r.status, 404);
    drop(body);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let r = call(
        a,
        "POST",
        &endpoint,
        &[],
        Some(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string()),
    )
    .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn keep_alive_comments_on_idle_streams() {
    let s = start(HttpOptions {
        keep_alive: Some(Duration::from_millis(100)),
        ..HttpOptions::default()
    })
    .await;
    let r = open(
        s.addr,
        "GET",
        "/sse",
        &[("accept", "text/event-stream")],
        None,
    )
    .await;
    let mut body = r.into_body();
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while !seen.contains(": keep-alive") && tokio::time::Instant::now() < deadline {
        if let Ok(Some(Ok(f))) = tokio::time::timeout(Duration::from_secs(1), body.frame()).await
            && let Ok(d) = f.into_data()
        {
            seen.push_str(&String::from_utf8_lossy(&d));
        }
    }
    assert!(seen.contains(": keep-alive"), "{seen}");
}

#[tokio::test]
async fn router_mounts_in_an_axum_app() {
    use mcp::transport::http::axum;
    let flags = Arc::new(Flags::default());
    let (router, handle) = server(flags).http_router(HttpOptions::default());
    let app = axum::Router::new().merge(router);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let _sid = legacy_session(addr, "2025-06-18").await;
    assert_eq!(handle.stats().sessions, 1);
    // The 2024-11-05 routes are opt-in: by default the app gets /mcp and nothing else.
    for path in ["/sse", "/messages"] {
        let r = call(addr, "GET", path, &[("accept", "text/event-stream")], None).await;
        assert_eq!(r.status, 404, "{path} is the app's, not mounted unasked");
    }
}

#[tokio::test]
async fn nested_under_a_prefix_the_2024_endpoint_event_names_the_mounted_path() {
    use mcp::transport::http::axum;
    let flags = Arc::new(Flags::default());
    let opts = HttpOptions {
        legacy_sse: Some(("/sse".into(), "/messages".into())),
        ..HttpOptions::default()
    };
    let (router, _handle) = server(flags).http_router(opts);
    let app = axum::Router::new().nest("/api/v1", router);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let r = open(
        a,
        "GET",
        "/api/v1/sse",
        &[("accept", "text/event-stream")],
        None,
    )
    .await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let ev = read_events(&mut body, &mut buf, 1).await;
    assert_eq!(ev[0].0.as_deref(), Some("endpoint"));
    let endpoint = ev[0].1.clone();
    assert!(
        endpoint.starts_with("/api/v1/messages?sessionId="),
        "{endpoint}"
    );
    // The URI it names works: the answer arrives on the stream.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let r = call(a, "POST", &endpoint, &[], Some(init.to_string())).await;
    assert_eq!(r.status, 202, "{}", r.body);
    let ev = read_events(&mut body, &mut buf, 2).await;
    let answer: Value = serde_json::from_str(&ev[1].1).unwrap();
    assert_eq!(answer["result"]["protocolVersion"], "2024-11-05");
}

/// 2025-11-25 Streamable HTTP: a message that fails before it reaches a handler (not JSON,
/// not JSON-RPC) is a `400` with the JSON-RPC error as its body (the request's id kept
/// when it had one); an error the handler answers (unknown method or tool) is a `200`
/// JSON-RPC answer. The same holds on the 2024-11-05 POST path.
#[tokio::test]
async fn legacy_errors_before_the_handler_are_400_with_the_jsonrpc_error() {
    let s = start(HttpOptions::default()).await;
    let a = s.addr;
    let sid = legacy_session(a, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let cases: [(&str, u16, i64, Value); 6] = [
        ("{not json", 400, -32700, Value::Null),
        (r#"{"jsonrpc":"2.0"}"#, 400, -32600, Value::Null),
        (
            r#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#,
            400,
            -32600,
            json!(2),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":5}"#,
            400,
            -32600,
            json!(3),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"nope"}"#,
            200,
            -32601,
            json!(4),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}"#,
            200,
            -32602,
            json!(5),
        ),
    ];
    for (body, status, code, id) in &cases {
        let r = call(a, "POST", "/mcp", &h, Some((*body).into())).await;
        assert_eq!(r.status, *status, "{body}: {}", r.body);
        assert_eq!(r.header("content-type"), Some("application/json"), "{body}");
        let v = r.json();
        assert_eq!(v["error"]["code"], *code, "{body}: {v}");
        assert_eq!(v["id"], *id, "{body}: {v}");
    }
    // The session survived every bad message.
    let r = post(a, &h, json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"], json!({}));

    // 2024-11-05: the POST path refuses what it cannot decode; the stream is untouched.
    let r = open(a, "GET", "/sse", &[("accept", "text/event-stream")], None).await;
    let mut body = r.into_body();
    let mut buf = String::new();
    let endpoint = read_events(&mut body, &mut buf, 1).await[0].1.clone();
    let r = call(a, "POST", &endpoint, &[], Some("{not json".into())).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
}

/// `serve_http_on` serves its paths without a router: any other path is 404. An answer
/// that is ready at once (run in the connection's task) and one that has to wait (moved
/// to a task of its own) are both plain JSON, each with its own id and result.
#[tokio::test]
async fn direct_server_404_elsewhere_and_json_for_quick_and_waiting_answers() {
    let s = start(HttpOptions::default()).await;
    let r = call(s.addr, "POST", "/elsewhere", &[], Some("{}".into())).await;
    assert_eq!(r.status, 404);
    let r = call(s.addr, "GET", "/", &[], None).await;
    assert_eq!(r.status, 404);
    let sid = legacy_session(s.addr, "2025-11-25").await;
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
        ("x-test", "yes"),
    ];
    for (id, name, args, text) in [
        (2, "echo", json!({}), "x-test=yes"),
        (3, "slow", json!({"ms": 30}), "slow done"),
        (4, "echo", json!({}), "x-test=yes"),
    ] {
        let r = post(
            s.addr,
            &h,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": name, "arguments": args}}),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.json()["id"], id);
        assert_eq!(r.json()["result"]["content"][0]["text"], text, "{}", r.body);
    }
    assert_eq!(s.flags.completed.load(Ordering::SeqCst), 1);
}
