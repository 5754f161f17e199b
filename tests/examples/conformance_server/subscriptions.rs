//! Fixtures of the change-notification scenarios: `resources-subscribe`,
//! `resources-unsubscribe` (legacy), the listen-stream checks of `server-stateless` (its
//! `test_trigger_tool_change` / `test_trigger_prompt_change` hooks mutate the lists while
//! serving) and `caching` (hints configured per server and per resource).

use mcp::ServerBuilder;
use mcp::ServerHandle;
use mcp::caching::CacheHint;
use mcp::prelude::*;
use mcp_core::types::{
    GetPromptResult, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContents,
};
use serde_json::json;

const WATCHED: &str = "test://watched-resource";

#[derive(serde::Deserialize)]
struct NoArgs {}

fn text(s: &str) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn handle(ctx: &Context) -> Result<ServerHandle, McpError> {
    ctx.server()
        .cloned()
        .ok_or_else(|| McpError::invalid_params("no server handle in this context"))
}

fn toggle_tool(h: &ServerHandle) -> Result<bool, McpError> {
    let internal = |e: mcp::HandleError| McpError::Internal(Box::new(e));
    if h.remove_tool("test_dynamic_tool").map_err(internal)? {
        return Ok(false);
    }
    h.add_tool(
        Tool::new("test_dynamic_tool")
            .with_description("Added at run time by test_trigger_tool_change")
            .with_input_schema(json!({"type": "object", "properties": {}})),
        |_ctx, _: NoArgs| async { Ok(text("dynamic")) },
    )
    .map_err(internal)?;
    Ok(true)
}

fn toggle_prompt(h: &ServerHandle) -> Result<bool, McpError> {
    let internal = |e: mcp::HandleError| McpError::Internal(Box::new(e));
    if h.remove_prompt("test_dynamic_prompt").map_err(internal)? {
        return Ok(false);
    }
    h.add_prompt(
        Prompt {
            description: Some("Added at run time by test_trigger_prompt_change".into()),
            ..Prompt::new("test_dynamic_prompt")
        },
        |_ctx, _args| async {
            Ok(GetPromptResult {
                messages: vec![PromptMessage::user("dynamic")],
                ..Default::default()
            })
        },
    )
    .map_err(internal)?;
    Ok(true)
}

/// Subscriptions on, the watched resource, the list-mutation hooks and caching hints.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    builder
        .subscriptions(true)
        .cache_hint(CacheHint::private(0))
        .resource_cache_hint(WATCHED, CacheHint::public(60_000))
        .tool(
            Tool::new("test_trigger_tool_change")
                .with_description("Adds or removes test_dynamic_tool (tools/list_changed)")
                .with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let added = toggle_tool(&handle(&ctx)?)?;
                Ok(text(if added { "tool added" } else { "tool removed" }))
            },
        )
        .tool(
            Tool::new("test_trigger_prompt_change")
                .with_description("Adds or removes test_dynamic_prompt (prompts/list_changed)")
                .with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let added = toggle_prompt(&handle(&ctx)?)?;
                Ok(text(if added {
                    "prompt added"
                } else {
                    "prompt removed"
                }))
            },
        )
        .tool(
            Tool::new("test_trigger_resource_update")
                .with_description("Announces that test://watched-resource changed")
                .with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                handle(&ctx)?.resource_updated(WATCHED);
                Ok(text("updated"))
            },
        )
        .registry(|r| {
            r.add_resource(
                Resource {
                    description: Some("A resource clients subscribe to".into()),
                    mime_type: Some("text/plain".into()),
                    ..Resource::new(WATCHED, "watched-resource")
                },
                |_ctx, uri| async move {
                    Ok(ReadResourceResult {
                        contents: vec![
                            ResourceContents::text(uri, "Watched content.")
                                .with_mime_type("text/plain"),
                        ],
                        ..Default::default()
                    })
                },
            );
        })
}
