//! Client-side validation of `structuredContent` against the `outputSchema` of the last
//! `tools/list` (feature `schema-validation`), against our own server over the in-memory
//! pipe: a matching result passes, a mismatching or missing one fails naming the tool and
//! the failing paths, an error result and a tool never listed are not checked, on 2026 and
//! on a legacy revision.

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use serde_json::{Value, json};

use ProtocolVersion as V;

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "temperature_c": {"type": "number"}},
        "required": ["city", "temperature_c"]
    })
}

fn server() -> Server {
    let tool = |name: &str| {
        Tool::new(name)
            .with_input_schema(json!({"type": "object"}))
            .with_output_schema(weather_schema())
    };
    Server::builder("output-test", "1.0.0")
        .tool(tool("good"), |_ctx, _: Value| async {
            Ok(CallToolResult::structured(
                json!({"city": "Oslo", "temperature_c": 3.5}),
            ))
        })
        .tool(tool("bad"), |_ctx, _: Value| async {
            Ok(CallToolResult::structured(
                json!({"city": 7, "temperature_c": "cold"}),
            ))
        })
        .tool(tool("bare"), |_ctx, _: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text(
                "no structure",
            )]))
        })
        .tool(tool("broken"), |_ctx, _: Value| async {
            Ok(CallToolResult::error("it broke"))
        })
        .without_tracing()
        .build()
}

#[derive(serde::Deserialize, Debug)]
struct Weather {
    #[allow(dead_code)]
    city: String,
}

async fn checks(mode: ConnectMode) {
    let s = server();
    let c = Client::builder()
        .mode(mode)
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    // Not listed yet: nothing to check against.
    c.call_tool("bad", json!({})).await.unwrap();
    c.list_all_tools().await.unwrap();
    c.call_tool("good", json!({})).await.unwrap();
    let w: Weather = c.call_tool_structured("good", json!({})).await.unwrap();
    assert_eq!(w.city, "Oslo");
    let e = c.call_tool("bad", json!({})).await.unwrap_err();
    let ClientError::StructuredContent { tool, problems } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(tool, "bad");
    assert!(
        problems.iter().any(|p| p.starts_with("/city: ")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("/temperature_c: ")),
        "{problems:?}"
    );
    assert!(e.to_string().contains("tool bad"), "{e}");
    assert!(matches!(
        c.call_tool_structured::<Weather>("bad", json!({})).await,
        Err(ClientError::StructuredContent { .. })
    ));
    let e = c.call_tool("bare", json!({})).await.unwrap_err();
    assert!(e.to_string().contains("no structuredContent"), "{e}");
    // A tool error is the tool's answer, not checked.
    let r = c.call_tool("broken", json!({})).await.unwrap();
    assert_eq!(r.is_error, Some(true));
}

#[tokio::test]
async fn output_schema_checked_on_2026() {
    checks(ConnectMode::Modern(V::V2026_07_28)).await;
}

#[tokio::test]
async fn output_schema_checked_on_2025_06_18() {
    checks(ConnectMode::Legacy(V::V2025_06_18)).await;
}
