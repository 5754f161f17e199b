//! Dynamic registration through `ServerHandle`: tools, prompts and resources added and
//! removed while serving, `notifications/*/list_changed` on legacy sessions (stdio and the
//! HTTP GET stream), the generation counter, and the refusals.

mod support;

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use mcp::CancellationToken;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::{Changes, Registry, ServerHandle, ServerHandler};
use mcp_core::types::{GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceContents};
use serde_json::{Value, json};
use support::{Wire, code};

#[derive(serde::Deserialize)]
struct NoArgs {}

fn schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn text(s: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn server(subscriptions: bool) -> Server {
    Server::builder("dyn-test", "1.0.0")
        .subscriptions(subscriptions)
        .tool(
            Tool::new("base").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(text("base")) },
        )
        .tool(
            // A handler that registers another tool through its context.
            Tool::new("grow").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let h = ctx
                    .server()
                    .expect("handlers see the server handle")
                    .clone();
                h.add_tool(
                    Tool::new("grown").with_input_schema(schema()),
                    |_ctx, _: NoArgs| async { Ok(text("grown")) },
                )
                .map_err(|e| McpError::Internal(Box::new(e)))?;
                Ok(text("grew"))
            },
        )
        .build()
}

fn add(h: &ServerHandle, name: &'static str) {
    h.add_tool(
        Tool::new(name).with_input_schema(schema()),
        move |_ctx, _: NoArgs| async move { Ok(text(name)) },
    )
    .unwrap();
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn added_and_removed_tools_are_served_and_announced_on_a_legacy_session() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);

    add(&h, "late");
    let n = w.recv().await;
    assert_eq!(n["method"], "notifications/tools/list_changed");
    assert!(n.get("params").is_none_or(|p| p.get("_meta").is_none()));
    let list = w.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(tool_names(&list), ["base", "grow", "late"]);
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "late", "arguments": {}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "late");

    assert!(h.remove_tool("late").unwrap());
    assert_eq!(w.recv().await["method"], "notifications/tools/list_changed");
    let r = w
        .request(
            json!(3),
            "tools/call",
            json!({"name": "late", "arguments": {}}),
        )
        .await;
    assert_eq!(code(&r), -32602);
    // Removing what is not there changes nothing and announces nothing.
    assert!(!h.remove_tool("late").unwrap());
    w.expect_silence(100).await;
}

#[tokio::test]
async fn a_handler_can_register_through_its_context() {
    let s = server(true);
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-11-25").await;
    w.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "grow", "arguments": {}}}))
        .await;
    // The notification and the response, in either order.
    let (a, b) = (w.recv().await, w.recv().await);
    let methods = [a.get("method").cloned(), b.get("method").cloned()];
    assert!(methods.contains(&Some(json!("notifications/tools/list_changed"))));
    let list = w.request(json!(2), "tools/list", json!({})).await;
    assert!(tool_names(&list).contains(&"grown".to_owned()));
}

#[tokio::test]
async fn prompts_and_resources_are_dynamic_too_and_each_list_is_announced_once() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-06-18").await;
    let changes = h
        .update(|r| {
            r.add_prompt(Prompt::new("p"), |_ctx, _| async {
                Ok(GetPromptResult::default())
            });
            r.add_resource(Resource::new("a://r", "r"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "r")],
                    ..Default::default()
                })
            });
        })
        .unwrap();
    assert_eq!(
        changes,
        Changes {
            tools: false,
            prompts: true,
            resources: true
        }
    );
    // This session was initialized without prompts or resources, so it was never
    // promised their list-changed notifications.
    w.expect_silence(100).await;
    let r = w
        .request(json!(1), "resources/read", json!({"uri": "a://r"}))
        .await;
    assert_eq!(r["result"]["contents"][0]["text"], "r");
    let r = w.request(json!(2), "prompts/list", json!({})).await;
    assert_eq!(r["result"]["prompts"][0]["name"], "p");

    // A session that starts now is told, and gets both.
    let mut w2 = Wire::new(s.serve_in_memory());
    let init = w2.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"]["prompts"]["listChanged"], true);
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true);
    assert!(h.remove_prompt("p").unwrap());
    assert_eq!(
        w2.recv().await["method"],
        "notifications/prompts/list_changed"
    );
    assert!(h.remove_resource("a://r").unwrap());
    assert_eq!(
        w2.recv().await["method"],
        "notifications/resources/list_changed"
    );
    w2.expect_silence(100).await;
}

#[tokio::test]
async fn with_subscriptions_off_changes_apply_silently_and_no_list_changed_is_promised() {
    let s = server(false);
    let h = s.handle();
    assert!(!h.subscriptions_enabled());
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-06-18").await;
    assert!(init["capabilities"]["tools"].get("listChanged").is_none());
    add(&h, "quiet");
    w.expect_silence(100).await;
    let list = w.request(json!(1), "tools/list", json!({})).await;
    assert!(tool_names(&list).contains(&"quiet".to_owned()));
}

#[tokio::test]
async fn an_edit_that_changes_nothing_publishes_nothing() {
    let s = server(true);
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-06-18").await;
    assert_eq!(h.update(|_| {}).unwrap(), Changes::default());
    assert!(!Changes::default().any());
    w.expect_silence(100).await;
}

struct Fixed;
impl ServerHandler for Fixed {}

#[tokio::test]
async fn a_handler_table_of_ones_own_takes_run_time_entries_beside_it() {
    let s = Server::builder("static", "1.0.0").handler(Fixed).build();
    let h = s.handle();
    h.add_tool(
        Tool::new("x").with_input_schema(schema()),
        |_ctx, _: NoArgs| async { Ok(text("x")) },
    )
    .unwrap();
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-06-18").await;
    let list = w.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(tool_names(&list), ["x"]);
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "x", "arguments": {}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "x");
    assert_eq!(h.remove_tool("x"), Ok(true));
    assert_eq!(h.remove_tool("x"), Ok(false));
}

#[test]
fn every_registry_mutation_bumps_the_generation() {
    let mut r = Registry::default();
    assert_eq!(r.generation(), 0);
    r.add_tool(Tool::new("a"), |_ctx, _| async { Ok(text("a")) });
    assert_eq!(r.generation(), 1);
    r.add_prompt(Prompt::new("p"), |_ctx, _| async {
        Ok(GetPromptResult::default())
    });
    r.remove_tool("a");
    r.remove_prompt("p");
    assert_eq!(r.generation(), 4);
    // Removing what is not there is no change.
    assert!(!r.remove_resource("none"));
    assert_eq!(r.generation(), 4);
    assert_eq!(ServerHandler::list_generation(&r), 4);
    assert_eq!(ServerHandler::list_generation(&Fixed), 0);
}

// ---------------------------------------------------------------------------------------
// HTTP: the legacy session's GET stream
// ---------------------------------------------------------------------------------------

async fn request(
    addr: std::net::SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> hyper::Response<hyper::body::Incoming> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut b = hyper::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("accept", "application/json, text/event-stream");
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    sender
        .send_request(b.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn list_changed_reaches_the_http_get_stream_of_a_legacy_session() {
    let s = server(true);
    let h = s.handle();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let (s2, st) = (s.clone(), stop.clone());
    tokio::spawn(async move { s2.serve_http_on(listener, HttpOptions::default(), st).await });

    let v = "2025-06-18";
    let r = request(
        addr,
        "POST",
        &[],
        Some(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": v, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})),
    )
    .await;
    let sid = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    r.into_body().collect().await.unwrap();
    let hs = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", v),
    ];
    let r = request(
        addr,
        "POST",
        &hs,
        Some(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    )
    .await;
    assert_eq!(r.status(), 202);

    let get = request(addr, "GET", &hs, None).await;
    assert_eq!(get.status(), 200);
    let mut body = get.into_body();
    add(&h, "over-http");
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let f = body.frame().await.expect("open").unwrap();
            if let Ok(d) = f.into_data() {
                seen.push_str(&String::from_utf8_lossy(&d));
            }
            if seen.contains("notifications/tools/list_changed") {
                return;
            }
        }
    })
    .await;
    assert!(found.is_ok(), "no list_changed on the GET stream: {seen}");
    stop.cancel();
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct RegionArgs {
    region: String,
}

#[tokio::test]
async fn a_tool_added_at_run_time_gets_its_2026_header_checks() {
    let s = server(false);
    let h = s.handle();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let (s2, st) = (s.clone(), stop.clone());
    tokio::spawn(async move { s2.serve_http_on(listener, HttpOptions::default(), st).await });
    h.add_tool(
        Tool::new("regional").with_input_schema(json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"]
        })),
        |_ctx, _: RegionArgs| async { Ok(text("ok")) },
    )
    .unwrap();

    let call = |region_header: Option<&'static str>| {
        let mut hs = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "regional"),
        ];
        if let Some(v) = region_header {
            hs.push(("mcp-param-region", v));
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": support::modern(json!({"name": "regional", "arguments": {"region": "eu"}}))});
        async move {
            let r = request(addr, "POST", &hs, Some(body)).await;
            let status = r.status().as_u16();
            let bytes = r.into_body().collect().await.unwrap().to_bytes();
            (status, serde_json::from_slice::<Value>(&bytes).unwrap())
        }
    };
    let (status, v) = call(Some("us")).await;
    assert_eq!((status, code(&v)), (400, -32020), "{v}");
    let (status, v) = call(None).await;
    assert_eq!((status, code(&v)), (400, -32020), "{v}");
    let (status, v) = call(Some("eu")).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["result"]["content"][0]["text"], "ok");

    // Removed: its schema goes with it (the call is now an unknown tool, not a header error).
    h.remove_tool("regional").unwrap();
    let (_, v) = call(Some("us")).await;
    assert_eq!(code(&v), -32602, "{v}");
    stop.cancel();
}

/// Lets `initialize` reach the dispatcher, then refuses it.
struct RefuseInitialize;

impl mcp::Middleware for RefuseInitialize {
    async fn handle<E: mcp::middleware::Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: mcp::Next<'_, E>,
    ) -> mcp::HandlerResult {
        let refuse = ctx.method() == "initialize";
        let out = next.run(ctx).await;
        if refuse {
            return Err(McpError::invalid_params("refused"));
        }
        out
    }
}

#[tokio::test]
async fn a_session_whose_handshake_failed_gets_no_list_changed() {
    let s = Server::builder("refusing", "1.0.0")
        .subscriptions(true)
        .middleware(RefuseInitialize)
        .tool(
            Tool::new("base").with_input_schema(schema()),
            |_ctx, _: NoArgs| async { Ok(text("base")) },
        )
        .build();
    let h = s.handle();
    let mut w = Wire::new(s.serve_in_memory());
    let r = w
        .request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(code(&r), -32602);
    add(&h, "late");
    w.expect_silence(150).await;
}
