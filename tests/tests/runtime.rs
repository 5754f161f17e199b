//! Runtime behaviour beyond the middleware semantics: handler tables, arguments, peers,
//! limits, filters, progress, logging, pagination.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::prelude::*;
use mcp::types::{LoggingLevel, ReadResourceResult, Resource, ResourceContents};
use mcp::{FilterAction, MessageFilter, ServerOptions};
use serde_json::{Value, json};
use support::{Wire, code, modern};

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn add_tool() -> Tool {
    Tool::new("add").with_input_schema(json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    }))
}

fn add_server() -> mcp::ServerBuilder {
    Server::builder("runtime", "1.0.0").tool(add_tool(), |_ctx, a: AddArgs| async move {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            (a.a + a.b).to_string(),
        )]))
    })
}

fn text(r: &Value) -> &str {
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {r}"))
}

#[tokio::test]
async fn bad_arguments_are_is_error_results_naming_field_and_type() {
    let server = add_server().build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": "two"}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    let t = text(&r);
    assert_eq!(t, r#"argument "b": expected an integer, got a string"#);
    assert!(!t.contains("line 1") && !t.contains("column"), "{t}");
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(text(&r), r#"argument "b" is required but missing"#, "{r}");
    // An unknown tool is a protocol error.
    let r = w
        .request(json!(3), "tools/call", json!({"name": "nope"}))
        .await;
    assert_eq!(code(&r), -32602);
}

#[tokio::test]
async fn a_hand_written_schema_is_enforced_before_the_handler_runs() {
    let ran = Arc::new(AtomicUsize::new(0));
    let ran2 = ran.clone();
    let server = Server::builder("runtime", "1")
        .tool_with_schema(
            Tool::new("book").with_input_schema(json!({
                "type": "object",
                "properties": {
                    "isbn": {"type": "string", "pattern": "^[0-9]{13}$"},
                    "copies": {"type": "integer", "minimum": 1}
                },
                "required": ["isbn"]
            })),
            move |_ctx, args| {
                let ran = ran2.clone();
                async move {
                    ran.fetch_add(1, Ordering::SeqCst);
                    Ok(CallToolResult::success(vec![ContentBlock::text(
                        args["isbn"].as_str().unwrap_or_default().to_owned(),
                    )]))
                }
            },
        )
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-06-18").await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            json!({"name": "book", "arguments": {"isbn": "12", "copies": 0}}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true);
    let t = text(&r);
    assert!(t.contains("/isbn") && t.contains("/copies"), "{t}");
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "book", "arguments": {"isbn": "9780441013593"}}),
        )
        .await;
    assert_eq!(text(&r), "9780441013593");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    // An invalid schema is refused at build time.
    let err = Server::builder("x", "1")
        .tool_with_schema(
            Tool::new("bad")
                .with_input_schema(json!({"type": "object", "properties": {"a": {"type": 5}}})),
            |_ctx, _| async move { Ok(CallToolResult::success(vec![])) },
        )
        .try_build()
        .err()
        .expect("invalid schema must fail the build");
    assert!(err.to_string().contains("bad"), "{err}");
    assert!(
        Server::builder("x", "1")
            .tool(Tool::new("has space"), |_c, _: Value| async move {
                Ok(CallToolResult::success(vec![]))
            })
            .try_build()
            .is_err()
    );
}

#[tokio::test]
async fn server_to_client_requests_are_correlated_and_time_out() {
    let server =
        Server::builder("runtime", "1")
            .tool(Tool::new("ask"), |ctx: Context, _: Value| async move {
                let pong = ctx.ping().await;
                let sampled = ctx
                .create_message(serde_json::from_value(json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "maxTokens": 10
                })).unwrap())
                .await;
                let roots = ctx.list_roots().await;
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{:?}|{}|{:?}",
                    pong.is_ok(),
                    sampled.map(|r| r.model).unwrap_or_else(|e| e.to_string()),
                    roots.err()
                ))]))
            })
            .options(ServerOptions {
                peer_request_timeout: Duration::from_millis(300),
                ..Default::default()
            })
            .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
               "clientInfo": {"name": "c", "version": "1"}}),
    )
    .await;
    w.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}))
        .await;
    // The server pings us first; answer it.
    let ping = w.recv().await;
    assert_eq!(ping["method"], "ping");
    w.send(&json!({"jsonrpc":"2.0","id":ping["id"],"result":{}}))
        .await;
    // Then it samples; answer with a model name.
    let sample = w.recv().await;
    assert_eq!(sample["method"], "sampling/createMessage");
    assert_eq!(sample["params"]["maxTokens"], 10);
    w.send(&json!({"jsonrpc":"2.0","id":sample["id"],"result":{
        "role":"assistant","content":{"type":"text","text":"hello"},"model":"test-model"}}))
        .await;
    // roots/list is refused locally: the client did not declare roots.
    let r = w.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(text(&r), "true|test-model|Some(NotDeclared(\"roots\"))");

    // A request the client never answers times out.
    let server2 = Server::builder("runtime", "1")
        .tool(Tool::new("ping_me"), |ctx: Context, _: Value| async move {
            let e = ctx.ping().await.unwrap_err();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{e:?}"
            ))]))
        })
        .options(ServerOptions {
            peer_request_timeout: Duration::from_millis(100),
            ..Default::default()
        })
        .build();
    let mut w = Wire::new(server2.serve_in_memory());
    w.initialize("2025-11-25").await;
    w.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping_me"}}))
        .await;
    assert_eq!(w.recv().await["method"], "ping");
    let r = w.recv().await;
    assert_eq!(text(&r), "Timeout");
}

#[tokio::test]
async fn concurrency_is_bounded_and_the_reader_applies_backpressure() {
    let now = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (n2, p2) = (now.clone(), peak.clone());
    let server = Server::builder("runtime", "1")
        .tool(Tool::new("slow"), move |_ctx, _: Value| {
            let (now, peak) = (n2.clone(), p2.clone());
            async move {
                let cur = now.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(cur, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(30)).await;
                now.fetch_sub(1, Ordering::SeqCst);
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            }
        })
        .options(ServerOptions {
            max_in_flight: 3,
            ..Default::default()
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let mut batch = Vec::new();
    for i in 1..=12 {
        batch.extend(
            serde_json::to_vec(&json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
            "params":{"name":"slow"}}))
            .unwrap(),
        );
        batch.push(b'\n');
    }
    w.send_raw(&batch).await;
    let mut ids = std::collections::BTreeSet::new();
    for _ in 0..12 {
        ids.insert(w.recv().await["id"].as_i64().unwrap());
    }
    assert_eq!(ids.len(), 12);
    assert_eq!(
        peak.load(Ordering::SeqCst),
        3,
        "at most 3 at once, and the bound is used"
    );
}

#[tokio::test]
async fn a_request_timeout_answers_internal_error() {
    let server = Server::builder("runtime", "1")
        .tool(Tool::new("forever"), |_ctx, _: Value| async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(CallToolResult::success(vec![]))
        })
        .options(ServerOptions {
            request_timeout: Some(Duration::from_millis(50)),
            ..Default::default()
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(json!(1), "tools/call", json!({"name": "forever"}))
        .await;
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "Request timed out"})
    );
}

struct Redact;
impl MessageFilter for Redact {
    fn incoming(&self, m: &mut Value) -> FilterAction {
        if m["method"] == "secret/drop" {
            return FilterAction::Drop;
        }
        FilterAction::Pass
    }
    fn outgoing(&self, m: &mut Value) -> FilterAction {
        if let Some(t) = m.pointer_mut("/result/content/0/text")
            && t.as_str().is_some_and(|s| s.contains("42"))
        {
            *t = json!("[redacted]");
        }
        FilterAction::Pass
    }
}

#[tokio::test]
async fn message_filters_observe_rewrite_and_drop() {
    let server = add_server().filter(Redact).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 40, "b": 2}}),
        )
        .await;
    assert_eq!(text(&r), "[redacted]");
    w.send(&json!({"jsonrpc":"2.0","id":2,"method":"secret/drop"}))
        .await;
    w.expect_silence(100).await;
    let r = w
        .request(
            json!(3),
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        )
        .await;
    assert_eq!(text(&r), "3");
}

#[tokio::test]
async fn progress_must_increase_and_only_goes_to_clients_that_asked() {
    let server = Server::builder("runtime", "1")
        .tool(Tool::new("work"), |ctx: Context, _: Value| async move {
            ctx.progress(1.0, Some(3.0), Some("one")).await.unwrap();
            let again = ctx.progress(1.0, None, None).await;
            ctx.progress(2.5, Some(3.0), None).await.unwrap();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{}",
                again.is_err()
            ))]))
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-03-26").await;
    w.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params":{"name":"work","_meta":{"progressToken":7}}}))
        .await;
    let p1 = w.recv().await;
    assert_eq!(
        p1["params"],
        json!({"progressToken": 7, "progress": 1.0, "total": 3.0, "message": "one"})
    );
    let p2 = w.recv().await;
    assert_eq!(p2["params"]["progress"], 2.5);
    assert_eq!(text(&w.recv().await), "true");
    // Without a token, nothing is sent (and nothing is refused): the response comes first.
    w.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"work"}}))
        .await;
    let r = w.recv().await;
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(text(&r), "false");
}

#[tokio::test]
async fn request_scoped_logs_follow_the_session_level_or_the_modern_opt_in() {
    let server = Server::builder("runtime", "1")
        .tool(Tool::new("chatty"), |ctx: Context, _: Value| async move {
            let debug = ctx
                .log(LoggingLevel::Debug, Some("t"), json!("dbg"))
                .await
                .unwrap();
            let warn = ctx
                .log(LoggingLevel::Warning, Some("t"), json!("careful"))
                .await
                .unwrap();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{debug},{warn}"
            ))]))
        })
        .build();
    // Legacy: nothing before setLevel; after setLevel(info) only warning passes.
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(json!(1), "tools/call", json!({"name": "chatty"}))
        .await;
    assert_eq!(text(&r), "false,false");
    w.request(json!(2), "logging/setLevel", json!({"level": "info"}))
        .await;
    w.send(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chatty"}}))
        .await;
    let log = w.recv().await;
    assert_eq!(log["method"], "notifications/message");
    // On a byte stream it names its request (ours: nothing else on the stream says).
    assert_eq!(
        log["params"],
        json!({"level": "warning", "logger": "t", "data": "careful",
               "_meta": {"dev.mcp-framework/related-request": 3}})
    );
    assert_eq!(text(&w.recv().await), "false,true");
    // Modern: only with the per-request logLevel opt-in.
    let mut m = Wire::new(server.serve_in_memory());
    let r = m
        .request(json!(1), "tools/call", modern(json!({"name": "chatty"})))
        .await;
    assert_eq!(text(&r), "false,false");
    let mut p = modern(json!({"name": "chatty"}));
    p["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    m.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":p}))
        .await;
    assert_eq!(m.recv().await["params"]["level"], "debug");
    assert_eq!(m.recv().await["params"]["level"], "warning");
    assert_eq!(text(&m.recv().await), "true,true");
    // logging/setLevel does not exist on 2026.
    let r = m
        .request(
            json!(3),
            "logging/setLevel",
            modern(json!({"level": "info"})),
        )
        .await;
    assert_eq!(code(&r), -32601);
}

#[tokio::test]
async fn lists_paginate_with_opaque_cursors() {
    let mut b = Server::builder("runtime", "1").page_size(2);
    for i in 0..5 {
        b = b.tool(Tool::new(format!("t{i}")), |_c, _: Value| async move {
            Ok(CallToolResult::success(vec![]))
        });
    }
    let server = b.build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0..10 {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = w.request(json!(i), "tools/list", params).await;
        for t in r["result"]["tools"].as_array().unwrap() {
            names.push(t["name"].as_str().unwrap().to_owned());
        }
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    let r = w
        .request(json!(99), "tools/list", json!({"cursor": "forged"}))
        .await;
    assert_eq!(code(&r), -32602);
}

#[tokio::test]
async fn resource_not_found_is_32002_legacy_and_32602_modern() {
    let server = Server::builder("runtime", "1")
        .registry(|r| {
            r.add_resource(Resource::new("books://1", "one"), |_c, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "Dune")],
                    ..Default::default()
                })
            });
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(json!(1), "resources/read", json!({"uri": "books://1"}))
        .await;
    assert_eq!(r["result"]["contents"][0]["text"], "Dune");
    let r = w
        .request(json!(2), "resources/read", json!({"uri": "books://2"}))
        .await;
    assert_eq!(code(&r), -32002);
    let mut m = Wire::new(server.serve_in_memory());
    let r = m
        .request(
            json!(1),
            "resources/read",
            modern(json!({"uri": "books://2"})),
        )
        .await;
    assert_eq!(code(&r), -32602);
}

#[tokio::test]
async fn capabilities_follow_what_is_registered() {
    let server = add_server().build();
    let mut w = Wire::new(server.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    let caps = &init["capabilities"];
    assert!(caps["tools"].is_object());
    assert!(caps.get("prompts").is_none() && caps.get("resources").is_none());
    let mut m = Wire::new(server.serve_in_memory());
    let r = m
        .request(json!(1), "server/discover", modern(json!({})))
        .await;
    assert_eq!(r["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert!(r["result"]["capabilities"]["tools"].is_object());
}

#[tokio::test]
async fn serves_any_byte_stream_such_as_tcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = add_server().build();
    tokio::spawn(async move {
        let (sock, _) = listener.accept().await.unwrap();
        let (r, w) = sock.into_split();
        server.serve(r, w).await.unwrap();
    });
    let sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (r, mut w) = sock.into_split();
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut lines = tokio::io::BufReader::new(r).lines();
    let msg = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
        "params": modern(json!({"name": "add", "arguments": {"a": 20, "b": 22}}))});
    w.write_all(format!("{msg}\n").as_bytes()).await.unwrap();
    let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let r: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(text(&r), "42");
}

#[tokio::test]
async fn modern_notifications_need_no_envelope_and_a_failed_modern_opening_fixes_no_era() {
    let server = Server::builder("runtime", "1")
        .tool(Tool::new("slow"), |_ctx: Context, _: Value| async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CallToolResult::success(vec![ContentBlock::text("late")]))
        })
        .build();
    let mut m = Wire::new(server.serve_in_memory());
    m.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":modern(json!({"name":"slow"}))}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A bare cancellation (no `_meta`) is honoured on a modern stream.
    m.notify("notifications/cancelled", json!({"requestId": 1}))
        .await;
    let r = m
        .request(json!(2), "server/discover", modern(json!({})))
        .await;
    assert!(r["result"].is_object(), "{r}");
    // Had the cancellation been dropped, "late" would arrive within 300 ms.
    m.expect_silence(500).await;

    // A legacy-only server: the discover probe fails as on a legacy server (-32600, not
    // -32022, which would mean "modern: do not fall back"), so the client falls back to
    // initialize on the same stream.
    let legacy_only = Server::builder("runtime", "1")
        .supported_versions(mcp::version::SupportedVersions::only(&[
            ProtocolVersion::V2025_11_25,
        ]))
        .build();
    let mut w = Wire::new(legacy_only.serve_in_memory());
    let r = w
        .request(json!(1), "server/discover", modern(json!({})))
        .await;
    assert_eq!(code(&r), -32600);
    assert_eq!(
        w.initialize("2025-11-25").await["protocolVersion"],
        "2025-11-25"
    );
}

/// A call still running when the shutdown grace ends is answered with an error saying the
/// server is shutting down, not left without an answer.
#[tokio::test]
async fn a_call_cut_short_by_the_shutdown_grace_gets_an_error_answer() {
    let server = Server::builder("runtime", "1.0.0")
        .options(ServerOptions {
            shutdown_grace: Duration::from_millis(200),
            ..ServerOptions::default()
        })
        .tool(Tool::new("stall"), |_ctx, _a: Value| async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(CallToolResult::success(vec![]))
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    w.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                   "params": {"name": "stall", "arguments": {}}}))
        .await;
    // A round trip, so the call surely runs before the input ends.
    assert!(
        w.request(json!(8), "ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    w.close().await;
    let (r, _) = w.response(json!(7)).await;
    assert_eq!(code(&r), -32000, "{r}");
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(msg.contains("shutting down"), "{msg}");
}

#[tokio::test]
async fn a_server_whose_lists_come_and_go_declares_them_all_from_the_start() {
    // Nothing registered: by default nothing is declared.
    let bare = Server::builder("runtime", "1").subscriptions(true).build();
    let mut w = Wire::new(bare.serve_in_memory());
    let caps = w.initialize("2025-11-25").await["capabilities"].clone();
    assert!(
        caps.get("tools").is_none() && caps.get("prompts").is_none(),
        "{caps}"
    );
    // Declared, with the change notifications subscriptions promise.
    let gateway = Server::builder("runtime", "1")
        .subscriptions(true)
        .declare_all_lists()
        .build();
    let mut w = Wire::new(gateway.serve_in_memory());
    let caps = w.initialize("2025-11-25").await["capabilities"].clone();
    assert_eq!(caps["tools"]["listChanged"], true, "{caps}");
    assert_eq!(caps["prompts"]["listChanged"], true, "{caps}");
    assert_eq!(caps["resources"]["listChanged"], true, "{caps}");
    let r = w.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(r["result"]["tools"], json!([]), "{r}");
    let mut m = Wire::new(gateway.serve_in_memory());
    let r = m
        .request(json!(1), "server/discover", modern(json!({})))
        .await;
    let caps = &r["result"]["capabilities"];
    assert!(
        caps["tools"].is_object() && caps["resources"].is_object(),
        "{r}"
    );
}
