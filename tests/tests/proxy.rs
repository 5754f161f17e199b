//! `mcp::proxy`: an upstream served as if local, alone and mounted, driven with
//! `mcp::client::Client` in both eras downstream (2025-11-25, 2026-07-28) against an upstream of
//! both eras: our own server over real Streamable HTTP on loopback, and `examples/everything`
//! as a child process over stdio. Each relay is asserted end to end: lists, calls, prompts,
//! resources and templates; progress in order with the caller's token; a downstream cancel
//! stopping the upstream handler; an upstream elicitation answered by the downstream client;
//! upstream logging; `_meta` application keys and trace context passing, connection keys and
//! the caller's bearer token never; an upstream list change arriving downstream once; a dead
//! upstream failing closed failing lists and `initialize` with a clear error (failing open:
//! `proxy_failure.rs`); a hung one bounded by the
//! timeout; an unreachable one failing `Proxy::connect`; a child that dies started again.

#[path = "support/examples.rs"]
mod examples;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ClientHandler, ConnectMode, RequestOptions};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::proxy::{FailureMode, Proxy, READY_FOR, Upstream};
use mcp::transport::http::LoopbackHttp;
use mcp::transport::http::{HttpOptions, HttpRequest};
use mcp::types::{
    ElicitParams, ElicitResult, GetPromptResult, LoggingLevel, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    SubscriptionFilter,
};
use serde_json::{Value, json};

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the test finished within 60 s")
}

// ---------------------------------------------------------------------------------------
// The upstream: a builder server with a tool per relay.

/// Upstream `sleep` handlers that were stopped before finishing.
static STOPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts a handler future dropped (cancelled) before it finished.
struct StopProbe(bool);

impl Drop for StopProbe {
    fn drop(&mut self) {
        if !self.0 {
            STOPPED.fetch_add(1, Ordering::SeqCst);
        }
    }
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

fn header_of(ctx: &Context, name: &str) -> String {
    ctx.extensions()
        .get::<HttpRequest>()
        .and_then(|r| r.headers.get(name))
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

fn upstream_server() -> Server {
    Server::builder("upstream", "2.0.0")
        .instructions("The upstream's instructions.")
        .subscriptions(true)
        .tool(Tool::new("echo"), |_ctx, a: Value| async move {
            Ok(text(a["text"].as_str().unwrap_or_default()))
        })
        .tool(Tool::new("count"), |ctx: Context, _: Value| async move {
            for i in 1..=3 {
                ctx.progress(f64::from(i), Some(3.0), Some(&format!("step {i}")))
                    .await
                    .map_err(|e| McpError::internal(format!("{e:?}")))?;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            Ok(text("counted"))
        })
        .tool(Tool::new("sleep"), |_ctx, _: Value| async move {
            let mut probe = StopProbe(false);
            tokio::time::sleep(Duration::from_secs(30)).await;
            probe.0 = true;
            Ok(text("slept"))
        })
        .tool(Tool::new("ask"), |ctx: Context, _: Value| async move {
            let schema = serde_json::from_value(json!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"]
            }))
            .unwrap();
            let answer = ctx.elicit_form("Your name?", schema).await?;
            let v = serde_json::to_value(&answer).unwrap();
            Ok(text(format!(
                "{}:{}",
                v["action"].as_str().unwrap_or_default(),
                v["content"]["name"].as_str().unwrap_or_default()
            )))
        })
        .tool(Tool::new("log"), |ctx: Context, _: Value| async move {
            ctx.log(
                LoggingLevel::Warning,
                Some("upstream"),
                json!("hello from upstream"),
            )
            .await
            .map_err(|e| McpError::internal(e.to_string()))?;
            Ok(text("logged"))
        })
        .tool(Tool::new("chatty"), |ctx: Context, a: Value| async move {
            // `n` log messages tagged with the caller's `tag`, a millisecond apart so that
            // concurrent calls interleave theirs.
            let tag = a["tag"].as_str().unwrap_or_default().to_owned();
            for i in 0..a["n"].as_u64().unwrap_or(1) {
                ctx.log(
                    LoggingLevel::Info,
                    Some("chatty"),
                    json!(format!("{tag}-{i}")),
                )
                .await
                .map_err(|e| McpError::internal(e.to_string()))?;
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Ok(text("chatted"))
        })
        .tool(Tool::new("meta"), |ctx: Context, _: Value| async move {
            let p: Value = ctx.decode_params().unwrap_or_default();
            let who = ctx
                .client_info()
                .map(|i| i.name.clone())
                .unwrap_or_default();
            Ok(CallToolResult::structured(json!({
                "meta": p.get("_meta").cloned().unwrap_or(Value::Null),
                "client": who,
                "authorization": header_of(&ctx, "authorization"),
            })))
        })
        .tool(Tool::new("grow"), |ctx: Context, _: Value| async move {
            let h = ctx.server().expect("a handle").clone();
            h.add_tool(Tool::new("late"), |_ctx, _: Value| async {
                Ok(text("late"))
            })
            .map_err(|e| McpError::internal(e.to_string()))?;
            Ok(text("grown"))
        })
        .registry(|r| {
            r.add_prompt(
                Prompt {
                    arguments: Some(vec![PromptArgument {
                        name: "name".into(),
                        required: Some(true),
                        ..Default::default()
                    }]),
                    ..Prompt::new("greet")
                },
                |_ctx, args| async move {
                    Ok(GetPromptResult {
                        messages: vec![PromptMessage::user(format!("Hello, {}!", args["name"]))],
                        ..Default::default()
                    })
                },
            );
            r.add_resource(
                Resource::new("data://readme", "readme"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "read me")],
                        ..Default::default()
                    })
                },
            );
            r.add_template(
                ResourceTemplate::new("data://notes/{id}", "note"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(
                            uri.clone(),
                            format!("note at {uri}"),
                        )],
                        ..Default::default()
                    })
                },
            );
        })
        .build()
}

/// The upstream over Streamable HTTP on loopback.
async fn upstream_http() -> LoopbackHttp {
    LoopbackHttp::start(&upstream_server(), HttpOptions::default())
        .await
        .expect("loopback HTTP")
}

/// Answers elicitation with the name `Ada` and counts the questions.
#[derive(Clone, Default)]
struct Downstream {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Downstream {
    async fn elicit(&self, p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.asked.lock().unwrap().push(p.message().to_owned());
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                .unwrap(),
        )
    }
}

async fn downstream(
    server: &Server<impl mcp::middleware::Chain>,
    mode: ConnectMode,
    handler: impl ClientHandler,
) -> Client {
    Client::builder()
        .info(mcp::types::Implementation::new(
            "downstream-client",
            "1.0.0",
        ))
        .capabilities(serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap())
        .handler(handler)
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

async fn proxy_of(url: &str, mode: ConnectMode) -> Proxy {
    Proxy::connect(Upstream::http(url).mode(mode))
        .await
        .expect("the proxy connects")
}

// ---------------------------------------------------------------------------------------
// Served alone and mounted.

#[tokio::test]
async fn lists_and_calls_pass_alone_in_both_eras() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let proxy = proxy_of(&http.url(), up).await;
            let server = proxy.server();
            for down in [LEGACY, MODERN] {
                let c = downstream(&server, down, Downstream::default()).await;
                let s = c.session();
                assert_eq!(s.server_info.unwrap().name, "upstream");
                assert_eq!(
                    s.instructions.as_deref(),
                    Some("The upstream's instructions.")
                );
                let names: Vec<String> = (c.list_all_tools().await.unwrap())
                    .into_iter()
                    .map(|t| t.name)
                    .collect();
                assert!(names.contains(&"echo".to_owned()) && names.contains(&"ask".to_owned()));
                let r = c.call_tool("echo", json!({"text": "hi"})).await.unwrap();
                assert_eq!(text_of(&r), "hi", "{up:?} -> {down:?}");
                let p = c.get_prompt("greet", [("name", "Ada")]).await.unwrap();
                assert!(serde_json::to_string(&p).unwrap().contains("Hello, Ada!"));
                let r = c.read_resource("data://readme").await.unwrap();
                assert!(serde_json::to_string(&r).unwrap().contains("read me"));
                let r = c.read_resource("data://notes/7").await.unwrap();
                assert!(
                    serde_json::to_string(&r)
                        .unwrap()
                        .contains("note at data://notes/7")
                );
                let t = c.list_resource_templates(None).await.unwrap();
                assert_eq!(t.resource_templates[0].uri_template, "data://notes/{id}");
                // The upstream's errors come back as they are.
                let e = c
                    .get_prompt("greet", [] as [(&str, &str); 0])
                    .await
                    .unwrap_err();
                assert!(e.to_string().contains("name"), "{e}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn mounted_beside_local_tools() {
    bounded(async {
        let http = upstream_http().await;
        let proxy = proxy_of(&http.url(), MODERN).await;
        let gateway = Server::builder("gateway", "1.0.0")
            .tool(Tool::new("hello"), |_ctx, _: Value| async {
                Ok(text("local"))
            })
            .mount("up", proxy.server())
            .middleware(proxy.readiness())
            .build();
        for down in [LEGACY, MODERN] {
            let c = downstream(&gateway, down, Downstream::default()).await;
            let names: Vec<String> = (c.list_all_tools().await.unwrap())
                .into_iter()
                .map(|t| t.name)
                .collect();
            assert!(names.contains(&"hello".to_owned()), "{names:?}");
            assert!(names.contains(&"up_echo".to_owned()), "{names:?}");
            assert_eq!(
                text_of(&c.call_tool("hello", json!({})).await.unwrap()),
                "local"
            );
            let r = c
                .call_tool("up_echo", json!({"text": "via mount"}))
                .await
                .unwrap();
            assert_eq!(text_of(&r), "via mount");
            // The upstream gets its own URI; the caller sees the namespaced one.
            let r = c.read_resource("data://up/notes/9").await.unwrap();
            let v = serde_json::to_value(&r.contents[0]).unwrap();
            assert_eq!(v["uri"], "data://up/notes/9");
            assert_eq!(v["text"], "note at data://notes/9");
            let r = c.call_tool_with("up_ask", json!({}), RequestOptions::default());
            let r = r.await.unwrap_or_else(|e| panic!("{down:?}: {e}"));
            assert_eq!(text_of(&r), "accept:Ada");
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// The relays.

#[tokio::test]
async fn progress_arrives_in_order_with_the_callers_token() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let server = proxy_of(&http.url(), up).await.server();
            for down in [LEGACY, MODERN] {
                let c = downstream(&server, down, Downstream::default()).await;
                let seen = Arc::new(Mutex::new(Vec::new()));
                let s = seen.clone();
                let opts = RequestOptions::with_progress(move |p| {
                    s.lock().unwrap().push((p.progress, p.message.clone()));
                });
                let r = c.call_tool_with("count", json!({}), opts).await.unwrap();
                assert_eq!(text_of(&r), "counted");
                let seen = seen.lock().unwrap().clone();
                let values: Vec<f64> = seen.iter().map(|(p, _)| *p).collect();
                assert_eq!(values, [1.0, 2.0, 3.0], "{up:?} -> {down:?}");
                assert_eq!(seen[2].1.as_deref(), Some("step 3"));
            }
        }
    })
    .await;
}

/// Waits until `STOPPED` reaches `n`.
async fn stopped_reaches(n: usize) {
    for _ in 0..200 {
        if STOPPED.load(Ordering::SeqCst) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "the upstream handler was not stopped ({} < {n})",
        STOPPED.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn a_downstream_cancel_stops_the_upstream_handler_and_a_hung_upstream_is_bounded() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let server = proxy_of(&http.url(), up).await.server();
            for down in [LEGACY, MODERN] {
                let before = STOPPED.load(Ordering::SeqCst);
                let c = downstream(&server, down, Downstream::default()).await;
                // The caller gives up: its client cancels the call downstream.
                let opts = RequestOptions::default().timeout(Duration::from_millis(300));
                let e = c
                    .call_tool_with("sleep", json!({}), opts)
                    .await
                    .unwrap_err();
                assert!(matches!(e, ClientError::Timeout), "{e}");
                stopped_reaches(before + 1).await;
            }
            // A hung upstream: the proxy's own timeout ends the call with a clear error.
            let before = STOPPED.load(Ordering::SeqCst);
            let proxy = Proxy::connect(
                Upstream::http(http.url())
                    .mode(up)
                    .timeout(Duration::from_millis(300)),
            )
            .await
            .unwrap();
            let c = downstream(&proxy.server(), LEGACY, Downstream::default()).await;
            let started = std::time::Instant::now();
            let e = c.call_tool("sleep", json!({})).await.unwrap_err();
            assert!(e.to_string().contains("did not answer in time"), "{e}");
            assert!(started.elapsed() < Duration::from_secs(5));
            stopped_reaches(before + 1).await;
        }
    })
    .await;
}

#[tokio::test]
async fn an_upstream_elicitation_is_answered_by_the_downstream_client() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let server = proxy_of(&http.url(), up).await.server();
            for down in [LEGACY, MODERN] {
                let host = Downstream::default();
                let c = downstream(&server, down, host.clone()).await;
                let r = c.call_tool("ask", json!({})).await.unwrap();
                assert_eq!(text_of(&r), "accept:Ada", "{up:?} -> {down:?}");
                assert_eq!(host.asked.lock().unwrap().as_slice(), ["Your name?"]);
            }
        }
    })
    .await;
}

/// Answers elicitation with its own name once all `asked` callers have been asked, so that
/// every question is in flight at once.
#[derive(Clone)]
struct Named {
    name: String,
    asked: Arc<tokio::sync::Barrier>,
}

impl ClientHandler for Named {
    async fn elicit(&self, _: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.asked.wait().await;
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"name": self.name}}))
                .unwrap(),
        )
    }
}

/// A legacy upstream's elicitations while several calls are in flight on its one
/// connection: each reaches the caller of the call that asked, over Streamable HTTP (the
/// call's own stream) and over stdio (the request id our servers stamp in `_meta`), in both
/// eras downstream. Before, the proxy refused them: it could not tell whose they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_upstreams_elicitations_reach_their_own_callers_while_calls_overlap() {
    const CALLERS: usize = 4;
    // Built before the clock starts.
    let _ = matrix_over_stdio();
    bounded(async {
        let http = upstream_http().await;
        let over_http = proxy_of(&http.url(), LEGACY).await.server();
        let over_stdio = (Proxy::connect(matrix_over_stdio().mode(LEGACY)).await)
            .unwrap()
            .server();
        for (server, tool, said) in [
            (&over_http, "ask", "accept:"),
            (&over_stdio, "ask_name", "Hello, "),
        ] {
            for down in [LEGACY, MODERN] {
                let asked = Arc::new(tokio::sync::Barrier::new(CALLERS));
                let calls: Vec<_> = (0..CALLERS)
                    .map(|k| {
                        let (server, asked) = (server.clone(), asked.clone());
                        tokio::spawn(async move {
                            let name = format!("caller{k}");
                            let host = Named {
                                name: name.clone(),
                                asked,
                            };
                            let c = downstream(&server, down, host).await;
                            let r = c.call_tool(tool, json!({})).await.unwrap();
                            (name, text_of(&r))
                        })
                    })
                    .collect();
                for call in calls {
                    let (name, answer) = call.await.unwrap();
                    assert!(
                        answer.starts_with(&format!("{said}{name}")),
                        "{tool} -> {down:?}: {name} got {answer}"
                    );
                }
            }
        }
    })
    .await;
}

#[tokio::test]
async fn upstream_logging_reaches_the_caller() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let server = proxy_of(&http.url(), up).await.server();
            for down in [LEGACY, MODERN] {
                let c = downstream(&server, down, Downstream::default()).await;
                let mut notes = c.notifications();
                let mut opts = RequestOptions::default();
                if down == LEGACY {
                    c.set_log_level(LoggingLevel::Info).await.unwrap();
                } else {
                    opts.log_level = Some(LoggingLevel::Info);
                }
                let r = c.call_tool_with("log", json!({}), opts).await.unwrap();
                assert_eq!(text_of(&r), "logged");
                let n = tokio::time::timeout(Duration::from_secs(5), async {
                    loop {
                        let n = notes.recv().await.unwrap();
                        if n.method == "notifications/message" {
                            return n;
                        }
                    }
                })
                .await
                .expect("the log message arrived");
                let p = n.params.unwrap();
                assert_eq!(p["data"], "hello from upstream", "{up:?} -> {down:?}");
                assert_eq!(p["level"], "warning");
            }
        }
    })
    .await;
}

/// The log messages a downstream client heard, in order, until `chatted` answered.
/// One call of `tool` (`{tag, n}`: `n` log messages tagged `tag-i`), answered with a text
/// starting with `done`; the log messages its client heard.
async fn logs_of_one_call(
    c: &Client,
    (tool, done): (&str, &str),
    tag: &str,
    n: usize,
    opts: RequestOptions,
) -> Vec<String> {
    let mut notes = c.notifications();
    let r = c
        .call_tool_with(tool, json!({"tag": tag, "n": n}), opts)
        .await
        .unwrap();
    assert!(text_of(&r).starts_with(done), "{r:?}");
    let mut heard = Vec::new();
    while let Ok(note) = notes.try_recv() {
        if note.method == "notifications/message" {
            heard.push(note.params.unwrap()["data"].as_str().unwrap().to_owned());
        }
    }
    heard
}

/// Six callers at once on `server`'s one upstream connection (`up`'s era), each asking for
/// the logs of a call of `tool`: every one hears its own 40, in order, and no other caller's,
/// in both eras downstream; a legacy caller that never set a level hears them as it would
/// directly, and a 2026 caller that asked for none hears none.
async fn each_caller_hears_its_own_logs(
    server: &Server,
    up: ConnectMode,
    tool: (&'static str, &'static str),
) {
    const CALLERS: usize = 6;
    const EACH: usize = 40;
    for down in [LEGACY, MODERN] {
        let calls: Vec<_> = (0..CALLERS)
            .map(|k| {
                let server = server.clone();
                tokio::spawn(async move {
                    let c = downstream(&server, down, Downstream::default()).await;
                    let mut opts = RequestOptions::default();
                    if down == LEGACY {
                        c.set_log_level(LoggingLevel::Info).await.unwrap();
                    } else {
                        opts.log_level = Some(LoggingLevel::Info);
                    }
                    let tag = format!("caller{k}");
                    (
                        tag.clone(),
                        logs_of_one_call(&c, tool, &tag, EACH, opts).await,
                    )
                })
            })
            .collect();
        for call in calls {
            let (tag, heard) = call.await.unwrap();
            let want: Vec<String> = (0..EACH).map(|i| format!("{tag}-{i}")).collect();
            assert_eq!(heard, want, "{up:?} -> {down:?}: {tag}'s logs");
        }
    }
    let c = downstream(server, LEGACY, Downstream::default()).await;
    let heard = logs_of_one_call(&c, tool, "quiet", 5, RequestOptions::default()).await;
    assert_eq!(
        heard.len(),
        5,
        "{up:?} -> legacy without a level: {heard:?}"
    );
    let c = downstream(server, MODERN, Downstream::default()).await;
    let heard = logs_of_one_call(&c, tool, "unasked", 5, RequestOptions::default()).await;
    assert!(
        heard.is_empty(),
        "{up:?} -> 2026 without a level: {heard:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_logs_reach_their_own_caller_while_calls_overlap_and_a_legacy_caller_without_a_level_gets_them()
 {
    bounded(async {
        // Streamable HTTP: each message on its call's stream.
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let server = proxy_of(&http.url(), up).await.server();
            each_caller_hears_its_own_logs(&server, up, ("chatty", "chatted")).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_upstream_logs_reach_their_own_caller_while_calls_overlap() {
    // Built before the clock starts.
    let _ = matrix_over_stdio();
    bounded(async {
        // stdio: the messages of all calls on one pipe, each naming its request in `_meta`.
        for up in [LEGACY, MODERN] {
            let server = Proxy::connect(matrix_over_stdio().mode(up))
                .await
                .unwrap()
                .server();
            each_caller_hears_its_own_logs(&server, up, ("log", "sent ")).await;
        }
    })
    .await;
}

#[tokio::test]
async fn meta_app_keys_and_trace_context_pass_connection_keys_and_tokens_never() {
    bounded(async {
        let http = upstream_http().await;
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(
                Upstream::http(http.url())
                    .mode(up)
                    .bearer_token("upstream-secret"),
            )
            .await
            .unwrap();
            // Downstream over HTTP too, with a token of its own.
            let front = LoopbackHttp::start(&proxy.server(), HttpOptions::default())
                .await
                .unwrap();
            for down in [LEGACY, MODERN] {
                let c = Client::builder()
                    .info(mcp::types::Implementation::new(
                        "downstream-client",
                        "1.0.0",
                    ))
                    .mode(down)
                    .bearer_token("caller-secret")
                    .connect_http(&front.url())
                    .await
                    .unwrap();
                let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
                let r: CallToolResult = c
                    .request(
                        "tools/call",
                        Some(json!({"name": "meta", "arguments": {}, "_meta": {
                            "traceparent": traceparent,
                            "com.example/tenant": "acme",
                            "progressToken": "caller-token"
                        }})),
                        RequestOptions::default(),
                    )
                    .await
                    .unwrap();
                let seen = r.structured_content.unwrap();
                let meta = &seen["meta"];
                assert_eq!(meta["traceparent"], traceparent, "{up:?} -> {down:?}");
                assert_eq!(meta["com.example/tenant"], "acme");
                assert_ne!(meta["progressToken"], "caller-token");
                // The upstream sees the proxy as its client, never the caller's identity
                // or token.
                assert_eq!(seen["client"], "mcp-proxy");
                assert_eq!(seen["authorization"], "Bearer upstream-secret");
                assert!(!seen.to_string().contains("downstream-client"));
                assert!(!seen.to_string().contains("caller-secret"));
            }
            front.stop().await.unwrap();
        }
    })
    .await;
}

#[tokio::test]
async fn an_upstream_list_change_arrives_downstream_once() {
    bounded(async {
        for up in [LEGACY, MODERN] {
            // A fresh upstream each time: `grow` changes it for good.
            let http = upstream_http().await;
            let proxy = proxy_of(&http.url(), up).await;
            let alone = proxy.server();
            let gateway = Server::builder("gateway", "1.0.0")
                .subscriptions(true)
                .mount("up", proxy.server())
                .build();
            let a = downstream(&alone, LEGACY, Downstream::default()).await;
            let g = downstream(&gateway, LEGACY, Downstream::default()).await;
            let m = downstream(&alone, MODERN, Downstream::default()).await;
            let filter = SubscriptionFilter {
                tools_list_changed: Some(true),
                ..Default::default()
            };
            let mut sub = m.listen(filter).await.unwrap();
            let (mut a_notes, mut g_notes) = (a.notifications(), g.notifications());
            let r = a.call_tool("grow", json!({})).await.unwrap();
            assert_eq!(text_of(&r), "grown");
            for (name, notes) in [("alone", &mut a_notes), ("mounted", &mut g_notes)] {
                let first = tokio::time::timeout(Duration::from_secs(5), async {
                    loop {
                        let n = notes.recv().await.unwrap();
                        if n.method.ends_with("list_changed") {
                            return n.method;
                        }
                    }
                })
                .await
                .unwrap_or_else(|_| panic!("{name}: the list change arrived ({up:?})"));
                assert_eq!(first, "notifications/tools/list_changed");
            }
            let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
                .await
                .expect("the 2026 listener heard of the change")
                .unwrap();
            assert_eq!(n.method, "notifications/tools/list_changed");
            // Exactly one each: nothing more for a while.
            tokio::time::sleep(Duration::from_millis(400)).await;
            for (name, notes) in [("alone", &mut a_notes), ("mounted", &mut g_notes)] {
                let mut more = Vec::new();
                while let Ok(n) = notes.try_recv() {
                    if n.method.ends_with("list_changed") {
                        more.push(n.method);
                    }
                }
                assert!(more.is_empty(), "{name}: more list changes: {more:?}");
            }
            let more = tokio::time::timeout(Duration::from_millis(100), sub.next()).await;
            assert!(more.is_err(), "the listener heard more: {more:?}");
            let tools = |c: Client| async move {
                let all = c.list_all_tools().await.unwrap();
                all.into_iter().map(|t| t.name).collect::<Vec<String>>()
            };
            assert!(tools(a.clone()).await.contains(&"late".to_owned()));
            assert!(tools(g.clone()).await.contains(&"up_late".to_owned()));
            assert!(tools(m.clone()).await.contains(&"late".to_owned()));
        }
    })
    .await;
}

#[tokio::test]
async fn failing_closed_a_dead_upstream_fails_lists_and_initialize_clearly() {
    bounded(async {
        for up in [LEGACY, MODERN] {
            let http = upstream_http().await;
            let upstream = Upstream::http(http.url())
                .mode(up)
                .failure_mode(FailureMode::Closed);
            let proxy = Proxy::connect(upstream).await.unwrap();
            let server = proxy.server();
            let c = downstream(&server, LEGACY, Downstream::default()).await;
            assert!(!c.list_all_tools().await.unwrap().is_empty());
            // Listed without a ping while the upstream answered within READY_FOR.
            assert!(!c.list_all_tools().await.unwrap().is_empty());
            http.stop().await.unwrap();
            if up == LEGACY {
                // A failed call: the next list pings.
                let e = c.call_tool("echo", json!({"text": "x"})).await.unwrap_err();
                assert!(e.to_string().contains("upstream"), "{e}");
                let e = c.list_all_tools().await.unwrap_err();
                assert!(e.to_string().contains("is unavailable"), "{e}");
            } else {
                // Not heard from within READY_FOR: the next list pings.
                tokio::time::sleep(READY_FOR + Duration::from_millis(50)).await;
                let e = c.list_all_tools().await.unwrap_err();
                assert!(e.to_string().contains("is unavailable"), "{e}");
                let e = c.call_tool("echo", json!({"text": "x"})).await.unwrap_err();
                assert!(e.to_string().contains("upstream"), "{e}");
            }
            for down in [LEGACY, MODERN] {
                let e = Client::builder()
                    .mode(down)
                    .connect(server.serve_in_memory())
                    .await
                    .unwrap_err();
                assert!(e.to_string().contains("is unavailable"), "{down:?}: {e}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn an_unreachable_upstream_fails_connect() {
    bounded(async {
        let e = Proxy::connect(Upstream::http("http://127.0.0.1:1/mcp"))
            .await
            .unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("http://127.0.0.1:1/mcp") && msg.contains("unreachable"),
            "{msg}"
        );
        let e = Proxy::connect(Upstream::stdio("/nonexistent/mcp-server", ["--stdio"]))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("/nonexistent/mcp-server"), "{e}");
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// A child process over stdio: `examples/everything`.

/// `tests/examples/client_matrix_server` over stdio (its `log` tool sends tagged messages).
fn matrix_over_stdio() -> Upstream {
    let path = examples::built(examples::TESTS, "client_matrix_server", &[]);
    Upstream::stdio(path, ["--stdio"]).env("RUST_LOG", "off")
}

fn everything() -> Upstream {
    let path = examples::built("mcp-framework", "everything", &["http"]);
    Upstream::stdio(path, ["--stdio"]).env("RUST_LOG", "off")
}

#[tokio::test]
async fn everything_over_stdio_in_both_eras_restarted_after_it_dies() {
    // Built before the clock starts.
    let _ = everything();
    bounded(async {
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(everything().mode(up)).await.unwrap();
            let gateway = Server::builder("gateway", "1.0.0")
                .mount("every", proxy.server())
                .middleware(proxy.readiness())
                .build();
            for down in [LEGACY, MODERN] {
                let c = downstream(&gateway, down, Downstream::default()).await;
                let names: Vec<String> = (c.list_all_tools().await.unwrap())
                    .into_iter()
                    .map(|t| t.name)
                    .collect();
                assert!(names.contains(&"every_add".to_owned()), "{names:?}");
                let r = c
                    .call_tool("every_add", json!({"a": 2, "b": 3}))
                    .await
                    .unwrap();
                assert!(serde_json::to_string(&r).unwrap().contains('5'), "{r:?}");
                let seen = Arc::new(Mutex::new(Vec::new()));
                let s = seen.clone();
                let opts =
                    RequestOptions::with_progress(move |p| s.lock().unwrap().push(p.progress));
                let r = c
                    .call_tool_with("every_countdown", json!({"steps": 3}), opts)
                    .await;
                assert!(r.is_ok(), "{r:?}");
                let seen = seen.lock().unwrap().clone();
                assert!(
                    !seen.is_empty() && seen.windows(2).all(|w| w[0] < w[1]),
                    "{seen:?}"
                );
            }
            // The child dies: the next request starts it again, and the gateway serves on.
            let old = proxy.client().expect("connected");
            let pid = old.pid().expect("a child process");
            let _ = std::process::Command::new("kill")
                .arg("-9")
                .arg(pid.to_string())
                .status();
            for _ in 0..200 {
                if old.is_closed() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            assert!(old.is_closed(), "the killed child's connection closed");
            let c = downstream(&gateway, LEGACY, Downstream::default()).await;
            let r = c
                .call_tool("every_add", json!({"a": 1, "b": 1}))
                .await
                .unwrap();
            assert!(serde_json::to_string(&r).unwrap().contains('2'), "{r:?}");
            let now = proxy.client().expect("connected");
            assert!(!now.is_closed());
            assert_ne!(now.pid(), Some(pid), "a new child");
        }
    })
    .await;
}
