//! `mcp::proxy` before an HTTP+SSE-only upstream and an upstream with task tools (what
//! `mcp bridge` serves): the 2024-11-05 transport reached with `Upstream::sse`, and with
//! `Upstream::http` pinned to a legacy revision (the endpoint refuses Streamable HTTP, the
//! proxy falls back as in `ConnectMode::Auto`); an upstream whose tools may run as tasks
//! served by `Proxy::server` with tasks of its own: the capability declared as the upstream
//! declares it, and a 2025-11-25 task-augmented call run as a task, forwarded upstream.

mod support;

use std::time::Duration;

use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::client::Transport;
use mcp::prelude::*;
use mcp::proxy::{Proxy, Upstream};
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::types::TaskSupport;
use serde_json::{Value, json};
use support::Wire;

use ProtocolVersion as V;

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the test finished within 60 s")
}

/// `add(a, b)`, and `slow(ms)`, which may run as a task.
fn upstream_server() -> Server {
    Server::builder("up", "1.0.0")
        .tool(Tool::new("add"), |_ctx, a: Value| async move {
            let sum = a["a"].as_i64().unwrap_or(0) + a["b"].as_i64().unwrap_or(0);
            Ok(CallToolResult::success(vec![ContentBlock::text(
                sum.to_string(),
            )]))
        })
        .tool(
            Tool::new("slow").with_task_support(TaskSupport::Optional),
            |_ctx, a: Value| async move {
                let ms = a["ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "slept {ms}"
                ))]))
            },
        )
        .build()
}

#[tokio::test]
async fn an_http_sse_upstream_is_reached_by_sse_and_by_a_pinned_legacy_revision() {
    bounded(async {
        let opts = HttpOptions {
            // Streamable HTTP elsewhere: the URL serves only the old transport.
            path: "/streamable-elsewhere".into(),
            legacy_sse: Some(("/sse".into(), "/messages".into())),
            ..HttpOptions::default()
        };
        let http = LoopbackHttp::start(&upstream_server(), opts).await.unwrap();
        let url = format!("http://{}/sse", http.addr());
        let old = ConnectMode::Legacy(V::V2024_11_05);
        for (upstream, want) in [
            (Upstream::sse(&url), V::V2025_11_25),
            (Upstream::sse(&url).mode(old), V::V2024_11_05),
            (Upstream::http(&url).mode(old), V::V2024_11_05),
        ] {
            let proxy = Proxy::connect(upstream).await.expect("the proxy connects");
            let client = proxy.client().expect("connected");
            assert_eq!(client.transport(), Transport::HttpSse);
            assert_eq!(client.protocol_version(), want);
            let c = Client::builder()
                .connect(proxy.server().serve_in_memory())
                .await
                .unwrap();
            let r = c.call_tool("add", json!({"a": 2, "b": 40})).await.unwrap();
            assert_eq!(serde_json::to_value(&r.content).unwrap()[0]["text"], "42");
        }
        // 2026-07-28 does not run over HTTP+SSE: pinned to it, the upstream is unreachable.
        let modern = Upstream::sse(&url).mode(ConnectMode::Modern(V::V2026_07_28));
        let e = Proxy::connect(modern).await.unwrap_err().to_string();
        assert!(e.contains("HTTP+SSE"), "{e}");
    })
    .await;
}

#[tokio::test]
async fn an_upstream_with_task_tools_is_served_with_tasks() {
    bounded(async {
        let http = LoopbackHttp::start(&upstream_server(), HttpOptions::default())
            .await
            .unwrap();
        let legacy = ConnectMode::Legacy(V::V2025_11_25);
        let proxy = Proxy::connect(Upstream::http(http.url()).mode(legacy))
            .await
            .unwrap();
        let mut w = Wire::new(proxy.server().serve_in_memory());
        let init = w.initialize("2025-11-25").await;
        assert!(init["capabilities"]["tasks"].is_object(), "{init}");
        let list = w.request(json!(1), "tools/list", json!({})).await;
        let slow = (list["result"]["tools"].as_array().unwrap().iter())
            .find(|t| t["name"] == "slow")
            .cloned()
            .unwrap_or_default();
        assert_eq!(slow["execution"]["taskSupport"], "optional", "{list}");
        // A task-augmented call answers with the task at once; its result is the upstream's.
        let params = json!({"name": "slow", "arguments": {"ms": 100}, "task": {}});
        let r = w.request(json!(2), "tools/call", params).await;
        let id = r["result"]["task"]["taskId"].as_str().unwrap_or_default();
        assert!(!id.is_empty(), "{r}");
        let r = w
            .request(json!(3), "tasks/result", json!({"taskId": id}))
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "slept 100", "{r}");
        // A plain call of the same tool is forwarded as it was.
        let params = json!({"name": "slow", "arguments": {"ms": 1}});
        let r = w.request(json!(4), "tools/call", params).await;
        assert_eq!(r["result"]["content"][0]["text"], "slept 1", "{r}");

        // A 2026-07-28 upstream's tools declare no task support (its tasks extension
        // decides call by call): nothing is declared, and the tools are served.
        let modern = ConnectMode::Modern(V::V2026_07_28);
        let proxy = Proxy::connect(Upstream::http(http.url()).mode(modern))
            .await
            .unwrap();
        let mut w = Wire::new(proxy.server().serve_in_memory());
        let init = w.initialize("2025-11-25").await;
        assert!(init["capabilities"].get("tasks").is_none(), "{init}");
        let params = json!({"name": "slow", "arguments": {"ms": 1}});
        let r = w.request(json!(1), "tools/call", params).await;
        assert_eq!(r["result"]["content"][0]["text"], "slept 1", "{r}");
    })
    .await;
}
