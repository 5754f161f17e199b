//! What crosses a mount and a proxy hop besides calls, driven with `mcp::client::Client` in both
//! eras downstream (2025-11-25, 2026-07-28): `notifications/resources/updated` of a mounted
//! child and of a proxied upstream (our own server over Streamable HTTP on loopback, both
//! eras upstream), exactly once per change, under the namespaced URI, to the clients that
//! subscribed (`resources/subscribe`, or a `subscriptions/listen` stream naming it) and only
//! while they do; the upstream subscribed while some downstream client is, and no longer
//! once the last one leaves. And `completion/complete` of a mounted child's or a proxied
//! upstream's prompt or template, named as the parent names it, answered by the child or
//! the upstream with its own name in the `ref` (the resolved arguments passed along).

use std::time::Duration;

use mcp::ResolvedArguments;
use mcp::client::Client;
use mcp::client::{ConnectMode, ServerNotification, Subscription};
use mcp::prelude::*;
use mcp::proxy::{Proxy, Upstream};
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::types::{
    CompleteParams, CompletionArgument, CompletionContext, CompletionReference, GetPromptResult,
    Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, SubscriptionFilter, Tool,
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

/// A server with resources `data://x`, `data://y`, template `data://items/{id}`, and a tool
/// `touch(uri)` announcing an update of `uri` through its own handle.
fn resource_server(name: &str, subscriptions: bool) -> Server {
    Server::builder(name, "1.0.0")
        .subscriptions(subscriptions)
        .tool(Tool::new("touch"), |ctx: Context, a: Value| async move {
            let uri = a["uri"].as_str().unwrap_or_default().to_owned();
            ctx.server().expect("a handle").resource_updated(uri);
            Ok(CallToolResult::success(vec![ContentBlock::text("touched")]))
        })
        .registry(|r| {
            for uri in ["data://x", "data://y"] {
                r.add_resource(Resource::new(uri, uri), |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "v")],
                        ..Default::default()
                    })
                });
            }
            r.add_template(
                ResourceTemplate::new("data://items/{id}", "item"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "item")],
                        ..Default::default()
                    })
                },
            );
        })
        .build()
}

async fn connect(server: &Server<impl mcp::middleware::Chain>, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("the client connects")
}

/// How a client of either era subscribes: `resources/subscribe` (legacy) or a listen
/// stream naming the URIs (2026, kept open while the returned value lives).
async fn subscribe(c: &Client, uris: &[&str]) -> Option<Subscription> {
    if c.protocol_version().era() == mcp::version::Era::Legacy {
        for uri in uris {
            c.subscribe_resource(uri)
                .await
                .expect("resources/subscribe");
        }
        return None;
    }
    let filter = SubscriptionFilter {
        resource_subscriptions: Some(uris.iter().map(|u| u.to_string()).collect()),
        ..SubscriptionFilter::default()
    };
    Some(c.listen(filter).await.expect("subscriptions/listen"))
}

/// The URIs of the `notifications/resources/updated` arriving within `ms`.
async fn updates(notes: &mut broadcast::Receiver<ServerNotification>, ms: u64) -> Vec<String> {
    let mut uris = Vec::new();
    let until = tokio::time::Instant::now() + Duration::from_millis(ms);
    while let Ok(Ok(n)) = tokio::time::timeout_at(until, notes.recv()).await {
        if n.method == "notifications/resources/updated" {
            let p = n.params.unwrap_or_default();
            uris.push(p["uri"].as_str().unwrap_or_default().to_owned());
        }
    }
    uris
}

/// Waits for the first update (up to 5 s), then gathers any others for 300 ms.
async fn updates_after_one(notes: &mut broadcast::Receiver<ServerNotification>) -> Vec<String> {
    let first = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = notes.recv().await.expect("notifications");
            if n.method == "notifications/resources/updated" {
                return n.params.unwrap_or_default()["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
            }
        }
    })
    .await
    .expect("a notifications/resources/updated arrived within 5 s");
    let mut all = vec![first];
    all.extend(updates(notes, 300).await);
    all
}

async fn touch(c: &Client, tool: &str, uri: &str) {
    c.call_tool(tool, json!({"uri": uri})).await.expect("touch");
}

// ---------------------------------------------------------------------------------------
// Mount.

#[tokio::test]
async fn a_mounted_childs_update_reaches_its_subscribers_once_under_the_namespace() {
    bounded(async {
        for down in [LEGACY, MODERN] {
            // The child's own change notifications are off: the parent's deliver.
            let child = resource_server("child", false);
            let child_handle = child.handle();
            let parent = Server::builder("parent", "1.0.0")
                .subscriptions(true)
                .mount("ns", child)
                .build();
            let a = connect(&parent, down).await;
            let b = connect(&parent, down).await;
            let (mut an, mut bn) = (a.notifications(), b.notifications());
            let _a = subscribe(&a, &["data://ns/x", "data://ns/items/7"]).await;
            let _b = subscribe(&b, &["data://ns/y"]).await;

            // From a handler of the child (its handle through the mount) and from outside.
            touch(&a, "ns_touch", "data://x").await;
            assert_eq!(
                updates_after_one(&mut an).await,
                ["data://ns/x"],
                "{down:?}"
            );
            assert_eq!(
                updates(&mut bn, 100).await,
                Vec::<String>::new(),
                "{down:?}"
            );
            child_handle.resource_updated("data://items/7");
            assert_eq!(
                updates_after_one(&mut an).await,
                ["data://ns/items/7"],
                "{down:?}"
            );
            child_handle.resource_updated("data://y");
            assert_eq!(
                updates_after_one(&mut bn).await,
                ["data://ns/y"],
                "{down:?}"
            );
            assert_eq!(
                updates(&mut an, 100).await,
                Vec::<String>::new(),
                "{down:?}"
            );
            // Nobody subscribed to it.
            child_handle.resource_updated("data://items/8");
            assert!(updates(&mut an, 200).await.is_empty());
            assert!(updates(&mut bn, 1).await.is_empty());
        }
    })
    .await;
}

#[tokio::test]
async fn a_grandchilds_update_crosses_both_mounts() {
    bounded(async {
        let grandchild = resource_server("grandchild", false);
        let handle = grandchild.handle();
        let child = Server::builder("child", "1.0.0")
            .mount("inner", grandchild)
            .build();
        let parent = Server::builder("parent", "1.0.0")
            .subscriptions(true)
            .mount("outer", child)
            .build();
        for down in [LEGACY, MODERN] {
            let c = connect(&parent, down).await;
            let mut notes = c.notifications();
            let _s = subscribe(&c, &["data://outer/inner/x"]).await;
            handle.resource_updated("data://x");
            assert_eq!(
                updates_after_one(&mut notes).await,
                ["data://outer/inner/x"],
                "{down:?}"
            );
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Proxy.

/// Lets go of a subscription: `resources/unsubscribe` (legacy) or the stream dropped.
async fn unsubscribe(c: &Client, sub: Option<Subscription>, uri: &str) {
    match sub {
        Some(s) => drop(s),
        None => c.unsubscribe_resource(uri).await.expect("unsubscribe"),
    }
}

/// Touches `uri` upstream until the upstream no longer sends the proxy its update (it was
/// unsubscribed there); fails after 5 s.
async fn upstream_stops_sending(c: &Client, tool: &str, uri: &str, proxy: &Proxy) {
    for _ in 0..25 {
        let mut upstream = proxy.client().expect("connected").notifications();
        touch(c, tool, uri).await;
        if updates(&mut upstream, 200).await.is_empty() {
            return;
        }
    }
    panic!("the upstream still sends updates of {uri}: not unsubscribed");
}

#[tokio::test]
async fn a_proxied_upstreams_update_reaches_subscribers_once_and_only_while_they_subscribe() {
    bounded(async {
        let http = LoopbackHttp::start(&resource_server("upstream", true), HttpOptions::default())
            .await
            .expect("loopback HTTP");
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .expect("the proxy connects");
            let gateway = Server::builder("gateway", "1.0.0")
                .subscriptions(true)
                .mount("up", proxy.server())
                .middleware(proxy.readiness())
                .build();
            for down in [LEGACY, MODERN] {
                let other = if down == LEGACY { MODERN } else { LEGACY };
                let a = connect(&gateway, down).await;
                let b = connect(&gateway, other).await;
                let (mut an, mut bn) = (a.notifications(), b.notifications());
                let mut upstream = proxy.client().expect("connected").notifications();
                // Nothing is subscribed upstream before a downstream client subscribes.
                touch(&a, "up_touch", "data://x").await;
                assert!(updates(&mut upstream, 200).await.is_empty(), "{up:?}");

                // Answered once the upstream subscription is in place.
                let sa = subscribe(&a, &["data://up/x", "data://up/items/7"]).await;
                let sb = subscribe(&b, &["data://up/x"]).await;
                touch(&a, "up_touch", "data://x").await;
                let label = format!("{up:?} -> {down:?}");
                assert_eq!(updates_after_one(&mut an).await, ["data://up/x"], "{label}");
                assert_eq!(updates_after_one(&mut bn).await, ["data://up/x"], "{label}");
                assert_eq!(updates(&mut upstream, 1).await, ["data://x"], "{label}");
                // A template's URI, asked by one of them only.
                touch(&b, "up_touch", "data://items/7").await;
                assert_eq!(
                    updates_after_one(&mut an).await,
                    ["data://up/items/7"],
                    "{label}"
                );
                assert!(updates(&mut bn, 100).await.is_empty(), "{label}");

                // One leaves: the other still hears.
                unsubscribe(&a, sa, "data://up/x").await;
                tokio::time::sleep(Duration::from_millis(100)).await;
                touch(&b, "up_touch", "data://x").await;
                assert_eq!(updates_after_one(&mut bn).await, ["data://up/x"], "{label}");
                assert!(updates(&mut an, 100).await.is_empty(), "{label}");

                // The last leaves: the upstream is unsubscribed.
                unsubscribe(&b, sb, "data://up/x").await;
                if down == LEGACY {
                    a.unsubscribe_resource("data://up/items/7").await.unwrap();
                }
                upstream_stops_sending(&b, "up_touch", "data://x", &proxy).await;
                upstream_stops_sending(&b, "up_touch", "data://items/7", &proxy).await;
                assert!(updates(&mut an, 1).await.is_empty(), "{label}");
                assert!(updates(&mut bn, 1).await.is_empty(), "{label}");
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_downstream_session_that_ends_lets_go_of_its_upstream_subscriptions() {
    bounded(async {
        let http = LoopbackHttp::start(&resource_server("upstream", true), HttpOptions::default())
            .await
            .expect("loopback HTTP");
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .expect("the proxy connects");
            let gateway = Server::builder("gateway", "1.0.0")
                .subscriptions(true)
                .mount("up", proxy.server())
                .build();
            let served = LoopbackHttp::start(&gateway, HttpOptions::default())
                .await
                .expect("loopback HTTP");
            for (down, over_http) in [
                (LEGACY, false),
                (MODERN, false),
                (LEGACY, true),
                (MODERN, true),
            ] {
                let label = format!("{up:?} -> {down:?}, over HTTP: {over_http}");
                let gone = if over_http {
                    let c = Client::builder()
                        .mode(down)
                        .connect_http(&served.url())
                        .await;
                    c.expect("the client connects over HTTP")
                } else {
                    connect(&gateway, down).await
                };
                let _sub = subscribe(&gone, &["data://up/y"]).await;
                let mut upstream = proxy.client().expect("connected").notifications();
                let other = connect(&gateway, LEGACY).await;
                touch(&other, "up_touch", "data://y").await;
                assert_eq!(updates(&mut upstream, 300).await, ["data://y"], "{label}");
                // Closed without unsubscribing (its listen stream, if any, left open; over
                // HTTP a legacy session ends with DELETE).
                gone.close().await.expect("close");
                upstream_stops_sending(&other, "up_touch", "data://y", &proxy).await;
            }
        }
    })
    .await;
}

#[tokio::test]
async fn a_proxy_served_alone_relays_updates_under_the_upstreams_uri() {
    bounded(async {
        let http = LoopbackHttp::start(&resource_server("upstream", true), HttpOptions::default())
            .await
            .expect("loopback HTTP");
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .expect("the proxy connects");
            let server = proxy.server();
            for down in [LEGACY, MODERN] {
                let c = connect(&server, down).await;
                let mut notes = c.notifications();
                let _s = subscribe(&c, &["data://y"]).await;
                touch(&c, "touch", "data://y").await;
                assert_eq!(
                    updates_after_one(&mut notes).await,
                    ["data://y"],
                    "{up:?} -> {down:?}"
                );
            }
        }
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Completions.

/// A server with prompt `greet(name, style)` and template `data://items/{id}`, each
/// argument completed: names starting with the value (suffixed with the resolved `style`
/// when the client sent one), ids `10`..`12` starting with it.
fn completing_server(name: &str) -> Server {
    Server::builder(name, "1.0.0")
        .registry(|r| {
            let arg = |n: &str| PromptArgument {
                name: n.into(),
                ..Default::default()
            };
            r.add_prompt(
                Prompt {
                    arguments: Some(vec![arg("name"), arg("style")]),
                    ..Prompt::new("greet")
                },
                |_ctx, args| async move {
                    Ok(GetPromptResult {
                        messages: vec![PromptMessage::user(format!("Hello, {}!", args["name"]))],
                        ..Default::default()
                    })
                },
            );
            r.add_template(
                ResourceTemplate::new("data://items/{id}", "item"),
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "item")],
                        ..Default::default()
                    })
                },
            );
            r.add_completion(
                CompletionReference::prompt("greet"),
                "name",
                |_ctx, value: String, resolved: ResolvedArguments| async move {
                    let style = resolved.get("style").map(|s| format!("-{s}"));
                    (["Ada", "Alan", "Bob"].iter())
                        .filter(|n| n.starts_with(&value))
                        .map(|n| format!("{n}{}", style.as_deref().unwrap_or("")))
                        .collect::<Vec<String>>()
                },
            );
            r.add_completion(
                CompletionReference::resource("data://items/{id}"),
                "id",
                |_ctx, value: String, _resolved| async move {
                    (["10", "11", "12"].iter())
                        .filter(|n| n.starts_with(&value))
                        .map(|n| n.to_string())
                        .collect::<Vec<String>>()
                },
            );
        })
        .build()
}

async fn complete(
    c: &Client,
    reference: CompletionReference,
    argument: &str,
    value: &str,
    context: &[(&str, &str)],
) -> Result<Vec<String>, mcp::client::ClientError> {
    let context = (!context.is_empty()).then(|| CompletionContext {
        arguments: Some(
            (context.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ),
    });
    let params = CompleteParams {
        reference,
        argument: CompletionArgument {
            name: argument.into(),
            value: value.into(),
        },
        context,
        ..Default::default()
    };
    Ok(c.complete(params).await?.completion.values)
}

/// The completions of `completing_server`'s prompt and template, named `prompt` and
/// `template` by the server `c` talks to.
async fn completes_through(c: &Client, prompt: &str, template: &str, label: &str) {
    let greet = || CompletionReference::prompt(prompt);
    let got = complete(c, greet(), "name", "A", &[]).await.unwrap();
    assert_eq!(got, ["Ada", "Alan"], "{label}");
    // The resolved arguments cross too.
    let got = complete(c, greet(), "name", "B", &[("style", "x")]).await;
    assert_eq!(got.unwrap(), ["Bob-x"], "{label}");
    let got = complete(c, CompletionReference::resource(template), "id", "1", &[]).await;
    assert_eq!(got.unwrap(), ["10", "11", "12"], "{label}");
    // What the server does not have is refused as it would be without the hop.
    let e = complete(c, CompletionReference::prompt("nope"), "name", "", &[]).await;
    assert!(e.is_err(), "{label}");
    let e = complete(c, greet(), "nope", "", &[]).await.unwrap_err();
    assert!(e.to_string().contains("has no argument"), "{label}: {e}");
}

#[tokio::test]
async fn completions_of_a_mounted_childs_prompts_and_templates_are_the_childs() {
    bounded(async {
        let parent = Server::builder("parent", "1.0.0")
            .mount("ns", completing_server("child"))
            .build();
        for down in [LEGACY, MODERN] {
            let c = connect(&parent, down).await;
            assert!(c.server_capabilities().completions.is_some());
            completes_through(&c, "ns_greet", "data://ns/items/{id}", &format!("{down:?}")).await;
            // The child's own names are not the parent's.
            let e = complete(&c, CompletionReference::prompt("greet"), "name", "", &[]).await;
            assert!(e.is_err(), "{down:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn completions_cross_the_proxy_hop_mounted_and_alone() {
    bounded(async {
        let http = LoopbackHttp::start(&completing_server("upstream"), HttpOptions::default())
            .await
            .expect("loopback HTTP");
        for up in [LEGACY, MODERN] {
            let proxy = Proxy::connect(Upstream::http(http.url()).mode(up))
                .await
                .expect("the proxy connects");
            let gateway = Server::builder("gateway", "1.0.0")
                .mount("up", proxy.server())
                .middleware(proxy.readiness())
                .build();
            let alone = proxy.server();
            for down in [LEGACY, MODERN] {
                let label = format!("{up:?} -> {down:?}");
                let c = connect(&gateway, down).await;
                completes_through(&c, "up_greet", "data://up/items/{id}", &label).await;
                let c = connect(&alone, down).await;
                completes_through(&c, "greet", "data://items/{id}", &label).await;
            }
        }
    })
    .await;
}
