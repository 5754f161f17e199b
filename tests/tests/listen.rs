//! `subscriptions/listen` (2026-07-28) over the stream kernel (in-memory) and over
//! Streamable HTTP: the acknowledgement first, filters, `subscriptionId` on every
//! notification, cancellation, the closing result at EOF, and a dropped HTTP stream freeing
//! its listener.

mod support;

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use mcp::CancellationToken;
use mcp::ServerHandle;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp_core::types::{GetPromptResult, Prompt, PromptMessage, ReadResourceResult, Resource};
use serde_json::{Value, json};
use support::{Wire, code, modern};

const SUB_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[derive(serde::Deserialize)]
struct NoArgs {}

fn schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn server(subscriptions: bool) -> Server {
    Server::builder("listen-test", "1.0.0")
        .subscriptions(subscriptions)
        .tool(
            Tool::new("hello").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        )
        .registry(|r| {
            r.add_prompt(Prompt::new("p"), |_ctx, _| async {
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user("hi")],
                    ..Default::default()
                })
            });
            r.add_resource(Resource::new("a://x", "x"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![mcp_core::types::ResourceContents::text(uri, "x")],
                    ..Default::default()
                })
            });
        })
        .build()
}

fn add_tool(h: &ServerHandle, name: &str) {
    h.add_tool(
        Tool::new(name).with_input_schema(schema()),
        |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
    )
    .unwrap();
}

fn listen(id: Value, filter: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
           "params": modern(json!({"notifications": filter}))})
}

/// Waits until `h` reports `n` open listen streams.
async fn listens_become(h: &ServerHandle, n: usize) {
    for _ in 0..200 {
        if h.open_listens() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("open listens stayed at {}, wanted {n}", h.open_listens());
}

#[tokio::test]
async fn acknowledges_first_then_sends_only_what_the_filter_asks_for() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(
        json!(7),
        json!({"toolsListChanged": true, "resourceSubscriptions": ["a://x"], "promptsListChanged": false}),
    ))
    .await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"][SUB_ID], json!(7));
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["a://x"]}),
        "the ack names exactly the honoured subset"
    );
    assert_eq!(h.open_listens(), 1);

    // Not asked for: a prompt change and an update of another URI.
    h.add_prompt(Prompt::new("p2"), |_ctx, _| async {
        Ok(GetPromptResult::default())
    })
    .unwrap();
    h.resource_updated("a://other");
    // Asked for: the next message is the tool change, so nothing came before it.
    add_tool(&h, "late");
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!(7));
    h.resource_updated("a://x");
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"]["uri"], "a://x");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!(7));
    assert!(n.get("id").is_none(), "a notification, not a response");
    w.expect_silence(100).await;
}

#[tokio::test]
async fn string_ids_keep_their_json_type() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!("sub-1"), json!({"promptsListChanged": true})))
        .await;
    let ack = w.recv().await;
    assert_eq!(ack["params"]["_meta"][SUB_ID], json!("sub-1"));
    h.remove_prompt("p").unwrap();
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/prompts/list_changed");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!("sub-1"));
}

#[tokio::test]
async fn concurrent_listens_on_one_stream_are_demultiplexed_by_id() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!(1), json!({"toolsListChanged": true})))
        .await;
    assert_eq!(w.recv().await["params"]["_meta"][SUB_ID], json!(1));
    w.send(&listen(json!(2), json!({"resourcesListChanged": true})))
        .await;
    assert_eq!(w.recv().await["params"]["_meta"][SUB_ID], json!(2));
    listens_become(&h, 2).await;

    h.remove_resource("a://x").unwrap();
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/resources/list_changed");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!(2));
    add_tool(&h, "t2");
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!(1));
    w.expect_silence(100).await;
}

#[tokio::test]
async fn cancellation_ends_the_stream_without_a_result() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!(3), json!({"toolsListChanged": true})))
        .await;
    w.recv().await;
    listens_become(&h, 1).await;
    w.notify("notifications/cancelled", modern(json!({"requestId": 3})))
        .await;
    listens_become(&h, 0).await;
    add_tool(&h, "after-cancel");
    w.expect_silence(150).await;
    // The connection still serves requests.
    let r = w.request(json!(4), "tools/list", modern(json!({}))).await;
    assert!(r["result"]["tools"].as_array().unwrap().len() >= 2);
}

#[tokio::test]
async fn eof_ends_the_stream_with_the_closing_result_at_once() {
    let s = server(true);
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!(9), json!({"toolsListChanged": true})))
        .await;
    w.recv().await;
    let started = std::time::Instant::now();
    w.close().await;
    let r = w.recv().await;
    assert_eq!(r["id"], 9);
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["_meta"][SUB_ID], json!(9));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the listen did not wait for the shutdown grace period"
    );
}

#[tokio::test]
async fn end_listens_closes_every_stream_gracefully() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!(5), json!({"toolsListChanged": true})))
        .await;
    w.recv().await;
    h.end_listens();
    let r = w.recv().await;
    assert_eq!(r["id"], 5);
    assert_eq!(r["result"]["_meta"][SUB_ID], json!(5));
    listens_become(&h, 0).await;
}

#[tokio::test]
async fn bad_listen_params_are_invalid_params_and_nothing_is_opened() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    let r = w
        .request(json!(1), "subscriptions/listen", modern(json!({})))
        .await;
    assert_eq!(code(&r), -32602);
    let r = w
        .request(
            json!(2),
            "subscriptions/listen",
            modern(json!({"notifications": {"toolsListChanged": "yes"}})),
        )
        .await;
    assert_eq!(code(&r), -32602);
    assert_eq!(h.open_listens(), 0);
}

#[tokio::test]
async fn extension_fields_without_their_extension_are_not_acknowledged() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(
        json!(1),
        json!({"taskIds": ["t1"], "x-other": true, "toolsListChanged": true}),
    ))
    .await;
    let ack = w.recv().await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    h.publish(mcp::session::ServerEvent::task("t1", Default::default()));
    w.expect_silence(100).await;
}

#[tokio::test]
async fn switched_off_there_is_no_listen_and_no_list_changed_capability() {
    let s = server(false);
    let mut w = Wire::new(s.serve_in_memory());
    let r = w
        .request(
            json!(1),
            "subscriptions/listen",
            modern(json!({"notifications": {"toolsListChanged": true}})),
        )
        .await;
    assert_eq!(code(&r), -32601);
    let d = w
        .request(json!(2), "server/discover", modern(json!({})))
        .await;
    let caps = &d["result"]["capabilities"];
    assert!(caps["tools"].get("listChanged").is_none(), "{caps}");
    assert!(caps["resources"].get("subscribe").is_none(), "{caps}");

    let s = server(true);
    let mut w = Wire::new(s.serve_in_memory());
    let d = w
        .request(json!(2), "server/discover", modern(json!({})))
        .await;
    let caps = &d["result"]["capabilities"];
    assert_eq!(caps["tools"]["listChanged"], true);
    assert_eq!(caps["prompts"]["listChanged"], true);
    assert_eq!(caps["resources"]["listChanged"], true);
    assert_eq!(caps["resources"]["subscribe"], true);
}

// ---------------------------------------------------------------------------------------
// Streamable HTTP
// ---------------------------------------------------------------------------------------

async fn start_http(
    s: &Server,
    keep_alive: Option<Duration>,
) -> (std::net::SocketAddr, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let opts = HttpOptions {
        keep_alive,
        ..HttpOptions::default()
    };
    let (s, st) = (s.clone(), stop.clone());
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    (addr, stop)
}

async fn post_listen(
    addr: std::net::SocketAddr,
    body: Value,
) -> hyper::Response<hyper::body::Incoming> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    sender.send_request(req).await.unwrap()
}

/// Reads SSE from `body` until a `data:` event arrives; returns it and the comment lines
/// seen before it.
async fn next_event(body: &mut hyper::body::Incoming, buf: &mut String) -> (Value, Vec<String>) {
    let mut comments = Vec::new();
    loop {
        while let Some(end) = buf.find("\n\n") {
            let chunk: String = buf.drain(..end + 2).collect();
            for line in chunk.lines() {
                if let Some(d) = line.strip_prefix("data:") {
                    if let Ok(v) = serde_json::from_str(d.trim()) {
                        return (v, comments);
                    }
                } else if line.starts_with(':') {
                    comments.push(line.to_owned());
                }
            }
        }
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("an SSE frame in time")
            .expect("the stream is open")
            .unwrap();
        if let Ok(d) = frame.into_data() {
            buf.push_str(&String::from_utf8_lossy(&d));
        }
    }
}

#[tokio::test]
async fn http_listen_is_a_long_lived_sse_stream_and_dropping_it_frees_the_listener() {
    let s = server(true);
    let h = s.handle();
    let (addr, stop) = start_http(&s, Some(Duration::from_millis(100))).await;
    let resp = post_listen(addr, listen(json!(11), json!({"toolsListChanged": true}))).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    let mut body = resp.into_body();
    let mut buf = String::new();
    let (ack, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"][SUB_ID], json!(11));
    listens_become(&h, 1).await;

    // Quiet for a while: keep-alive comments, then the change.
    tokio::time::sleep(Duration::from_millis(350)).await;
    add_tool(&h, "over-http");
    let (n, comments) = next_event(&mut body, &mut buf).await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert_eq!(n["params"]["_meta"][SUB_ID], json!(11));
    assert!(
        comments.iter().any(|c| c.contains("keep-alive")),
        "keep-alives on a quiet listen stream: {comments:?}"
    );

    drop(body);
    listens_become(&h, 0).await;
    stop.cancel();
}

#[tokio::test]
async fn http_listen_filters_and_bad_params() {
    let s = server(true);
    let h = s.handle();
    let (addr, stop) = start_http(&s, None).await;
    let resp = post_listen(addr, listen(json!(1), json!({"promptsListChanged": true}))).await;
    let mut body = resp.into_body();
    let mut buf = String::new();
    next_event(&mut body, &mut buf).await;
    add_tool(&h, "not-for-this-stream");
    h.remove_prompt("p").unwrap();
    let (n, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(n["method"], "notifications/prompts/list_changed");
    drop(body);

    // Without a filter: a plain JSON error, no stream, no listener.
    let resp = post_listen(
        addr,
        json!({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": modern(json!({}))}),
    )
    .await;
    assert_eq!(
        resp.headers().get("content-type").unwrap(),
        "application/json"
    );
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(code(&v), -32602);
    listens_become(&h, 0).await;
    stop.cancel();
}

#[tokio::test]
async fn http_shutdown_ends_listen_streams_with_their_closing_result() {
    let s = server(true);
    let h = s.handle();
    let (addr, stop) = start_http(&s, None).await;
    let resp = post_listen(addr, listen(json!(21), json!({"toolsListChanged": true}))).await;
    let mut body = resp.into_body();
    let mut buf = String::new();
    next_event(&mut body, &mut buf).await;
    let started = std::time::Instant::now();
    stop.cancel();
    let (fin, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(fin["id"], 21);
    assert_eq!(fin["result"]["resultType"], "complete");
    assert_eq!(fin["result"]["_meta"][SUB_ID], json!(21));
    assert!(started.elapsed() < Duration::from_secs(2));
    listens_become(&h, 0).await;
}

/// Logs and reports progress on every request it sees, listen included.
struct Chatty;

impl mcp::Middleware for Chatty {
    async fn handle<E: mcp::middleware::Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: mcp::Next<'_, E>,
    ) -> mcp::HandlerResult {
        let sent = ctx
            .log(
                mcp_core::types::LoggingLevel::Error,
                None,
                json!("from middleware"),
            )
            .await
            .unwrap();
        assert!(!sent || ctx.method() != "subscriptions/listen");
        let _ = ctx.progress(1.0, None, None).await;
        next.run(ctx).await
    }
}

#[tokio::test]
async fn no_log_or_progress_message_ever_goes_on_a_listen_stream() {
    let s = Server::builder("chatty", "1.0.0")
        .subscriptions(true)
        .middleware(Chatty)
        .tool(
            Tool::new("hello").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        )
        .build();
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    let mut params = modern(json!({"notifications": {"toolsListChanged": true}}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    params["_meta"]["progressToken"] = json!("p");
    w.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params}))
        .await;
    let first = w.recv().await;
    assert_eq!(first["method"], "notifications/subscriptions/acknowledged");
    add_tool(&h, "x");
    assert_eq!(w.recv().await["method"], "notifications/tools/list_changed");
    w.expect_silence(100).await;

    // The same middleware on an ordinary request does log (so the guard is what held).
    let mut params = modern(json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    w.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": params}))
        .await;
    assert_eq!(w.recv().await["method"], "notifications/message");
}

#[tokio::test]
async fn a_lagging_stream_resynchronises_with_one_notification_per_watched_kind() {
    // One event of buffer; on this single-threaded runtime the listener cannot run between
    // the three publishes, so two are dropped and the stream is marked lagged.
    let bus = std::sync::Arc::new(mcp::session::InMemoryBus::new(1));
    let s = Server::builder("lag", "1.0.0")
        .subscription_bus(bus.clone())
        .build();
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(
        json!(1),
        json!({"toolsListChanged": true, "promptsListChanged": true}),
    ))
    .await;
    w.recv().await;
    use mcp::session::ServerEvent as E;
    h.publish(E::ToolsListChanged);
    h.publish(E::PromptsListChanged);
    h.publish(E::ToolsListChanged);
    let mut got = vec![
        w.recv().await["method"].as_str().unwrap().to_owned(),
        w.recv().await["method"].as_str().unwrap().to_owned(),
    ];
    got.sort();
    assert_eq!(
        got,
        [
            "notifications/prompts/list_changed",
            "notifications/tools/list_changed"
        ]
    );
    w.expect_silence(100).await;
}

#[tokio::test]
async fn closed_connections_leave_no_bus_subscriber_behind() {
    use mcp::session::SubscriptionBus;
    let bus = std::sync::Arc::new(mcp::session::InMemoryBus::default());
    let s = Server::builder("subs", "1.0.0")
        .subscription_bus(bus.clone())
        .tool(
            Tool::new("hello").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        )
        .build();
    let mut legacy = Wire::new(s.serve_in_memory());
    legacy.initialize("2025-06-18").await;
    let mut modern_conn = Wire::new(s.serve_in_memory());
    modern_conn
        .send(&listen(json!(1), json!({"toolsListChanged": true})))
        .await;
    modern_conn.recv().await;
    assert_eq!(bus.subscribers(), 2);
    legacy.close().await;
    modern_conn.close().await;
    modern_conn.recv().await; // the closing result
    for _ in 0..200 {
        if bus.subscribers() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} bus subscribers left", bus.subscribers());
}

#[tokio::test]
async fn listens_beyond_the_cap_are_refused_and_the_slot_frees_on_close() {
    let s = Server::builder("capped", "1.0.0")
        .subscriptions(true)
        .max_listens(1)
        .build();
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.send(&listen(json!(1), json!({"toolsListChanged": true})))
        .await;
    w.recv().await;
    let r = w
        .request(
            json!(2),
            "subscriptions/listen",
            modern(json!({"notifications": {"toolsListChanged": true}})),
        )
        .await;
    assert_eq!(code(&r), -32000);
    assert_eq!(h.open_listens(), 1);
    w.notify("notifications/cancelled", modern(json!({"requestId": 1})))
        .await;
    listens_become(&h, 0).await;
    w.send(&listen(json!(3), json!({"toolsListChanged": true})))
        .await;
    assert_eq!(
        w.recv().await["method"],
        "notifications/subscriptions/acknowledged"
    );
}

#[tokio::test]
async fn an_http_listen_holds_no_in_flight_slot() {
    let s = server(true);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let opts = HttpOptions {
        max_in_flight: 1,
        ..HttpOptions::default()
    };
    let (s2, st) = (s.clone(), stop.clone());
    tokio::spawn(async move { s2.serve_http_on(listener, opts, st).await });

    let resp = post_listen(addr, listen(json!(1), json!({"toolsListChanged": true}))).await;
    let mut body = resp.into_body();
    let mut buf = String::new();
    next_event(&mut body, &mut buf).await;
    // With the only slot free, an ordinary request still gets through.
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(Full::new(Bytes::from(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": modern(json!({}))})
                .to_string(),
        )))
        .unwrap();
    let r = sender.send_request(req).await.unwrap();
    assert_eq!(r.status(), 200);
    drop(body);
    stop.cancel();
}

/// What a middleware read of a listen request's `HttpRequest`: before the stream and once
/// it has ended.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<(String, String, String)>>>;

/// Records the `x-probe` header, the `Authorization` header and the URI of every listen
/// request, before running it and after.
struct SeesHttp(Seen);

impl SeesHttp {
    fn record(&self, ctx: &Context) {
        let http = ctx
            .extensions()
            .get::<mcp::transport::http::HttpRequest>()
            .expect("an HTTP request");
        let header = |name: &str| {
            http.headers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_default()
        };
        self.0.lock().unwrap().push((
            header("x-probe"),
            header("authorization"),
            http.uri.to_string(),
        ));
    }
}

impl mcp::Middleware for SeesHttp {
    async fn handle<E: mcp::middleware::Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: mcp::Next<'_, E>,
    ) -> mcp::HandlerResult {
        if ctx.method() != "subscriptions/listen" {
            return next.run(ctx.clone()).await;
        }
        self.record(&ctx);
        let out = next.run(ctx.clone()).await;
        self.record(&ctx);
        out
    }
}

#[tokio::test]
async fn an_http_listen_context_keeps_its_request_headers_and_uri_for_the_streams_life() {
    let seen = Seen::default();
    let s = Server::builder("sees-http", "1.0.0")
        .subscriptions(true)
        .middleware(SeesHttp(seen.clone()))
        .tool(
            Tool::new("hello").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        )
        .build();
    let h = s.handle();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { s.serve_http_on(listener, HttpOptions::default(), st).await });
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::builder()
        .method("POST")
        .uri("/mcp?probe=1")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .header("x-probe", "caf\u{e9} \t value")
        .header("authorization", "Bearer not-checked")
        .body(Full::new(Bytes::from(
            listen(json!(31), json!({"toolsListChanged": true})).to_string(),
        )))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let mut body = resp.into_body();
    let mut buf = String::new();
    let (ack, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    // The context's copy is read after the stream has carried an event and ended.
    add_tool(&h, "meanwhile");
    let (n, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    stop.cancel();
    let (fin, _) = next_event(&mut body, &mut buf).await;
    assert_eq!(fin["id"], 31);
    listens_become(&h, 0).await;
    let expected = (
        "caf\u{e9} \t value".to_owned(),
        "Bearer not-checked".to_owned(),
        "/mcp?probe=1".to_owned(),
    );
    assert_eq!(*seen.lock().unwrap(), [expected.clone(), expected]);
}
