//! Fixtures of the core scenarios (initialize, tools, errors, headers, progress, logging).

use std::time::Duration;

use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp_core::types::{
    GetPromptResult, LoggingLevel, Prompt, PromptMessage, ReadResourceResult, Resource,
    ResourceContents,
};
use serde_json::json;

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct HeaderArgs {
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    verbose: Option<bool>,
}

fn empty_schema() -> serde_json::Value {
    json!({"type": "object", "properties": {}})
}

fn text(s: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

/// The core scenarios' fixtures: simple text, errors, capabilities, headers, progress,
/// logging, a prompt and a static resource.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::new("test_simple_text")
                .with_description("Returns a simple text response")
                .with_input_schema(empty_schema()),
            |_ctx, _: NoArgs| async { Ok(text("This is a simple text response for testing.")) },
        )
        .tool(
            Tool::new("test_error_handling")
                .with_description("Always fails with an isError result")
                .with_input_schema(empty_schema()),
            |_ctx, _: NoArgs| async {
                Ok(CallToolResult::error(
                    "This tool intentionally returns an error for testing",
                ))
            },
        )
        .tool(
            Tool::new("test_missing_capability")
                .with_description("Needs the client's sampling capability")
                .with_input_schema(empty_schema()),
            |ctx: Context, _: NoArgs| async move {
                if ctx.client_capabilities().sampling.is_none() {
                    let mut caps = serde_json::Map::new();
                    caps.insert("sampling".into(), json!({}));
                    return Err(mcp::codec::missing_required_client_capability(caps).into());
                }
                Ok(text("The client declared sampling."))
            },
        )
        .tool(
            Tool::new("test_custom_headers")
                .with_description("Arguments mirrored into Mcp-Param-* headers")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "priority": {"type": "integer", "x-mcp-header": "Priority"},
                        "verbose": {"type": "boolean", "x-mcp-header": "Verbose"}
                    },
                    "required": ["region"]
                })),
            |_ctx, a: HeaderArgs| async move {
                Ok(text(&format!("region={}", a.region.unwrap_or_default())))
            },
        )
        .tool(
            Tool::new("test_tool_with_progress")
                .with_description("Reports progress, then answers")
                .with_input_schema(empty_schema()),
            |ctx: Context, _: NoArgs| async move {
                for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    let _ = ctx
                        .progress(p, Some(100.0), Some(&format!("step {}", i + 1)))
                        .await;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok(text("Progress complete"))
            },
        )
        .tool(
            Tool::new("test_tool_with_logging")
                .with_description("Sends log messages, then answers")
                .with_input_schema(empty_schema()),
            |ctx: Context, _: NoArgs| async move {
                for m in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ] {
                    let _ = ctx.log(LoggingLevel::Info, None, json!(m)).await;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Ok(text("Logging complete"))
            },
        )
        .tool(
            Tool::new("test_logging_tool")
                .with_description("Logs (only when the request opted in with a log level)")
                .with_input_schema(empty_schema()),
            |ctx: Context, _: NoArgs| async move {
                let _ = ctx
                    .log(LoggingLevel::Info, None, json!("test_logging_tool ran"))
                    .await;
                Ok(text("Logged"))
            },
        )
        .tool(
            Tool::new("test_streaming_elicitation")
                .with_description("Streams related notifications, never a server request")
                .with_input_schema(empty_schema()),
            |ctx: Context, _: NoArgs| async move {
                let _ = ctx.progress(1.0, Some(2.0), Some("working")).await;
                let _ = ctx.progress(2.0, Some(2.0), Some("done")).await;
                Ok(text("Streaming complete"))
            },
        )
        .registry(|r| {
            r.add_prompt(
                Prompt {
                    description: Some("A simple prompt without arguments".into()),
                    ..Prompt::new("test_simple_prompt")
                },
                |_ctx, _args| async {
                    Ok(GetPromptResult {
                        messages: vec![PromptMessage::user("This is a simple prompt for testing.")],
                        ..Default::default()
                    })
                },
            );
            r.add_resource(
                Resource {
                    description: Some("A static text resource".into()),
                    mime_type: Some("text/plain".into()),
                    ..Resource::new("test://static-text", "static-text")
                },
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![
                            ResourceContents::text(
                                uri,
                                "This is the content of the static text resource.",
                            )
                            .with_mime_type("text/plain"),
                        ],
                        ..Default::default()
                    })
                },
            );
        })
}
