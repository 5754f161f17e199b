//! One scan: a 2026-07-28 `tools/call` is read once. Its params are scanned once (the
//! era choice, the header checks, the `_meta` envelope, step-up and the dispatcher all ask
//! the same index, `mcp_core::params::Params`), and its arguments are passed over by the
//! typed decode plus the check serde makes of the `&RawValue` handed to the handler (the
//! public `ServerHandler::call_tool` takes `Box<RawValue>` arguments, and serde makes no
//! unchecked one).
//!
//! A 2025-11-25 `tools/call` over HTTP whose params carry `_meta` (a progress token) is
//! read once too: the routing scans it for the 2026 envelope, and the admission, the
//! context and the dispatcher reuse that scan.
//!
//! The counters (`mcp_core::passes`) count in debug builds only and are process-wide, so
//! this binary holds one test, which runs its cases in turn.

mod support;

use std::net::SocketAddr;

use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use serde_json::{Value, json};
use support::http::{self, Resp};
use support::{Wire, modern};

/// Adds two numbers.
#[mcp::tool]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

#[mcp::server(name = "one-scan", tools(add))]
struct Adder;

fn call() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": modern(json!({"name": "add", "arguments": {"a": 2, "b": 3}}))
    })
}

async fn start_http() -> LoopbackHttp {
    LoopbackHttp::start(&Adder.into_server(), HttpOptions::default())
        .await
        .unwrap()
}

async fn post(addr: SocketAddr, body: &Value) -> Value {
    let b = http::request(addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "add");
    Resp::read(http::send(addr, b, body.to_string()).await)
        .await
        .json()
}

/// The passes `f` made: (over the params, over the arguments alone).
async fn passes_of<F: std::future::Future<Output = Value>>(f: F) -> ((usize, usize), Value) {
    mcp_core::passes::reset();
    let answer = f.await;
    (mcp_core::passes::counts(), answer)
}

#[tokio::test]
async fn a_2026_tools_call_is_scanned_once() {
    if !cfg!(debug_assertions) {
        eprintln!("SKIPPED: the pass counters count in debug builds only");
        return;
    }
    let one_scan = (1, 2);

    // Stateless Streamable HTTP: routing, header checks, envelope, dispatch.
    let http = start_http().await;
    let addr = http.addr();
    post(addr, &call()).await; // warm up: nothing lazy is counted below
    let (passes, answer) = passes_of(post(addr, &call())).await;
    assert_eq!(answer["result"]["content"][0]["text"], "5", "{answer}");
    assert_eq!(passes, one_scan, "(params, arguments) passes over HTTP");

    // A legacy session over HTTP, the call carrying `_meta`: routed by the envelope scan,
    // then admitted and dispatched from that same scan.
    let init = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "one-scan", "version": "1"}}
    });
    let r = http::mcp_send(addr, "POST", None, Some(init), None).await;
    let session = r.header("mcp-session-id").expect("a session").to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    http::mcp_send(addr, "POST", Some(&session), Some(initialized), None).await;
    let legacy_call = json!({
        "jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": {"progressToken": 1}}
    });
    let send = || {
        http::mcp_send(
            addr,
            "POST",
            Some(&session),
            Some(legacy_call.clone()),
            None,
        )
    };
    send().await; // warm up
    let (passes, answer) = passes_of(async { send().await.json() }).await;
    assert_eq!(answer["result"]["content"][0]["text"], "5", "{answer}");
    assert_eq!(
        passes, one_scan,
        "(params, arguments) passes, legacy HTTP with _meta"
    );

    // A byte stream: the opening request chooses the era, a later one is admitted.
    let mut wire = Wire::new(Adder.into_server().serve_in_memory());
    let (passes, answer) = passes_of(async {
        wire.send(&call()).await;
        wire.recv().await
    })
    .await;
    assert_eq!(answer["result"]["content"][0]["text"], "5", "{answer}");
    assert_eq!(
        passes, one_scan,
        "(params, arguments) passes, opening a stream"
    );
    let (passes, _) = passes_of(async {
        wire.send(&call()).await;
        wire.recv().await
    })
    .await;
    assert_eq!(
        passes, one_scan,
        "(params, arguments) passes on an open stream"
    );
}
