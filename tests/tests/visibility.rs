//! Tags and per-caller visibility (`mcp::policies::Visibility`) on tools, prompts and
//! resources, through the public API: over the in-memory pipe and Streamable HTTP, with a
//! 2025-11-25 and a 2026-07-28 client. One caller sees the items tagged "admin", the other
//! does not; using a hidden one answers, byte for byte, what using an absent one answers.
//! Also: rules by annotation, full pages when items are hidden, the "unauthorized" denial,
//! the policy in `#[mcp::server(middleware(...))]`, mounted and run-time items, and tags
//! set with the builder.

#![cfg(all(feature = "client", feature = "http"))]

use std::sync::LazyLock;

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::jsonrpc::ErrorObject;
use mcp::policies::{CallerKey, Denial, Hint, ItemSet, Kind, Select, Visibility};
use mcp::prelude::*;
use mcp::transport::http::{HttpOptions, HttpRequest};
use mcp::types::Tool;
use mcp::{Server, ServerHandler};
use serde_json::json;

/// Looks a book up.
#[mcp::tool(read_only, tags("public"))]
async fn lookup(id: u32) -> String {
    format!("book {id}")
}

/// Refunds an order.
#[mcp::tool(destructive, tags("admin", "billing"))]
async fn refund(order: u32) -> String {
    format!("refunded {order}")
}

/// Counts orders (no annotations: destructive and open-world by the specification's
/// defaults).
#[mcp::tool(tags("billing"))]
async fn count_orders() -> String {
    "3".into()
}

/// Greets someone.
#[mcp::prompt]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Writes an audit report.
#[mcp::prompt(tags("admin"))]
async fn audit(period: String) -> String {
    format!("Audit {period}")
}

/// The catalogue.
#[mcp::resource("books://catalog", tags("public"))]
async fn catalog() -> String {
    "all the books".into()
}

/// The ledger.
#[mcp::resource("admin://ledger", tags("admin"))]
async fn ledger() -> String {
    "debits and credits".into()
}

/// One user's record.
#[mcp::resource("admin://users/{id}", tags("admin"))]
async fn user(id: String) -> String {
    format!("user {id}")
}

/// Periods that start with what was typed.
#[mcp::completion(prompt = "audit", argument = "period")]
async fn periods(prefix: String) -> Vec<String> {
    ["Q1", "Q2"]
        .into_iter()
        .filter(|p| p.starts_with(&prefix))
        .map(String::from)
        .collect()
}

/// User ids that start with what was typed.
#[mcp::completion(resource = "admin://users/{id}", argument = "id")]
async fn user_ids(prefix: String) -> Vec<String> {
    vec![format!("{prefix}1")]
}

#[mcp::server(
    name = "shop",
    tools(lookup, refund, count_orders),
    prompts(greet, audit),
    resources(catalog, ledger, user),
    completions(periods, user_ids)
)]
struct Shop;

/// Whoever sends `x-user: admin` (HTTP) or calls its client "admin" sees everything; every
/// other caller nothing tagged "admin".
fn admin_only() -> Visibility {
    let key = CallerKey::from_fn(|ctx| {
        if let Some(req) = ctx.extensions().get::<HttpRequest>() {
            return Some(req.headers.get("x-user")?.to_str().ok()?.to_owned());
        }
        ctx.client_info().map(|i| i.name.clone())
    });
    Visibility::new(ItemSet::except([Select::tagged("admin")]))
        .caller("admin", ItemSet::all())
        .key(key)
}

fn shop(v: Visibility) -> Server<(Visibility,), Shop> {
    Server::builder("shop", "1")
        .handler(Shop)
        .middleware(v)
        .build()
}

/// How a test reaches a server.
#[derive(Clone, Copy, Debug)]
enum Via {
    Pipe,
    Http,
}

/// A client named `user` of `server` over `via`, legacy (2025-11-25) or 2026-07-28.
async fn connect(
    server: &Server<(Visibility,), Shop>,
    http: &Option<mcp::transport::http::LoopbackHttp>,
    via: Via,
    legacy: bool,
    user: &str,
) -> Client {
    let b = Client::builder().info(mcp::types::Implementation::new(user, "1"));
    let b = if legacy {
        b.mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
    } else {
        b
    };
    match via {
        Via::Pipe => b.connect(server.serve_in_memory()).await.unwrap(),
        Via::Http => {
            let url = http.as_ref().unwrap().url();
            b.header("x-user", user).connect_http(&url).await.unwrap()
        }
    }
}

/// The JSON-RPC error a request failed with.
fn rpc<T: std::fmt::Debug>(r: Result<T, ClientError>) -> ErrorObject {
    match r {
        Err(e) => e
            .as_rpc()
            .cloned()
            .unwrap_or_else(|| panic!("not a JSON-RPC error: {e}")),
        Ok(r) => panic!("expected an error, got {r:?}"),
    }
}

/// `hidden`, as JSON text, is `absent`'s with the absent name replaced by the hidden one.
fn same_bytes(hidden: &ErrorObject, absent: &ErrorObject, absent_name: &str, name: &str) {
    let h = serde_json::to_string(hidden).unwrap();
    let a = serde_json::to_string(absent)
        .unwrap()
        .replace(absent_name, name);
    assert_eq!(h, a, "a hidden item answers as an absent one");
}

async fn sorted<F, Fut>(f: F) -> Vec<String>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Vec<String>>,
{
    let mut v = f().await;
    v.sort();
    v
}

async fn seen(c: &Client) -> [Vec<String>; 4] {
    let tools = sorted(|| async {
        let l = c.list_tools(None).await.unwrap().tools;
        l.into_iter().map(|t| t.name).collect()
    })
    .await;
    let prompts = sorted(|| async {
        let l = c.list_prompts(None).await.unwrap().prompts;
        l.into_iter().map(|p| p.name).collect()
    })
    .await;
    let resources = sorted(|| async {
        let l = c.list_resources(None).await.unwrap().resources;
        l.into_iter().map(|r| r.uri).collect()
    })
    .await;
    let templates = sorted(|| async {
        let l = c.list_resource_templates(None).await.unwrap();
        l.resource_templates
            .into_iter()
            .map(|t| t.uri_template)
            .collect()
    })
    .await;
    [tools, prompts, resources, templates]
}

async fn each_caller_sees_its_own(via: Via) {
    let server = shop(admin_only());
    let http = match via {
        Via::Http => Some(
            mcp::transport::http::LoopbackHttp::start(&server, HttpOptions::default())
                .await
                .unwrap(),
        ),
        Via::Pipe => None,
    };
    for legacy in [true, false] {
        let what = format!("{via:?}, legacy: {legacy}");
        let admin = connect(&server, &http, via, legacy, "admin").await;
        let reader = connect(&server, &http, via, legacy, "reader").await;

        assert_eq!(
            seen(&admin).await,
            [
                vec!["count_orders", "lookup", "refund"],
                vec!["audit", "greet"],
                vec!["admin://ledger", "books://catalog"],
                vec!["admin://users/{id}"],
            ],
            "{what}"
        );
        assert_eq!(
            seen(&reader).await,
            [
                vec!["count_orders", "lookup"],
                vec!["greet"],
                vec!["books://catalog"],
                vec![],
            ],
            "{what}"
        );
        // The tags went to the wire as `_meta.tags`.
        let tools = admin.list_tools(None).await.unwrap().tools;
        let refund = tools.iter().find(|t| t.name == "refund").unwrap();
        assert_eq!(
            refund.tags().collect::<Vec<_>>(),
            ["admin", "billing"],
            "{what}"
        );

        // The admin uses what the reader may not.
        let r = admin
            .call_tool("refund", json!({"order": 7}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("refunded 7"), "{what}");
        admin.get_prompt("audit", [("period", "Q1")]).await.unwrap();
        admin.read_resource("admin://ledger").await.unwrap();
        admin.read_resource("admin://users/42").await.unwrap();

        // The reader: every hidden item answers what an absent one answers.
        let hidden = rpc(reader.call_tool("refund", json!({"order": 7})).await);
        let absent = rpc(reader.call_tool("no_such_tool", json!({})).await);
        assert_eq!(
            (hidden.code, hidden.message.as_str()),
            (-32602, "Unknown tool: refund")
        );
        same_bytes(&hidden, &absent, "no_such_tool", "refund");

        let hidden = rpc(reader.get_prompt("audit", [("period", "Q1")]).await);
        let absent = rpc(reader
            .get_prompt("no_such_prompt", [("period", "Q1")])
            .await);
        assert_eq!(
            (hidden.code, hidden.message.as_str()),
            (-32602, "Unknown prompt: audit")
        );
        same_bytes(&hidden, &absent, "no_such_prompt", "audit");

        for uri in ["admin://ledger", "admin://users/42"] {
            let hidden = rpc(reader.read_resource(uri).await);
            let absent = rpc(reader.read_resource("nowhere://x").await);
            // 2025 revisions say -32002, 2026-07-28 says -32602; both carry the URI.
            let code = if legacy { -32002 } else { -32602 };
            assert_eq!(
                (hidden.code, hidden.data.clone()),
                (code, Some(json!({"uri": uri})))
            );
            same_bytes(&hidden, &absent, "nowhere://x", uri);
        }
        // Completing an argument of a hidden prompt or template: as for an unknown one.
        use mcp::types::{CompleteParams, CompletionReference as Ref};
        let complete = |c: &Client, r: Ref, arg: &str| {
            let (c, p) = (c.clone(), CompleteParams::new(r, arg, ""));
            async move { c.complete(p).await }
        };
        let ok = complete(&admin, Ref::prompt("audit"), "period")
            .await
            .unwrap();
        assert_eq!(ok.completion.values, ["Q1", "Q2"], "{what}");
        let hidden = rpc(complete(&reader, Ref::prompt("audit"), "period").await);
        let absent = rpc(complete(&reader, Ref::prompt("no_such_prompt"), "period").await);
        same_bytes(&hidden, &absent, "no_such_prompt", "audit");
        let t = "admin://users/{id}";
        complete(&admin, Ref::resource(t), "id").await.unwrap();
        let hidden = rpc(complete(&reader, Ref::resource(t), "id").await);
        let absent = rpc(complete(&reader, Ref::resource("nowhere://{x}"), "id").await);
        assert_eq!(hidden.message, format!("Unknown resource template: {t}"));
        same_bytes(&hidden, &absent, "nowhere://{x}", t);

        // What it may see, it uses.
        let r = reader.call_tool("lookup", json!({"id": 1})).await.unwrap();
        assert_eq!(r.content[0].as_text(), Some("book 1"), "{what}");
        reader.get_prompt("greet", [("name", "Ann")]).await.unwrap();
        reader.read_resource("books://catalog").await.unwrap();
    }
    if let Some(http) = http {
        http.stop().await.unwrap();
    }
}

#[tokio::test]
async fn over_the_pipe_each_caller_sees_and_uses_only_its_items_in_both_eras() {
    each_caller_sees_its_own(Via::Pipe).await;
}

#[tokio::test]
async fn over_http_each_caller_sees_and_uses_only_its_items_in_both_eras() {
    each_caller_sees_its_own(Via::Http).await;
}

#[tokio::test]
async fn rules_by_annotation_use_the_specifications_defaults() {
    let read_only = Visibility::new(ItemSet::only([
        Select::annotated(Hint::ReadOnly),
        Select::every(Kind::Prompt),
    ]));
    let client = Client::connect(shop(read_only).serve_in_memory())
        .await
        .unwrap();
    let [tools, prompts, resources, _] = seen(&client).await;
    assert_eq!(tools, ["lookup"]);
    assert_eq!(prompts, ["audit", "greet"]);
    // No rule names resources: none is shown.
    assert!(resources.is_empty(), "{resources:?}");
    assert_eq!(
        rpc(client.read_resource("books://catalog").await).data,
        Some(json!({"uri": "books://catalog"}))
    );

    // `count_orders` says nothing, so it counts as destructive.
    let no_destructive = Visibility::new(ItemSet::except([Select::annotated(Hint::Destructive)]));
    let client = Client::connect(shop(no_destructive).serve_in_memory())
        .await
        .unwrap();
    assert_eq!(seen(&client).await[0], ["lookup"]);
    let e = rpc(client.call_tool("count_orders", json!({})).await);
    assert_eq!(e.message, "Unknown tool: count_orders");

    // By name, per kind.
    let by_name = Visibility::new(ItemSet::only([
        Select::tool("refund"),
        Select::prompt("greet"),
        Select::resource("admin://users/{id}"),
    ]));
    let client = Client::connect(shop(by_name).serve_in_memory())
        .await
        .unwrap();
    assert_eq!(
        seen(&client).await,
        [
            vec!["refund"],
            vec!["greet"],
            vec![],
            vec!["admin://users/{id}"]
        ]
    );
    let r = client.read_resource("admin://users/9").await.unwrap();
    assert_eq!(r.contents.len(), 1);
}

#[tokio::test]
async fn unauthorized_denial_names_the_item_and_lists_still_hide_it() {
    let v = admin_only().deny_as(Denial::Unauthorized);
    let server = shop(v);
    for legacy in [true, false] {
        let reader = connect(&server, &None, Via::Pipe, legacy, "reader").await;
        assert!(!seen(&reader).await[0].contains(&"refund".to_owned()));
        let e = rpc(reader.call_tool("refund", json!({"order": 1})).await);
        assert_eq!(
            (e.code, e.message.as_str(), e.data),
            (-32003, "Unauthorized", Some(json!({"tool": "refund"})))
        );
        let e = rpc(reader.get_prompt("audit", [("period", "Q1")]).await);
        assert_eq!((e.code, e.data), (-32003, Some(json!({"prompt": "audit"}))));
        let e = rpc(reader.read_resource("admin://users/1").await);
        assert_eq!(
            (e.code, e.data),
            (-32003, Some(json!({"uri": "admin://users/1"})))
        );
        // An absent item is still "unknown": unauthorized only for what exists.
        assert_eq!(rpc(reader.call_tool("nope", json!({})).await).code, -32602);
    }
}

/// `n` tools, the odd ones tagged "hidden".
fn many_tools(n: usize) -> Server<(Visibility,)> {
    let mut b = Server::builder("many", "1").page_size(3);
    for i in 0..n {
        let tool = Tool::new(format!("t{i:02}"));
        let tool = if i % 2 == 1 {
            tool.with_tags(["hidden"])
        } else {
            tool
        };
        b = b.tool(tool, |_ctx, _: serde_json::Value| async {
            Ok::<_, McpError>(mcp::types::CallToolResult::default())
        });
    }
    b.middleware(Visibility::new(ItemSet::except([Select::tagged("hidden")])))
        .build()
}

#[tokio::test]
async fn a_mounted_childs_filter_refuses_the_call_and_the_parents_hides_the_item() {
    // The child hides its odd tools; the parent answers lists from its own copies.
    let parent = |policy: Option<Visibility>| {
        Server::builder("parent", "1")
            .mount("kid", many_tools(4))
            .middleware(policy)
            .build()
    };
    let names = |c: Client| async move {
        let tools = c.list_all_tools().await.unwrap();
        (c, tools.into_iter().map(|t| t.name).collect::<Vec<_>>())
    };
    let (c, listed) = names(
        Client::connect(parent(None).serve_in_memory())
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(listed, ["kid_t00", "kid_t01", "kid_t02", "kid_t03"]);
    let e = rpc(c.call_tool("kid_t01", json!({})).await);
    // As an absent one answers: the child's own name never shows.
    let absent = rpc(c.call_tool("kid_t09", json!({})).await);
    assert_eq!((absent.code, absent.data), (e.code, e.data.clone()));
    assert_eq!(absent.message, "Unknown tool: kid_t09");
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32602, "Unknown tool: kid_t01")
    );
    assert!(c.call_tool("kid_t00", json!({})).await.is_ok());

    // On the parent, the policy sees the mounted items by their namespaced names and tags.
    let on_parent = Visibility::new(ItemSet::except([Select::tagged("hidden")]));
    let server = parent(Some(on_parent));
    let (c, listed) = names(Client::connect(server.serve_in_memory()).await.unwrap()).await;
    assert_eq!(listed, ["kid_t00", "kid_t02"]);
    let e = rpc(c.call_tool("kid_t01", json!({})).await);
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32602, "Unknown tool: kid_t01")
    );
}

#[tokio::test]
async fn hidden_items_leave_no_short_pages_and_cursors_walk_the_callers_list() {
    let server = many_tools(20);
    for legacy in [true, false] {
        let b = Client::builder();
        let b = if legacy {
            b.mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
        } else {
            b
        };
        let client = b.connect(server.serve_in_memory()).await.unwrap();
        let (mut names, mut sizes, mut cursor) = (Vec::new(), Vec::new(), None);
        loop {
            let page = client.list_tools(cursor.take()).await.unwrap();
            sizes.push(page.tools.len());
            names.extend(page.tools.into_iter().map(|t| t.name));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let expected: Vec<String> = (0..20).step_by(2).map(|i| format!("t{i:02}")).collect();
        assert_eq!(names, expected);
        // Ten shown tools in pages of three: 3, 3, 3, 1.
        assert_eq!(sizes, [3, 3, 3, 1], "legacy: {legacy}");
    }
}

#[tokio::test]
async fn a_callers_own_list_is_never_cached_as_public() {
    let server = Server::builder("shop", "1")
        .handler(Shop)
        .cache_hint_for("tools/list", mcp::caching::CacheHint::public(60_000))
        .middleware(Visibility::new(ItemSet::except([Select::tagged("admin")])))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    let list = client.list_tools(None).await.unwrap();
    assert_eq!(list.tools.len(), 2);
    assert_eq!(list.ttl_ms, Some(60_000));
    assert_eq!(list.cache_scope, Some(mcp::types::CacheScope::Private));
    // A caller that sees everything gets the shared list, hint as configured.
    let server = Server::builder("shop", "1")
        .handler(Shop)
        .cache_hint_for("tools/list", mcp::caching::CacheHint::public(60_000))
        .middleware(Visibility::new(ItemSet::all()))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    let list = client.list_tools(None).await.unwrap();
    assert_eq!(list.cache_scope, Some(mcp::types::CacheScope::Public));
}

static STAFF_ONLY: LazyLock<Visibility> =
    LazyLock::new(|| Visibility::new(ItemSet::except([Select::tagged("admin")])));

#[mcp::middleware]
async fn staff_only(ctx: Context, next: Next<'_>) -> HandlerResult {
    STAFF_ONLY.handle(ctx, next).await
}

#[mcp::server(
    name = "shop",
    tools(lookup, refund),
    prompts(audit),
    middleware(staff_only)
)]
struct Guarded;

#[tokio::test]
async fn the_policy_works_from_the_server_macros_middleware_list() {
    let names = |c: Client| async move {
        let tools = c.list_tools(None).await.unwrap().tools;
        tools.into_iter().map(|t| t.name).collect::<Vec<_>>()
    };
    let client = Client::connect(Guarded.into_server().serve_in_memory())
        .await
        .unwrap();
    assert!(client.list_prompts(None).await.unwrap().prompts.is_empty());
    let e = rpc(client.call_tool("refund", json!({"order": 1})).await);
    assert_eq!(e.message, "Unknown tool: refund");
    assert_eq!(names(client).await, ["lookup"]);
    // Built with the builder, the macro's middleware stays.
    let server = Server::builder("shop", "1").handler(Guarded).build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    assert_eq!(names(client).await, ["lookup"]);
}

#[tokio::test]
async fn mounted_and_run_time_items_are_judged_by_their_tags() {
    let child = Server::builder("child", "1").handler(Shop).build();
    let server = Server::builder("gateway", "1")
        .mount("shop", child)
        .middleware(Visibility::new(ItemSet::except([Select::tagged("admin")])))
        .build();
    server
        .handle()
        .add_tool(
            Tool::new("late").with_tags(["admin"]),
            |_ctx, _: serde_json::Value| async {
                Ok::<_, McpError>(mcp::types::CallToolResult::default())
            },
        )
        .unwrap();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    assert_eq!(seen(&client).await[0], ["shop_count_orders", "shop_lookup"]);
    // The child answers the visible one (the parent's decision does not follow the call).
    let r = client
        .call_tool("shop_lookup", json!({"id": 3}))
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("book 3"));
    for hidden in ["shop_refund", "late"] {
        let e = rpc(client.call_tool(hidden, json!({"order": 1})).await);
        assert_eq!(e.message, format!("Unknown tool: {hidden}"));
    }
    let e = rpc(client.read_resource("admin://shop/ledger").await);
    assert_eq!(e.data, Some(json!({"uri": "admin://shop/ledger"})));
}

#[test]
fn the_builder_refuses_empty_and_repeated_tags() {
    let noop = |_ctx: Context, _: serde_json::Value| async {
        Ok::<_, McpError>(mcp::types::CallToolResult::default())
    };
    let e = Server::builder("x", "1")
        .tool(Tool::new("a").with_tags(["ok", ""]), noop)
        .tool(Tool::new("b").with_tags(["x", "x"]), noop)
        .registry(|r| {
            r.add_prompt(mcp::types::Prompt::new("p").with_tags([""]), |_, _| async {
                Ok::<_, McpError>(mcp::types::GetPromptResult::default())
            })
        })
        .try_build()
        .err()
        .expect("refused");
    assert_eq!(
        e.0,
        [
            "tool `a`: a tag cannot be empty",
            "tool `b`: the tag \"x\" is given twice",
            "prompt `p`: a tag cannot be empty"
        ]
    );
    assert!(Shop.tools().iter().all(|t| t.tags().count() > 0));
}

/// The URIs of the `notifications/resources/updated` a client hears within `ms`.
async fn updated_uris(
    notes: &mut tokio::sync::broadcast::Receiver<mcp::client::ServerNotification>,
    ms: u64,
) -> Vec<String> {
    let mut uris = Vec::new();
    let until = tokio::time::Instant::now() + std::time::Duration::from_millis(ms);
    while let Ok(Ok(n)) = tokio::time::timeout_at(until, notes.recv()).await {
        if n.method == "notifications/resources/updated" {
            let p = n.params.unwrap_or_default();
            uris.push(p["uri"].as_str().unwrap_or_default().to_owned());
        }
    }
    uris.sort();
    uris
}

#[tokio::test]
async fn a_subscription_to_a_hidden_resource_is_accepted_and_never_hears_of_it() {
    let server = Server::builder("shop", "1")
        .handler(Shop)
        .subscriptions(true)
        .middleware(admin_only())
        .build();
    let handle = server.handle();
    let uris = [
        "admin://ledger",
        "admin://users/7",
        "books://catalog",
        "books://absent",
    ];
    for legacy in [true, false] {
        for (user, hears) in [
            ("guest", vec!["books://absent", "books://catalog"]),
            ("admin", {
                let mut all = uris.to_vec();
                all.sort();
                all
            }),
        ] {
            let c = connect(&server, &None, Via::Pipe, legacy, user).await;
            let mut notes = c.notifications();
            // Accepted alike, the hidden as the absent: nothing tells them apart.
            let _listen = if legacy {
                for uri in uris {
                    c.subscribe_resource(uri)
                        .await
                        .expect("resources/subscribe");
                }
                None
            } else {
                let filter = mcp::types::SubscriptionFilter {
                    resource_subscriptions: Some(uris.iter().map(|u| u.to_string()).collect()),
                    ..Default::default()
                };
                Some(c.listen(filter).await.expect("subscriptions/listen"))
            };
            for uri in uris {
                handle.resource_updated(uri);
            }
            assert_eq!(
                updated_uris(&mut notes, 500).await,
                hears,
                "{user}, legacy: {legacy}"
            );
        }
    }
}
