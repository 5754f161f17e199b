//! `mcp::proxy` and who a call comes from: one upstream connection per caller
//! (`Sharing::PerCaller`) against one shared (the default), the per-caller connections
//! closed when their downstream session ends, when idle, and past the maximum; and a 2026
//! caller keyed by its authenticated principal. The upstream is our own legacy server over
//! Streamable HTTP on loopback, whose `session` tool names the upstream session a call
//! arrived on; that a session was closed is seen at the upstream (its id answers `404`).

use std::time::Duration;

use mcp::Client;
use mcp::prelude::*;
use mcp::proxy::{Proxy, Sharing, Upstream};
use mcp::runtime::client::ConnectMode;
use mcp::runtime::transport::http::auth::{AuthError, Principal, validator_fn};
use mcp::runtime::transport::http::{AuthOptions, HttpOptions, HttpRequest};
use mcp::testing::LoopbackHttp;
use serde_json::{Value, json};

mod support;
use support::http::{Resp, request, send};

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

// ---------------------------------------------------------------------------------------
// The upstream: a legacy server that names the session each call arrives on.

fn upstream_server() -> Server {
    Server::builder("sessions", "1.0.0")
        .tool(Tool::new("session"), |ctx: Context, _: Value| async move {
            Ok(text(ctx.session_id().unwrap_or("none")))
        })
        .build()
}

async fn upstream_http() -> LoopbackHttp {
    LoopbackHttp::start(&upstream_server(), HttpOptions::default())
        .await
        .expect("loopback HTTP")
}

/// Whether the upstream still knows the legacy session `id` (a ping on it is answered,
/// not `404`).
async fn upstream_knows(http: &LoopbackHttp, id: &str) -> bool {
    let req = request(http.addr(), "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let r = Resp::read(send(http.addr(), req, body).await).await;
    match r.status {
        200 => true,
        404 => false,
        other => panic!("a ping on session {id} answered {other}: {}", r.body),
    }
}

/// Waits (up to 5 s) until the upstream has forgotten session `id`.
async fn upstream_forgets(http: &LoopbackHttp, id: &str) {
    for _ in 0..100 {
        if !upstream_knows(http, id).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the upstream session {id} was not closed");
}

async fn downstream(server: &Server, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

/// The upstream session a call of `c` arrives on.
async fn session_of(c: &Client) -> String {
    text_of(&c.call_tool("session", json!({})).await.unwrap())
}

async fn proxy(upstream: Upstream) -> Proxy {
    Proxy::connect(upstream).await.expect("the proxy connects")
}

// ---------------------------------------------------------------------------------------
// Shared and per caller.

#[tokio::test]
async fn shared_by_default_and_one_upstream_session_per_downstream_session_when_per_caller() {
    bounded(async {
        let http = upstream_http().await;
        // Shared (the default): both callers' calls arrive on the proxy's one session.
        let shared = proxy(Upstream::http(http.url()).mode(LEGACY)).await;
        let main = shared.client().http_session_id().expect("a legacy session");
        let server = shared.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        assert_eq!(session_of(&a).await, main);
        assert_eq!(session_of(&b).await, main);

        // Per caller: each downstream session has an upstream session of its own, kept
        // from call to call.
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let main = per.client().http_session_id().expect("a legacy session");
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let (sa, sb) = (session_of(&a).await, session_of(&b).await);
        assert_ne!(sa, sb);
        assert!(sa != main && sb != main, "{sa} {sb} {main}");
        assert_eq!(session_of(&a).await, sa);
        assert_eq!(session_of(&b).await, sb);
        // A 2026 caller without authentication names no caller: the shared connection.
        let m = downstream(&server, MODERN).await;
        assert_eq!(session_of(&m).await, main);
    })
    .await;
}

#[tokio::test]
async fn a_closed_downstream_session_closes_its_upstream_session() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let (sa, sb) = (session_of(&a).await, session_of(&b).await);
        assert!(upstream_knows(&http, &sa).await);
        a.close().await.unwrap();
        drop(a);
        upstream_forgets(&http, &sa).await;
        // The other caller's connection stays, as does the proxy's own.
        assert!(upstream_knows(&http, &sb).await);
        assert_eq!(session_of(&b).await, sb);
        assert!(upstream_knows(&http, &per.client().http_session_id().unwrap()).await);
    })
    .await;
}

#[tokio::test]
async fn an_idle_callers_connection_is_closed_and_made_again_on_its_next_call() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller)
                .caller_idle_timeout(Duration::from_millis(200)),
        )
        .await;
        let server = per.server();
        let a = downstream(&server, LEGACY).await;
        let first = session_of(&a).await;
        upstream_forgets(&http, &first).await;
        let second = session_of(&a).await;
        assert_ne!(first, second);
        assert!(upstream_knows(&http, &second).await);
    })
    .await;
}

#[tokio::test]
async fn past_the_maximum_the_least_recently_used_callers_connection_is_closed() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller)
                .max_callers(1),
        )
        .await;
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let sa = session_of(&a).await;
        let sb = session_of(&b).await;
        assert_ne!(sa, sb);
        upstream_forgets(&http, &sa).await;
        assert!(upstream_knows(&http, &sb).await);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// 2026 callers by principal.

/// The proxy's server over HTTP with bearer auth: token `t-NAME` is principal `NAME`.
async fn authenticated(server: &Server) -> LoopbackHttp {
    let validator = validator_fn(|token: String, _req: HttpRequest| async move {
        match token.strip_prefix("t-") {
            Some(who) => Ok(Principal::new(who)),
            None => Err(AuthError::InvalidToken("unknown token".into())),
        }
    });
    let opts = HttpOptions {
        auth: Some(AuthOptions::new("http://127.0.0.1/mcp", validator)),
        ..HttpOptions::default()
    };
    LoopbackHttp::start(server, opts)
        .await
        .expect("loopback HTTP")
}

async fn caller(url: &str, token: &str) -> Client {
    Client::builder()
        .mode(MODERN)
        .bearer_token(token)
        .connect_http(url)
        .await
        .expect("the caller connects")
}

#[tokio::test]
async fn a_2026_caller_is_keyed_by_its_authenticated_principal() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let main = per.client().http_session_id().unwrap();
        let front = authenticated(&per.server()).await;
        let ada = session_of(&caller(&front.url(), "t-ada").await).await;
        let ada_again = session_of(&caller(&front.url(), "t-ada").await).await;
        let bob = session_of(&caller(&front.url(), "t-bob").await).await;
        assert_eq!(ada, ada_again, "one principal, one upstream connection");
        assert_ne!(ada, bob);
        assert!(ada != main && bob != main);
    })
    .await;
}
