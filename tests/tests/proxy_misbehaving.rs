//! `mcp::proxy` before a misbehaving upstream: a scripted child process (`python3 -c`) that
//! answers one tool with a result that is not a `CallToolResult`, writes garbage lines
//! around an answer, answers over the client's frame limit, answers with a JSON-RPC error,
//! or exits mid-call. Each bad answer fails only the call it belongs to, with a clear
//! error, for a legacy and a 2026 caller alike; the calls after it go through (a dead
//! child is started again). Every case runs under a hard timeout.

use std::time::Duration;

use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::prelude::*;
use mcp::proxy::{Proxy, Upstream};
use serde_json::json;

use ProtocolVersion as V;

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the test finished within 60 s")
}

/// A legacy (2025-11-25) stdio server in Python with five tools, each misbehaving its own
/// way; `good` answers its `text` argument.
const UPSTREAM: &str = r#"
import json, sys
def write(text):
    sys.stdout.buffer.write(text if isinstance(text, bytes) else text.encode())
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()
def answer(msg, result):
    write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}))
TOOLS = [{"name": n, "inputSchema": {"type": "object"}}
         for n in ["good", "malformed", "noisy", "huge", "failing", "crash"]]
for line in sys.stdin:
    msg = json.loads(line)
    method, params = msg.get("method"), msg.get("params") or {}
    if "id" not in msg:
        continue
    if method == "initialize":
        answer(msg, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                     "serverInfo": {"name": "misbehaving", "version": "0"}})
    elif method == "tools/list":
        answer(msg, {"tools": TOOLS})
    elif method == "ping":
        answer(msg, {})
    elif method == "tools/call":
        name = params.get("name")
        if name == "good":
            answer(msg, {"content": [{"type": "text", "text": params["arguments"]["text"]}]})
        elif name == "malformed":
            answer(msg, {"content": 5})
        elif name == "noisy":
            write("progress: 50%")
            write(b"\xff\xfe")
            write('{"partial": ')
            answer(msg, {"content": [{"type": "text", "text": "quiet now"}]})
        elif name == "huge":
            answer(msg, {"content": [{"type": "text", "text": "x" * (65 << 20)}]})
        elif name == "failing":
            write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                              "error": {"code": -32000, "message": "the database is down"}}))
        elif name == "crash":
            sys.exit(7)
    else:
        write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                          "error": {"code": -32601, "message": "Method not found"}}))
"#;

fn upstream() -> Upstream {
    Upstream::stdio("python3", ["-u", "-c", UPSTREAM])
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .timeout(Duration::from_secs(20))
}

async fn proxied() -> Proxy {
    Proxy::connect(upstream())
        .await
        .expect("the proxy connects")
}

async fn caller(server: &Server, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("the caller connects")
}

/// The text of a successful call of `good`.
async fn good(c: &Client, text: &str) -> String {
    let r = c.call_tool("good", json!({"text": text})).await.unwrap();
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn each_bad_answer_fails_only_its_own_call_clearly_in_both_eras() {
    bounded(async {
        let proxy = proxied().await;
        let server = proxy.server();
        for mode in [
            ConnectMode::Legacy(V::V2025_11_25),
            ConnectMode::Modern(V::V2026_07_28),
        ] {
            let c = caller(&server, mode).await;
            assert_eq!(good(&c, "first").await, "first");

            // A result that is not a `CallToolResult`.
            let e = c.call_tool("malformed", json!({})).await.unwrap_err();
            assert_eq!(e.code(), Some(-32603), "{mode:?}: {e}");
            assert!(
                e.to_string().contains("tools/call result is invalid"),
                "{mode:?}: {e}"
            );
            assert_eq!(good(&c, "after malformed").await, "after malformed");

            // Garbage lines around an answer are skipped.
            let r = c.call_tool("noisy", json!({})).await.unwrap();
            assert_eq!(
                serde_json::to_value(&r.content[0]).unwrap()["text"],
                "quiet now"
            );

            // An answer over the frame limit fails its call; the stream goes on.
            let e = c.call_tool("huge", json!({})).await.unwrap_err();
            assert!(e.to_string().contains("upstream"), "{mode:?}: {e}");
            assert_eq!(good(&c, "after huge").await, "after huge");

            // The upstream's own error reaches the caller as it was sent.
            let e = c.call_tool("failing", json!({})).await.unwrap_err();
            assert_eq!(e.code(), Some(-32000), "{mode:?}: {e}");
            assert!(e.to_string().contains("the database is down"), "{e}");
        }
    })
    .await;
}

#[tokio::test]
async fn an_upstream_that_exits_mid_call_fails_that_call_and_is_started_again() {
    bounded(async {
        let proxy = proxied().await;
        let server = proxy.server();
        let c = caller(&server, ConnectMode::Legacy(V::V2025_11_25)).await;
        let e = c.call_tool("crash", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("exit status: 7"), "{e}");
        assert_eq!(good(&c, "again").await, "again");
    })
    .await;
}
