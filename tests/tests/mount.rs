//! `ServerBuilder::mount`: a server built with us (macros or builder) mounted into another
//! under a namespace, driven with `mcp::client::Client` in both eras (2025-11-25, 2026-07-28) over
//! the in-memory pipe and Streamable HTTP: names and URIs (every RFC 6570 operator still
//! expanding, `ui://` kept), the child's middleware inside the parent's, build-time
//! conflicts, and the child's list changes reaching the parent's clients.

use std::sync::Mutex;
use std::time::Duration;

use mcp::CancellationToken;
use mcp::MountOptions;
use mcp::client::Client;
use mcp::client::{ConnectMode, ServerNotification};
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::types::{
    GetPromptResult, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, SubscriptionFilter, Tool,
};
use serde_json::{Value, json};

use ProtocolVersion as V;

// ---------------------------------------------------------------------------------------
// The child: a macro server with middleware, a prompt, resources and templates.

static ORDER: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn order_of(tag: &str) -> Vec<String> {
    let log = ORDER.lock().unwrap();
    log.iter().filter(|l| l.ends_with(tag)).cloned().collect()
}

/// The child's layer: records the method and the name it sees.
#[mcp::middleware]
async fn child_layer(ctx: Context, next: Next<'_>) -> HandlerResult {
    if ctx.method() == "tools/call" {
        let p: Value = ctx.decode_params().unwrap_or_default();
        let tag = p["arguments"]["tag"].as_str().unwrap_or("").to_owned();
        ORDER
            .lock()
            .unwrap()
            .push(format!("child:{}:{tag}", p["name"].as_str().unwrap_or("")));
    }
    next.run(ctx).await
}

/// The parent's layer.
#[mcp::middleware]
async fn parent_layer(ctx: Context, next: Next<'_>) -> HandlerResult {
    if ctx.method() == "tools/call" {
        let p: Value = ctx.decode_params().unwrap_or_default();
        let tag = p["arguments"]["tag"].as_str().unwrap_or("").to_owned();
        ORDER
            .lock()
            .unwrap()
            .push(format!("parent:{}:{tag}", p["name"].as_str().unwrap_or("")));
    }
    next.run(ctx).await
}

struct Weather;

#[mcp::server(name = "weather", middleware(child_layer))]
impl Weather {
    /// Tomorrow's weather in a city.
    #[tool]
    async fn forecast(&self, city: String, #[arg(default = String::new())] tag: String) -> String {
        let _ = tag;
        format!("sunny in {city}")
    }

    /// Which server's handle a tool gets.
    #[tool]
    async fn whoami(&self, ctx: &Context, #[arg(default = String::new())] tag: String) -> String {
        let _ = tag;
        // The child's handle: it names the child's own tools.
        let h = ctx.server().expect("a handle");
        h.add_tool(Tool::new("late"), |_ctx, _: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("late")]))
        })
        .map(|_| "added".to_owned())
        .unwrap_or_else(|e| e.to_string())
    }

    /// Weather report for a city.
    #[prompt]
    async fn report(&self, city: String) -> String {
        format!("Report the weather in {city}.")
    }

    /// The stations.
    #[resource("data://stations")]
    async fn stations(&self) -> String {
        "north,south".into()
    }

    /// The app's view (MCP Apps): a complete document, as a `ui://` resource must be.
    #[resource("ui://dashboard")]
    async fn dashboard(&self) -> String {
        "<!DOCTYPE html><html><body>weather</body></html>".into()
    }

    #[resource("data://station/{id}")]
    async fn station(&self, id: String) -> String {
        format!("station {id}")
    }
}

/// The parent: a builder server with a local tool, `Weather` mounted as `wx`, with the
/// parent's own middleware outside.
fn gateway() -> Server<(parent_layer,), mcp::Registry> {
    Server::builder("gateway", "1.0.0")
        .subscriptions(true)
        .tool(
            Tool::new("local").with_input_schema(json!({"type": "object"})),
            |_ctx, _: Value| async {
                Ok(CallToolResult::success(vec![ContentBlock::text("local")]))
            },
        )
        .middleware(parent_layer)
        .mount("wx", Weather.into_server())
        .mount("cat", catalog())
        .build()
}

/// A builder child whose templates use the level 3-4 operators; its readers echo the URI
/// they get (the child's own, without the namespace).
fn catalog() -> Server {
    let echo = |_ctx: Context, uri: String| async move {
        Ok(ReadResourceResult {
            contents: vec![ResourceContents::text(uri.clone(), format!("got {uri}"))],
            ..Default::default()
        })
    };
    Server::builder("catalog", "1.0.0")
        .registry(move |r| {
            for t in [
                "data://files/{+path}",
                "data://search{?q,limit}",
                "data://tree{/segs*}",
                "data://tags/{names*}",
                "data://doc{#part}",
                "data://f{.ext}",
            ] {
                r.add_template(ResourceTemplate::new(t, t), echo);
            }
        })
        .build()
}

const MODES: [ConnectMode; 2] = [
    ConnectMode::Legacy(V::V2025_11_25),
    ConnectMode::Modern(V::V2026_07_28),
];

async fn in_memory(server: &Server<(parent_layer,), mcp::Registry>, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("connects")
}

struct Http {
    url: String,
    stop: CancellationToken,
}

impl Drop for Http {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn over_http(server: Server<(parent_layer,), mcp::Registry>) -> Http {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move {
        server
            .serve_http_on(listener, HttpOptions::default(), st)
            .await
    });
    Http {
        url: format!("http://{addr}/mcp"),
        stop,
    }
}

fn text_of(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn read_text(c: &Client, uri: &str) -> (String, String) {
    let r = c
        .read_resource(uri)
        .await
        .unwrap_or_else(|e| panic!("{uri}: {e}"));
    let v = serde_json::to_value(&r.contents[0]).unwrap();
    (
        v["uri"].as_str().unwrap().to_owned(),
        v["text"].as_str().unwrap().to_owned(),
    )
}

/// Everything a client sees of the mounted child, on one connection.
async fn the_mounted_child_is_served(c: &Client) {
    let tools: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools, ["local", "wx_forecast", "wx_whoami"]);
    let r = c
        .call_tool("wx_forecast", json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert_eq!(text_of(&r), "sunny in Oslo");
    assert_eq!(
        text_of(&c.call_tool("local", json!({})).await.unwrap()),
        "local"
    );

    let prompts: Vec<String> = c
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(prompts, ["wx_report"]);
    let p = c.get_prompt("wx_report", [("city", "Rome")]).await.unwrap();
    assert!(
        serde_json::to_string(&p.messages)
            .unwrap()
            .contains("Report the weather in Rome.")
    );

    let resources: Vec<String> = c
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri)
        .collect();
    assert_eq!(resources, ["data://wx/stations", "ui://wx/dashboard"]);
    assert_eq!(
        read_text(c, "data://wx/stations").await,
        ("data://wx/stations".into(), "north,south".into())
    );
    assert_eq!(
        read_text(c, "ui://wx/dashboard").await,
        (
            "ui://wx/dashboard".into(),
            "<!DOCTYPE html><html><body>weather</body></html>".into()
        )
    );
    // Mounted, a view is still an app's: served with the app MIME type.
    let view = c.read_resource("ui://wx/dashboard").await.unwrap();
    let view = serde_json::to_value(&view.contents[0]).unwrap();
    assert_eq!(view["mimeType"], "text/html;profile=mcp-app", "{view}");

    let templates: Vec<String> = c
        .list_resource_templates(None)
        .await
        .unwrap()
        .resource_templates
        .into_iter()
        .map(|t| t.uri_template)
        .collect();
    assert_eq!(
        templates,
        [
            "data://wx/station/{id}",
            "data://cat/files/{+path}",
            "data://cat/search{?q,limit}",
            "data://cat/tree{/segs*}",
            "data://cat/tags/{names*}",
            "data://cat/doc{#part}",
            "data://cat/f{.ext}",
        ]
    );
    for (uri, want) in [
        ("data://wx/station/7", "station 7"),
        ("data://cat/files/a/b/c.txt", "got data://files/a/b/c.txt"),
        (
            "data://cat/search?q=rain&limit=3",
            "got data://search?q=rain&limit=3",
        ),
        ("data://cat/search", "got data://search"),
        ("data://cat/tree/x/y", "got data://tree/x/y"),
        ("data://cat/tags/a,b", "got data://tags/a,b"),
        ("data://cat/doc#intro", "got data://doc#intro"),
        ("data://cat/f.json", "got data://f.json"),
    ] {
        assert_eq!(
            read_text(c, uri).await,
            (uri.to_owned(), want.to_owned()),
            "{uri}"
        );
    }
    // Not under the namespace: not found, not the child's.
    assert!(c.read_resource("data://stations").await.is_err());
    // Under it but absent from the child: the error names the URI asked for, as one the
    // parent lacks does, never the child's own (a tool the child hides: visibility.rs).
    let absent = |e: mcp::client::ClientError| e.as_rpc().cloned().unwrap();
    let missing = absent(c.read_resource("data://wx/nowhere").await.unwrap_err());
    let theirs = absent(c.read_resource("data://nowhere").await.unwrap_err());
    assert_eq!(missing.code, theirs.code);
    assert_eq!(missing.data, Some(json!({"uri": "data://wx/nowhere"})));
}

#[tokio::test]
async fn a_mounted_macro_server_is_served_under_its_namespace_in_memory_in_both_eras() {
    let server = gateway();
    for mode in MODES {
        let c = in_memory(&server, mode).await;
        the_mounted_child_is_served(&c).await;
    }
}

#[tokio::test]
async fn a_mounted_macro_server_is_served_under_its_namespace_over_http_in_both_eras() {
    let http = over_http(gateway()).await;
    for mode in MODES {
        let c = Client::builder()
            .mode(mode)
            .connect_http(&http.url)
            .await
            .unwrap();
        the_mounted_child_is_served(&c).await;
    }
}

#[tokio::test]
async fn the_childs_middleware_runs_inside_the_parents_with_the_childs_names() {
    let server = gateway();
    for (i, mode) in MODES.into_iter().enumerate() {
        let c = in_memory(&server, mode).await;
        let tag = format!("#order{i}");
        c.call_tool("wx_forecast", json!({"city": "Oslo", "tag": tag}))
            .await
            .unwrap();
        assert_eq!(
            order_of(&tag),
            [
                format!("parent:wx_forecast:{tag}"),
                format!("child:forecast:{tag}")
            ]
        );
    }
}

#[tokio::test]
async fn a_childs_list_change_reaches_the_parents_clients_in_both_eras() {
    // Legacy: a list_changed notification on the session.
    let server = gateway();
    let c = in_memory(&server, ConnectMode::Legacy(V::V2025_11_25)).await;
    let mut rx = c.notifications();
    // The child's tool adds to the child (its own handle), which the parent mirrors.
    assert_eq!(
        text_of(&c.call_tool("wx_whoami", json!({})).await.unwrap()),
        "added"
    );
    wait_for(&mut rx, "notifications/tools/list_changed").await;
    let tools: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(tools.contains(&"wx_late".to_owned()), "{tools:?}");
    assert!(!tools.contains(&"late".to_owned()), "{tools:?}");
    assert_eq!(
        text_of(&c.call_tool("wx_late", json!({})).await.unwrap()),
        "late"
    );

    // 2026: the listen stream hears of it.
    let server = gateway();
    let c = in_memory(&server, ConnectMode::Modern(V::V2026_07_28)).await;
    let mut sub = c
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    c.call_tool("wx_whoami", json!({})).await.unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("within 5 s")
        .expect("open");
    assert_eq!(n.method, "notifications/tools/list_changed");
}

async fn wait_for(rx: &mut tokio::sync::broadcast::Receiver<ServerNotification>, method: &str) {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if rx.recv().await.expect("open").method == method {
                return;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {method}"));
}

// ---------------------------------------------------------------------------------------
// Builder children, separators, conflicts.

fn echo_child(tool: &str) -> Server {
    let name = tool.to_owned();
    Server::builder("child", "1.0.0")
        .tool(Tool::new(tool), move |_ctx, _: Value| {
            let name = name.clone();
            async move { Ok(CallToolResult::success(vec![ContentBlock::text(name)])) }
        })
        .registry(|r| {
            r.add_prompt(
                Prompt {
                    arguments: Some(vec![PromptArgument {
                        name: "x".into(),
                        required: Some(true),
                        ..Default::default()
                    }]),
                    ..Prompt::new("p")
                },
                |_ctx, args| async move {
                    Ok(GetPromptResult {
                        messages: vec![PromptMessage::user(args["x"].clone())],
                        ..Default::default()
                    })
                },
            );
            r.add_resource(Resource::new("mem://a", "a"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "a")],
                    ..Default::default()
                })
            });
            r.add_template(
                ResourceTemplate::new("mem://t/{x}", "t"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri.clone(), uri)],
                        ..Default::default()
                    })
                },
            );
        })
        .build()
}

#[tokio::test]
async fn the_separator_is_configurable_and_builder_children_mount_too() {
    let server = Server::builder("parent", "1.0.0")
        .mount_with(
            "a",
            echo_child("go"),
            MountOptions::default().separator("."),
        )
        .mount("b", echo_child("go"))
        .build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .connect(server.serve_in_memory())
        .await
        .unwrap();
    let tools: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools, ["a.go", "b_go"]);
    assert_eq!(
        text_of(&c.call_tool("a.go", json!({})).await.unwrap()),
        "go"
    );
    // The child's template reader gets the child's URI; the client sees the parent's.
    assert_eq!(
        read_text(&c, "mem://b/t/9").await,
        ("mem://b/t/9".to_owned(), "mem://t/9".to_owned())
    );
    // A required prompt argument is still required.
    assert!(c.get_prompt("b_p", [("y", "1")]).await.is_err());
    let p = c.get_prompt("a.p", [("x", "hello")]).await.unwrap();
    assert!(
        serde_json::to_string(&p.messages)
            .unwrap()
            .contains("hello")
    );
}

#[test]
fn static_conflicts_fail_the_build_naming_the_entry() {
    // A local tool named as a mounted one.
    let e = Server::builder("parent", "1.0.0")
        .tool(Tool::new("a_go"), |_ctx, _: Value| async {
            Ok(CallToolResult::success(vec![]))
        })
        .mount("a", echo_child("go"))
        .try_build()
        .err()
        .expect("a conflict");
    assert!(e.to_string().contains("`a_go`"), "{e}");
    // Two mounts whose names meet (`a_b` + `c` and `a` + `b_c`).
    let e = Server::builder("parent", "1.0.0")
        .mount("a_b", echo_child("c"))
        .mount("a", echo_child("b_c"))
        .try_build()
        .err()
        .expect("a conflict");
    assert!(e.to_string().contains("mount `a`: the tool `a_b_c`"), "{e}");
    // A namespace twice, and one that cannot prefix a name or a path.
    let e = Server::builder("parent", "1.0.0")
        .mount("a", echo_child("x"))
        .mount("a", echo_child("y"))
        .try_build()
        .err()
        .unwrap();
    assert!(e.to_string().contains("mounted twice"), "{e}");
    let e = Server::builder("parent", "1.0.0")
        .mount("a/b", echo_child("x"))
        .try_build()
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("namespace \"a/b\" is invalid"),
        "{e}"
    );
}

#[tokio::test]
async fn a_mounted_server_can_be_mounted_again_and_a_macro_server_can_mount() {
    // Nested: inner under `in`, that under `out`.
    let inner = echo_child("go");
    let inner_handle = inner.handle();
    let middle = Server::builder("middle", "1.0.0")
        .mount("in", inner)
        .build();
    let top = Server::builder("top", "1.0.0").mount("out", middle).build();
    let c = Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .connect(top.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(
        text_of(&c.call_tool("out_in_go", json!({})).await.unwrap()),
        "go"
    );
    assert_eq!(
        read_text(&c, "mem://out/in/t/1").await,
        ("mem://out/in/t/1".to_owned(), "mem://t/1".to_owned())
    );
    // A change two levels down reaches the top.
    inner_handle
        .add_tool(Tool::new("later"), |_ctx, _: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("later")]))
        })
        .unwrap();
    assert_eq!(
        text_of(&c.call_tool("out_in_later", json!({})).await.unwrap()),
        "later"
    );
    // A macro server as the parent, through the builder.
    let s = Server::builder("weather+", "1.0.0")
        .handler(Weather)
        .mount("extra", echo_child("go"))
        .build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    let tools: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools, ["forecast", "whoami", "extra_go"]);
    assert_eq!(
        text_of(&c.call_tool("extra_go", json!({})).await.unwrap()),
        "go"
    );
}

/// A mounted tool that asks for input runs under the parent's round on 2026 (one
/// `input_required` round, bound to the parent's name), and as a server-to-client request on
/// a legacy connection.
#[tokio::test]
async fn a_mounted_tool_asks_the_client_in_both_eras() {
    use mcp::client::ClientHandler;
    use mcp::jsonrpc::ErrorObject;
    use mcp::types::{ElicitParams, ElicitResult};

    struct Answer;
    impl ClientHandler for Answer {
        async fn elicit(&self, _p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
            Ok(
                serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                    .unwrap(),
            )
        }
    }
    let child = Server::builder("child", "1.0.0")
        .tool(Tool::new("ask"), |ctx: Context, _: Value| async move {
            let schema = serde_json::from_value(json!({
                "type": "object", "properties": {"name": {"type": "string"}}
            }))
            .unwrap();
            let r = ctx.elicit_form("Name?", schema).await?;
            let v = serde_json::to_value(&r).unwrap();
            Ok(CallToolResult::success(vec![ContentBlock::text(
                v["content"]["name"].as_str().unwrap_or_default(),
            )]))
        })
        .build();
    let parent = Server::builder("parent", "1.0.0")
        .mount("kid", child)
        .build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let client = Client::builder()
            .mode(mode)
            .capabilities(serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap())
            .handler(Answer)
            .connect(parent.serve_in_memory())
            .await
            .unwrap();
        let r = client.call_tool("kid_ask", json!({})).await.unwrap();
        assert_eq!(text_of(&r), "Ada", "{mode:?}");
    }
}
