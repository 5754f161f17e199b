//! Legacy `resources/subscribe` / `resources/unsubscribe`: per-session subscriptions,
//! `notifications/resources/updated` only for subscribed URIs, the `subscribe` capability,
//! and the refusals (bad params, switched off, 2026).

mod support;

use mcp::prelude::*;
use mcp_core::types::{ReadResourceResult, Resource, ResourceContents};
use serde_json::json;
use support::{Wire, code, modern};

fn server(subscriptions: bool) -> Server {
    Server::builder("subs-test", "1.0.0")
        .subscriptions(subscriptions)
        .registry(|r| {
            for uri in ["a://x", "a://y"] {
                r.add_resource(Resource::new(uri, uri), |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "v")],
                        ..Default::default()
                    })
                });
            }
        })
        .build()
}

#[tokio::test]
async fn updates_reach_only_sessions_subscribed_to_that_uri_until_they_unsubscribe() {
    let s = server(true);
    let h = s.handle();
    let mut a = Wire::new(s.serve_in_memory());
    let mut b = Wire::new(s.serve_in_memory());
    let init = a.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["resources"]["subscribe"], true);
    assert_eq!(init["capabilities"]["resources"]["listChanged"], true);
    b.initialize("2025-03-26").await;

    let r = a
        .request(json!(1), "resources/subscribe", json!({"uri": "a://x"}))
        .await;
    assert_eq!(r["result"], json!({}));
    let r = b
        .request(json!(1), "resources/subscribe", json!({"uri": "a://y"}))
        .await;
    assert_eq!(r["result"], json!({}));

    h.resource_updated("a://x");
    let n = a.recv().await;
    assert_eq!(n["method"], "notifications/resources/updated");
    assert_eq!(n["params"], json!({"uri": "a://x"}));
    b.expect_silence(100).await;

    h.resource_updated("a://y");
    assert_eq!(b.recv().await["params"]["uri"], "a://y");
    a.expect_silence(100).await;

    let r = a
        .request(json!(2), "resources/unsubscribe", json!({"uri": "a://x"}))
        .await;
    assert_eq!(r["result"], json!({}));
    h.resource_updated("a://x");
    a.expect_silence(150).await;
    // Unsubscribing from something never subscribed is not an error.
    let r = a
        .request(
            json!(3),
            "resources/unsubscribe",
            json!({"uri": "a://never"}),
        )
        .await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn subscribe_without_a_uri_is_invalid_params() {
    let s = server(true);
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-06-18").await;
    let r = w.request(json!(1), "resources/subscribe", json!({})).await;
    assert_eq!(code(&r), -32602);
    let r = w
        .request(json!(2), "resources/unsubscribe", json!({"uri": 5}))
        .await;
    assert_eq!(code(&r), -32602);
}

#[tokio::test]
async fn switched_off_subscribe_is_not_offered() {
    let s = server(false);
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-06-18").await;
    assert!(init["capabilities"]["resources"].get("subscribe").is_none());
    let r = w
        .request(json!(1), "resources/subscribe", json!({"uri": "a://x"}))
        .await;
    assert_eq!(code(&r), -32601);
}

#[tokio::test]
async fn subscribe_is_not_a_2026_method() {
    let s = server(true);
    let mut w = Wire::new(s.serve_in_memory());
    let r = w
        .request(
            json!(1),
            "resources/subscribe",
            modern(json!({"uri": "a://x"})),
        )
        .await;
    assert_eq!(code(&r), -32601);
}
