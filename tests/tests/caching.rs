//! 2026 caching hints: the safe fill, a server default, per-method and per-resource hints,
//! a handler's own value winning, nothing on legacy revisions, and a hint for a method
//! without a cacheable result refused at build time.

mod support;

use mcp::caching::CacheHint;
use mcp::prelude::*;
use mcp_core::types::{CacheScope, ReadResourceResult, Resource, ResourceContents};
use serde_json::{Value, json};
use support::{Wire, modern};

fn builder() -> mcp::ServerBuilder {
    Server::builder("cache-test", "1.0.0")
        .tool(
            Tool::new("t").with_input_schema(json!({"type": "object"})),
            |_ctx, _: Value| async { Ok(CallToolResult::success(vec![])) },
        )
        .registry(|r| {
            for uri in ["a://plain", "a://hot"] {
                r.add_resource(Resource::new(uri, uri), |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, "v")],
                        ..Default::default()
                    })
                });
            }
            r.add_resource(Resource::new("a://own", "own"), |_ctx, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "v")],
                    ttl_ms: Some(5),
                    cache_scope: Some(CacheScope::Private),
                    ..Default::default()
                })
            });
        })
}

fn hints(r: &Value) -> (Value, Value) {
    (
        r["result"]["ttlMs"].clone(),
        r["result"]["cacheScope"].clone(),
    )
}

async fn read(w: &mut Wire, id: u64, uri: &str) -> Value {
    w.request(json!(id), "resources/read", modern(json!({"uri": uri})))
        .await
}

#[tokio::test]
async fn without_configuration_lists_are_fresh_a_minute_until_they_change_and_reads_not() {
    let s = builder().build();
    let mut w = Wire::new(s.serve_in_memory());
    for (i, m) in [
        "server/discover",
        "tools/list",
        "resources/list",
        "resources/templates/list",
    ]
    .iter()
    .enumerate()
    {
        let r = w.request(json!(i), m, modern(json!({}))).await;
        assert_eq!(hints(&r), (json!(60_000), json!("private")), "{m}");
    }
    // Contents change without a list change: a read gets the safe fill.
    let r = read(&mut w, 10, "a://plain").await;
    assert_eq!(hints(&r), (json!(0), json!("private")));
    // Once a list changes at run time, the lists fall back to the safe fill.
    s.handle()
        .add_tool(
            Tool::new("later").with_input_schema(json!({"type": "object"})),
            |_ctx, _: Value| async { Ok(CallToolResult::success(vec![])) },
        )
        .unwrap();
    for (i, m) in ["server/discover", "tools/list", "resources/list"]
        .iter()
        .enumerate()
    {
        let r = w.request(json!(20 + i), m, modern(json!({}))).await;
        assert_eq!(hints(&r), (json!(0), json!("private")), "{m}");
    }
}

#[tokio::test]
async fn a_configured_zero_turns_the_default_off() {
    let s = builder().cache_hint(CacheHint::private(0)).build();
    let mut w = Wire::new(s.serve_in_memory());
    let r = w.request(json!(1), "tools/list", modern(json!({}))).await;
    assert_eq!(hints(&r), (json!(0), json!("private")));
}

#[tokio::test]
async fn resource_then_method_then_default_and_the_handler_wins() {
    let s = builder()
        .cache_hint(CacheHint::private(1_000))
        .cache_hint_for("resources/read", CacheHint::public(2_000))
        .cache_hint_for("server/discover", CacheHint::public(3_600_000))
        .resource_cache_hint("a://hot", CacheHint::public(50))
        .build();
    let mut w = Wire::new(s.serve_in_memory());
    for (i, m) in ["tools/list", "resources/list", "resources/templates/list"]
        .iter()
        .enumerate()
    {
        let r = w.request(json!(i), m, modern(json!({}))).await;
        assert_eq!(hints(&r), (json!(1_000), json!("private")), "{m}");
    }
    let r = w
        .request(json!(10), "server/discover", modern(json!({})))
        .await;
    assert_eq!(hints(&r), (json!(3_600_000), json!("public")));
    assert_eq!(
        hints(&read(&mut w, 11, "a://plain").await),
        (json!(2_000), json!("public"))
    );
    assert_eq!(
        hints(&read(&mut w, 12, "a://hot").await),
        (json!(50), json!("public"))
    );
    assert_eq!(
        hints(&read(&mut w, 13, "a://own").await),
        (json!(5), json!("private"))
    );
    // Not cacheable: a tool result carries no hints.
    let r = w
        .request(
            json!(14),
            "tools/call",
            modern(json!({"name": "t", "arguments": {}})),
        )
        .await;
    assert!(r["result"].get("ttlMs").is_none(), "{r}");
}

#[tokio::test]
async fn legacy_revisions_never_carry_hints() {
    let s = builder().cache_hint(CacheHint::public(9)).build();
    let mut w = Wire::new(s.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w.request(json!(1), "tools/list", json!({})).await;
    assert!(r["result"].get("ttlMs").is_none(), "{r}");
    assert!(r["result"].get("cacheScope").is_none(), "{r}");
}

#[test]
fn a_hint_for_a_method_without_a_cacheable_result_is_a_build_error() {
    let e = builder()
        .cache_hint_for("tools/call", CacheHint::public(1))
        .try_build()
        .err()
        .expect("refused");
    assert!(e.to_string().contains("tools/call"), "{e}");
}
