//! `#[mcp::tool]` / `#[mcp::server]`: the exact `tools/list` entry of a tool using every
//! option, per revision and validated against that revision's schema; calls, result
//! shapes and argument errors over an in-memory connection; the impl-block form.

#[path = "../../mcp-core/tests/common/mod.rs"]
mod macros_schema;
mod support;

use mcp::prelude::*;
use mcp::types::to_value_for;
use serde_json::{Value, json};
use support::{Wire, modern};

/// How results are sorted.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Sort {
    /// Best match first.
    Relevance,
    /// Newest first.
    Date,
}

/// A book in the catalogue.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Book {
    /// The title.
    title: String,
    /// Publication year.
    year: u16,
}

/// Search the catalogue by title or author.
///
/// Matches whole words.
#[mcp::tool(
    name = "search.books-v2",
    title = "Search books",
    read_only,
    destructive = false,
    idempotent,
    open_world = false,
    icons("https://example.com/books.png", "data:image/svg+xml;base64,PHN2Zy8+"),
    meta("com.example/tier" = "gold", "com.example/weight" = 3)
)]
async fn search_books(
    /// Words to look for in titles and authors.
    query: String,
    /// How many results at most.
    #[arg(default = 10)]
    limit: u32,
    #[arg(rename = "sortBy", description = "The order of the results.")] sort_by: Option<Sort>,
    ctx: &Context,
) -> Result<Json<Vec<Book>>, ToolError> {
    let _ = (ctx.method(), sort_by);
    if query.is_empty() {
        return Err(ToolError::new("the query is empty"));
    }
    Ok(Json(
        (0..limit.min(2))
            .map(|i| Book {
                title: format!("{query} {i}"),
                year: 1965 + i as u16,
            })
            .collect(),
    ))
}

/// Adds two numbers.
#[mcp::tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The current stock of a title.
#[mcp::tool(icons = stock_icons())]
async fn stock(title: String, _ctx: Context) -> Json<Stock> {
    Json(Stock { title, copies: 3 })
}

fn stock_icons() -> Vec<mcp::types::Icon> {
    vec![mcp::types::Icon {
        src: "https://example.com/stock.svg".into(),
        mime_type: Some("image/svg+xml".into()),
        sizes: Some(vec!["any".into()]),
        ..Default::default()
    }]
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stock {
    title: String,
    copies: u32,
}

#[mcp::server(name = "shop", version = "9.9.9", tools(search_books, add, stock))]
struct Shop;

/// A server written as an impl block; `instructions` is sent only because it is asked for.
struct Counter {
    hits: std::sync::atomic::AtomicU64,
}

/// Counts calls (a doc comment for Rust readers: never sent to the model).
#[mcp::server(name = "counter", instructions = "Counts calls.", tools(add))]
impl Counter {
    /// Adds `by` to the counter and returns the new value.
    #[tool(idempotent = false)]
    async fn bump(
        &self,
        /** How much to add. */
        #[arg(default = 1)]
        by: u64,
    ) -> String {
        let old = self.hits.fetch_add(by, std::sync::atomic::Ordering::SeqCst);
        format!("{}", old + by)
    }

    /// Not a tool: an ordinary method stays as it is.
    fn current(&self) -> u64 {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }
}

fn entry(rev: &str) -> Value {
    let tool = <search_books as mcp::ToolDef<Shop>>::info().tool.clone();
    to_value_for(&tool, rev.parse().unwrap())
}

fn expected_entry(rev: &str) -> Value {
    let mut v = json!({
        "name": "search.books-v2",
        "title": "Search books",
        "description": "Search the catalogue by title or author.\n\nMatches whole words.",
        "annotations": {
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        },
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Words to look for in titles and authors."},
                "limit": {
                    "type": "integer", "minimum": 0, "default": 10,
                    "description": "How many results at most."
                },
                "sortBy": {
                    "description": "The order of the results.",
                    "oneOf": [
                        {"type": "string", "const": "relevance", "description": "Best match first."},
                        {"type": "string", "const": "date", "description": "Newest first."}
                    ]
                }
            },
            "required": ["query"]
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "result": {
                    "type": "array",
                    "items": {
                        "description": "A book in the catalogue.",
                        "type": "object",
                        "properties": {
                            "title": {"type": "string", "description": "The title."},
                            "year": {
                                "type": "integer", "minimum": 0, "maximum": 65535,
                                "description": "Publication year."
                            }
                        },
                        "required": ["title", "year"]
                    }
                }
            },
            "required": ["result"]
        },
        "_meta": {"com.example/tier": "gold", "com.example/weight": 3}
    });
    if rev >= "2025-11-25" {
        v["icons"] = json!([
            {"src": "https://example.com/books.png"},
            {"src": "data:image/svg+xml;base64,PHN2Zy8+"}
        ]);
    }
    v
}

fn check_entry(rev: &str) {
    let got = entry(rev);
    assert_eq!(
        got,
        expected_entry(rev),
        "{rev}: {}",
        serde_json::to_string_pretty(&got).unwrap()
    );
    if let Some(spec) = macros_schema::spec() {
        spec.check(rev.parse().unwrap(), "Tool", &got);
    }
}

#[test]
fn every_option_2025_06_18() {
    check_entry("2025-06-18");
}

#[test]
fn every_option_2025_11_25() {
    check_entry("2025-11-25");
}

#[test]
fn every_option_2026_07_28() {
    check_entry("2026-07-28");
}

#[test]
fn older_revisions_drop_what_they_predate() {
    let v = entry("2025-03-26");
    assert!(
        v.get("title").is_none() && v.get("outputSchema").is_none(),
        "{v}"
    );
    assert_eq!(v["annotations"]["readOnlyHint"], true);
    if let Some(spec) = macros_schema::spec() {
        spec.check("2025-03-26".parse().unwrap(), "Tool", &v);
    }
}

#[test]
fn object_outputs_are_not_wrapped_and_plain_tools_have_no_output_schema() {
    let stock = &<stock as mcp::ToolDef<Shop>>::info().tool;
    assert_eq!(
        Value::Object(stock.output_schema.clone().unwrap()),
        json!({"type": "object", "properties": {"title": {"type": "string"},
               "copies": {"type": "integer", "minimum": 0}},
               "required": ["title", "copies"]})
    );
    assert_eq!(
        Value::Object(stock.input_schema.clone()),
        json!({"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]})
    );
    assert_eq!(
        to_value_for(stock, "2025-11-25".parse().unwrap())["icons"],
        json!([{"src": "https://example.com/stock.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}])
    );
    let add = &<add as mcp::ToolDef<Shop>>::info().tool;
    assert!(add.output_schema.is_none());
    assert_eq!(add.description.as_deref(), Some("Adds two numbers."));
}

async fn connect<S: mcp::ServerHandler>(
    server: mcp::Server<impl mcp::middleware::Chain, S>,
) -> Wire {
    let mut wire = Wire::new(server.serve_in_memory());
    wire.initialize("2025-11-25").await;
    wire
}

async fn call(wire: &mut Wire, id: i64, name: &str, args: Value) -> Value {
    let r = wire
        .request(
            json!(id),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
        .await;
    assert!(r.get("result").is_some(), "{r}");
    r["result"].clone()
}

#[tokio::test]
async fn calls_shape_results() {
    let mut wire = connect(Shop.into_server()).await;
    let list = wire.request(json!(1), "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["search.books-v2", "add", "stock"]);

    let r = call(&mut wire, 2, "add", json!({"a": 2, "b": 40})).await;
    assert_eq!(r, json!({"content": [{"type": "text", "text": "42"}]}));

    let r = call(&mut wire, 3, "search.books-v2", json!({"query": "dune"})).await;
    let books = json!([{"title": "dune 0", "year": 1965}, {"title": "dune 1", "year": 1966}]);
    assert_eq!(r["structuredContent"], json!({"result": books}));
    assert_eq!(
        serde_json::from_str::<Value>(r["content"][0]["text"].as_str().unwrap()).unwrap(),
        json!({"result": books}),
        "the text block mirrors the structured content"
    );
    assert!(r.get("isError").is_none());

    let r = call(&mut wire, 4, "search.books-v2", json!({"query": ""})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "the query is empty");

    let r = call(&mut wire, 5, "stock", json!({"title": "Dune"})).await;
    assert_eq!(
        r["structuredContent"],
        json!({"title": "Dune", "copies": 3})
    );

    // Bad arguments: isError naming the field and the expected type.
    let r = call(&mut wire, 6, "add", json!({"a": 1, "b": "x"})).await;
    assert_eq!(r["isError"], true);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert_eq!(text, r#"argument "b": expected an integer, got a string"#);
    let r = call(
        &mut wire,
        7,
        "search.books-v2",
        json!({"query": "q", "sortBy": "alpha"}),
    )
    .await;
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(r["isError"] == true && text.contains("sortBy"), "{text}");
    let r = call(&mut wire, 8, "add", json!({"a": 1})).await;
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains(r#""b""#),
        "{r}"
    );

    // Unknown tool: a protocol error.
    let r = wire
        .request(
            json!(9),
            "tools/call",
            json!({"name": "nope", "arguments": {}}),
        )
        .await;
    assert_eq!(support::code(&r), -32602);
}

#[tokio::test]
async fn modern_revision_keeps_the_same_shape() {
    let mut wire = Wire::new(Shop.into_server().serve_in_memory());
    let r = wire
        .request(
            json!(1),
            "tools/call",
            modern(json!({"name": "search.books-v2", "arguments": {"query": "x", "limit": 1}})),
        )
        .await;
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"result": [{"title": "x 0", "year": 1965}]}),
        "{r}"
    );
    if let Some(spec) = macros_schema::spec() {
        spec.check(
            "2026-07-28".parse().unwrap(),
            "CallToolResult",
            &r["result"],
        );
    }
}

#[tokio::test]
async fn impl_block_server() {
    let counter = Counter {
        hits: Default::default(),
    };
    assert_eq!(counter.current(), 0);
    let mut wire = Wire::new(counter.into_server().serve_in_memory());
    let init = wire.initialize("2025-06-18").await;
    assert_eq!(init["instructions"], "Counts calls.");
    assert_eq!(
        init["serverInfo"],
        json!({"name": "counter", "version": env!("CARGO_PKG_VERSION")})
    );
    let list = wire.request(json!(1), "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(
        tools[0],
        json!({
            "name": "bump",
            "description": "Adds `by` to the counter and returns the new value.",
            "annotations": {"idempotentHint": false},
            "inputSchema": {"type": "object", "properties": {"by": {
                "type": "integer", "minimum": 0, "default": 1,
                "description": "How much to add."}}}
        })
    );
    assert_eq!(tools[1]["name"], "add");
    let r = call(&mut wire, 2, "bump", json!({})).await;
    assert_eq!(r["content"][0]["text"], "1");
    let r = call(&mut wire, 3, "bump", json!({"by": 5})).await;
    assert_eq!(r["content"][0]["text"], "6");
    let r = call(&mut wire, 4, "add", json!({"a": 1, "b": 2})).await;
    assert_eq!(r["content"][0]["text"], "3");
}

/// Fails in the two ways a tool can: as the tool (shown to the model) or internally.
#[mcp::tool]
async fn fragile(internal: bool) -> Result<String, McpError> {
    if internal {
        Err(McpError::internal("db password is hunter2"))
    } else {
        Err(ErrorObject::invalid_params("shelf must be a number").into())
    }
}

/// A tool's own failure, for contrast.
#[mcp::tool]
async fn picky() -> Result<String, ToolError> {
    Err(ToolError::new("no such shelf"))
}

#[mcp::server(name = "errors", tools(fragile, picky))]
struct Errors;

#[tokio::test]
async fn mcp_errors_from_tools_stay_protocol_or_internal_errors() {
    let mut wire = connect(Errors.into_server()).await;
    let r = wire
        .request(
            json!(1),
            "tools/call",
            json!({"name": "fragile", "arguments": {"internal": true}}),
        )
        .await;
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{r}"
    );
    let r = wire
        .request(
            json!(2),
            "tools/call",
            json!({"name": "fragile", "arguments": {"internal": false}}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = call(&mut wire, 3, "picky", json!({})).await;
    assert_eq!(r["isError"], true);
    assert_eq!(r["content"][0]["text"], "no such shelf");
}

/// Looks up stock in one region.
#[mcp::tool]
async fn regional(
    /// The region to look in.
    #[arg(header = "Region")]
    region: String,
    #[arg(header = "Max-Count", default = 5)] limit: u32,
    #[arg(header = "Dry_Run")] dry_run: Option<bool>,
    note: Option<String>,
) -> String {
    format!("{region} {limit} {dry_run:?} {note:?}")
}

#[test]
fn header_annotations() {
    let tool = &<regional as mcp::ToolDef<Shop>>::info().tool;
    for rev in ["2025-11-25", "2026-07-28"] {
        let v = to_value_for(tool, rev.parse().unwrap());
        assert_eq!(
            v["inputSchema"],
            json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "description": "The region to look in.",
                               "x-mcp-header": "Region"},
                    "limit": {"type": "integer", "minimum": 0, "default": 5,
                              "x-mcp-header": "Max-Count"},
                    "dry_run": {"type": "boolean", "x-mcp-header": "Dry_Run"},
                    "note": {"type": "string"}
                },
                "required": ["region"]
            }),
            "{rev}: {v}"
        );
        if let Some(spec) = macros_schema::spec() {
            spec.check(rev.parse().unwrap(), "Tool", &v);
        }
    }
    let params = mcp::headers::header_params(&tool.input_schema).expect("valid annotations");
    let mut names: Vec<&str> = params.iter().map(|p| p.header.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Mcp-Param-Dry_Run",
            "Mcp-Param-Max-Count",
            "Mcp-Param-Region"
        ]
    );
}

/// A node of a tree (recursive: its schema keeps a definition).
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Files a tree at a position.
#[mcp::tool]
async fn file_tree(tree: Node, at: (u32, u32)) -> String {
    format!("{} ({} children) at {at:?}", tree.name, tree.children.len())
}

#[mcp::server(name = "trees", tools(file_tree))]
struct Trees;

async fn listed(rev: &str) -> Value {
    let mut wire = Wire::new(Trees.into_server().serve_in_memory());
    let r = if rev == "2026-07-28" {
        wire.request(json!(1), "tools/list", modern(json!({})))
            .await
    } else {
        wire.initialize(rev).await;
        wire.request(json!(1), "tools/list", json!({})).await
    };
    if let Some(spec) = macros_schema::spec() {
        spec.check(rev.parse().unwrap(), "ListToolsResult", &r["result"]);
    }
    r["result"]["tools"][0].clone()
}

/// The exact `file_tree` entry for `rev`: JSON Schema 2020-12 from 2025-11-25 on, the
/// draft-07 form before (`definitions`, the array form of `items`).
fn expected_tree_entry(rev: &str) -> Value {
    let (defs, pointer) = if rev >= "2025-11-25" {
        ("$defs", "#/$defs/Node")
    } else {
        ("definitions", "#/definitions/Node")
    };
    let description = "A node of a tree (recursive: its schema keeps a definition).";
    let node = |items: Value| {
        json!({
            "description": description,
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": items}},
            "required": ["name", "children"]
        })
    };
    let reference = json!({"$ref": pointer});
    let u32_schema = json!({"type": "integer", "minimum": 0});
    let mut at = json!({"type": "array", "minItems": 2, "maxItems": 2});
    let pair = json!([u32_schema, u32_schema]);
    if rev >= "2025-11-25" {
        at["prefixItems"] = pair;
    } else {
        at["items"] = pair;
    }
    let mut schema = json!({
        "type": "object",
        "properties": {"tree": node(node(reference.clone())), "at": at},
        "required": ["tree", "at"]
    });
    schema[defs] = json!({"Node": node(reference)});
    json!({"name": "file_tree", "description": "Files a tree at a position.", "inputSchema": schema})
}

#[tokio::test]
async fn schema_forms_per_revision() {
    for (rev, draft) in [
        ("2025-06-18", jsonschema::Draft::Draft7),
        ("2026-07-28", jsonschema::Draft::Draft202012),
    ] {
        let t = listed(rev).await;
        assert_eq!(
            t,
            expected_tree_entry(rev),
            "{rev}: {}",
            serde_json::to_string_pretty(&t).unwrap()
        );
        // Read as that revision's draft, the schema means what the Rust type means.
        let v = jsonschema::options()
            .with_draft(draft)
            .build(&t["inputSchema"])
            .unwrap();
        let leaf = json!({"name": "b", "children": []});
        assert!(v.is_valid(&json!({"tree": {"name": "a", "children": [leaf]}, "at": [1, 2]})));
        assert!(!v.is_valid(&json!({"tree": leaf, "at": [1, "x"]})), "{rev}");
        let deep =
            json!({"name": "a", "children": [{"name": "b", "children": [{"children": []}]}]});
        assert!(!v.is_valid(&json!({"tree": deep, "at": [1, 2]})), "{rev}");
    }
}

#[tokio::test]
async fn list_pages_are_encoded_once_and_stay_equal() {
    // The cached page for a revision is the same bytes on every request, and each revision
    // keeps its own form.
    let server = Trees.into_server();
    let mut old = Wire::new(server.serve_in_memory());
    old.initialize("2025-06-18").await;
    let mut new = Wire::new(server.serve_in_memory());
    new.initialize("2025-11-25").await;
    let a = old.request(json!(1), "tools/list", json!({})).await;
    let b = new.request(json!(1), "tools/list", json!({})).await;
    let c = old.request(json!(2), "tools/list", json!({})).await;
    assert_eq!(a["result"], c["result"]);
    assert_ne!(a["result"], b["result"]);
    assert!(
        b["result"]["tools"][0]["inputSchema"]
            .get("$defs")
            .is_some()
    );
}

/// A handler whose tool list switches between two versions; `list_generation` says which
/// one is current unless `honest` is off (then the change goes unannounced).
struct Switching {
    lists: [Vec<mcp::types::Tool>; 2],
    current: std::sync::atomic::AtomicUsize,
    honest: bool,
}

impl mcp::ServerHandler for Switching {
    fn tools(&self) -> &[mcp::types::Tool] {
        &self.lists[self.current.load(std::sync::atomic::Ordering::SeqCst)]
    }
    fn list_generation(&self) -> u64 {
        if self.honest {
            self.current.load(std::sync::atomic::Ordering::SeqCst) as u64
        } else {
            0
        }
    }
}

async fn switching(honest: bool) -> Vec<Vec<String>> {
    let handler = std::sync::Arc::new(Switching {
        lists: [
            vec![mcp::types::Tool::new("a"), mcp::types::Tool::new("b")],
            vec![mcp::types::Tool::new("c")],
        ],
        current: Default::default(),
        honest,
    });
    struct Shared(std::sync::Arc<Switching>);
    impl mcp::ServerHandler for Shared {
        fn tools(&self) -> &[mcp::types::Tool] {
            self.0.tools()
        }
        fn list_generation(&self) -> u64 {
            self.0.list_generation()
        }
    }
    let server = mcp::Server::builder("switching", "1.0.0")
        .handler(Shared(handler.clone()))
        .page_size(1)
        .build();
    let mut wire = Wire::new(server.serve_in_memory());
    wire.initialize("2025-11-25").await;
    let names = |r: &Value| -> Vec<String> {
        r["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut seen = Vec::new();
    let first = wire.request(json!(1), "tools/list", json!({})).await;
    seen.push(names(&first));
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    let second = wire
        .request(json!(2), "tools/list", json!({"cursor": cursor}))
        .await;
    seen.push(names(&second));
    handler
        .current
        .store(1, std::sync::atomic::Ordering::SeqCst);
    let third = wire.request(json!(3), "tools/list", json!({})).await;
    seen.push(names(&third));
    seen
}

#[tokio::test]
async fn list_cache_follows_the_generation() {
    // Pages come from the current list once its generation changes ...
    assert_eq!(switching(true).await, [vec!["a"], vec!["b"], vec!["c"]]);
    // ... and from the encoded cache while it does not (the proof that they are cached).
    assert_eq!(switching(false).await, [vec!["a"], vec!["b"], vec!["a"]]);
}

/// Inside `#[mcp::server] impl`, attributes are ours by path: `#[rust_analyzer::tool]` (a tool
/// attribute rustc accepts and ignores) leaves its method alone, `#[mcp::tool]` and `#[tool]`
/// make tools.
struct Paths;

#[mcp::server]
impl Paths {
    #[tool]
    async fn short(&self) -> String {
        String::new()
    }

    #[mcp::tool]
    async fn long(&self) -> String {
        String::new()
    }

    // Not `async`: as a tool it would not compile.
    #[rust_analyzer::tool]
    fn not_a_tool(&self) -> String {
        String::new()
    }
}

#[test]
fn foreign_attributes_are_left_alone() {
    let paths = Paths;
    let names: Vec<&str> = mcp::ServerHandler::tools(&paths)
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["short", "long"]);
    let _ = paths.not_a_tool();
}
