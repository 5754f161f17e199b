//! Fixtures of the tasks extension scenarios (`tasks-*`): a sync tool, task-supporting tools
//! that sleep, fail, panic or park for input, one that requires a task, and one that asks
//! for input in MRTR rounds before it becomes a task (`tasks-mrtr-composition`).

use std::time::Duration;

use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp_core::types::{InputRequest, InputRequests, InputResponse, TaskSupport};
use serde_json::json;

#[derive(serde::Deserialize)]
struct GreetArgs {
    #[serde(default)]
    name: Option<String>,
}

#[derive(serde::Deserialize)]
struct ComputeArgs {
    #[serde(default)]
    seconds: f64,
    #[serde(default)]
    label: Option<String>,
}

#[derive(serde::Deserialize)]
struct DeleteArgs {
    #[serde(default)]
    filename: Option<String>,
}

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct UserName {
    name: String,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

/// An `elicitation/create` input request asking for the boolean (or string) `field`.
fn ask(message: &str, field: &str, kind: &str) -> InputRequest {
    serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field]
            }
        }
    }))
    .expect("a valid elicitation request")
}

/// Describes an elicitation answer for the result text.
fn describe(r: Option<&InputResponse>) -> String {
    match r {
        Some(InputResponse::Elicit(e)) => serde_json::to_string(e).unwrap_or_default(),
        _ => "no answer".into(),
    }
}

/// The tasks fixtures.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::new("greet")
                .with_description("Greets someone (synchronous)")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"name": {"type": "string"}}
                })),
            |_ctx, a: GreetArgs| async move {
                Ok(text(format!(
                    "Hello, {}!",
                    a.name.as_deref().unwrap_or("World")
                )))
            },
        )
        .tool(
            Tool::new("slow_compute")
                .with_description("Sleeps `seconds`, then answers (runs as a task)")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {
                        "seconds": {"type": "number", "minimum": 0},
                        "label": {"type": "string"}
                    }
                }))
                .with_task_support(TaskSupport::Optional),
            |_ctx, a: ComputeArgs| async move {
                let secs = a.seconds.clamp(0.0, 3600.0);
                tokio::time::sleep(Duration::from_secs_f64(secs)).await;
                Ok(text(format!(
                    "Computed {} after {secs}s",
                    a.label.as_deref().unwrap_or("result")
                )))
            },
        )
        .tool(
            Tool::new("failing_job")
                .with_description("Fails with a tool error after about a second (task only)")
                .with_task_support(TaskSupport::Required),
            |_ctx, _a: NoArgs| async move {
                tokio::time::sleep(Duration::from_millis(800)).await;
                Ok(CallToolResult::error("The job failed: disk quota exceeded"))
            },
        )
        .tool(
            Tool::new("protocol_error_job")
                .with_description("Panics: the task ends failed")
                .with_task_support(TaskSupport::Optional),
            |_ctx, _a: NoArgs| async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if std::hint::black_box(true) {
                    panic!("protocol_error_job always panics");
                }
                Ok(text("unreachable"))
            },
        )
        .tool(
            Tool::new("confirm_delete")
                .with_description("Asks for confirmation before deleting `filename`")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"filename": {"type": "string"}}
                }))
                .with_task_support(TaskSupport::Optional),
            |ctx, a: DeleteArgs| async move {
                let file = a.filename.unwrap_or_else(|| "file".into());
                let Some(task) = ctx.task() else {
                    return Ok(CallToolResult::error(
                        "confirm_delete asks for input only as a task",
                    ));
                };
                let mut reqs = InputRequests::new();
                reqs.insert(
                    "confirm".into(),
                    ask(&format!("Delete {file}?"), "confirm", "boolean"),
                );
                let answers = task.input(reqs).await?;
                Ok(text(format!(
                    "Deletion of {file}: {}",
                    describe(answers.get("confirm"))
                )))
            },
        )
        .tool(
            Tool::new("multi_input")
                .with_description("Asks two questions at once")
                .with_task_support(TaskSupport::Optional),
            |ctx, _a: NoArgs| async move {
                let Some(task) = ctx.task() else {
                    return Ok(CallToolResult::error(
                        "multi_input asks for input only as a task",
                    ));
                };
                let mut reqs = InputRequests::new();
                reqs.insert("name".into(), ask("Your name?", "name", "string"));
                reqs.insert("confirm".into(), ask("Proceed?", "confirm", "boolean"));
                let answers = task.input(reqs).await?;
                Ok(text(format!(
                    "name: {}; confirm: {}",
                    describe(answers.get("name")),
                    describe(answers.get("confirm"))
                )))
            },
        )
        .tool(
            Tool::new("test_tool_with_task")
                .with_description(
                    "Asks for the user's name in an input round, then greets as a task",
                )
                .with_task_support(TaskSupport::Required),
            |ctx, _a: NoArgs| async move {
                let name = ctx
                    .elicit::<UserName>("What is your name?")
                    .key("user_name")
                    .await?;
                let name = match name.accepted() {
                    Some(n) => n.name,
                    None => "stranger".into(),
                };
                // The slow part, past the input: this is where the call becomes a task.
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(text(format!("Hello, {name}!")))
            },
        )
}
