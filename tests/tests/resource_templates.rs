//! Builder servers with several resource templates: each URI goes to the reader of the
//! first template it matches, in registration order (the `#[mcp::server]` form does the
//! same; `macros_resources.rs` reads three templates there).

mod support;

use mcp::prelude::*;
use mcp::types::{ResourceContents, ResourceTemplate};
use serde_json::{Value, json};
use support::Wire;

fn text(uri: String, s: String) -> ReadResourceResult {
    ReadResourceResult {
        contents: vec![ResourceContents::text(uri, s)],
        ..Default::default()
    }
}

fn server() -> Server {
    Server::builder("templates", "1.0.0")
        .registry(|r| {
            r.add_template(
                ResourceTemplate::new("books://{id}", "book"),
                |_ctx, uri| async move { Ok(text(uri, "book reader".into())) },
            );
            r.add_template(
                ResourceTemplate::new("authors://{name}", "author"),
                |_ctx, uri| async move { Ok(text(uri, "author reader".into())) },
            );
            // Overlaps `books://{id}` for one-segment URIs: registered later, so it only
            // gets what the first does not match.
            r.add_template(
                ResourceTemplate::new("books://{shelf}/{id}", "shelved"),
                |_ctx, uri| async move { Ok(text(uri, "shelf reader".into())) },
            );
        })
        .build()
}

async fn read(wire: &mut Wire, id: i64, uri: &str) -> Value {
    wire.request(json!(id), "resources/read", json!({"uri": uri}))
        .await
}

#[tokio::test]
async fn each_template_has_its_own_reader() {
    let mut wire = Wire::new(server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let r = wire
        .request(json!(1), "resources/templates/list", json!({}))
        .await;
    let listed: Vec<&str> = r["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        ["books://{id}", "authors://{name}", "books://{shelf}/{id}"]
    );
    for (id, uri, reader) in [
        (2, "books://7", "book reader"),
        (3, "authors://herbert", "author reader"),
        (4, "books://scifi/7", "shelf reader"),
    ] {
        let r = read(&mut wire, id, uri).await;
        assert_eq!(
            r["result"],
            json!({"contents": [{"uri": uri, "text": reader}]}),
            "{uri}: {r}"
        );
    }
    // A URI no template matches is not found, without calling any reader.
    let r = read(&mut wire, 5, "films://1").await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(r["error"]["data"], json!({"uri": "films://1"}));
}

#[tokio::test]
async fn same_template_again_replaces_its_reader() {
    let server = Server::builder("templates", "1.0.0")
        .registry(|r| {
            for reader in ["old", "new"] {
                r.add_template(
                    ResourceTemplate::new("books://{id}", "book"),
                    move |_ctx, uri| async move { Ok(text(uri, reader.into())) },
                );
            }
        })
        .build();
    let mut wire = Wire::new(server.serve_in_memory());
    wire.initialize("2025-11-25").await;
    let r = wire
        .request(json!(1), "resources/templates/list", json!({}))
        .await;
    assert_eq!(
        r["result"]["resourceTemplates"],
        json!([{"uriTemplate": "books://{id}", "name": "book"}])
    );
    let r = read(&mut wire, 2, "books://1").await;
    assert_eq!(r["result"]["contents"][0]["text"], "new", "{r}");
}
