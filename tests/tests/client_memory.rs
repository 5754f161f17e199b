//! `mcp::client::Client` against our own servers over the in-memory pipe: each legacy revision, a
//! pinned modern connection, auto detection both ways, typed calls, pagination, progress,
//! server-to-client sampling, cancellation by drop, timeouts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ClientHandler, ConnectMode, RequestOptions, ServerNotification};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::types::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, GetPromptResult, Prompt,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, SamplingCapability,
    SamplingMessage, TextContent,
};
use mcp::version::SupportedVersions;
use serde_json::{Value, json};
use tokio::sync::Notify;

use ProtocolVersion as V;

mod support;

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct StepsArgs {
    steps: u32,
}

#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
struct Sum {
    sum: i64,
}

fn schema(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

/// Observed by the `hang` tool: set when its context is cancelled.
#[derive(Default)]
struct Probe {
    started: Notify,
    cancelled: AtomicBool,
    done: Notify,
}

fn server(probe: Arc<Probe>) -> mcp::ServerBuilder {
    Server::builder("client-test", "1.2.3")
        .instructions("be nice")
        .tool(
            Tool::new("add").with_input_schema(schema(
                json!({"a": {"type": "integer"}, "b": {"type": "integer"}}),
            )),
            |_ctx, a: AddArgs| async move { Ok(CallToolResult::structured(json!({"sum": a.a + a.b}))) },
        )
        .tool(
            Tool::new("fail").with_input_schema(schema(json!({}))),
            |_ctx, _a: NoArgs| async move { Ok(CallToolResult::error("it broke")) },
        )
        .tool(
            Tool::new("hang").with_input_schema(schema(json!({}))),
            move |ctx, _a: NoArgs| {
                let probe = probe.clone();
                async move {
                    // The kernel drops the handler future on cancellation: a guard sees it.
                    struct Seen(Arc<Probe>, Context);
                    impl Drop for Seen {
                        fn drop(&mut self) {
                            self.0.cancelled.store(self.1.is_cancelled(), Ordering::SeqCst);
                            self.0.done.notify_one();
                        }
                    }
                    let _seen = Seen(probe.clone(), ctx.clone());
                    probe.started.notify_one();
                    ctx.cancellation().cancelled().await;
                    Ok(CallToolResult::success(vec![]))
                }
            },
        )
        .tool(
            Tool::new("progress").with_input_schema(schema(json!({"steps": {"type": "integer"}}))),
            |ctx, a: StepsArgs| async move {
                for i in 1..=a.steps {
                    ctx.progress(i as f64, Some(a.steps as f64), Some("step"))
                        .await
                        .unwrap();
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .tool(
            Tool::new("ask_model").with_input_schema(schema(json!({}))),
            |ctx, _a: NoArgs| async move {
                let r = ctx
                    .create_message(CreateMessageParams::new(
                        vec![SamplingMessage::user_text("what is 6*7?")],
                        50,
                    ))
                    .await?;
                let v = serde_json::to_value(&r.content).unwrap();
                let text = v["text"].as_str().unwrap_or_default().to_owned();
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} said {text}",
                    r.model
                ))]))
            },
        )
        .registry(|r| {
            r.add_prompt(Prompt::new("greet"), |_c, args| async move {
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user(format!(
                        "hello {}",
                        args.get("name").cloned().unwrap_or_default()
                    ))],
                    ..Default::default()
                })
            });
            r.add_resource(Resource::new("books://1", "one"), |_c, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "Dune")],
                    ..Default::default()
                })
            });
        })
}

async fn connect(server: &Server, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .request_timeout(Duration::from_secs(5))
        .connect(server.serve_in_memory())
        .await
        .unwrap_or_else(|e| panic!("connecting ({mode:?}): {e}"))
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The typed calls, on one connection.
async fn exercise(c: &Client) {
    c.ping().await.unwrap();
    let tools = c.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "fail", "hang", "progress", "ask_model"]);

    let r = c.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(text(&r), r#"{"sum":5}"#);
    let sum: Sum = c
        .call_tool_structured("add", json!({"a": 40, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum, Sum { sum: 42 });
    // Typed arguments.
    #[derive(serde::Serialize)]
    struct Args {
        a: i64,
        b: i64,
    }
    let sum: Sum = c
        .call_tool_structured("add", Args { a: 1, b: 1 })
        .await
        .unwrap();
    assert_eq!(sum.sum, 2);

    let r = c.call_tool("fail", ()).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    match c.call_tool_structured::<Sum>("fail", ()).await {
        Err(ClientError::ToolFailed(t)) => assert_eq!(t, "it broke"),
        other => panic!("{other:?}"),
    }
    let e = c.call_tool("nope", ()).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");

    let prompts = c.list_prompts(None).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "greet");
    let p = c.get_prompt("greet", [("name", "Ada")]).await.unwrap();
    assert_eq!(
        serde_json::to_value(&p.messages[0].content).unwrap()["text"],
        "hello Ada"
    );
    let res = c.list_resources(None).await.unwrap();
    assert_eq!(res.resources[0].uri, "books://1");
    let read = c.read_resource("books://1").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "Dune"
    );
    let e = c.read_resource("books://404").await.unwrap_err();
    assert!(matches!(e.code(), Some(-32002 | -32602)), "{e}");

    // Progress: the callback sees each step for this request's token.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let r = c
        .call_tool_with(
            "progress",
            json!({"steps": 3}),
            RequestOptions::with_progress(move |p| sink.lock().unwrap().push(p.progress)),
        )
        .await
        .unwrap();
    assert_eq!(text(&r), "done");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);
}

#[tokio::test]
async fn legacy_at_each_revision() {
    let s = server(Arc::default()).build();
    for v in [
        V::V2024_11_05,
        V::V2025_03_26,
        V::V2025_06_18,
        V::V2025_11_25,
    ] {
        let c = connect(&s, ConnectMode::Legacy(v)).await;
        let session = c.session();
        assert_eq!(session.version, v);
        assert_eq!(session.era(), Era::Legacy);
        assert_eq!(session.server_info.as_ref().unwrap().name, "client-test");
        assert_eq!(session.instructions.as_deref(), Some("be nice"));
        assert!(session.capabilities.tools.is_some());
        c.set_log_level(mcp::types::LoggingLevel::Warning)
            .await
            .unwrap();
        exercise(&c).await;
    }
}

#[tokio::test]
async fn pinned_modern() {
    let s = server(Arc::default()).build();
    let c = connect(&s, ConnectMode::Modern(V::V2026_07_28)).await;
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    assert!(c.server_capabilities().tools.is_some());
    assert_eq!(c.session().instructions.as_deref(), Some("be nice"));
    assert!(matches!(
        c.set_log_level(mcp::types::LoggingLevel::Info).await,
        Err(ClientError::Unsupported(_))
    ));
    exercise(&c).await;
}

#[tokio::test]
async fn auto_picks_modern_on_a_dual_era_server() {
    let s = server(Arc::default()).build();
    let c = connect(&s, ConnectMode::Auto).await;
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    exercise(&c).await;
}

/// Pinned to 2026 against a legacy-only server: the probe is refused as a legacy server
/// refuses it, and the error names the revisions the server does speak.
#[tokio::test]
async fn pinned_modern_against_a_legacy_only_server_fails_naming_its_revisions() {
    let s = server(Arc::default())
        .supported_versions(SupportedVersions::only(&[V::V2025_11_25]))
        .build();
    let e = Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .connect(s.serve_in_memory())
        .await
        .expect_err("must fail");
    match e {
        ClientError::Rpc(err) => {
            assert_eq!(err.code, -32600, "{err:?}");
            assert!(err.message.contains("2025-11-25"), "{err:?}");
        }
        other => panic!("{other:?}"),
    }
}

/// What a legacy-only server of ours answers to the modern probe: what a legacy server
/// answers (-32600), not -32022, which tells a dual-era client "modern: do not fall back"
/// (the Python SDK then gives up); `initialize` follows on the same stream.
#[tokio::test]
async fn a_legacy_only_server_answers_discover_like_a_legacy_server() {
    let s = server(Arc::default())
        .supported_versions(SupportedVersions::only(&[V::V2025_11_25]))
        .build();
    let mut w = support::Wire::new(s.serve_in_memory());
    let r = w
        .request(json!(1), "server/discover", support::modern(json!({})))
        .await;
    assert_eq!(support::code(&r), -32600, "{r}");
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("2025-11-25"), "{r}");
    assert_eq!(
        w.initialize("2025-11-25").await["protocolVersion"],
        "2025-11-25"
    );
}

/// Auto mode on a legacy-only server: the probe fails as on a legacy server and the client
/// falls back to `initialize`.
#[tokio::test]
async fn auto_falls_back_to_initialize_on_a_legacy_only_server() {
    let s = server(Arc::default())
        .supported_versions(SupportedVersions::only(&[V::V2025_11_25]))
        .build();
    let c = connect(&s, ConnectMode::Auto).await;
    assert_eq!(c.protocol_version(), V::V2025_11_25);
    exercise(&c).await;
}

struct Sampler;

impl ClientHandler for Sampler {
    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        let q = serde_json::to_value(&params.messages[0].content).unwrap();
        assert_eq!(q["text"], "what is 6*7?");
        Ok(CreateMessageResult::new("fake-llm", TextContent::new("42")))
    }
}

#[tokio::test]
async fn server_to_client_sampling_goes_to_the_handler() {
    let s = server(Arc::default()).build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .capabilities(ClientCapabilities {
            sampling: Some(SamplingCapability::default()),
            ..Default::default()
        })
        .handler(Sampler)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    let r = c.call_tool("ask_model", ()).await.unwrap();
    assert_eq!(text(&r), "fake-llm said 42");

    // Without a handler the default answers -32601, and the tool sees the rejection.
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .capabilities(ClientCapabilities {
            sampling: Some(SamplingCapability::default()),
            ..Default::default()
        })
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    let e = c.call_tool("ask_model", ()).await.unwrap_err();
    assert_eq!(e.code(), Some(-32603), "{e}");
}

#[tokio::test]
async fn dropping_a_call_cancels_it_on_the_server() {
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let probe = Arc::new(Probe::default());
        let s = server(probe.clone()).build();
        let c = connect(&s, mode).await;
        let call = tokio::spawn({
            let c = c.clone();
            async move { c.call_tool("hang", ()).await }
        });
        tokio::time::timeout(Duration::from_secs(5), probe.started.notified())
            .await
            .expect("the tool started");
        call.abort();
        let _ = call.await;
        tokio::time::timeout(Duration::from_secs(5), probe.done.notified())
            .await
            .expect("the server saw the cancellation");
        assert!(probe.cancelled.load(Ordering::SeqCst));
        // The connection carries on.
        c.ping().await.unwrap();
    }
}

#[tokio::test]
async fn a_timeout_is_local_and_cancels_the_request() {
    let probe = Arc::new(Probe::default());
    let s = server(probe.clone()).build();
    let c = connect(&s, ConnectMode::Legacy(V::V2025_06_18)).await;
    let e = c
        .call_tool_with(
            "hang",
            (),
            RequestOptions::default().timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
    tokio::time::timeout(Duration::from_secs(5), probe.done.notified())
        .await
        .expect("the server saw the cancellation");
    c.ping().await.unwrap();
}

#[tokio::test]
async fn pagination_follows_next_cursor() {
    let mut b = Server::builder("paged", "1").page_size(2);
    for i in 0..5 {
        b = b.tool(
            Tool::new(format!("t{i}")).with_input_schema(schema(json!({}))),
            |_c, _a: NoArgs| async move { Ok(CallToolResult::success(vec![])) },
        );
    }
    let s = b.build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = connect(&s, mode).await;
        let first = c.list_tools(None).await.unwrap();
        assert_eq!(first.tools.len(), 2);
        assert!(first.next_cursor.is_some());
        let all = c.list_all_tools().await.unwrap();
        let names: Vec<_> = all.iter().map(|t| t.name.clone()).collect();
        assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
    }
}

#[tokio::test]
async fn notifications_reach_the_stream_and_the_handler() {
    struct Count(Arc<std::sync::atomic::AtomicUsize>);
    impl ClientHandler for Count {
        fn on_notification(&self, n: &ServerNotification) {
            if n.method == "notifications/progress" {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
    let n = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let s = server(Arc::default()).build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .handler(Count(n.clone()))
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    let mut rx = c.notifications();
    c.call_tool_with(
        "progress",
        json!({"steps": 2}),
        RequestOptions::with_progress(|_| {}),
    )
    .await
    .unwrap();
    let first = rx.recv().await.unwrap();
    assert_eq!(first.method, "notifications/progress");
    assert_eq!(n.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_closed_connection_fails_pending_and_later_requests() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    // A "server" that answers initialize by hand, then hangs up mid-request.
    let fake = tokio::spawn(async move {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        let resp = json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "f", "version": "0"}}});
        // Garbage and a response to an unknown id are ignored.
        w.write_all(b"not json at all\n").await.unwrap();
        w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n")
            .await
            .unwrap();
        w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        let _initialized = lines.next_line().await.unwrap();
        let _request = lines.next_line().await.unwrap();
        // Hang up.
    });
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_06_18))
        .connect(client_end)
        .await
        .unwrap();
    assert_eq!(c.protocol_version(), V::V2025_06_18);
    let e = tokio::time::timeout(Duration::from_secs(5), c.ping())
        .await
        .expect("no hang")
        .unwrap_err();
    assert!(matches!(e, ClientError::Closed(_)), "{e:?}");
    fake.await.unwrap();
    assert!(c.is_closed());
    assert!(matches!(c.ping().await, Err(ClientError::Closed(_))));
}

#[tokio::test]
async fn auto_falls_back_when_the_probe_is_never_answered() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    // A legacy server that ignores unknown requests entirely (silence).
    tokio::spawn(async move {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            let result = match m["method"].as_str() {
                Some("initialize") => json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "serverInfo": {"name": "silent", "version": "0"}}),
                Some("ping") => json!({}),
                _ => continue,
            };
            let resp = json!({"jsonrpc": "2.0", "id": m["id"], "result": result});
            w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        }
    });
    let c = Client::builder()
        .probe_timeout(Duration::from_millis(200))
        .connect(client_end)
        .await
        .unwrap();
    assert_eq!(c.protocol_version(), V::V2025_11_25);
    assert_eq!(c.server_info().unwrap().name, "silent");
    c.ping().await.unwrap();
}

/// A hand-written legacy server: answers `initialize` and `ping`; answers `server/discover`
/// with `discover` (an `error` object) or, when `None`, never. Records every method seen.
fn fake_legacy(
    discover: Option<Value>,
) -> (tokio::io::DuplexStream, Arc<std::sync::Mutex<Vec<String>>>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            log.lock()
                .unwrap()
                .push(m["method"].as_str().unwrap_or("?").to_owned());
            let body = match m["method"].as_str() {
                Some("initialize") => json!({"result": {"protocolVersion": "2025-11-25",
                    "capabilities": {}, "serverInfo": {"name": "fake", "version": "0"}}}),
                Some("ping") => json!({"result": {}}),
                Some("server/discover") => match &discover {
                    Some(e) => json!({"error": e}),
                    None => continue,
                },
                _ => continue,
            };
            let mut resp = json!({"jsonrpc": "2.0", "id": m["id"]});
            resp.as_object_mut()
                .unwrap()
                .extend(body.as_object().unwrap().clone());
            w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        }
    });
    (client_end, seen)
}

#[tokio::test]
async fn auto_falls_back_on_any_non_modern_error() {
    for err in [
        json!({"code": -32601, "message": "Method not found"}),
        json!({"code": -32602, "message": "not initialized"}),
        json!({"code": -32600, "message": "whatever"}),
        // -32022 naming no modern revision we speak: initialize is all that is left.
        json!({"code": -32022, "message": "Unsupported", "data": {"supported": ["2025-11-25"]}}),
    ] {
        let (stream, seen) = fake_legacy(Some(err.clone()));
        let c = Client::builder().connect(stream).await.unwrap();
        assert_eq!(c.protocol_version(), V::V2025_11_25, "{err}");
        c.ping().await.unwrap();
        assert_eq!(
            seen.lock().unwrap()[..3],
            ["server/discover", "initialize", "notifications/initialized"],
            "{err}"
        );
    }
}

#[tokio::test]
async fn the_probe_carries_the_modern_envelope() {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let c = tokio::spawn(async move {
        Client::builder()
            .probe_timeout(Duration::from_millis(100))
            .request_timeout(Duration::from_millis(300))
            .connect(client_end)
            .await
    });
    let mut w = support::Wire::new(server_end);
    let probe = w.recv().await;
    assert_eq!(probe["method"], "server/discover");
    let meta = &probe["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    assert!(meta["io.modelcontextprotocol/clientInfo"]["name"].is_string());
    // Unanswered: the probe is cancelled, then initialize follows (without an envelope).
    let cancelled = w.recv().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], probe["id"]);
    let init = w.recv().await;
    assert_eq!(init["method"], "initialize");
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert!(init["params"].get("_meta").is_none(), "{init}");
    // Never answered either: connecting fails with a timeout, not a hang.
    let e = c.await.unwrap().expect_err("no server");
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
}

#[tokio::test]
async fn progress_extends_the_timeout_up_to_the_cap() {
    #[derive(serde::Deserialize)]
    struct Slow {
        steps: u32,
        ms: u64,
    }
    let s = Server::builder("slow", "1")
        .tool(
            Tool::new("slow_progress").with_input_schema(schema(json!({}))),
            |ctx, a: Slow| async move {
                for i in 1..=a.steps {
                    tokio::time::sleep(Duration::from_millis(a.ms)).await;
                    ctx.progress(i as f64, None, None).await.unwrap();
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .build();
    let c = connect(&s, ConnectMode::Legacy(V::V2025_11_25)).await;
    // 5 × 80 ms = 400 ms > the 200 ms timeout, but each step restarts it.
    let opts = RequestOptions::with_progress(|_| {}).timeout(Duration::from_millis(200));
    let r = c
        .call_tool_with("slow_progress", json!({"steps": 5, "ms": 80}), opts)
        .await
        .unwrap();
    assert_eq!(text(&r), "done");
    // The hard cap still ends it.
    let mut opts = RequestOptions::with_progress(|_| {}).timeout(Duration::from_millis(200));
    opts.max_total = Some(Duration::from_millis(250));
    let e = c
        .call_tool_with("slow_progress", json!({"steps": 5, "ms": 80}), opts)
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
}

#[tokio::test]
async fn roots_and_elicitation_go_to_the_handler() {
    use mcp::types::{
        ElicitAction, ElicitParams, ElicitResult, ElicitationCapability, ListRootsResult, Root,
        RootsCapability,
    };
    struct Host;
    impl ClientHandler for Host {
        async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
            Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
        }
        async fn elicit(&self, p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
            assert_eq!(p.message(), "your name?");
            let r: ElicitResult =
                serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                    .unwrap();
            assert_eq!(r.action, ElicitAction::Accept);
            Ok(r)
        }
    }
    let s = Server::builder("host-test", "1")
        .tool(
            Tool::new("roots").with_input_schema(schema(json!({}))),
            |ctx, _a: NoArgs| async move {
                let r = ctx.list_roots().await?;
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    r.roots[0].uri.clone(),
                )]))
            },
        )
        .tool(
            Tool::new("ask_user").with_input_schema(schema(json!({}))),
            |ctx, _a: NoArgs| async move {
                let p: ElicitParams = serde_json::from_value(json!({
                    "message": "your name?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                }))
                .unwrap();
                let r = ctx.elicit_raw(p).await?;
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    serde_json::to_value(&r).unwrap()["content"]["name"]
                        .as_str()
                        .unwrap()
                        .to_owned(),
                )]))
            },
        )
        .build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_06_18))
        .capabilities(ClientCapabilities {
            roots: Some(RootsCapability::default()),
            elicitation: Some(ElicitationCapability::default()),
            ..Default::default()
        })
        .handler(Host)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(
        text(&c.call_tool("roots", ()).await.unwrap()),
        "file:///work"
    );
    assert_eq!(text(&c.call_tool("ask_user", ()).await.unwrap()), "Ada");
}
