//! `#[mcp::resource]`: the exact `resources/list` and `resources/templates/list` entries per
//! revision (validated against each revision's schema), reads of concrete URIs and
//! templates, and errors, over an in-memory connection; the impl form.

#[path = "../../mcp-core/tests/common/mod.rs"]
mod macros_schema;
mod support;

use mcp::prelude::*;
use serde_json::{Value, json};
use support::{Wire, modern};

/// The whole catalogue.
#[mcp::resource("books://catalog", mime_type = "text/plain", title = "Catalogue")]
async fn catalog() -> String {
    "Dune\nEmma".into()
}

/// One book by its number.
#[mcp::resource("books://{id}", mime_type = "application/json")]
async fn book(id: u32, _ctx: &Context) -> Result<String, McpError> {
    if id == 0 {
        return Err(McpError::internal("no zero"));
    }
    Ok(format!("{{\"id\":{id}}}"))
}

/// A book's cover.
#[mcp::resource("books://{shelf}/{id}/cover.png", name = "cover")]
async fn cover_image(shelf: String, id: String) -> Vec<u8> {
    format!("{shelf}:{id}").into_bytes()
}

#[mcp::resource("notes://{name}")]
async fn note(name: String) -> ReadResourceResult {
    ReadResourceResult {
        contents: if name == "empty" {
            Vec::new()
        } else {
            vec![mcp::types::ResourceContents::text(
                format!("notes://{name}"),
                name,
            )]
        },
        ..Default::default()
    }
}

/// A shelf slot: `None` when nothing is on it (a not-found).
#[mcp::resource("slots://{n}")]
async fn slot(n: u32) -> Option<String> {
    (n < 3).then(|| format!("slot {n}"))
}

/// An author by name: the function's own not-found error.
#[mcp::resource("authors://{name}")]
async fn author(name: String) -> Result<String, McpError> {
    match name.as_str() {
        "herbert" => Ok("Frank Herbert".into()),
        _ => Err(McpError::resource_not_found(&format!("authors://{name}"))),
    }
}

#[mcp::server(
    name = "library",
    resources(catalog, book, cover_image, note, slot, author)
)]
struct Library;

struct Desk {
    label: String,
}

/// Resources as methods.
#[mcp::server(name = "desk", resources(catalog))]
impl Desk {
    /// The desk's label.
    #[resource("desk://label")]
    async fn label(&self) -> String {
        self.label.clone()
    }

    #[resource("desk://drawer/{n}")]
    async fn drawer(&self, n: u8) -> String {
        format!("drawer {n} of {}", self.label)
    }
}

async fn lists(rev: &str) -> (Value, Value) {
    let mut wire = Wire::new(Library.into_server().serve_in_memory());
    let (r, t) = if rev == "2026-07-28" {
        (
            wire.request(json!(1), "resources/list", modern(json!({})))
                .await,
            wire.request(json!(2), "resources/templates/list", modern(json!({})))
                .await,
        )
    } else {
        wire.initialize(rev).await;
        (
            wire.request(json!(1), "resources/list", json!({})).await,
            wire.request(json!(2), "resources/templates/list", json!({}))
                .await,
        )
    };
    if let Some(spec) = macros_schema::spec() {
        let v = rev.parse().unwrap();
        spec.check(v, "ListResourcesResult", &r["result"]);
        spec.check(v, "ListResourceTemplatesResult", &t["result"]);
        for x in r["result"]["resources"].as_array().unwrap() {
            spec.check(v, "Resource", x);
        }
        for x in t["result"]["resourceTemplates"].as_array().unwrap() {
            spec.check(v, "ResourceTemplate", x);
        }
    }
    (
        r["result"]["resources"].clone(),
        t["result"]["resourceTemplates"].clone(),
    )
}

async fn check_lists(rev: &str) {
    let (resources, templates) = lists(rev).await;
    assert_eq!(
        resources,
        json!([{
            "uri": "books://catalog", "name": "catalog", "title": "Catalogue",
            "description": "The whole catalogue.", "mimeType": "text/plain"
        }]),
        "{rev}"
    );
    assert_eq!(
        templates,
        json!([
            {"uriTemplate": "books://{id}", "name": "book", "description": "One book by its number.",
             "mimeType": "application/json"},
            {"uriTemplate": "books://{shelf}/{id}/cover.png", "name": "cover",
             "description": "A book's cover."},
            {"uriTemplate": "notes://{name}", "name": "note"},
            {"uriTemplate": "slots://{n}", "name": "slot",
             "description": "A shelf slot: `None` when nothing is on it (a not-found)."},
            {"uriTemplate": "authors://{name}", "name": "author",
             "description": "An author by name: the function's own not-found error."}
        ]),
        "{rev}"
    );
}

#[tokio::test]
async fn lists_2025_06_18() {
    check_lists("2025-06-18").await;
}

#[tokio::test]
async fn lists_2025_11_25() {
    check_lists("2025-11-25").await;
}

#[tokio::test]
async fn lists_2026_07_28() {
    check_lists("2026-07-28").await;
}

async fn read(wire: &mut Wire, id: i64, uri: &str) -> Value {
    wire.request(json!(id), "resources/read", json!({"uri": uri}))
        .await
}

#[tokio::test]
async fn reads_and_errors() {
    let mut wire = Wire::new(Library.into_server().serve_in_memory());
    let init = wire.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("resources").is_some(), "{init}");
    let r = read(&mut wire, 1, "books://catalog").await;
    assert_eq!(
        r["result"],
        json!({"contents": [{"uri": "books://catalog", "mimeType": "text/plain", "text": "Dune\nEmma"}]})
    );
    if let Some(spec) = macros_schema::spec() {
        spec.check(
            "2025-11-25".parse().unwrap(),
            "ReadResourceResult",
            &r["result"],
        );
    }
    // Concrete URIs first: `books://catalog` is not read as `books://{id}`.
    let r = read(&mut wire, 2, "books://7").await;
    assert_eq!(
        r["result"],
        json!({"contents": [{"uri": "books://7", "mimeType": "application/json", "text": "{\"id\":7}"}]})
    );
    let r = read(&mut wire, 3, "books://a%20b/x%2Fy/cover.png").await;
    assert_eq!(
        r["result"],
        json!({"contents": [{"uri": "books://a%20b/x%2Fy/cover.png", "blob": "YSBiOngveQ=="}]})
    );
    // A variable that does not parse: -32602 naming it.
    let r = read(&mut wire, 4, "books://seven").await;
    assert_eq!(
        r["error"],
        json!({"code": -32602, "message": "invalid value for `id` in the URI"}),
        "{r}"
    );
    // The function's McpError: internal stays internal.
    let r = read(&mut wire, 5, "books://0").await;
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "Internal error"})
    );
    // Not found: -32002 on legacy revisions.
    let r = read(&mut wire, 6, "films://1").await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    assert_eq!(r["error"]["data"], json!({"uri": "films://1"}));
    let r = read(&mut wire, 7, "books://1/2").await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    // A full result is sent as it is; empty contents are a not-found.
    let r = read(&mut wire, 8, "notes://todo").await;
    assert_eq!(r["result"]["contents"][0]["text"], "todo");
    let r = read(&mut wire, 9, "notes://empty").await;
    assert_eq!(r["error"]["code"], -32002, "{r}");
    // `Option`: `Some` is contents, `None` a not-found; so is `McpError::resource_not_found`.
    let r = read(&mut wire, 10, "slots://1").await;
    assert_eq!(r["result"]["contents"][0]["text"], "slot 1", "{r}");
    for (id, uri) in [(11, "slots://7"), (12, "authors://austen")] {
        let r = read(&mut wire, id, uri).await;
        assert_eq!(
            r["error"],
            json!({"code": -32002, "message": "Resource not found", "data": {"uri": uri}}),
            "{r}"
        );
    }
    let r = read(&mut wire, 13, "authors://herbert").await;
    assert_eq!(r["result"]["contents"][0]["text"], "Frank Herbert", "{r}");
}

#[tokio::test]
async fn modern_read_and_not_found() {
    let mut wire = Wire::new(Library.into_server().serve_in_memory());
    let r = wire
        .request(
            json!(1),
            "resources/read",
            modern(json!({"uri": "books://3"})),
        )
        .await;
    assert_eq!(r["result"]["contents"][0]["text"], "{\"id\":3}", "{r}");
    if let Some(spec) = macros_schema::spec() {
        spec.check(
            "2026-07-28".parse().unwrap(),
            "ReadResourceResult",
            &r["result"],
        );
    }
    let r = wire
        .request(
            json!(2),
            "resources/read",
            modern(json!({"uri": "films://1"})),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // A handler's not-found (`None` or the constructor) is -32602 on 2026-07-28 too.
    for (id, uri) in [(3, "slots://9"), (4, "authors://austen")] {
        let r = wire
            .request(json!(id), "resources/read", modern(json!({"uri": uri})))
            .await;
        assert_eq!(r["error"]["code"], -32602, "{r}");
        assert_eq!(r["error"]["data"]["uri"], uri, "{r}");
    }
}

#[tokio::test]
async fn impl_form() {
    let desk = Desk {
        label: "oak".into(),
    };
    let mut wire = Wire::new(desk.into_server().serve_in_memory());
    let init = wire.initialize("2025-06-18").await;
    // The doc comment is for Rust readers: without `instructions = ...` nothing is sent.
    assert!(init.get("instructions").is_none(), "{init}");
    let r = wire.request(json!(1), "resources/list", json!({})).await;
    let names: Vec<&str> = r["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["label", "catalog"]);
    let r = read(&mut wire, 2, "desk://label").await;
    assert_eq!(r["result"]["contents"][0]["text"], "oak");
    let r = read(&mut wire, 3, "desk://drawer/2").await;
    assert_eq!(r["result"]["contents"][0]["text"], "drawer 2 of oak");
    let r = read(&mut wire, 4, "books://catalog").await;
    assert_eq!(r["result"]["contents"][0]["text"], "Dune\nEmma");
}

/// Injected parameters (`State<T>`, `CancellationToken`, `Progress`), as tools take them.
mod injected {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use mcp::Provides;
    use mcp::prelude::*;
    use serde_json::json;

    use super::support::Wire;

    struct Stock(Vec<&'static str>);

    #[mcp::server(name = "injected-resources", resources(title, count, watch))]
    struct Store {
        name: &'static str,
        stock: Stock,
    }

    impl Provides<Stock> for Store {
        fn provide(&self) -> &Stock {
            &self.stock
        }
    }

    /// A book of the stock, by position.
    #[mcp::resource("stock://{n}")]
    async fn title(n: usize, stock: State<Stock>) -> String {
        stock.0.get(n).copied().unwrap_or("none").to_owned()
    }

    /// How many books there are, counted in two steps.
    #[mcp::resource("stock://count")]
    async fn count(progress: &Progress, store: State<'_, Store>) -> String {
        progress.report(1.0, Some(2.0), None).await.unwrap();
        progress.report(2.0, Some(2.0), None).await.unwrap();
        format!("{} at {}", store.stock.0.len(), store.name)
    }

    static SAW_CANCEL: AtomicBool = AtomicBool::new(false);

    /// Waits for the request's cancellation.
    #[mcp::resource("stock://watch")]
    async fn watch(token: CancellationToken) -> String {
        tokio::select! {
            _ = token.cancelled() => SAW_CANCEL.store(true, Ordering::SeqCst),
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        "finished".into()
    }

    fn wire() -> Wire {
        let store = Store {
            name: "Corner Books",
            stock: Stock(vec!["Dune", "Emma"]),
        };
        Wire::new(store.into_server().serve_in_memory())
    }

    #[tokio::test]
    async fn state_is_borrowed_from_the_server() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        let r = wire
            .request(json!(1), "resources/read", json!({"uri": "stock://1"}))
            .await;
        assert_eq!(
            r["result"]["contents"],
            json!([{"uri": "stock://1", "text": "Emma"}]),
            "{r}"
        );
    }

    #[tokio::test]
    async fn progress_reaches_the_client() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        wire.send(
            &json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                          "params": {"uri": "stock://count", "_meta": {"progressToken": "c"}}}),
        )
        .await;
        let (result, before) = wire.response(json!(2)).await;
        let progress: Vec<_> = before.iter().map(|n| &n["params"]["progress"]).collect();
        assert_eq!(progress, [1.0, 2.0], "{before:?}");
        assert_eq!(
            result["result"]["contents"][0]["text"], "2 at Corner Books",
            "{result}"
        );
    }

    #[tokio::test]
    async fn the_cancellation_token_is_the_requests() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        wire.send(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                          "params": {"uri": "stock://watch"}}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        wire.notify("notifications/cancelled", json!({"requestId": 3}))
            .await;
        wire.expect_silence(300).await;
        assert!(SAW_CANCEL.load(Ordering::SeqCst));
    }
}
