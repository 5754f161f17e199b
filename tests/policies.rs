//! The policies of `mcp::policies`, each tripped through the public API: what a client sees
//! when a tool times out, is hidden by the read-only guard, or answers too much.

#![cfg(feature = "client")]

use std::time::Duration;

use mcp::Client;
use mcp::policies::{ReadOnly, ResponseLimit, ToolTimeout};
use mcp::prelude::*;
use mcp::runtime::client::ClientError;
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
fn rpc(
    r: Result<mcp::core::types::CallToolResult, ClientError>,
) -> mcp::core::jsonrpc::ErrorObject {
    match r {
        Err(e) => e
            .as_rpc()
            .cloned()
            .unwrap_or_else(|| panic!("not a JSON-RPC error: {e}")),
        Ok(r) => panic!("expected an error, got {r:?}"),
    }
}

fn text(r: &mcp::core::types::CallToolResult) -> &str {
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
                .mode(mcp::runtime::client::ConnectMode::Legacy(
                    ProtocolVersion::V2025_11_25,
                ))
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
        .layers((
            ReadOnly::new(Library.tools()),
            ResponseLimit::new(500),
            ToolTimeout::new(Duration::from_secs(30)),
        ))
        .build();
    let client = Client::connect(server.serve_in_memory()).await.unwrap();
    assert_eq!(
        rpc(client.call_tool("delete", json!({"id": 1})).await).code,
        -32602
    );
    assert!(text(&client.call_tool("big", json!({"n": 1000})).await.unwrap()).len() < 500);
}
