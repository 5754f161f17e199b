//! Fixture of `server-sse-polling` (2025-11-25, SEP-1699): `test_reconnection` closes its
//! POST stream's connection mid-call (after the priming event) and answers a moment
//! later; the client resumes with `GET` + `Last-Event-ID` and gets the answer there.

use std::time::Duration;

use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp::transport::http::SseStreamControl;
use serde_json::json;

#[derive(serde::Deserialize)]
struct NoArgs {}

pub fn install(builder: ServerBuilder) -> ServerBuilder {
    builder.tool(
        Tool::new("test_reconnection")
            .with_description("Closes the SSE stream mid-call; the answer comes on resumption")
            .with_input_schema(json!({"type": "object", "properties": {}})),
        |ctx: Context, _: NoArgs| async move {
            // Only 2025-11-25 sessions with resumability have the control; elsewhere
            // the tool simply answers.
            if let Some(control) = ctx.extensions().get::<SseStreamControl>().cloned() {
                control.close_connection().await;
                // Long enough that the answer is not on the closed connection.
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Ok(CallToolResult::success(vec![ContentBlock::text(
                "Reconnection test completed successfully",
            )]))
        },
    )
}
