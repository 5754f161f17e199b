//! What crosses a mount and a proxy hop besides calls, driven with `mcp::Client` in both
//! eras downstream (2025-11-25, 2026-07-28): `notifications/resources/updated` of a mounted
//! child and of a proxied upstream (our own server over Streamable HTTP on loopback, both
//! eras upstream), exactly once per change, under the namespaced URI, to the clients that
//! subscribed (`resources/subscribe`, or a `subscriptions/listen` stream naming it) and only
//! while they do; the upstream subscribed while some downstream client is, and no longer
//! once the last one leaves.

use std::time::Duration;

use mcp::Client;
use mcp::core::types::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use mcp::core::types::{SubscriptionFilter, Tool};
use mcp::prelude::*;
use mcp::proxy::{Proxy, Upstream};
use mcp::runtime::client::{ConnectMode, ServerNotification, Subscription};
use mcp::runtime::transport::http::HttpOptions;
use mcp::testing::LoopbackHttp;
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

async fn connect(server: &Server, mode: ConnectMode) -> Client {
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
        let mut upstream = proxy.client().notifications();
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
                let mut upstream = proxy.client().notifications();
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
