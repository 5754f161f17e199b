//! Protocol extensions in general (SEP-2133): a server declares any extension by id with its
//! settings (builder and `#[mcp::server(extensions(...))]`), nothing unless asked; handlers
//! read what the client declared (legacy `initialize` capabilities, 2026 `_meta`); the
//! client declares extensions too; skills and tasks go through the same map. Results are
//! validated against the official schema of each revision.

mod support;

use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::prelude::*;
use mcp::types::{CallToolResult, ContentBlock, Tool, UI_EXTENSION};
use mcp::version::ProtocolVersion as V;
use serde_json::{Value, json};
use support::{Wire, envelope};

const X: &str = "com.example/search-filters";

/// The official schema of `rev`, when the schema directory is present.
fn schema(rev: &str) -> Option<Value> {
    let dir = std::env::var_os("MCP_SPEC_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/spec")
        });
    let text = std::fs::read_to_string(dir.join(rev).join("schema.json")).ok();
    if text.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and the MCP schemas are missing (set MCP_SPEC_DIR)");
    }
    text.map(|t| serde_json::from_str(&t).unwrap())
}

/// Validates `value` as definition `def` of revision `rev`'s official schema.
#[track_caller]
fn validate(rev: &str, def: &str, value: &Value) {
    let Some(mut doc) = schema(rev) else {
        eprintln!("SKIPPED: no schema for {rev}");
        return;
    };
    let key = if doc.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    doc["$ref"] = json!(format!("#/{key}/{def}"));
    let v = jsonschema::validator_for(&doc).unwrap();
    let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{def} on {rev}: {errors:?}\n{value}");
}

fn echo_server() -> mcp::ServerBuilder {
    Server::builder("ext", "1.0.0")
        .extension(X, json!({"fields": ["author", "year"]}))
        .tool(Tool::new("declared"), |ctx: Context, _: Value| async move {
            let raw = ctx.client_extension(X).cloned().unwrap_or(Value::Null);
            let apps = ctx.client_supports_apps();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{raw} apps={apps}"
            ))]))
        })
}

#[tokio::test]
async fn a_declared_extension_is_advertised_on_every_revision() {
    let s = echo_server().build();
    for rev in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut w = Wire::new(s.serve_in_memory());
        let init = w.initialize(rev).await;
        assert_eq!(
            init["capabilities"]["extensions"][X],
            json!({"fields": ["author", "year"]}),
            "{rev}: {init}"
        );
        validate(rev, "InitializeResult", &init);
    }
    let mut w = Wire::new(s.serve_in_memory());
    let d = w
        .request(json!(1), "server/discover", json!({"_meta": envelope()}))
        .await;
    assert_eq!(
        d["result"]["capabilities"]["extensions"][X]["fields"][1],
        "year"
    );
    validate("2026-07-28", "DiscoverResult", &d["result"]);
}

#[tokio::test]
async fn nothing_is_declared_unless_asked() {
    let s = Server::builder("plain", "1.0.0")
        .tool(Tool::new("t"), |_: Context, _: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("x")]))
        })
        .build();
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("extensions").is_none(), "{init}");
    let d = w
        .request(json!(1), "server/discover", json!({"_meta": envelope()}))
        .await;
    assert!(d["result"]["capabilities"].get("extensions").is_none());
}

#[test]
fn bad_declarations_fail_the_build() {
    let err = |b: mcp::ServerBuilder| b.try_build().err().expect("an error").to_string();
    let b = Server::builder("x", "1");
    assert!(err(b.extension("no-prefix", json!({}))).contains("vendor.prefix/"));
    let b = Server::builder("x", "1");
    assert!(err(b.extension("com.example/", json!({}))).contains("the name"));
    let b = Server::builder("x", "1");
    assert!(err(b.extension("1com.example/x", json!({}))).contains("prefix"));
    let b = Server::builder("x", "1");
    assert!(err(b.extension(X, json!(true))).contains("JSON object"));
    let b = Server::builder("x", "1");
    assert!(err(b.extension(X, json!({})).extension(X, json!({}))).contains("declared twice"));
    let b = Server::builder("x", "1");
    assert!(
        err(b.extension("io.modelcontextprotocol/tasks", json!({})))
            .contains("declared by the framework")
    );
}

#[tokio::test]
async fn handlers_read_legacy_initialize_capabilities() {
    let s = echo_server().build();
    let mut w = Wire::new(s.serve_in_memory());
    let init = w
        .request(
            json!(0),
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"extensions": {
                    X: {"max": 3},
                    UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}
                }},
                "clientInfo": {"name": "host", "version": "1"}
            }),
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    w.notify("notifications/initialized", json!({})).await;
    let r = w
        .request(json!(1), "tools/call", json!({"name": "declared"}))
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"], r#"{"max":3} apps=true"#,
        "{r}"
    );
}

#[tokio::test]
async fn handlers_read_modern_meta_capabilities() {
    let s = echo_server().build();
    let mut w = Wire::new(s.serve_in_memory());
    let mut meta = envelope();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {
        X: {"max": 5},
        // Declared, but without the app MIME type: not an Apps host.
        UI_EXTENSION: {"mimeTypes": ["text/html"]}
    }});
    let r = w
        .request(
            json!(1),
            "tools/call",
            json!({"name": "declared", "_meta": meta}),
        )
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"], r#"{"max":5} apps=false"#,
        "{r}"
    );
    // Without any declaration: nothing.
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "declared", "_meta": envelope()}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "null apps=false");
}

#[tokio::test]
async fn the_client_declares_extensions_on_both_eras() {
    let s = echo_server().build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Legacy(V::V2025_06_18),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = Client::builder()
            .mode(mode)
            .extension(X, json!({"max": 7}))
            .extension(
                UI_EXTENSION,
                json!({"mimeTypes": ["text/html;profile=mcp-app"]}),
            )
            .connect(s.serve_in_memory())
            .await
            .unwrap();
        assert_eq!(
            c.server_capabilities().extension(X),
            Some(&json!({"fields": ["author", "year"]}))
        );
        let r = c.call_tool("declared", json!({})).await.unwrap();
        assert_eq!(
            r.content[0].as_text().unwrap(),
            r#"{"max":7} apps=true"#,
            "{mode:?}"
        );
    }
}

#[tokio::test]
async fn skills_and_tasks_stay_modern_only_beside_a_declared_extension() {
    let s = Server::builder("both", "1.0.0")
        .extension(X, json!({}))
        .tool(
            Tool::new("slow").with_task_support(mcp::types::TaskSupport::Optional),
            |_: Context, _: Value| async {
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .build();
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    let ext = init["capabilities"]["extensions"].as_object().unwrap();
    assert_eq!(ext.keys().collect::<Vec<_>>(), [X], "{init}");
    assert!(init["capabilities"]["tasks"].is_object());
    validate("2025-11-25", "InitializeResult", &init);
    let mut w = Wire::new(s.serve_in_memory());
    let d = w
        .request(json!(1), "server/discover", json!({"_meta": envelope()}))
        .await;
    let ext = d["result"]["capabilities"]["extensions"]
        .as_object()
        .unwrap_or_else(|| panic!("{d}"));
    assert!(ext.contains_key(X) && ext.contains_key("io.modelcontextprotocol/tasks"));
    validate("2026-07-28", "DiscoverResult", &d["result"]);
}
