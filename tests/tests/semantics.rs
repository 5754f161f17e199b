//! The middleware semantics (`shared/middleware-semantics.md`), one test per item, named by
//! its number. Everything runs over the in-memory transport through the public API.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp::middleware::Endpoint;
use mcp::prelude::*;
use mcp::{PeerError, Reply, ServerBuilder};
use serde_json::{Value, json};
use support::{Wire, code, envelope, modern};

type Log = Arc<Mutex<Vec<String>>>;

/// Records `<label>:before <method>` and `<label>:after <method> <ok|err>`.
#[derive(Clone)]
struct Recorder {
    label: &'static str,
    log: Log,
}

impl Middleware for Recorder {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let method = ctx.method().to_owned();
        let kind = if ctx.is_notification() { "n" } else { "r" };
        self.log
            .lock()
            .unwrap()
            .push(format!("{}:before {kind} {method}", self.label));
        let out = next.run(ctx).await;
        let status = match &out {
            Ok(Reply::None) => "none".to_owned(),
            Ok(Reply::Result(_)) => "ok".to_owned(),
            Err(e) => format!("err {}", e.to_wire().code),
        };
        self.log
            .lock()
            .unwrap()
            .push(format!("{}:after {method} {status}", self.label));
        out
    }
}

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn base() -> ServerBuilder {
    Server::builder("semantics", "1.0.0")
        .tool(
            Tool::new("add").with_input_schema(json!({
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            })),
            |_ctx, args: AddArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    (args.a + args.b).to_string(),
                )]))
            },
        )
        .tool(Tool::new("fail"), |_ctx, _: Value| async move {
            Err(McpError::internal("database password is hunter2"))
        })
        .tool(Tool::new("panic"), |_ctx, _: Value| async move {
            if true {
                panic!("boom with secret detail");
            }
            Ok(CallToolResult::success(vec![]))
        })
        .tool(Tool::new("whoami"), |ctx: Context, _: Value| async move {
            let tag = ctx
                .extensions()
                .get::<Tag>()
                .map(|t| t.0.clone())
                .unwrap_or_default();
            Ok(CallToolResult::success(vec![ContentBlock::text(tag)]))
        })
}

#[derive(Clone)]
struct Tag(String);

fn recorded(log: &Log) -> (Recorder, Recorder) {
    (
        Recorder {
            label: "A",
            log: log.clone(),
        },
        Recorder {
            label: "B",
            log: log.clone(),
        },
    )
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

async fn legacy(server: &Server<impl mcp::middleware::Chain, impl mcp::ServerHandler>) -> Wire {
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    w
}

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "arguments": args})
}

#[tokio::test]
async fn item_01_chain_wraps_every_inbound_message() {
    let log = Log::default();
    let server = base().middleware(recorded(&log).0).build();
    // Legacy connection: initialize, initialized, a request, a notification, an unknown method.
    let mut w = legacy(&server).await;
    w.request(json!(1), "tools/list", json!({})).await;
    w.notify("notifications/cancelled", json!({"requestId": 99}))
        .await;
    w.request(json!(2), "no/such/method", json!({})).await;
    // A modern connection: server/discover.
    let mut m = Wire::new(server.serve_in_memory());
    m.request(json!(1), "server/discover", modern(json!({})))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let log = entries(&log);
    for want in [
        "A:before r initialize",
        "A:before n notifications/initialized",
        "A:before r tools/list",
        "A:before n notifications/cancelled",
        "A:before r no/such/method",
        "A:before r server/discover",
    ] {
        assert!(
            log.iter().any(|l| l == want),
            "missing {want:?} in {log:#?}"
        );
    }
}

#[tokio::test]
async fn item_02_the_first_added_is_outermost() {
    let log = Log::default();
    let (a, b) = recorded(&log);
    let server = base().middleware(a).middleware(b).build();
    let mut w = legacy(&server).await;
    w.request(json!(1), "tools/list", json!({})).await;
    let only_list: Vec<String> = entries(&log)
        .into_iter()
        .filter(|l| l.contains("tools/list"))
        .collect();
    assert_eq!(
        only_list,
        vec![
            "A:before r tools/list",
            "B:before r tools/list",
            "B:after tools/list ok",
            "A:after tools/list ok"
        ]
    );
}

/// The order is the order added whatever the mix: static, boxed (`Arc` or `Box`), a
/// closure (`from_fn`), an `Option`, each one element of the same chain.
#[tokio::test]
async fn item_02_static_and_boxed_layers_keep_the_order_added() {
    use mcp::middleware::{DynMiddleware, from_fn};
    let log = Log::default();
    let rec = |label| Recorder {
        label,
        log: log.clone(),
    };
    let closure_log = log.clone();
    let closure = from_fn(move |ctx, next| {
        let log = closure_log.clone();
        Box::pin(async move {
            log.lock()
                .unwrap()
                .push(format!("D:before {}", ctx.method()));
            next.run(ctx).await
        })
    });
    let boxed: Arc<dyn DynMiddleware> = Arc::new(rec("B"));
    let server = base()
        .middleware(rec("A"))
        .middleware(boxed)
        .middleware(rec("C"))
        .middleware(closure)
        .middleware(Box::new(rec("E")) as Box<dyn DynMiddleware>)
        .middleware(None::<Recorder>)
        .middleware(Some(rec("F")))
        .build();
    let mut w = legacy(&server).await;
    w.request(json!(1), "tools/list", json!({})).await;
    let befores: Vec<String> = entries(&log)
        .into_iter()
        .filter(|l| l.contains("before") && l.contains("tools/list"))
        .collect();
    let want = ["A", "B", "C", "D", "E", "F"].map(|l| format!("{l}:before"));
    let got: Vec<&str> = befores.iter().map(|l| &l[..8]).collect();
    assert_eq!(got, want, "{befores:?}");
}

/// Returns a result even for notifications: it must be discarded.
struct AnswerEverything;
impl Middleware for AnswerEverything {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.is_notification() {
            assert!(ctx.request_id().is_none());
            let inner = next.run(ctx).await;
            assert!(
                matches!(inner, Ok(Reply::None)),
                "next yields no result for a notification"
            );
            return Reply::json(&json!({"should": "never be sent"}));
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_03_notifications_get_no_result_and_returns_are_discarded() {
    let server = base().middleware(AnswerEverything).build();
    let mut w = legacy(&server).await;
    w.notify("notifications/roots/list_changed", json!({}))
        .await;
    w.expect_silence(150).await;
    let r = w.request(json!(1), "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn item_04_pre_dispatch_rejections_do_not_reach_the_chain() {
    let log = Log::default();
    let server = base().middleware(recorded(&log).0).build();
    let mut w = Wire::new(server.serve_in_memory());
    // Fix the era as modern, then send a request missing clientCapabilities.
    w.request(json!(1), "server/discover", modern(json!({})))
        .await;
    log.lock().unwrap().clear();
    let r = w
        .request(
            json!(2),
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(code(&r), -32602);
    let r = w
        .request(
            json!(3),
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2030-01-01",
                             "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(code(&r), -32022);
    assert_eq!(r["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert!(entries(&log).is_empty(), "{:?}", entries(&log));
}

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Value>>>);
impl Middleware for Seen {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        self.0.lock().unwrap().push(json!({
            "method": ctx.method(),
            "params": ctx.params().map(|p| p.get().to_owned()),
            "id": ctx.request_id().map(|i| i.to_string()),
            "version": ctx.protocol_version().map(|v| v.as_str()),
            "era": format!("{:?}", ctx.era()),
            "client": ctx.client_info().map(|c| c.name.clone()),
            "sampling": ctx.client_capabilities().sampling.is_some(),
            "traceparent": ctx.meta().and_then(|m| m.traceparent.clone()),
        }));
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_05_context_exposes_raw_method_params_id_version_meta_and_client() {
    let seen = Seen::default();
    let server = base().middleware(seen.clone()).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"sampling": {}},
               "clientInfo": {"name": "legacy-client", "version": "1"}}),
    )
    .await;
    // Sent as exact bytes: the context must expose them unparsed and unreordered.
    w.send_raw(
        br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":"raw"}}}
"#,
    )
    .await;
    w.recv().await;
    let mut m = Wire::new(server.serve_in_memory());
    let mut p = modern(json!({}));
    p["_meta"]["traceparent"] = json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    m.request(json!(7), "tools/list", p).await;
    let seen = seen.0.lock().unwrap().clone();
    let call = seen.iter().find(|s| s["method"] == "tools/call").unwrap();
    assert_eq!(
        call["params"],
        json!(r#"{"name":"add","arguments":{"a":"raw"}}"#)
    );
    assert_eq!(call["id"], json!("\"x\""));
    assert_eq!(call["version"], json!("2025-06-18"));
    assert_eq!(call["client"], json!("legacy-client"));
    assert_eq!(call["sampling"], json!(true));
    let list = seen.iter().find(|s| s["method"] == "tools/list").unwrap();
    assert_eq!(list["era"], json!("Modern"));
    assert_eq!(list["version"], json!("2026-07-28"));
    assert_eq!(list["client"], json!("test-client"));
    assert_eq!(
        list["traceparent"],
        json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    );
}

struct PassThrough;
impl Middleware for PassThrough {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_06_observing_leaves_the_response_byte_identical() {
    let plain = base().without_tracing().build();
    let observed = base()
        .without_tracing()
        .middleware(PassThrough)
        .middleware(PassThrough)
        .build();
    let mut lines = Vec::new();
    for server in [&plain as &dyn std::any::Any, &observed] {
        let mut w = if let Some(s) = server.downcast_ref::<Server>() {
            Wire::new(s.serve_in_memory())
        } else {
            let s = server
                .downcast_ref::<Server<(PassThrough, PassThrough)>>()
                .unwrap();
            Wire::new(s.serve_in_memory())
        };
        w.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
                       "params": modern(call("add", json!({"a": 1, "b": 2})))}))
            .await;
        lines.push(w.recv_line().await);
    }
    assert_eq!(lines[0], lines[1]);
}

struct RefuseFail;
impl Middleware for RefuseFail {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx
            .params()
            .is_some_and(|p| p.get().contains("\"refuse-me\""))
        {
            return Err(ErrorObject::new(-31000, "refused by policy").into());
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_07_refusing_answers_only_that_request() {
    let server = base().middleware(RefuseFail).build();
    let mut w = legacy(&server).await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            call("add", json!({"note": "refuse-me"})),
        )
        .await;
    assert_eq!(code(&r), -31000);
    assert_eq!(r["error"]["message"], "refused by policy");
    let r = w
        .request(json!(2), "tools/call", call("add", json!({"a": 2, "b": 3})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "5");
}

struct RewriteArgs;
impl Middleware for RewriteArgs {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if ctx.method() == "tools/call" {
            ctx.set_params(&json!({"name": "add", "arguments": {"a": 40, "b": 2}}))
                .unwrap();
        }
        if ctx.method() == "legacy/list" {
            ctx.set_method("tools/list");
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_08_rewritten_params_and_method_are_what_the_handler_sees() {
    let server = base().middleware(RewriteArgs).build();
    let mut w = legacy(&server).await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            call("nonexistent", json!({"a": "bad"})),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "42", "{r}");
    let r = w.request(json!(2), "legacy/list", json!({})).await;
    assert!(r["result"]["tools"].is_array(), "{r}");
}

struct AnswerDirectly;
impl Middleware for AnswerDirectly {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "tools/list" {
            return Reply::json(&json!({"tools": []}));
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_09_a_middleware_answer_goes_out_as_written() {
    let server = base().middleware(AnswerDirectly).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params": modern(json!({}))}))
        .await;
    assert_eq!(
        w.recv_line().await,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#
    );
}

struct Tagger;
impl Middleware for Tagger {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        ctx.extensions_mut()
            .insert(Tag("tagged-by-middleware".into()));
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_10_typed_extensions_reach_the_handler() {
    let server = base().middleware(Tagger).build();
    let mut w = legacy(&server).await;
    let r = w
        .request(json!(1), "tools/call", call("whoami", json!({})))
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "tagged-by-middleware");
}

#[tokio::test]
async fn item_11_unknown_method_is_raised_inside_next() {
    let log = Log::default();
    let (a, b) = recorded(&log);
    let server = base().middleware(a).middleware(b).build();
    let mut w = legacy(&server).await;
    log.lock().unwrap().clear();
    let r = w.request(json!(1), "tools/frobnicate", json!({})).await;
    assert_eq!(code(&r), -32601);
    let log = entries(&log);
    assert!(
        log.contains(&"B:after tools/frobnicate err -32601".to_owned()),
        "{log:?}"
    );
    assert!(
        log.contains(&"A:after tools/frobnicate err -32601".to_owned()),
        "{log:?}"
    );
}

#[tokio::test]
async fn item_12_malformed_params_fail_inside_next_without_validator_text() {
    let log = Log::default();
    let server = base().middleware(recorded(&log).0).build();
    let mut w = legacy(&server).await;
    let r = w.request(json!(1), "tools/call", json!({"name": 5})).await;
    assert_eq!(code(&r), -32602);
    let msg = r["error"]["message"].as_str().unwrap();
    assert!(
        !msg.contains("line") && !msg.contains("column") && !msg.contains("invalid type"),
        "{msg}"
    );
    assert!(entries(&log).contains(&"A:after tools/call err -32602".to_owned()));
}

#[tokio::test]
async fn item_13_handler_errors_and_panics_reach_every_layer() {
    let log = Log::default();
    let (a, b) = recorded(&log);
    let server = base().middleware(a).middleware(b).build();
    let mut w = legacy(&server).await;
    log.lock().unwrap().clear();
    let r = w
        .request(json!(1), "tools/call", call("fail", json!({})))
        .await;
    assert_eq!(code(&r), -32603);
    let r = w
        .request(json!(2), "tools/call", call("panic", json!({})))
        .await;
    assert_eq!(code(&r), -32603);
    let log = entries(&log);
    assert_eq!(
        log.iter()
            .filter(|l| l.ends_with("tools/call err -32603"))
            .count(),
        4,
        "{log:?}"
    );
    // The connection lives on.
    assert!(w.request(json!(3), "ping", json!({})).await["result"].is_object());
}

#[tokio::test]
async fn item_14_internal_errors_are_32603_without_detail_on_every_revision() {
    let server = base().build();
    for rev in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut w = Wire::new(server.serve_in_memory());
        w.initialize(rev).await;
        for tool in ["fail", "panic"] {
            let r = w
                .request(json!(1), "tools/call", call(tool, json!({})))
                .await;
            assert_eq!(
                r["error"],
                json!({"code": -32603, "message": "Internal error"}),
                "{rev}"
            );
        }
    }
    let mut m = Wire::new(server.serve_in_memory());
    let r = m
        .request(json!(1), "tools/call", modern(call("fail", json!({}))))
        .await;
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "Internal error"})
    );
}

struct FailNotifications;
impl Middleware for FailNotifications {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.is_notification() && ctx.method() == "notifications/roots/list_changed" {
            return Err(McpError::internal("notification handler exploded"));
        }
        if ctx.is_notification() && ctx.method() == "notifications/progress" {
            panic!("a panicking notification layer");
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_15_errors_on_notifications_never_reach_the_wire() {
    let server = base().middleware(FailNotifications).build();
    let mut w = legacy(&server).await;
    w.notify("notifications/roots/list_changed", json!({}))
        .await;
    w.notify(
        "notifications/progress",
        json!({"progressToken": 1, "progress": 1}),
    )
    .await;
    w.expect_silence(150).await;
    assert!(w.request(json!(1), "ping", json!({})).await["result"].is_object());
}

#[tokio::test]
async fn item_16_modern_results_get_result_type_and_server_info_legacy_never() {
    let server = base()
        .tool(Tool::new("own_meta"), |_ctx, _: Value| async move {
            let mut r = CallToolResult::success(vec![ContentBlock::text("x")]);
            let mut meta = serde_json::Map::new();
            meta.insert(
                "io.modelcontextprotocol/serverInfo".into(),
                json!({"name": "handler-set", "version": "9"}),
            );
            r.meta = Some(meta);
            Ok(r)
        })
        .build();
    let mut m = Wire::new(server.serve_in_memory());
    let r = m
        .request(
            json!(1),
            "tools/call",
            modern(call("add", json!({"a": 1, "b": 1}))),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "semantics", "version": "1.0.0"})
    );
    let r = m
        .request(json!(2), "tools/call", modern(call("own_meta", json!({}))))
        .await;
    assert_eq!(
        r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "handler-set"
    );
    for rev in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut w = Wire::new(server.serve_in_memory());
        let init = w.initialize(rev).await;
        assert!(init.get("resultType").is_none());
        let r = w
            .request(json!(1), "tools/call", call("add", json!({"a": 1, "b": 1})))
            .await;
        assert!(r["result"].get("resultType").is_none(), "{rev}: {r}");
        assert!(r["result"].get("_meta").is_none(), "{rev}: {r}");
        let r = w.request(json!(2), "tools/list", json!({})).await;
        assert!(r["result"].get("ttlMs").is_none() && r["result"].get("cacheScope").is_none());
    }
}

#[tokio::test]
async fn item_17_cacheable_modern_results_carry_cache_hints() {
    let server = base()
        .registry(|r| {
            r.add_resource(
                mcp::types::Resource::new("books://1", "book one"),
                |_ctx, uri| async move {
                    Ok(mcp::types::ReadResourceResult {
                        contents: vec![mcp::types::ResourceContents::text(uri, "text")],
                        ..Default::default()
                    })
                },
            );
        })
        .build();
    let mut m = Wire::new(server.serve_in_memory());
    for (i, (method, params)) in [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "books://1"})),
    ]
    .into_iter()
    .enumerate()
    {
        let r = m.request(json!(i), method, modern(params)).await;
        assert!(r["result"]["ttlMs"].is_u64(), "{method}: {r}");
        assert!(r["result"]["cacheScope"].is_string(), "{method}: {r}");
    }
    // A tool result is not cacheable.
    let r = m
        .request(
            json!(9),
            "tools/call",
            modern(call("add", json!({"a": 1, "b": 1}))),
        )
        .await;
    assert!(r["result"].get("ttlMs").is_none());
    // input_required results never carry cache hints.
    let ir = mcp::types::InputRequiredResult::new(None, Some("s".into())).unwrap();
    let v = mcp::types::to_value_for(&ir, ProtocolVersion::V2026_07_28);
    assert_eq!(v["resultType"], "input_required");
    assert!(v.get("ttlMs").is_none() && v.get("cacheScope").is_none());
}

#[test]
fn item_18_initialize_cannot_be_registered() {
    let err = Server::builder("x", "1")
        .method_handler("initialize")
        .try_build()
        .err()
        .expect("registering initialize must fail");
    let text = err.to_string();
    assert!(
        text.contains("initialize") && text.contains("middleware"),
        "{text}"
    );
}

#[tokio::test]
async fn item_19_initialize_is_inline_and_pipelined_requests_see_its_state() {
    let server = base().build();
    let mut w = Wire::new(server.serve_in_memory());
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}});
    let mut bytes = serde_json::to_vec(&init).unwrap();
    bytes.push(b'\n');
    bytes.extend(serde_json::to_vec(&list).unwrap());
    bytes.push(b'\n');
    w.send_raw(&bytes).await;
    let first = w.recv().await;
    let second = w.recv().await;
    assert_eq!(first["id"], 0);
    assert_eq!(second["id"], 1);
    assert!(second["result"]["tools"].is_array(), "{second}");
}

struct FailAfterInitialize;
impl Middleware for FailAfterInitialize {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let initialize = ctx.method() == "initialize";
        let out = next.run(ctx).await;
        if initialize {
            return Err(ErrorObject::new(-31001, "rejected after the fact").into());
        }
        out
    }
}

#[tokio::test]
async fn item_20_state_commits_only_after_the_chain_succeeds() {
    let server = base().middleware(FailAfterInitialize).build();
    let mut w = Wire::new(server.serve_in_memory());
    let r = w
        .request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        )
        .await;
    assert_eq!(code(&r), -31001);
    let r = w.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(
        code(&r),
        -32602,
        "the connection must stay uninitialized: {r}"
    );
}

struct DowngradeInitialize;
impl Middleware for DowngradeInitialize {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if ctx.method() == "initialize" {
            let mut p: Value = ctx.decode_params().unwrap();
            p["protocolVersion"] = json!("2025-03-26");
            p["clientInfo"]["name"] = json!("rewritten");
            ctx.set_params(&p).unwrap();
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_21_committed_state_agrees_with_the_result_sent() {
    let seen = Seen::default();
    let server = base()
        .middleware(DowngradeInitialize)
        .middleware(seen.clone())
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    assert_eq!(init["protocolVersion"], "2025-03-26");
    // The session runs 2025-03-26: batches are accepted now.
    w.send(
        &json!([{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]),
    )
    .await;
    let batch = w.recv().await;
    assert_eq!(batch.as_array().map(Vec::len), Some(2), "{batch}");
    w.request(json!(7), "tools/list", json!({})).await;
    let seen = seen.0.lock().unwrap().clone();
    let list = seen.iter().find(|s| s["method"] == "tools/list").unwrap();
    assert_eq!(list["version"], "2025-03-26");
    assert_eq!(list["client"], "rewritten");
}

#[tokio::test]
async fn item_22_negotiation_echoes_supported_and_never_yields_modern() {
    let server = base().build();
    for (asked, want) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let mut w = Wire::new(server.serve_in_memory());
        assert_eq!(
            w.initialize(asked).await["protocolVersion"],
            want,
            "{asked}"
        );
    }
    let narrow = base()
        .supported_versions(mcp::version::SupportedVersions::only(&[
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2026_07_28,
        ]))
        .build();
    let mut w = Wire::new(narrow.serve_in_memory());
    assert_eq!(
        w.initialize("2025-06-18").await["protocolVersion"],
        "2025-03-26"
    );
}

#[derive(Clone, Default)]
struct PingDuringInitialize(Arc<Mutex<Option<(PeerError, Duration)>>>);
impl Middleware for PingDuringInitialize {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "initialize" {
            let t = Instant::now();
            let err = ctx.ping().await.expect_err("must fail fast");
            *self.0.lock().unwrap() = Some((err, t.elapsed()));
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn item_23_server_requests_during_initialize_fail_fast() {
    let probe = PingDuringInitialize::default();
    let server = base().middleware(probe.clone()).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let (err, took) = probe.0.lock().unwrap().clone().unwrap();
    assert_eq!(err, PeerError::DuringInitialize);
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[tokio::test]
async fn item_24_the_init_gate() {
    let server = base().build();
    let mut w = Wire::new(server.serve_in_memory());
    assert!(w.request(json!(1), "ping", json!({})).await["result"].is_object());
    assert_eq!(
        code(&w.request(json!(2), "tools/list", json!({})).await),
        -32602
    );
    assert_eq!(
        code(&w.request(json!(3), "prompts/list", json!({})).await),
        -32601
    );
    assert_eq!(
        code(&w.request(json!(4), "no/such", json!({})).await),
        -32601
    );
    w.initialize("2025-11-25").await;
    assert!(w.request(json!(5), "tools/list", json!({})).await["result"].is_object());
}

#[tokio::test]
async fn item_25_the_first_request_fixes_the_era() {
    let server = base().build();
    // Modern first: initialize is then -32022 naming the served versions.
    let mut m = Wire::new(server.serve_in_memory());
    m.request(json!(1), "tools/list", modern(json!({}))).await;
    let r = m
        .request(
            json!(2),
            "initialize",
            json!({"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        )
        .await;
    assert_eq!(code(&r), -32022);
    assert_eq!(
        r["error"]["data"]["supported"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    // Legacy first: an enveloped request is -32600.
    let mut w = legacy(&server).await;
    let r = w.request(json!(3), "tools/list", modern(json!({}))).await;
    assert_eq!(code(&r), -32600);
    // Plain legacy traffic still works on it.
    assert!(w.request(json!(4), "tools/list", json!({})).await["result"].is_object());
}

#[tokio::test]
async fn item_26_modern_context_refuses_server_requests_and_allows_notifications() {
    let server = base()
        .tool(Tool::new("probe"), |ctx: Context, _: Value| async move {
            let ping = ctx.ping().await;
            ctx.progress(0.5, Some(1.0), Some("half")).await.unwrap();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{ping:?}"
            ))]))
        })
        .build();
    let mut m = Wire::new(server.serve_in_memory());
    let mut p = modern(call("probe", json!({})));
    p["_meta"]["progressToken"] = json!("tok");
    m.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":p}))
        .await;
    let progress = m.recv().await;
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "tok");
    let r = m.recv().await;
    assert_eq!(r["result"]["content"][0]["text"], "Err(ModernConnection)");
}

mod tracing_capture {
    //! A minimal subscriber that records span names and fields.
    use std::sync::{Arc, Mutex};
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    /// Each span: its name and its recorded `(field, value)` pairs.
    pub type Spans = Vec<(String, Vec<(String, String)>)>;

    #[derive(Default, Clone)]
    pub struct Capture(pub Arc<Mutex<Spans>>);

    struct V<'a>(&'a mut Vec<(String, String)>);
    impl Visit for V<'_> {
        fn record_debug(&mut self, f: &Field, v: &dyn std::fmt::Debug) {
            self.0.push((
                f.name().to_owned(),
                format!("{v:?}").trim_matches('"').to_owned(),
            ));
        }
        fn record_str(&mut self, f: &Field, v: &str) {
            self.0.push((f.name().to_owned(), v.to_owned()));
        }
    }

    impl Subscriber for Capture {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, a: &Attributes<'_>) -> Id {
            let mut fields = Vec::new();
            a.record(&mut V(&mut fields));
            let mut all = self.0.lock().unwrap();
            all.push((a.metadata().name().to_owned(), fields));
            Id::from_u64(all.len() as u64)
        }
        fn record(&self, id: &Id, values: &Record<'_>) {
            let mut all = self.0.lock().unwrap();
            let i = id.into_u64() as usize - 1;
            values.record(&mut V(&mut all[i].1));
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

#[test]
fn item_27_default_tracing_layer_spans_and_opt_out() {
    let capture = tracing_capture::Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = base().build();
        let mut m = Wire::new(server.serve_in_memory());
        let mut p = modern(call("add", json!({"a": 1, "b": 2})));
        p["_meta"]["traceparent"] =
            json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        m.request(json!(11), "tools/call", p).await;
        m.request(json!(12), "tools/call", modern(call("fail", json!({}))))
            .await;
        let quiet = base().without_tracing().build();
        let mut q = Wire::new(quiet.serve_in_memory());
        q.request(json!(13), "tools/list", modern(json!({}))).await;
    });
    let spans = capture.0.lock().unwrap().clone();
    let mcp: Vec<_> = spans.iter().filter(|(n, _)| n == "mcp").collect();
    let field = |s: &(String, Vec<(String, String)>), k: &str| {
        s.1.iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    };
    let add = mcp
        .iter()
        .find(|s| field(s, "jsonrpc.request.id").as_deref() == Some("11"))
        .unwrap();
    assert_eq!(field(add, "otel.name").as_deref(), Some("tools/call add"));
    assert_eq!(field(add, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(
        field(add, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(field(add, "gen_ai.tool.name").as_deref(), Some("add"));
    assert_eq!(
        field(add, "traceparent").as_deref(),
        Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    );
    assert_eq!(field(add, "otel.status_code"), None);
    let fail = mcp
        .iter()
        .find(|s| field(s, "jsonrpc.request.id").as_deref() == Some("12"))
        .unwrap();
    assert_eq!(field(fail, "otel.status_code").as_deref(), Some("ERROR"));
    assert!(
        !mcp.iter()
            .any(|s| field(s, "jsonrpc.request.id").as_deref() == Some("13")),
        "tracing turned off must create no span"
    );
}

#[tokio::test]
async fn item_28_typed_hooks_fire_once_per_message() {
    use mcp::hooks::{on_call_tool, on_list_tools};
    let calls = Arc::new(Mutex::new(0));
    let c2 = calls.clone();
    let server = base()
        .middleware(on_list_tools(|_ctx, list| {
            list.tools.retain(|t| t.name != "panic");
        }))
        .middleware(on_call_tool(move |_ctx, params, result| {
            *c2.lock().unwrap() += 1;
            if params.name == "add" {
                result.content.push(ContentBlock::text("audited"));
            }
        }))
        .build();
    let mut w = legacy(&server).await;
    let r = w.request(json!(1), "tools/list", json!({})).await;
    let names: Vec<_> = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    assert!(!names.contains(&"panic".to_owned()) && names.contains(&"add".to_owned()));
    let r = w
        .request(json!(2), "tools/call", call("add", json!({"a": 1, "b": 1})))
        .await;
    assert_eq!(r["result"]["content"][1]["text"], "audited");
    w.request(json!(3), "tools/list", json!({})).await;
    assert_eq!(*calls.lock().unwrap(), 1);
    let _ = envelope();
}
