//! `Proxy::attach_under` and `Proxy::detach` on a server that is already serving, with a
//! `ReadinessSet`: an upstream of ours (over Streamable HTTP on loopback, both eras) is
//! attached under a namespace — its tool, prompt, resource and template named as a mount
//! names them, calls, reads, completions and resource updates mapped both ways —, detached
//! (its entries leave, announced), and attached again unprefixed, while a client stays
//! connected throughout. Every case runs under a hard timeout.

use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ConnectMode, ServerNotification};
use mcp::prelude::*;
use mcp::proxy::{Proxy, ReadinessSet, Upstream};
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::types::{
    CompleteParams, CompletionArgument, CompletionReference, GetPromptResult, Prompt,
    PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate,
};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(90), f)
        .await
        .expect("the test finished within 90 s")
}

/// Tool `touch(uri)` (announces an update of `uri`), prompt `greet(name)` with its name
/// completed, resource `data://x`, template `data://items/{id}`.
fn upstream_server() -> Server {
    Server::builder("up", "1.0.0")
        .subscriptions(true)
        .tool(Tool::new("touch"), |ctx: Context, a: Value| async move {
            let uri = a["uri"].as_str().unwrap_or_default().to_owned();
            ctx.server().expect("a handle").resource_updated(uri);
            Ok(CallToolResult::success(vec![ContentBlock::text("touched")]))
        })
        .registry(|r| {
            r.add_prompt(
                Prompt {
                    arguments: Some(vec![PromptArgument {
                        name: "name".into(),
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
            r.add_completion(
                CompletionReference::prompt("greet"),
                "name",
                |_ctx, value: String, _resolved| async move {
                    (["Ada", "Alan", "Bob"].iter())
                        .filter(|n| n.starts_with(&value))
                        .map(|n| n.to_string())
                        .collect::<Vec<String>>()
                },
            );
            r.add_resource(Resource::new("data://x", "x"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "the x")],
                    ..Default::default()
                })
            });
            r.add_template(
                ResourceTemplate::new("data://items/{id}", "item"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "an item")],
                        ..Default::default()
                    })
                },
            );
        })
        .build()
}

fn uri_of(r: &ReadResourceResult) -> String {
    let v = serde_json::to_value(&r.contents[0]).unwrap();
    v["uri"].as_str().unwrap_or_default().to_owned()
}

async fn names(c: &Client) -> (Vec<String>, Vec<String>, Vec<String>) {
    let tools = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name);
    let prompts = c
        .list_all_prompts()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.name);
    let resources = c
        .list_all_resources()
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.uri);
    (tools.collect(), prompts.collect(), resources.collect())
}

/// The `method`s among the notifications arriving within `ms`.
async fn arrived(notes: &mut broadcast::Receiver<ServerNotification>, ms: u64) -> Vec<Value> {
    let mut got = Vec::new();
    let until = tokio::time::Instant::now() + Duration::from_millis(ms);
    while let Ok(Ok(n)) = tokio::time::timeout_at(until, notes.recv()).await {
        got.push(json!({"method": n.method, "params": n.params}));
    }
    got
}

#[tokio::test]
async fn attached_under_a_namespace_detached_and_attached_again_while_serving() {
    bounded(async {
        for up in [LEGACY, MODERN] {
            let http = LoopbackHttp::start(&upstream_server(), HttpOptions::default())
                .await
                .unwrap();
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .unwrap();
            let readiness = ReadinessSet::new();
            let gateway = Server::builder("gateway", "1.0.0")
                .subscriptions(true)
                .middleware(readiness.clone())
                .tool(Tool::new("local"), |_ctx: Context, _a: Value| async {
                    Ok(CallToolResult::success(vec![ContentBlock::text("local")]))
                })
                .build();
            let c = Client::builder()
                .mode(LEGACY)
                .connect(gateway.serve_in_memory())
                .await
                .unwrap();
            let mut notes = c.notifications();
            let tools = c.list_all_tools().await.unwrap();
            assert_eq!(tools.len(), 1);

            proxy.attach_under(&gateway, "up", ".").unwrap();
            readiness.add(proxy.readiness());
            let (tools, prompts, resources) = names(&c).await;
            assert_eq!(tools, ["local", "up.touch"], "{up:?}");
            assert_eq!(prompts, ["up.greet"]);
            assert_eq!(resources, ["data://up/x"]);
            let templates = c.list_resource_templates(None).await.unwrap();
            let t = &templates.resource_templates[0].uri_template;
            assert_eq!(t, "data://up/items/{id}");
            let changed = arrived(&mut notes, 200).await;
            let tools_changed = (changed.iter())
                .filter(|n| n["method"] == "notifications/tools/list_changed")
                .count();
            assert_eq!(tools_changed, 1, "{changed:?}");

            // Reads, a prompt and a completion, mapped to the upstream's names and back.
            let r = c.read_resource("data://up/x").await.unwrap();
            assert_eq!(uri_of(&r), "data://up/x");
            let r = c.read_resource("data://up/items/7").await.unwrap();
            assert_eq!(uri_of(&r), "data://up/items/7");
            let p = c.get_prompt("up.greet", [("name", "Ada")]).await.unwrap();
            assert!(serde_json::to_string(&p).unwrap().contains("Hello, Ada!"));
            let params = CompleteParams {
                reference: CompletionReference::prompt("up.greet"),
                argument: CompletionArgument {
                    name: "name".into(),
                    value: "A".into(),
                },
                ..Default::default()
            };
            let values = c.complete(params).await.unwrap().completion.values;
            assert_eq!(values, ["Ada", "Alan"]);

            // An upstream update of a subscribed resource arrives under the namespace.
            c.subscribe_resource("data://up/x").await.unwrap();
            c.call_tool("up.touch", json!({"uri": "data://x"}))
                .await
                .unwrap();
            let got = arrived(&mut notes, 1000).await;
            let updated: Vec<&Value> = (got.iter())
                .filter(|n| n["method"] == "notifications/resources/updated")
                .map(|n| &n["params"]["uri"])
                .collect();
            assert_eq!(updated, [&json!("data://up/x")], "{got:?}");

            // Detached: gone (announced), the client still connected; a call is unknown.
            assert!(proxy.detach(&gateway));
            readiness.remove(&proxy.readiness());
            assert!(!proxy.detach(&gateway), "detached once");
            let tools: Vec<String> = (c.list_all_tools().await.unwrap().into_iter())
                .map(|t| t.name)
                .collect();
            assert_eq!(tools, ["local"]);
            assert!(c.read_resource("data://up/x").await.is_err());
            let changed = arrived(&mut notes, 200).await;
            assert!(
                (changed.iter()).any(|n| n["method"] == "notifications/tools/list_changed"),
                "{changed:?}"
            );
            let e = c.call_tool("up.touch", json!({})).await.unwrap_err();
            assert!(e.to_string().contains("Unknown tool"), "{e}");

            // Attached again, as the upstream names them.
            proxy.attach(&gateway).unwrap();
            let (tools, _, resources) = names(&c).await;
            assert_eq!(tools, ["local", "touch"]);
            assert_eq!(resources, ["data://x"]);
            let r = c.read_resource("data://x").await.unwrap();
            assert_eq!(uri_of(&r), "data://x");
            http.stop().await.unwrap();
        }
    })
    .await;
}
