//! `mcp::proxy` relaying URL-mode elicitation: an upstream tool (our own server over
//! Streamable HTTP on loopback, both eras) sends the user to a URL; the downstream client
//! that caused the call is asked — a server-to-client `elicitation/create` in URL mode for
//! a 2025-11-25 caller, an `input_required` round for a 2026 one — and its action goes
//! back. The upstream's `notifications/elicitation/complete` reaches a 2025-11-25 caller
//! with the upstream's `elicitationId`. For a caller that cannot take URL mode (no
//! `elicitation.url`, or a revision before 2025-11-25) the upstream is answered with a
//! clear error, and the caller is never asked. An upstream's `-32042` reaches a 2025-11-25
//! caller as it is and a 2026 caller (which has no such error) as an `input_required`
//! round, whose retry goes upstream again. And the TypeScript `server-everything`'s
//! `trigger-url-elicitation` through the proxy, both ways (request and `-32042`).

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ClientHandler, ConnectMode, ServerNotification};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::proxy::{Proxy, Upstream};
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::types::{ElicitAction, ElicitParams, ElicitResult, ElicitUrlParams};
use serde_json::{Value, json};
use support::upstreams::ts_everything;

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the test finished within 60 s")
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn text_of(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The upstream: `link` sends the user to a URL (`elicitationId` `el-1`), then tells the
/// client it is complete (2025-11-25 only; elsewhere that fails and is ignored); when its
/// client (the proxy) refuses, it answers with the refusal.
fn upstream_server() -> Server {
    Server::builder("linker", "1.0.0")
        .tool(Tool::new("link"), |ctx: Context, _: Value| async move {
            let asked = ctx
                .elicit_url("Sign in to continue", "https://auth.example.com/s/1")
                .elicitation_id("el-1")
                .await;
            match asked {
                Ok(action) => {
                    let _ = ctx.elicitation_complete("el-1").await;
                    Ok(text(format!("{action:?}")))
                }
                // What the proxy answered for a caller that could not be asked.
                Err(e) => Ok(text(format!("refused: {e}"))),
            }
        })
        .build()
}

/// A downstream client that accepts every URL elicitation and records what it saw.
#[derive(Clone, Default)]
struct Host {
    asked: Arc<Mutex<Vec<Value>>>,
    completed: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Host {
    async fn elicit(&self, p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&p).unwrap());
        Ok(ElicitResult {
            action: ElicitAction::Accept,
            content: None,
            meta: None,
        })
    }

    fn on_notification(&self, n: &ServerNotification) {
        if n.method == "notifications/elicitation/complete" {
            let params = n.params.clone().unwrap_or_default();
            self.completed.lock().unwrap().push(params);
        }
    }
}

async fn downstream(server: &Server, mode: ConnectMode, caps: Value, host: Host) -> Client {
    Client::builder()
        .capabilities(serde_json::from_value(caps).unwrap())
        .handler(host)
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

#[tokio::test]
async fn a_url_elicitation_is_put_to_the_caller_and_its_completion_follows() {
    bounded(async {
        let http = LoopbackHttp::start(&upstream_server(), HttpOptions::default())
            .await
            .unwrap();
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .unwrap();
            let server = proxy.server();
            for down in [LEGACY, MODERN] {
                let host = Host::default();
                let caps = json!({"elicitation": {"form": {}, "url": {}}});
                let c = downstream(&server, down, caps, host.clone()).await;
                let r = c.call_tool("link", json!({})).await.unwrap();
                assert_eq!(text_of(&r), "Accept", "{up:?} -> {down:?}");
                let asked = host.asked.lock().unwrap().clone();
                assert_eq!(asked.len(), 1, "{up:?} -> {down:?}: {asked:?}");
                assert_eq!(asked[0]["mode"], "url");
                assert_eq!(asked[0]["url"], "https://auth.example.com/s/1");
                assert_eq!(asked[0]["message"], "Sign in to continue");
                if (up, down) == (LEGACY, LEGACY) {
                    // The caller's id is the upstream's, and its completion arrives.
                    assert_eq!(asked[0]["elicitationId"], "el-1");
                    for _ in 0..100 {
                        if !host.completed.lock().unwrap().is_empty() {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    let done = host.completed.lock().unwrap().clone();
                    assert_eq!(done, [json!({"elicitationId": "el-1"})]);
                } else {
                    // 2026 has no completion notification (its client retries instead).
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    assert!(host.completed.lock().unwrap().is_empty());
                }
            }
        }
    })
    .await;
}

/// What became of a `link` call the caller could not be asked for: a legacy upstream's
/// tool gets the proxy's refusal and answers with it; a 2026 upstream's round has no way
/// to carry a refusal, so the client fails the call with it, and the caller sees that.
async fn refusal(c: &Client) -> String {
    match c.call_tool("link", json!({})).await {
        Ok(r) => {
            let t = text_of(&r);
            assert!(t.starts_with("refused: "), "{t}");
            t
        }
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_caller_that_cannot_take_url_mode_gets_a_clear_error() {
    bounded(async {
        let http = LoopbackHttp::start(&upstream_server(), HttpOptions::default())
            .await
            .unwrap();
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .unwrap();
            let server = proxy.server();
            // Forms only: the capability is missing.
            for down in [LEGACY, MODERN] {
                let host = Host::default();
                let caps = json!({"elicitation": {"form": {}}});
                let c = downstream(&server, down, caps, host.clone()).await;
                let why = refusal(&c).await;
                assert!(
                    why.contains("Missing required client capability"),
                    "{up:?} -> {down:?}: {why}"
                );
                assert!(host.asked.lock().unwrap().is_empty());
            }
            // A revision without URL mode.
            let host = Host::default();
            let caps = json!({"elicitation": {"form": {}, "url": {}}});
            let old = ConnectMode::Legacy(V::V2025_06_18);
            let c = downstream(&server, old, caps, host.clone()).await;
            let why = refusal(&c).await;
            assert!(why.contains("URL-mode elicitation"), "{up:?}: {why}");
            assert!(host.asked.lock().unwrap().is_empty());
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Another SDK's upstream: the TypeScript `server-everything` (installed by
// `interop/cli/setup.sh`; skipped with a note when missing, unless `MCP_CLI_INTEROP=require`
// as in CI), whose `trigger-url-elicitation` exists only for a client declaring URL mode.

#[tokio::test]
async fn the_typescript_server_everythings_url_elicitation_through_the_proxy() {
    let Some(upstream) = ts_everything() else {
        return;
    };
    bounded(async {
        let proxy = Proxy::connect(upstream).await.unwrap();
        let server = proxy.server();
        for down in [LEGACY, MODERN] {
            let host = Host::default();
            let caps = json!({"elicitation": {"form": {}, "url": {}}});
            let c = downstream(&server, down, caps, host.clone()).await;
            let args = json!({
                "url": "https://example.com/consent",
                "message": "Open the consent page",
                "elicitationId": "ts-1"
            });
            let r = c.call_tool("trigger-url-elicitation", args).await.unwrap();
            let all = serde_json::to_string(&r.content).unwrap();
            assert!(
                all.contains("User completed the URL elicitation flow"),
                "{down:?}: {all}"
            );
            let asked = host.asked.lock().unwrap().clone();
            assert_eq!(asked.len(), 1, "{down:?}: {asked:?}");
            assert_eq!(asked[0]["mode"], "url");
            assert_eq!(asked[0]["url"], "https://example.com/consent");
            if down == LEGACY {
                assert_eq!(asked[0]["elicitationId"], "ts-1");
            }
        }
        // The error path (-32042, 2025-11-25): the upstream's error reaches a legacy
        // caller as it is, its elicitations with it.
        let c = downstream(
            &server,
            LEGACY,
            json!({"elicitation": {"url": {}}}),
            Host::default(),
        )
        .await;
        let args = json!({"url": "https://example.com/consent", "errorPath": true});
        match c.call_tool("trigger-url-elicitation", args).await {
            Err(ClientError::Rpc(e)) => {
                assert_eq!(e.code, -32042, "{e:?}");
                let data = serde_json::to_string(&e.data).unwrap();
                assert!(data.contains("https://modelcontextprotocol.io"), "{data}");
            }
            other => panic!("expected -32042, got {other:?}"),
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// -32042 (2025-11-25's "complete these URL elicitations, then retry").

/// An upstream whose `gated` tool answers -32042 once, then opens.
fn gated_server() -> Server {
    let opened = Arc::new(AtomicBool::new(false));
    Server::builder("gated", "1.0.0")
        .tool(Tool::new("gated"), move |ctx: Context, _: Value| {
            let opened = opened.clone();
            async move {
                if opened.swap(true, Ordering::SeqCst) {
                    return Ok(text("opened"));
                }
                let mut consent =
                    ElicitUrlParams::new("Consent first", "https://example.com/consent");
                consent.elicitation_id = Some("g-1".into());
                Err(ctx.url_elicitation_required(vec![consent]))
            }
        })
        .build()
}

#[tokio::test]
async fn an_upstream_url_elicitation_required_error_is_a_round_for_a_2026_caller() {
    bounded(async {
        let caps = json!({"elicitation": {"url": {}}});
        // A 2025-11-25 caller gets the error as it is.
        let http = LoopbackHttp::start(&gated_server(), HttpOptions::default())
            .await
            .unwrap();
        let proxy = Proxy::connect(Upstream::http(http.url()).mode(LEGACY))
            .await
            .unwrap();
        let c = downstream(&proxy.server(), LEGACY, caps.clone(), Host::default()).await;
        match c.call_tool("gated", json!({})).await {
            Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32042, "{e:?}"),
            other => panic!("expected -32042, got {other:?}"),
        }
        // A 2026 caller, which has no -32042, is asked in a round, and its retry opens.
        let http = LoopbackHttp::start(&gated_server(), HttpOptions::default())
            .await
            .unwrap();
        let proxy = Proxy::connect(Upstream::http(http.url()).mode(LEGACY))
            .await
            .unwrap();
        let host = Host::default();
        let c = downstream(&proxy.server(), MODERN, caps, host.clone()).await;
        let r = c.call_tool("gated", json!({})).await.unwrap();
        assert_eq!(text_of(&r), "opened");
        let asked = host.asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert_eq!(asked[0]["mode"], "url");
        assert_eq!(asked[0]["url"], "https://example.com/consent");
    })
    .await;
}
