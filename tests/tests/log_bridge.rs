//! The log bridge: `tracing` events inside a handler reach that request's client as
//! `notifications/message`, under the client's filter, never on a listen stream, never
//! feeding themselves.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp::logging::{ClientLogLayer, in_request};
use mcp::prelude::*;
use mcp::{FilterAction, MessageFilter};
use serde_json::{Value, json};
use support::{Wire, envelope};
use tracing_subscriber::layer::SubscriberExt;

#[derive(serde::Deserialize)]
struct NoArgs {}

fn tool(name: &str) -> Tool {
    Tool::new(name).with_input_schema(json!({"type": "object", "properties": {}}))
}

fn done() -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
}

/// A server whose `chatty` tool emits one event per level, one with fields, and one from a
/// spawned task (bridged only inside `in_request`).
fn builder() -> mcp::ServerBuilder {
    Server::builder("bridge", "1.0.0")
        .tool(tool("chatty"), |_ctx, _: NoArgs| async {
            tracing::debug!(target: "app::tool", "debug line");
            tracing::info!(target: "app::tool", "info line");
            tracing::warn!(target: "app::tool", files = 3, "warn line");
            tracing::error!(target: "app::tool", "error line");
            done()
        })
        .tool(tool("spawner"), |ctx: Context, _: NoArgs| async move {
            tokio::spawn(async { tracing::warn!(target: "app::bg", "unscoped") })
                .await
                .unwrap();
            tokio::spawn(in_request(ctx, async {
                tracing::warn!(target: "app::bg", "scoped");
            }))
            .await
            .unwrap();
            done()
        })
}

/// Collects everything up to the response of request `id`.
async fn until_response(w: &mut Wire, id: i64) -> (Vec<Value>, Value) {
    let mut notes = Vec::new();
    loop {
        let v = w.recv().await;
        if v["id"] == id && v.get("method").is_none() {
            return (notes, v);
        }
        notes.push(v);
    }
}

fn logs(notes: &[Value]) -> Vec<(String, Value)> {
    notes
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| {
            (
                n["params"]["level"].as_str().unwrap().to_owned(),
                n["params"]["data"].clone(),
            )
        })
        .collect()
}

fn call(id: i64, name: &str, params_meta: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": {}});
    if let Some(m) = params_meta {
        params["_meta"] = m;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// Installs the bridge as the global subscriber, once for the whole test binary. Global on
/// purpose: a scoped default would hide nested events itself, so the bridge's own
/// recursion guard would go untested.
fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let subscriber = tracing_subscriber::registry().with(ClientLogLayer::new());
        tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber");
    });
}

#[tokio::test]
async fn legacy_follows_the_session_level() {
    install();
    let mut w = Wire::new(builder().build().serve_in_memory());
    w.initialize("2025-11-25").await;

    w.send(&call(1, "chatty", None)).await;
    let (notes, resp) = until_response(&mut w, 1).await;
    assert_eq!(resp["result"]["content"][0]["text"], "done");
    assert!(
        logs(&notes).is_empty(),
        "nothing before logging/setLevel: {notes:?}"
    );

    let r = w
        .request(json!(2), "logging/setLevel", json!({"level": "warning"}))
        .await;
    assert!(r.get("result").is_some(), "{r}");
    w.send(&call(3, "chatty", None)).await;
    let (notes, _) = until_response(&mut w, 3).await;
    assert_eq!(
        logs(&notes),
        [
            (
                "warning".to_owned(),
                json!({"message": "warn line", "files": 3})
            ),
            ("error".to_owned(), json!("error line")),
        ],
        "at or above the session level, before the response"
    );
    let first = notes
        .iter()
        .find(|n| n["method"] == "notifications/message")
        .unwrap();
    assert_eq!(first["params"]["logger"], "app::tool");

    w.request(json!(4), "logging/setLevel", json!({"level": "debug"}))
        .await;
    w.send(&call(5, "chatty", None)).await;
    let (notes, _) = until_response(&mut w, 5).await;
    let levels: Vec<String> = logs(&notes).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["debug", "info", "warning", "error"]);
}

#[tokio::test]
async fn modern_requests_opt_in_with_log_level() {
    install();
    let mut w = Wire::new(builder().build().serve_in_memory());

    w.send(&call(1, "chatty", Some(envelope()))).await;
    let (notes, resp) = until_response(&mut w, 1).await;
    assert_eq!(resp["result"]["resultType"], "complete", "{resp}");
    assert!(logs(&notes).is_empty(), "no logLevel, no log: {notes:?}");

    let mut meta = envelope();
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    w.send(&call(2, "chatty", Some(meta))).await;
    let (notes, _) = until_response(&mut w, 2).await;
    let levels: Vec<String> = logs(&notes).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["info", "warning", "error"]);
}

#[tokio::test]
async fn spawned_work_is_bridged_only_inside_in_request() {
    install();
    let mut w = Wire::new(builder().build().serve_in_memory());
    let mut meta = envelope();
    meta["io.modelcontextprotocol/logLevel"] = json!("debug");
    w.send(&call(1, "spawner", Some(meta))).await;
    let (notes, _) = until_response(&mut w, 1).await;
    assert_eq!(logs(&notes), [("warning".to_owned(), json!("scoped"))]);
}

/// Answers `subscriptions/listen` itself after emitting an event, as a listen handler would.
struct ListenStub;

impl Middleware for ListenStub {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "subscriptions/listen" {
            tracing::error!(target: "app::listen", "inside a listen stream");
            return mcp::Reply::json(&json!({"resultType": "complete"}));
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn nothing_goes_on_a_listen_stream() {
    install();
    let server = builder().middleware(ListenStub).build();
    let mut w = Wire::new(server.serve_in_memory());
    let mut meta = envelope();
    meta["io.modelcontextprotocol/logLevel"] = json!("debug");
    w.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                   "params": {"_meta": meta.clone(), "notifications": {}}}),
    )
    .await;
    let (notes, resp) = until_response(&mut w, 1).await;
    assert!(resp.get("result").is_some(), "{resp}");
    assert!(logs(&notes).is_empty(), "{notes:?}");
    // The same event from a tool call on that connection does arrive.
    w.send(&call(2, "chatty", Some(meta))).await;
    let (notes, _) = until_response(&mut w, 2).await;
    assert_eq!(logs(&notes).len(), 4);
}

/// Emits a `tracing` event for every log message it sees going out.
struct NoisyFilter(&'static AtomicUsize);

impl MessageFilter for NoisyFilter {
    fn outgoing(&self, message: &mut Value) -> FilterAction {
        if message["method"] == "notifications/message" {
            self.0.fetch_add(1, Ordering::SeqCst);
            tracing::error!(target: "app::filter", "saw a log message");
        }
        FilterAction::Pass
    }
}

#[tokio::test]
async fn the_bridge_never_feeds_itself() {
    static SEEN: AtomicUsize = AtomicUsize::new(0);
    install();
    let server = builder().filter(NoisyFilter(&SEEN)).build();
    let mut w = Wire::new(server.serve_in_memory());
    let mut meta = envelope();
    meta["io.modelcontextprotocol/logLevel"] = json!("error");
    w.send(&call(1, "chatty", Some(meta))).await;
    let (notes, _) = until_response(&mut w, 1).await;
    // One handler event at `error`; the filter's own event while sending it is not bridged.
    assert_eq!(logs(&notes), [("error".to_owned(), json!("error line"))]);
    assert_eq!(SEEN.load(Ordering::SeqCst), 1);
}

/// POSTs `body` to `/mcp` with the 2026 headers of a `tools/call` of `name`; the SSE events.
async fn post_modern(addr: std::net::SocketAddr, name: &str, body: Value) -> Vec<Value> {
    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
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
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

#[tokio::test]
async fn over_streamable_http_logs_go_on_the_request_stream() {
    install();
    let http = mcp::transport::http::LoopbackHttp::start(&builder().build(), Default::default())
        .await
        .unwrap();
    let addr = http.addr();
    let mut meta = envelope();
    meta["io.modelcontextprotocol/logLevel"] = json!("warning");
    let events = post_modern(addr, "chatty", call(1, "chatty", Some(meta))).await;
    drop(http);
    let methods: Vec<&str> = events
        .iter()
        .map(|e| e["method"].as_str().unwrap_or("(response)"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/message",
            "notifications/message",
            "(response)"
        ],
        "{events:?}"
    );
    assert_eq!(events[2]["result"]["content"][0]["text"], "done");
}
