//! The client's response cache (2026-07-28 `ttlMs` / `cacheScope`) against our own server
//! over the in-memory pipe, counting the requests the server actually received (a
//! middleware): hits within the TTL, expiry, `list_changed` and `resources/updated`
//! eviction, `private` partitions kept apart and `public` entries shared, MRTR requests
//! (`inputResponses` / `requestState`) never cached, pages cached independently, an invalid
//! cursor clearing the list, each per-call mode, and legacy connections never cached.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::ServerBuilder;
use mcp::caching::CacheHint;
use mcp::client::Client;
use mcp::client::cache::CacheMode;
use mcp::client::cache::MemoryStore;
use mcp::client::{ClientHandler, ConnectMode, RequestOptions};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::session::request_state::RequestStateConfig;
use mcp::types::{
    ClientCapabilities, ElicitParams, ElicitResult, ElicitationCapability, ReadResourceResult,
    Resource, ResourceContents, SubscriptionFilter,
};
use serde_json::{Value, json};

use ProtocolVersion as V;

mod support;

/// A request the server received: its method and its `uri` or `cursor`.
type Seen = (String, Option<String>);

/// Every request the server received.
#[derive(Clone, Default)]
struct Counter(Arc<Mutex<Vec<Seen>>>);

impl Middleware for Counter {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let params: Value = ctx
            .params()
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        let target = params["uri"]
            .as_str()
            .or(params["cursor"].as_str())
            .map(str::to_owned);
        self.0
            .lock()
            .unwrap()
            .push((ctx.method().to_owned(), target));
        next.run(ctx).await
    }
}

impl Counter {
    /// How many `method` requests arrived.
    fn count(&self, method: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, _)| m == method)
            .count()
    }

    /// How many `method` requests for `target` (a uri, a cursor; `None`: the first page).
    fn count_of(&self, method: &str, target: Option<&str>) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(m, t)| m == method && t.as_deref() == target)
            .count()
    }
}

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Name {
    #[allow(dead_code)]
    name: String,
}

/// A server with five tools (two per page), a few resources (`res://n` counts its reads in
/// its content, `res://asks` elicits), caching hints `hint` on everything, `private`
/// except `res://public`.
fn server(counter: &Counter, hint: CacheHint) -> ServerBuilder<(Counter,)> {
    let reads = Arc::new(AtomicUsize::new(0));
    let mut b = Server::builder("cache-test", "1.0.0")
        .page_size(2)
        .subscriptions(true)
        .request_state(RequestStateConfig::default())
        .cache_hint(hint)
        .resource_cache_hint("res://public", CacheHint::public(hint.ttl_ms))
        .middleware(counter.clone())
        .without_tracing();
    for i in 0..5 {
        b = b.tool(
            Tool::new(format!("t{i}")).with_input_schema(json!({"type": "object"})),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        );
    }
    b.registry(move |r| {
        for uri in ["res://n", "res://public", "res://other"] {
            let reads = reads.clone();
            r.add_resource(Resource::new(uri, uri), move |_ctx, uri| {
                let n = reads.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, format!("read #{n}"))],
                        ..Default::default()
                    })
                }
            });
        }
        r.add_resource(Resource::new("res://asks", "asks"), |ctx, uri| async move {
            ctx.elicit::<Name>("Who is asking?").key("who").await?;
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, "answered")],
                ..Default::default()
            })
        });
    })
}

/// Answers elicitations.
struct Host;

impl ClientHandler for Host {
    async fn elicit(&self, _p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let mut content = BTreeMap::new();
        content.insert("name".to_owned(), "octocat".into());
        Ok(ElicitResult::accept(content))
    }
}

fn modern() -> mcp::client::ClientBuilder {
    Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .handler(Host)
        .capabilities(ClientCapabilities {
            elicitation: Some(ElicitationCapability::default()),
            ..Default::default()
        })
}

async fn connect(s: &Server<impl mcp::middleware::Chain>) -> Client {
    modern().connect(s.serve_in_memory()).await.unwrap()
}

async fn text(c: &Client, uri: &str) -> String {
    let r = c.read_resource(uri).await.unwrap();
    serde_json::to_value(&r.contents[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn cache_hits_within_the_ttl_then_expires() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(300)).build();
    let c = connect(&s).await;
    let first = c.list_tools(None).await.unwrap();
    assert_eq!(c.list_tools(None).await.unwrap(), first);
    assert_eq!(text(&c, "res://n").await, "read #1");
    assert_eq!(text(&c, "res://n").await, "read #1");
    assert_eq!(counter.count("tools/list"), 1);
    assert_eq!(counter.count("resources/read"), 1);
    // Another uri is another entry.
    assert_eq!(text(&c, "res://other").await, "read #2");
    assert_eq!(counter.count("resources/read"), 2);

    tokio::time::sleep(Duration::from_millis(400)).await;
    c.list_tools(None).await.unwrap();
    assert_eq!(text(&c, "res://n").await, "read #3");
    assert_eq!(counter.count("tools/list"), 2);
    assert_eq!(counter.count("resources/read"), 3);
}

#[tokio::test]
async fn cache_nothing_without_a_positive_ttl_nor_on_legacy_revisions() {
    // The server's safe fill: `ttlMs: 0`.
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(0)).build();
    let c = connect(&s).await;
    c.list_tools(None).await.unwrap();
    c.list_tools(None).await.unwrap();
    assert_eq!(counter.count("tools/list"), 2);

    // Legacy revisions carry no hints at all.
    let counter = Counter::default();
    let s = server(&counter, CacheHint::public(60_000)).build();
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    c.list_tools(None).await.unwrap();
    c.list_tools(None).await.unwrap();
    c.read_resource("res://n").await.unwrap();
    c.read_resource("res://n").await.unwrap();
    assert_eq!(counter.count("tools/list"), 2);
    assert_eq!(counter.count("resources/read"), 2);

    // And a client built without a cache asks every time.
    let counter = Counter::default();
    let s = server(&counter, CacheHint::public(60_000)).build();
    let c = modern()
        .no_cache()
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    c.list_tools(None).await.unwrap();
    c.list_tools(None).await.unwrap();
    assert_eq!(counter.count("tools/list"), 2);
}

#[tokio::test]
async fn cache_list_changed_evicts_every_page_and_resources_updated_its_uri() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let c = connect(&s).await;
    let mut sub = c
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["res://n".into()]),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(c.list_all_tools().await.unwrap().len(), 5);
    c.list_all_tools().await.unwrap();
    assert_eq!(
        counter.count("tools/list"),
        3,
        "three pages, asked once each"
    );
    assert_eq!(text(&c, "res://n").await, "read #1");
    assert_eq!(text(&c, "res://other").await, "read #2");

    s.handle()
        .add_tool(
            Tool::new("t5").with_input_schema(json!({"type": "object"})),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::success(vec![])) },
        )
        .unwrap();
    let n = sub.next().await.unwrap();
    assert_eq!(n.method, "notifications/tools/list_changed");
    assert_eq!(c.list_all_tools().await.unwrap().len(), 6);
    assert_eq!(counter.count("tools/list"), 6, "every page asked again");
    // Reads are not lists: still cached.
    assert_eq!(text(&c, "res://n").await, "read #1");

    s.handle().resource_updated("res://n");
    let n = sub.next().await.unwrap();
    assert_eq!(n.method, "notifications/resources/updated");
    assert_eq!(text(&c, "res://n").await, "read #3");
    // Only that uri.
    assert_eq!(text(&c, "res://other").await, "read #2");
    assert_eq!(counter.count("resources/read"), 3);
}

#[tokio::test]
async fn cache_private_partitions_stay_apart_public_entries_are_shared() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let store = Arc::new(MemoryStore::default());
    let alice = modern()
        .cache_store(store.clone())
        .cache_partition("alice")
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    let bob = modern()
        .cache_store(store.clone())
        .cache_partition("bob")
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(text(&alice, "res://n").await, "read #1");
    assert_eq!(text(&alice, "res://public").await, "read #2");
    // Bob never sees Alice's private entry, but reuses the public one.
    assert_eq!(text(&bob, "res://n").await, "read #3");
    assert_eq!(text(&bob, "res://public").await, "read #2");
    // Each then reads its own.
    assert_eq!(text(&alice, "res://n").await, "read #1");
    assert_eq!(text(&bob, "res://n").await, "read #3");
    assert_eq!(counter.count_of("resources/read", Some("res://n")), 2);
    assert_eq!(counter.count_of("resources/read", Some("res://public")), 1);
}

#[tokio::test]
async fn cache_never_keeps_a_result_that_took_input_rounds() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::public(60_000)).build();
    let c = connect(&s).await;
    assert_eq!(text(&c, "res://asks").await, "answered");
    assert_eq!(text(&c, "res://asks").await, "answered");
    // Each read: the first round (input_required), then the retry with inputResponses and
    // requestState; none of them answered from the cache.
    assert_eq!(counter.count_of("resources/read", Some("res://asks")), 4);

    // A request that itself carries requestState / inputResponses is never looked up nor
    // stored (the server refuses this made-up state; twice).
    for _ in 0..2 {
        let e = c
            .request_raw(
                "resources/read",
                Some(json!({"uri": "res://n", "requestState": "made-up"})),
                RequestOptions::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(e.code(), Some(-32602), "{e}");
    }
    for _ in 0..2 {
        c.request_raw(
            "tools/list",
            Some(json!({"inputResponses": {}})),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    }
    assert_eq!(counter.count_of("resources/read", Some("res://n")), 2);
    assert_eq!(counter.count("tools/list"), 2);
}

#[tokio::test]
async fn cache_pages_are_cached_independently_each_on_its_own_clock() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(500)).build();
    let c = connect(&s).await;
    let p1 = c.list_tools(None).await.unwrap();
    let cursor = p1.next_cursor.clone().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    c.list_tools(Some(cursor.clone())).await.unwrap();
    // Both fresh.
    c.list_tools(None).await.unwrap();
    c.list_tools(Some(cursor.clone())).await.unwrap();
    assert_eq!(counter.count("tools/list"), 2);
    // 600 ms after the first page, 300 ms after the second: only the first is stale.
    tokio::time::sleep(Duration::from_millis(300)).await;
    c.list_tools(None).await.unwrap();
    c.list_tools(Some(cursor.clone())).await.unwrap();
    assert_eq!(counter.count_of("tools/list", None), 2);
    assert_eq!(counter.count_of("tools/list", Some(&cursor)), 1);
}

#[tokio::test]
async fn cache_an_invalid_cursor_discards_every_page_of_the_list() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let c = connect(&s).await;
    c.list_all_tools().await.unwrap();
    c.list_all_resources().await.unwrap();
    c.list_all_tools().await.unwrap();
    assert_eq!(counter.count("tools/list"), 3);
    let e = c.list_tools(Some("bogus".into())).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");
    c.list_all_tools().await.unwrap();
    assert_eq!(
        counter.count("tools/list"),
        7,
        "the bogus page, then all three again"
    );
    // Another list is untouched.
    c.list_all_resources().await.unwrap();
    assert_eq!(
        counter.count("resources/list"),
        2,
        "two pages, asked once each"
    );
}

#[tokio::test]
async fn cache_modes_use_refresh_and_bypass() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let c = connect(&s).await;
    // Use (the default).
    assert_eq!(text(&c, "res://n").await, "read #1");
    assert_eq!(text(&c, "res://n").await, "read #1");
    // Refresh: asks, and what it got answers later calls.
    let refresh = c.with_cache_mode(CacheMode::Refresh);
    assert_eq!(text(&refresh, "res://n").await, "read #2");
    assert_eq!(text(&c, "res://n").await, "read #2");
    // Bypass: asks, stores nothing.
    let bypass = c.with_cache_mode(CacheMode::Bypass);
    assert_eq!(text(&bypass, "res://n").await, "read #3");
    assert_eq!(text(&c, "res://n").await, "read #2");
    // Per call, through the options.
    let raw = c
        .request_raw(
            "resources/read",
            Some(json!({"uri": "res://n"})),
            RequestOptions::default().cache(CacheMode::Bypass),
        )
        .await
        .unwrap();
    assert!(raw.get().contains("read #4"), "{raw}");
    let raw = c
        .request_raw(
            "resources/read",
            Some(json!({"uri": "res://n"})),
            RequestOptions::default(),
        )
        .await
        .unwrap();
    assert!(raw.get().contains("read #2"), "{raw}");
    assert_eq!(counter.count("resources/read"), 4);
    // A ping is a round trip (`server/discover` on 2026), never a cache hit.
    let before = counter.count("server/discover");
    c.ping().await.unwrap();
    c.ping().await.unwrap();
    assert_eq!(counter.count("server/discover"), before + 2);
}

#[tokio::test]
async fn cache_a_negative_ttl_is_read_as_zero_and_not_cached() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    // A server that breaks the schema: `ttlMs: -5` on a public tools/list.
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let lists = Arc::new(AtomicUsize::new(0));
    let seen = lists.clone();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            let result = match msg["method"].as_str() {
                Some("server/discover") => json!({"resultType": "complete",
                    "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                    "ttlMs": 0, "cacheScope": "private"}),
                Some("tools/list") => {
                    seen.fetch_add(1, Ordering::SeqCst);
                    json!({"resultType": "complete", "tools": [], "ttlMs": -5,
                        "cacheScope": "public"})
                }
                _ => continue,
            };
            let m = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
            w.write_all(format!("{m}\n").as_bytes()).await.unwrap();
        }
    });
    let c = modern().connect(client_end).await.unwrap();
    let r = c.list_tools(None).await.unwrap();
    assert_eq!(r.ttl_ms, Some(0));
    c.list_tools(None).await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 2);
}

/// Over Streamable HTTP the partition is the bearer token's: two clients with one token
/// share `private` entries, a client with another token does not.
#[cfg(feature = "http")]
#[tokio::test]
async fn cache_http_partitions_follow_the_bearer_token() {
    use mcp::CancellationToken;
    use mcp::transport::http::HttpOptions;
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let st = stop.clone();
    let served =
        tokio::spawn(async move { s.serve_http_on(listener, HttpOptions::default(), st).await });
    let store = Arc::new(MemoryStore::default());
    let client = |token: &'static str| {
        let (url, store) = (url.clone(), store.clone());
        async move {
            modern()
                .bearer_token(token)
                .cache_store(store)
                .request_timeout(Duration::from_secs(10))
                .connect_http(&url)
                .await
                .unwrap()
        }
    };
    let alice = client("token-alice").await;
    let alice_again = client("token-alice").await;
    let bob = client("token-bob").await;
    assert_eq!(text(&alice, "res://n").await, "read #1");
    assert_eq!(text(&alice_again, "res://n").await, "read #1");
    assert_eq!(text(&bob, "res://n").await, "read #2");
    assert_eq!(text(&alice, "res://public").await, "read #3");
    assert_eq!(text(&bob, "res://public").await, "read #3");
    assert_eq!(counter.count("resources/read"), 3);
    for c in [alice, alice_again, bob] {
        c.close().await.unwrap();
    }
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(10), served).await;
}

/// A fleet sharing a Redis store (a store instance per client, as in separate processes):
/// `public` entries shared, `private` ones per partition, an invalidation one client saw
/// dropping the entry for all, and every key with an expiry.
#[cfg(feature = "redis")]
#[tokio::test]
async fn cache_redis_store_is_shared_by_a_fleet() {
    use mcp::client::cache::RedisCacheStore;
    use support::redis::{RedisServer, assert_every_key_expires, keys_with_ttl};
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let client = |partition: &'static str| {
        let (url, stream) = (redis.url(), s.serve_in_memory());
        async move {
            let store = RedisCacheStore::connect(&url).await.unwrap();
            modern()
                .cache_store(Arc::new(store))
                .cache_partition(partition)
                // Streams to one server, in different processes: name it alike.
                .cache_origin("cache-test")
                .connect(stream)
                .await
                .unwrap()
        }
    };
    let alice = client("alice").await;
    let alice_again = client("alice").await;
    let bob = client("bob").await;
    assert_eq!(text(&alice, "res://n").await, "read #1");
    assert_eq!(text(&alice, "res://public").await, "read #2");
    assert_eq!(text(&alice_again, "res://n").await, "read #1");
    assert_eq!(text(&bob, "res://public").await, "read #2");
    assert_eq!(text(&bob, "res://n").await, "read #3");
    assert_eq!(counter.count("resources/read"), 3);
    assert_every_key_expires(redis.port, "mcp:cache:");
    // No uri, partition or origin in clear in the keys.
    for (k, _) in keys_with_ttl(redis.port, "mcp:cache:") {
        assert!(!k.contains("res://") && !k.contains("alice"), "{k}");
    }

    // Alice hears that res://n changed: the shared store forgets it for everyone.
    let mut sub = alice
        .listen(SubscriptionFilter {
            resource_subscriptions: Some(vec!["res://n".into()]),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    s.handle().resource_updated("res://n");
    assert_eq!(
        sub.next().await.unwrap().method,
        "notifications/resources/updated"
    );
    assert_eq!(text(&alice, "res://n").await, "read #4");
    // The store's invalidation runs beside the notification: wait for it to land.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let before = counter.count("resources/read");
        let t = text(&bob, "res://n").await;
        if counter.count("resources/read") > before {
            assert_eq!(t, "read #5");
            break;
        }
        assert_eq!(t, "read #3");
        assert!(tokio::time::Instant::now() < deadline, "never invalidated");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The public entry of another uri is still shared.
    assert_eq!(text(&bob, "res://public").await, "read #2");
}

#[tokio::test]
async fn cache_a_known_discover_result_connects_without_a_round_trip() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(0))
        .cache_hint_for("server/discover", CacheHint::public(60_000))
        .build();
    let first = connect(&s).await;
    assert_eq!(counter.count("server/discover"), 1);
    let known = first.discover_result().expect("a 2026 connection has one");
    assert_eq!(known.supported_versions, ["2026-07-28"]);

    // Given to the builder (persisted by the application): nothing is sent to connect.
    let again = modern()
        .prior_discover(&known)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(counter.count("server/discover"), 1);
    assert_eq!(again.session(), first.session());
    assert_eq!(again.list_all_tools().await.unwrap().len(), 5);
    // Auto mode too.
    let auto = Client::builder()
        .prior_discover(&known)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(auto.protocol_version(), V::V2026_07_28);
    assert_eq!(counter.count("server/discover"), 1);
    // A result that does not list the pinned revision is not used.
    let mut other = known.clone();
    other.supported_versions = vec!["2099-01-01".into()];
    modern()
        .prior_discover(&other)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert_eq!(counter.count("server/discover"), 2);

    // From a store shared with an earlier client of the same (named) origin.
    let store = Arc::new(MemoryStore::default());
    let named = || {
        modern()
            .cache_store(store.clone())
            .cache_origin("cache-test")
    };
    named().connect(s.serve_in_memory()).await.unwrap();
    assert_eq!(counter.count("server/discover"), 3);
    let c = named().connect(s.serve_in_memory()).await.unwrap();
    assert_eq!(counter.count("server/discover"), 3);
    assert!(c.discover_result().is_some());
    // A legacy connection has none, and uses none.
    let legacy = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .cache_store(store.clone())
        .cache_origin("cache-test")
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    assert!(legacy.discover_result().is_none());
}

#[tokio::test]
async fn cache_a_refresh_supersedes_the_other_scope_and_a_zero_ttl_drops_the_entry() {
    use mcp::types::CacheScope;
    // `res://flip` carries whatever hint the test sets, and counts its reads.
    let hint = Arc::new(Mutex::new((60_000u64, CacheScope::Private)));
    let reads = Arc::new(AtomicUsize::new(0));
    let (h, n) = (hint.clone(), reads.clone());
    let s = Server::builder("flip", "1.0.0")
        .registry(move |r| {
            r.add_resource(Resource::new("res://flip", "flip"), move |_ctx, uri| {
                let (ttl, scope) = *h.lock().unwrap();
                let n = n.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, format!("read #{n}"))],
                        ttl_ms: Some(ttl),
                        cache_scope: Some(scope),
                        ..Default::default()
                    })
                }
            });
        })
        .without_tracing()
        // Only the read is kept (by default `server/discover` would be too).
        .cache_hint_for("server/discover", mcp::caching::CacheHint::private(0))
        .build();
    let store = Arc::new(MemoryStore::default());
    let client = |p: &'static str| {
        modern()
            .cache_store(store.clone())
            .cache_partition(p)
            .connect(s.serve_in_memory())
    };
    let (alice, bob) = (client("alice").await.unwrap(), client("bob").await.unwrap());
    let refresh = alice.with_cache_mode(CacheMode::Refresh);
    assert_eq!(text(&alice, "res://flip").await, "read #1");
    // Now public: the refresh replaces Alice's private entry with a shared one.
    *hint.lock().unwrap() = (60_000, CacheScope::Public);
    assert_eq!(text(&refresh, "res://flip").await, "read #2");
    assert_eq!(text(&bob, "res://flip").await, "read #2");
    assert_eq!(text(&alice, "res://flip").await, "read #2");
    assert_eq!(store.len(), 1);
    // Now not to be kept: the refresh drops what was kept, for everyone.
    *hint.lock().unwrap() = (0, CacheScope::Private);
    assert_eq!(text(&refresh, "res://flip").await, "read #3");
    assert!(store.is_empty());
    assert_eq!(text(&bob, "res://flip").await, "read #4");
    assert_eq!(reads.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn cache_a_closed_client_fails_its_calls_even_when_cached() {
    let counter = Counter::default();
    let s = server(&counter, CacheHint::private(60_000)).build();
    let c = connect(&s).await;
    c.list_tools(None).await.unwrap();
    c.close().await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !c.is_closed() {
        assert!(tokio::time::Instant::now() < deadline, "never closed");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(c.list_tools(None).await.is_err());
}

/// A result that came back under other credentials than the request started with (an
/// OAuth client authorizing on a `401`, a rotated token) is not stored.
#[cfg(feature = "http")]
#[tokio::test]
async fn cache_a_result_fetched_while_the_token_changed_is_not_stored() {
    use mcp::BoxFuture;
    use mcp::CancellationToken;
    use mcp::client::{ClientError, TokenProvider};
    use mcp::transport::http::HttpOptions;
    struct Rotating(Arc<Mutex<String>>);
    impl TokenProvider for Rotating {
        fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
            let t = self.0.lock().unwrap().clone();
            Box::pin(async move { Ok(Some(t)) })
        }
    }
    let token = Arc::new(Mutex::new("t1".to_owned()));
    let reads = Arc::new(AtomicUsize::new(0));
    let (t, n) = (token.clone(), reads.clone());
    let s = Server::builder("rotate", "1.0.0")
        .cache_hint(CacheHint::private(60_000))
        .registry(move |r| {
            r.add_resource(Resource::new("res://rotate", "rotate"), move |_ctx, uri| {
                // The token rotates while this read is in flight.
                *t.lock().unwrap() = "t2".into();
                let n = n.fetch_add(1, Ordering::SeqCst) + 1;
                async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, format!("read #{n}"))],
                        ..Default::default()
                    })
                }
            });
        })
        .without_tracing()
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    let st = stop.clone();
    let served =
        tokio::spawn(async move { s.serve_http_on(listener, HttpOptions::default(), st).await });
    let c = modern()
        .token_provider(Rotating(token.clone()))
        .connect_http(&url)
        .await
        .unwrap();
    assert_eq!(text(&c, "res://rotate").await, "read #1");
    // Not kept under t1 (nor t2): asked again, then kept.
    assert_eq!(text(&c, "res://rotate").await, "read #2");
    assert_eq!(text(&c, "res://rotate").await, "read #2");
    assert_eq!(reads.load(Ordering::SeqCst), 2);
    c.close().await.unwrap();
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(10), served).await;
}
