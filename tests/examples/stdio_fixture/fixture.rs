//! The server of `stdio_fixture`, also built in process by `tests/tests/admission.rs`, so the
//! same server answers over stdio, the in-memory pipe and HTTP.

use std::time::Duration;

use mcp::ServerOptions;
use mcp::prelude::*;
use mcp::version::SupportedVersions;
use serde_json::json;

#[derive(serde::Deserialize)]
struct SearchArgs {
    query: String,
}

#[derive(serde::Deserialize)]
struct SlowArgs {
    ms: u64,
    #[serde(default)]
    tag: Option<String>,
}

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct StepsArgs {
    steps: u32,
}

fn object_schema(props: serde_json::Value, required: &[&str]) -> serde_json::Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// The fixture server, serving `versions`.
pub fn fixture(options: ServerOptions, versions: SupportedVersions) -> Server {
    Server::builder("stdio-fixture", "0.0.1")
        .options(options)
        .supported_versions(versions)
        .tool(
            Tool::new("search_books").with_input_schema(object_schema(
                json!({"query": {"type": "string"}}),
                &["query"],
            )),
            |_ctx, args: SearchArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Found 3 books matching '{}'.",
                    args.query
                ))]))
            },
        )
        .tool(
            Tool::new("slow").with_input_schema(object_schema(
                json!({"ms": {"type": "integer"}, "tag": {"type": "string"}}),
                &["ms"],
            )),
            |_ctx, args: SlowArgs| async move {
                tokio::time::sleep(Duration::from_millis(args.ms)).await;
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "slept {} ms {}",
                    args.ms,
                    args.tag.unwrap_or_default()
                ))]))
            },
        )
        .tool(
            Tool::new("boom").with_input_schema(object_schema(json!({}), &[])),
            |_ctx, _args: NoArgs| async move {
                if std::hint::black_box(true) {
                    panic!("fixture secret panic text 7f3a");
                }
                Ok(CallToolResult::success(vec![]))
            },
        )
        .tool(
            Tool::new("progress").with_input_schema(object_schema(
                json!({"steps": {"type": "integer"}}),
                &["steps"],
            )),
            |ctx, args: StepsArgs| async move {
                for i in 1..=args.steps {
                    ctx.progress(f64::from(i), Some(f64::from(args.steps)), Some("working"))
                        .await
                        .map_err(|e| McpError::internal(e.to_string()))?;
                }
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} steps done",
                    args.steps
                ))]))
            },
        )
        .build()
}
