//! `mcp::proxy` before other SDKs' servers, started by the tests over stdio: the official
//! Python SDK server (`interop/client/python_server.py`, both eras upstream) and the
//! TypeScript `@modelcontextprotocol/server-everything` (legacy only), each proxied to
//! downstream clients of both eras. Asserted end to end where the server offers it: calls,
//! progress in order, an elicitation asked upstream answered by the downstream client, a
//! downstream cancel ending the upstream handler, an upstream list change arriving
//! downstream once, upstream logging under the caller's level.
//!
//! Both are installed by `interop/cli/setup.sh` (`INTEROP_VENV`, `INTEROP_NPM_DIR`); when
//! missing the tests are skipped with a note, unless `MCP_CLI_INTEROP=require` (CI).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ClientHandler, ConnectMode, RequestOptions};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::proxy::Proxy;
use mcp::types::{ElicitParams, ElicitResult, LoggingLevel};
use serde_json::{Value, json};
use support::upstreams::{python, ts_everything};

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("the test finished within 120 s")
}

/// Answers elicitation with the name `Ada`.
struct Host;

impl ClientHandler for Host {
    async fn elicit(&self, _p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                .unwrap(),
        )
    }
}

async fn downstream(server: &Server<impl mcp::middleware::Chain>, mode: ConnectMode) -> Client {
    Client::builder()
        .capabilities(serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap())
        .handler(Host)
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

fn texts(r: &CallToolResult) -> String {
    let v = serde_json::to_value(&r.content).unwrap();
    (v.as_array().unwrap().iter())
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn progress_of(c: &Client, tool: &str, args: Value) -> (String, Vec<f64>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    let opts = RequestOptions::with_progress(move |p| s.lock().unwrap().push(p.progress));
    let r = c.call_tool_with(tool, args, opts).await.unwrap();
    let seen = seen.lock().unwrap().clone();
    (texts(&r), seen)
}

/// The next `*/list_changed` within `secs`, then none for a while.
async fn one_list_change(
    label: &str,
    notes: &mut tokio::sync::broadcast::Receiver<mcp::client::ServerNotification>,
) -> String {
    let first = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = notes.recv().await.unwrap();
            if n.method.ends_with("list_changed") {
                return n.method;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{label}: no list change arrived downstream"));
    tokio::time::sleep(Duration::from_millis(400)).await;
    while let Ok(n) = notes.try_recv() {
        assert!(
            !n.method.ends_with("list_changed"),
            "a second list change: {}",
            n.method
        );
    }
    first
}

#[tokio::test]
async fn the_python_sdk_server_behind_the_proxy_in_both_eras() {
    let Some(upstream) = python() else {
        return;
    };
    bounded(async {
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(upstream.clone().mode(up)).await.unwrap();
            assert_eq!(
                proxy.client().expect("connected").protocol_version(),
                match up {
                    ConnectMode::Legacy(v) | ConnectMode::Modern(v) => v,
                    ConnectMode::Auto => unreachable!(),
                }
            );
            let server = proxy.server();
            for down in [LEGACY, MODERN] {
                let c = downstream(&server, down).await;
                let tools: Vec<String> = (c.list_all_tools().await.unwrap())
                    .into_iter()
                    .map(|t| t.name)
                    .collect();
                assert!(tools.contains(&"ask_name".to_owned()), "{tools:?}");
                let r = c.call_tool("echo", json!({"message": "hi"})).await.unwrap();
                assert_eq!(texts(&r), "Echo: hi", "{up:?} -> {down:?}");
                // Progress, in order, with the caller's token.
                let (text, seen) = progress_of(&c, "progress", json!({"steps": 3})).await;
                assert_eq!(text, "done 3");
                assert_eq!(seen, [1.0, 2.0, 3.0], "{up:?} -> {down:?}");
                // An elicitation asked upstream, answered downstream.
                let r = c.call_tool("ask_name", json!({})).await.unwrap();
                assert_eq!(texts(&r), "Hello, Ada!", "{up:?} -> {down:?}");
                // A downstream cancel ends the upstream handler (`calls` counts it).
                let before: u64 = texts(&c.call_tool("calls", json!({})).await.unwrap())
                    .parse()
                    .unwrap();
                let opts = RequestOptions::default().timeout(Duration::from_millis(500));
                let e = c
                    .call_tool_with("slow", json!({"seconds": 30}), opts)
                    .await
                    .unwrap_err();
                assert!(matches!(e, ClientError::Timeout), "{e}");
                let mut ended = false;
                for _ in 0..100 {
                    let now: u64 = texts(&c.call_tool("calls", json!({})).await.unwrap())
                        .parse()
                        .unwrap();
                    if now > before {
                        ended = true;
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                assert!(
                    ended,
                    "{up:?} -> {down:?}: the upstream `slow` was not cancelled"
                );
                // Logging, under the caller's level.
                let mut notes = c.notifications();
                let mut opts = RequestOptions::default();
                if down == LEGACY {
                    c.set_log_level(LoggingLevel::Warning).await.unwrap();
                } else {
                    opts.log_level = Some(LoggingLevel::Warning);
                }
                c.call_tool_with("log_burst", json!({}), opts)
                    .await
                    .unwrap();
                let mut logs = Vec::new();
                while let Ok(Ok(n)) =
                    tokio::time::timeout(Duration::from_millis(300), notes.recv()).await
                {
                    if n.method == "notifications/message" {
                        logs.push(
                            n.params.unwrap()["data"]
                                .as_str()
                                .unwrap_or_default()
                                .to_owned(),
                        );
                    }
                }
                assert!(
                    logs.contains(&"error message".to_owned()),
                    "{up:?} -> {down:?}: {logs:?}"
                );
                assert!(
                    !logs
                        .iter()
                        .any(|l| l == "debug message" || l == "info message"),
                    "{logs:?}"
                );
            }
            // A list change upstream arrives downstream once. (On 2025-11-25 the Python SDK
            // declares `listChanged: false` and sends nothing for `changed`: checked on the
            // 2026 connection, where it goes to the proxy's listen stream.)
            if up == LEGACY {
                continue;
            }
            let c = downstream(&server, LEGACY).await;
            let mut notes = c.notifications();
            c.call_tool("changed", json!({})).await.unwrap();
            assert_eq!(
                one_list_change(&format!("{up:?}"), &mut notes).await,
                "notifications/tools/list_changed",
                "{up:?}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn the_typescript_server_everything_behind_the_proxy() {
    let Some(upstream) = ts_everything() else {
        return;
    };
    bounded(async {
        // server-everything speaks the legacy revisions only: Auto falls back to them.
        let proxy = Proxy::connect(upstream).await.unwrap();
        assert_eq!(
            proxy.client().expect("connected").protocol_version().era(),
            mcp::version::Era::Legacy
        );
        let gateway = Server::builder("gateway", "1.0.0")
            .subscriptions(true)
            .mount("ts", proxy.server())
            .middleware(proxy.readiness())
            .build();
        for down in [LEGACY, MODERN] {
            let c = downstream(&gateway, down).await;
            // The elicitation tool is registered once the client declared the capability
            // (after initialize): it may arrive by a list change.
            let mut tools = Vec::new();
            for _ in 0..100 {
                tools = (c.list_all_tools().await.unwrap())
                    .into_iter()
                    .map(|t| t.name)
                    .collect();
                if tools.contains(&"ts_trigger-elicitation-request".to_owned()) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert!(tools.contains(&"ts_get-sum".to_owned()), "{tools:?}");
            let r = c
                .call_tool("ts_echo", json!({"message": "hi"}))
                .await
                .unwrap();
            assert_eq!(texts(&r), "Echo: hi");
            let r = c
                .call_tool("ts_get-sum", json!({"a": 2, "b": 40}))
                .await
                .unwrap();
            assert_eq!(texts(&r), "The sum of 2 and 40 is 42.");
            let (text, seen) = progress_of(
                &c,
                "ts_trigger-long-running-operation",
                json!({"duration": 0.3, "steps": 3}),
            )
            .await;
            assert!(
                text.starts_with("Long running operation completed"),
                "{text}"
            );
            assert_eq!(seen, [1.0, 2.0, 3.0], "{down:?}");
            let r = c
                .call_tool("ts_trigger-elicitation-request", json!({}))
                .await
                .unwrap();
            assert!(texts(&r).contains("- Name: Ada"), "{down:?}: {}", texts(&r));
            let p = c
                .get_prompt("ts_args-prompt", [("city", "Paris")])
                .await
                .unwrap();
            assert!(
                serde_json::to_string(&p)
                    .unwrap()
                    .contains("What's weather in Paris?")
            );
        }
    })
    .await;
}
