//! The policies of `mcp::policies`, each tripped through the public API: what a client sees
//! when a tool times out, is hidden by the read-only guard, or answers too much (a tool run
//! as a task included, on both eras).

#![cfg(feature = "client")]

use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::policies::{
    CallerKey, ItemSet, Limit, RateLimit, ReadOnly, ResponseLimit, Select, ToolTimeout, Visibility,
};
use mcp::prelude::*;
use mcp::{Server, ServerHandler};
use serde_json::json;

/// Looks a book up.
#[mcp::tool(read_only)]
async fn lookup(id: u32) -> String {
    format!("book {id}")
}

/// Deletes a book.
#[mcp::tool(destructive)]
async fn delete(id: u32) -> String {
    format!("deleted {id}")
}

/// Sleeps for `ms` milliseconds.
#[mcp::tool(read_only)]
async fn nap(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    "rested".into()
}

/// `n` times "ab".
#[mcp::tool(read_only)]
async fn big(n: usize) -> String {
    "ab".repeat(n)
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Blob {
    data: String,
}

/// `n` bytes of structured data.
#[mcp::tool(read_only)]
async fn big_json(n: usize) -> Json<Blob> {
    Json(Blob {
        data: "x".repeat(n),
    })
}

#[mcp::server(name = "library", tools(lookup, delete, nap, big, big_json))]
struct Library;

/// The JSON-RPC error of a failed call.
fn rpc(r: Result<mcp::types::CallToolResult, ClientError>) -> mcp::jsonrpc::ErrorObject {
    match r {
        Err(e) => e
            .as_rpc()
            .cloned()
            .unwrap_or_else(|| panic!("not a JSON-RPC error: {e}")),
        Ok(r) => panic!("expected an error, got {r:?}"),
    }
}

fn text(r: &mcp::types::CallToolResult) -> &str {
    r.content[0].as_text().expect("a text block")
}

#[tokio::test]
async fn a_tool_over_its_timeout_answers_request_timed_out_and_the_others_run() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(ToolTimeout::none().tool("nap", Duration::from_millis(50)))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();

    let e = rpc(client.call_tool("nap", json!({"ms": 60_000})).await);
    assert_eq!((e.code, e.message.as_str()), (-32603, "Request timed out"));
    // Within its limit it runs; the connection goes on.
    assert_eq!(
        text(&client.call_tool("nap", json!({"ms": 1})).await.unwrap()),
        "rested"
    );
    assert_eq!(
        text(&client.call_tool("lookup", json!({"id": 7})).await.unwrap()),
        "book 7"
    );
}

#[tokio::test]
async fn the_default_timeout_applies_to_tools_not_named() {
    let only_default = Server::builder("library", "1")
        .handler(Library)
        .middleware(ToolTimeout::new(Duration::from_millis(50)))
        .build();
    let client = Client::connect(only_default.serve_in_memory())
        .await
        .unwrap();
    let e = rpc(client.call_tool("nap", json!({"ms": 60_000})).await);
    assert_eq!(e.message, "Request timed out");

    // A tool named gets its own, longer limit instead.
    let named = Server::builder("library", "1")
        .handler(Library)
        .middleware(
            ToolTimeout::new(Duration::from_millis(50)).tool("nap", Duration::from_secs(30)),
        )
        .build();
    let client = Client::connect(named.serve_in_memory()).await.unwrap();
    assert_eq!(
        text(&client.call_tool("nap", json!({"ms": 100})).await.unwrap()),
        "rested"
    );
}

#[tokio::test]
async fn read_only_hides_other_tools_from_the_list_and_from_calls() {
    for legacy in [false, true] {
        let server = Server::builder("library", "1")
            .handler(Library)
            .middleware(ReadOnly::new(Library.tools()))
            .build();
        let client = if legacy {
            Client::builder()
                .mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
                .connect(server.serve_in_memory())
                .await
                .unwrap()
        } else {
            Client::connect(server.serve_in_memory()).await.unwrap()
        };
        let listed: Vec<String> = client
            .list_tools(None)
            .await
            .unwrap()
            .tools
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert!(!listed.contains(&"delete".to_owned()), "{listed:?}");
        assert!(listed.contains(&"lookup".to_owned()), "{listed:?}");

        // Calling the hidden tool answers exactly what a tool that does not exist answers.
        let hidden = rpc(client.call_tool("delete", json!({"id": 1})).await);
        let absent = rpc(client.call_tool("no_such_tool", json!({})).await);
        assert_eq!(
            (hidden.code, hidden.message.as_str()),
            (-32602, "Unknown tool: delete")
        );
        assert_eq!(absent.code, hidden.code);
        assert_eq!(
            text(&client.call_tool("lookup", json!({"id": 2})).await.unwrap()),
            "book 2"
        );
    }
}

#[tokio::test]
async fn read_only_leaves_tools_out_before_paging_so_every_page_is_full() {
    // w0, r1, w2, r3, w4, r5: the odd ones read-only; two tools a page.
    let tools: Vec<Tool> = (0..6)
        .map(|i| {
            let mut t = Tool::new(format!("{}{i}", if i % 2 == 1 { "r" } else { "w" }));
            if i % 2 == 1 {
                t.annotations = Some(mcp::types::ToolAnnotations {
                    read_only_hint: Some(true),
                    ..Default::default()
                });
            }
            t
        })
        .collect();
    let mut b = Server::builder("many", "1.0.0").page_size(2);
    for t in &tools {
        b = b.tool(t.clone(), |_ctx, _args: serde_json::Value| async move {
            Ok(CallToolResult::success(vec![]))
        });
    }
    let server = b.middleware(ReadOnly::new(&tools)).build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    let first = client.list_tools(None).await.unwrap();
    let names = |p: &mcp::types::ListToolsResult| -> Vec<String> {
        p.tools.iter().map(|t| t.name.clone()).collect()
    };
    assert_eq!(names(&first), ["r1", "r3"]);
    let second = client.list_tools(first.next_cursor).await.unwrap();
    assert_eq!(
        (names(&second), second.next_cursor),
        (vec!["r5".to_owned()], None)
    );
}

#[tokio::test]
async fn a_text_answer_over_the_limit_is_cut_with_the_marker() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(ResponseLimit::new(2_000).marker(" [cut]"))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();

    let small = client.call_tool("big", json!({"n": 10})).await.unwrap();
    assert_eq!(text(&small), "ab".repeat(10));

    let cut = client.call_tool("big", json!({"n": 10_000})).await.unwrap();
    let t = text(&cut);
    assert!(t.ends_with(" [cut]"), "{t}");
    assert!(t.len() < 2_000 && t.len() > 1_000, "{}", t.len());
    assert!(
        "ab".repeat(10_000)
            .starts_with(t.trim_end_matches(" [cut]"))
    );
    assert_ne!(cut.is_error, Some(true));
}

#[tokio::test]
async fn structured_content_over_the_limit_is_refused_not_cut() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(ResponseLimit::new(2_000))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();

    let fits = client
        .call_tool("big_json", json!({"n": 10}))
        .await
        .unwrap();
    assert_eq!(fits.structured_content.unwrap()["data"], "x".repeat(10));

    let e = rpc(client.call_tool("big_json", json!({"n": 10_000})).await);
    assert_eq!((e.code, e.message.as_str()), (-32603, "Response too large"));
    let data = e.data.unwrap();
    assert_eq!(data["limit"], 2_000);
    assert!(data["size"].as_u64().unwrap() > 20_000, "{data}");
}

#[tokio::test]
async fn policies_compose_in_a_static_tuple_too() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(ReadOnly::new(Library.tools()))
        .middleware(ResponseLimit::new(500))
        .middleware(ToolTimeout::new(Duration::from_secs(30)))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    assert_eq!(
        rpc(client.call_tool("delete", json!({"id": 1})).await).code,
        -32602
    );
    assert!(text(&client.call_tool("big", json!({"n": 1000})).await.unwrap()).len() < 500);
}

/// The milliseconds a refusal says to wait, checking it is a rate-limit refusal.
fn retry_after_ms(e: &mcp::jsonrpc::ErrorObject) -> u64 {
    assert_eq!(
        (e.code, e.message.as_str()),
        (-32029, "Rate limit exceeded"),
        "{e:?}"
    );
    e.data
        .as_ref()
        .and_then(|d| d["retryAfterMs"].as_u64())
        .expect("data.retryAfterMs")
}

async fn legacy_client(server: &Server<impl mcp::middleware::Chain, Library>) -> Client {
    Client::builder()
        .mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
        .connect(server.serve_in_memory())
        .await
        .unwrap()
}

#[tokio::test]
async fn over_the_limit_a_call_is_refused_with_when_to_retry_per_session_and_per_tool() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(RateLimit::new(Limit::per_minute(2)))
        .build();
    let (a, b) = (legacy_client(&server).await, legacy_client(&server).await);

    for id in [1, 2] {
        a.call_tool("lookup", json!({"id": id})).await.unwrap();
    }
    let e = rpc(a.call_tool("lookup", json!({"id": 3})).await);
    let wait = retry_after_ms(&e);
    // A token comes back every 30 s.
    assert!(wait > 0 && wait <= 30_000, "{wait}");
    // The refusal concerned that caller and that tool only.
    assert_eq!(
        text(&a.call_tool("nap", json!({"ms": 1})).await.unwrap()),
        "rested"
    );
    assert_eq!(
        text(&b.call_tool("lookup", json!({"id": 4})).await.unwrap()),
        "book 4"
    );
    // Other methods are not counted.
    for _ in 0..5 {
        a.list_tools(None).await.unwrap();
    }
}

#[tokio::test]
async fn after_the_wait_it_names_a_call_is_admitted_again() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(RateLimit::none().tool("lookup", Limit::per_second(20).burst(1)))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    client.call_tool("lookup", json!({"id": 1})).await.unwrap();
    let wait = retry_after_ms(&rpc(client.call_tool("lookup", json!({"id": 2})).await));
    assert!(wait <= 50, "{wait}");
    tokio::time::sleep(Duration::from_millis(wait + 20)).await;
    assert_eq!(
        text(&client.call_tool("lookup", json!({"id": 3})).await.unwrap()),
        "book 3"
    );
    // A tool with no limit of its own (and no default) is not limited.
    for _ in 0..5 {
        client.call_tool("nap", json!({"ms": 0})).await.unwrap();
    }
}

/// Over HTTP (2026-07-28, no session), the caller named by a function of the context: here
/// a header of the HTTP request.
#[cfg(feature = "http")]
#[tokio::test]
async fn over_http_the_limit_holds_per_caller_named_by_a_header() {
    use mcp::transport::http::{HttpOptions, HttpRequest};

    let by_user = CallerKey::from_fn(|ctx| {
        let req = ctx.extensions().get::<HttpRequest>()?;
        Some(req.headers.get("x-user")?.to_str().ok()?.to_owned())
    });
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(RateLimit::new(Limit::per_minute(3)).caller(by_user))
        .middleware(ReadOnly::new(Library.tools()))
        .build();
    let http = mcp::transport::http::LoopbackHttp::start(&server, HttpOptions::default())
        .await
        .unwrap();
    let url = http.url();

    let connect = |user: &'static str| {
        let url = url.clone();
        async move {
            Client::builder()
                .header("x-user", user)
                .connect_http(&url)
                .await
                .unwrap()
        }
    };
    let (alice, bob) = (connect("alice").await, connect("bob").await);
    for id in 0..3 {
        alice.call_tool("lookup", json!({"id": id})).await.unwrap();
    }
    let e = alice
        .call_tool("lookup", json!({"id": 3}))
        .await
        .unwrap_err();
    let wait = retry_after_ms(e.as_rpc().expect("a JSON-RPC error"));
    assert!(wait > 0 && wait <= 20_000, "{wait}");
    assert_eq!(
        text(&bob.call_tool("lookup", json!({"id": 9})).await.unwrap()),
        "book 9"
    );
    // The read-only guard over HTTP: `delete` is hidden.
    assert_eq!(
        rpc(bob.call_tool("delete", json!({"id": 1})).await).code,
        -32602
    );
    assert!(
        !bob.list_tools(None)
            .await
            .unwrap()
            .tools
            .iter()
            .any(|t| t.name == "delete")
    );
}

/// Over HTTP an anonymous caller is its address, not its session: a client that opens a
/// session per call meets the limit all the same, and its 2026 calls (no session) count in
/// the same bucket.
#[cfg(feature = "http")]
#[tokio::test]
async fn over_http_an_anonymous_caller_is_its_address_not_its_session() {
    use mcp::transport::http::HttpOptions;

    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(RateLimit::new(Limit::per_minute(3)))
        .build();
    let http = mcp::transport::http::LoopbackHttp::start(&server, HttpOptions::default())
        .await
        .unwrap();
    let connect = |mode: ConnectMode| {
        let url = http.url();
        async move {
            Client::builder()
                .mode(mode)
                .connect_http(&url)
                .await
                .unwrap()
        }
    };
    let legacy = ConnectMode::Legacy(ProtocolVersion::V2025_11_25);
    // A session per call: three sessions, one bucket.
    for id in 0..3 {
        let c = connect(legacy).await;
        c.call_tool("lookup", json!({"id": id})).await.unwrap();
    }
    let e = connect(legacy)
        .await
        .call_tool("lookup", json!({"id": 3}))
        .await
        .unwrap_err();
    assert!(retry_after_ms(e.as_rpc().expect("a JSON-RPC error")) > 0);
    // The same client's 2026 calls carry no session: the same address, the same bucket.
    let modern = connect(ConnectMode::Modern(ProtocolVersion::V2026_07_28)).await;
    let e = modern
        .call_tool("lookup", json!({"id": 4}))
        .await
        .unwrap_err();
    assert!(retry_after_ms(e.as_rpc().expect("a JSON-RPC error")) > 0);
}

/// Behind reverse proxies named as trusted, callers are told apart by the address the proxy
/// appended to `X-Forwarded-For`; without that trust the header is ignored (anyone could
/// send it), so the callers share their connection's address.
#[cfg(feature = "http")]
#[tokio::test]
async fn behind_a_trusted_proxy_callers_are_told_apart_by_x_forwarded_for() {
    use mcp::transport::http::HttpOptions;

    let loopback: std::net::IpAddr = "127.0.0.1".parse().unwrap();
    for (key, apart) in [
        (CallerKey::forwarded_for([loopback]), true),
        (CallerKey::address(), false),
    ] {
        let server = Server::builder("library", "1")
            .handler(Library)
            .middleware(RateLimit::new(Limit::per_minute(1)).caller(key))
            .build();
        let http = mcp::transport::http::LoopbackHttp::start(&server, HttpOptions::default())
            .await
            .unwrap();
        // As the proxy writes it: what the client sent, then the address it came from.
        let behind = |client: &'static str| {
            let url = http.url();
            async move {
                Client::builder()
                    .header("x-forwarded-for", &format!("127.0.0.1, {client}"))
                    .connect_http(&url)
                    .await
                    .unwrap()
            }
        };
        let (a, b) = (behind("203.0.113.1").await, behind("203.0.113.2").await);
        a.call_tool("lookup", json!({"id": 1})).await.unwrap();
        assert!(a.call_tool("lookup", json!({"id": 2})).await.is_err());
        let other = b.call_tool("lookup", json!({"id": 3})).await;
        assert_eq!(other.is_ok(), apart, "trusted: {apart}: {other:?}");
    }
}

#[tokio::test]
async fn each_caller_sees_and_calls_only_its_tools() {
    // Callers named by the name their client gives (on both eras).
    let by_client = CallerKey::from_fn(|ctx| ctx.client_info().map(|i| i.name.clone()));
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(
            Visibility::new(ItemSet::only([Select::tool("lookup")]))
                .caller(
                    "librarian",
                    ItemSet::except([Select::tool("big"), Select::tool("big_json")]),
                )
                .key(by_client),
        )
        .build();
    let connect = |name: &'static str, legacy: bool| {
        let b = Client::builder().info(mcp::types::Implementation::new(name, "1"));
        let b = if legacy {
            b.mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
        } else {
            b
        };
        let pipe = server.serve_in_memory();
        async move { b.connect(pipe).await.unwrap() }
    };
    for legacy in [false, true] {
        let librarian = connect("librarian", legacy).await;
        let reader = connect("reader", legacy).await;
        let names = |c: Client| async move {
            let mut v: Vec<String> = c
                .list_tools(None)
                .await
                .unwrap()
                .tools
                .into_iter()
                .map(|t| t.name)
                .collect();
            v.sort();
            (c, v)
        };
        let (librarian, seen) = names(librarian).await;
        assert_eq!(seen, ["delete", "lookup", "nap"]);
        let (reader, seen) = names(reader).await;
        assert_eq!(seen, ["lookup"]);

        assert_eq!(
            text(
                &librarian
                    .call_tool("delete", json!({"id": 1}))
                    .await
                    .unwrap()
            ),
            "deleted 1"
        );
        let e = rpc(reader.call_tool("delete", json!({"id": 1})).await);
        assert_eq!(
            (e.code, e.message.as_str()),
            (-32602, "Unknown tool: delete")
        );
        let e = rpc(librarian.call_tool("big", json!({"n": 1})).await);
        assert_eq!(e.message, "Unknown tool: big");
        assert_eq!(
            text(&reader.call_tool("lookup", json!({"id": 5})).await.unwrap()),
            "book 5"
        );
    }
}

#[tokio::test]
async fn a_callers_own_list_is_never_cached_as_public() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .cache_hint_for("tools/list", mcp::caching::CacheHint::public(60_000))
        .middleware(Visibility::new(ItemSet::only([Select::tool("lookup")])))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    let list = client.list_tools(None).await.unwrap();
    assert_eq!(list.tools.len(), 1);
    assert_eq!(list.ttl_ms, Some(60_000));
    assert_eq!(list.cache_scope, Some(mcp::types::CacheScope::Private));

    // The same list for everyone (the read-only guard) keeps the server's hint.
    let server = Server::builder("library", "1")
        .handler(Library)
        .cache_hint_for("tools/list", mcp::caching::CacheHint::public(60_000))
        .middleware(ReadOnly::new(Library.tools()))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    let list = client.list_tools(None).await.unwrap();
    assert_eq!(list.cache_scope, Some(mcp::types::CacheScope::Public));
}

/// Stands in for an authenticating transport: the client's declared name becomes the
/// request's principal.
struct NameAsPrincipal;

impl Middleware for NameAsPrincipal {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if let Some(name) = ctx.client_info().map(|i| i.name.clone()) {
            ctx.extensions_mut().insert(mcp::Principal::new(name));
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn by_default_the_principal_is_the_caller_across_sessions() {
    let server = Server::builder("library", "1")
        .handler(Library)
        .middleware(NameAsPrincipal)
        .middleware(RateLimit::new(Limit::per_minute(2)))
        .build();
    let connect = |name: &'static str| {
        let pipe = server.serve_in_memory();
        async move {
            Client::builder()
                .info(mcp::types::Implementation::new(name, "1"))
                .mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
                .connect(pipe)
                .await
                .unwrap()
        }
    };
    // Two sessions of one principal share its buckets; another principal has its own.
    let (alice_1, alice_2, carol) = (
        connect("alice").await,
        connect("alice").await,
        connect("carol").await,
    );
    alice_1.call_tool("lookup", json!({"id": 1})).await.unwrap();
    alice_2.call_tool("lookup", json!({"id": 2})).await.unwrap();
    retry_after_ms(&rpc(alice_1.call_tool("lookup", json!({"id": 3})).await));
    retry_after_ms(&rpc(alice_2.call_tool("lookup", json!({"id": 3})).await));
    assert_eq!(
        text(&carol.call_tool("lookup", json!({"id": 4})).await.unwrap()),
        "book 4"
    );
}

mod support;

/// `n` times "ab", run as a task.
#[mcp::tool(task = "required")]
async fn big_task(n: usize) -> String {
    "ab".repeat(n)
}

/// `n` bytes of structured data, run as a task.
#[mcp::tool(task = "required")]
async fn big_json_task(n: usize) -> Json<Blob> {
    Json(Blob {
        data: "x".repeat(n),
    })
}

#[mcp::server(name = "jobs", tools(big_task, big_json_task))]
struct Jobs;

/// A connection to the jobs server under a 2 000-byte response limit.
fn jobs() -> support::Wire {
    let server = Server::builder("jobs", "1")
        .handler(Jobs)
        .middleware(ResponseLimit::new(2_000).marker(" [cut]"))
        .build();
    support::Wire::new(server.serve_in_memory())
}

#[tokio::test]
async fn a_legacy_tasks_result_is_held_to_the_limit() {
    let mut w = jobs();
    w.initialize("2025-11-25").await;
    for (id, name) in [(1, "big_task"), (3, "big_json_task")] {
        let params = json!({"name": name, "arguments": {"n": 10_000}, "task": {}});
        let r = w.request(json!(id), "tools/call", params).await;
        let task = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
        let res = w
            .request(json!(id + 1), "tasks/result", json!({"taskId": task}))
            .await;
        if name == "big_task" {
            let t = res["result"]["content"][0]["text"].as_str().unwrap();
            assert!(t.ends_with(" [cut]") && t.len() < 2_000, "{res}");
            // The task's own `_meta` stays.
            assert!(res["result"]["_meta"].is_object(), "{res}");
        } else {
            assert_eq!(support::code(&res), -32603, "{res}");
            assert_eq!(res["error"]["message"], "Response too large");
        }
    }
}

#[tokio::test]
async fn a_2026_task_result_inlined_by_tasks_get_is_held_to_the_limit() {
    let mut w = jobs();
    let ext = |mut params: serde_json::Value| {
        let mut meta = support::envelope();
        meta["io.modelcontextprotocol/clientCapabilities"] =
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        params["_meta"] = meta;
        params
    };
    let mut finished = Vec::new();
    for (id, name) in [(1, "big_task"), (2, "big_json_task")] {
        let params = ext(json!({"name": name, "arguments": {"n": 10_000}}));
        let r = w.request(json!(id), "tools/call", params).await;
        let task = r["result"]["taskId"].as_str().unwrap().to_owned();
        let mut last = json!(null);
        for poll in 0..100 {
            let g = w
                .request(
                    json!(format!("{id}-{poll}")),
                    "tasks/get",
                    ext(json!({"taskId": task})),
                )
                .await;
            last = g["result"].clone();
            if last["status"] != "working" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        finished.push(last);
    }
    let [text, structured] = &finished[..] else {
        unreachable!()
    };
    assert_eq!(text["status"], "completed", "{text}");
    let t = text["result"]["content"][0]["text"].as_str().unwrap();
    assert!(t.ends_with(" [cut]") && t.len() < 2_000, "{text}");
    // Refused: the task failed with the refusal, not the poll.
    assert_eq!(structured["status"], "failed", "{structured}");
    assert!(structured.get("result").is_none(), "{structured}");
    assert_eq!(structured["error"]["code"], -32603, "{structured}");
    assert_eq!(structured["error"]["message"], "Response too large");
}
