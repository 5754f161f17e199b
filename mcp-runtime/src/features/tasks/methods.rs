//! The task methods the dispatcher delegates to: whether a `tools/call` runs as a task, the
//! 2025-11-25 `tasks/get` / `tasks/result` / `tasks/list` / `tasks/cancel`, and the 2026
//! extension's `tasks/get` / `tasks/update` / `tasks/cancel`.

use std::sync::Arc;

use mcp_core::codec::TASKS_EXTENSION;
use mcp_core::jsonrpc::{ErrorObject, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY};
use mcp_core::types::{
    Adapt, CancelTaskResult, CreateTaskResult, EmptyResult, ExtCreateTaskResult, ExtGetTaskResult,
    GetTaskPayloadResult, GetTaskResult, ListTasksResult, Meta, RelatedTaskMetadata,
    ServerCapabilities, ServerTaskRequests, ServerTasksCapability, TaskMetadata, TaskStatus,
    TaskSupport, TaskToolsRequests, Tool,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::engine::{TaskEngine, detailed, owner_of, unknown_task};
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::context::Context;
use crate::features::host::Host;
use crate::session::task_store::{TaskOutcome, TaskStoreError};

/// Adds what a server running tasks advertises: the 2025-11-25 `tasks` capability
/// (`list`, `cancel`, `requests.tools.call`) and the 2026 extension. Shaping keeps each on
/// the revisions that define it.
pub(crate) fn advertise(caps: &mut ServerCapabilities) {
    caps.tasks.get_or_insert_with(|| ServerTasksCapability {
        list: Some(Meta::new()),
        cancel: Some(Meta::new()),
        requests: Some(ServerTaskRequests {
            tools: Some(TaskToolsRequests {
                call: Some(Meta::new()),
            }),
        }),
    });
    caps.extensions
        .get_or_insert_with(Default::default)
        .entry(TASKS_EXTENSION.to_owned())
        .or_insert_with(|| serde_json::json!({}));
}

/// Whether any of `tools` may run as a task.
pub(crate) fn any_task_tool(tools: &[Tool]) -> bool {
    tools
        .iter()
        .any(|t| support_of(t) != TaskSupport::Forbidden)
}

fn support_of(tool: &Tool) -> TaskSupport {
    tool.task_support()
}

/// Decides how a `tools/call` runs: `Ok(None)` directly, `Ok(Some(ttl))` as a task with the
/// requested retention (ms). Errors as the spec says:
///
/// - 2025-11-25: a task-augmented call to a tool without task support, or a plain call to
///   a tool that requires a task, is `-32601`;
/// - 2026 (extension): the server decides; a client that did not declare the extension
///   gets direct execution, or `-32021` for a tool that requires a task. A legacy `task`
///   param is ignored.
///
/// `task` is the raw `task` member of the params (the dispatcher reads it with the name).
pub(crate) fn plan_tool_call(
    tools: &[Tool],
    name: &str,
    ctx: &Context,
    task: Option<&RawValue>,
) -> Result<Option<Option<u64>>, McpError> {
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        return Ok(None);
    };
    let support = support_of(tool);
    match ctx.era {
        Era::Legacy => {
            if ctx.version != Some(ProtocolVersion::V2025_11_25) {
                return Ok(None);
            }
            let requested = task.and_then(|t| serde_json::from_str::<TaskMetadata>(t.get()).ok());
            match (requested, support) {
                (Some(_), TaskSupport::Forbidden) => Err(McpError::Protocol(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    format!("Tool {name} does not support task-augmented execution"),
                ))),
                (None, TaskSupport::Required) => Err(McpError::Protocol(ErrorObject::new(
                    METHOD_NOT_FOUND,
                    format!("Tool {name} requires task-augmented execution"),
                ))),
                (Some(t), _) => Ok(Some(t.ttl)),
                (None, _) => Ok(None),
            }
        }
        // A tool that never runs as a task needs no look at the client's capabilities
        // (decoding them is the dearest part of this check).
        Era::Modern if support == TaskSupport::Forbidden => Ok(None),
        Era::Modern => {
            let declared = ctx.client_capabilities().has_extension(TASKS_EXTENSION);
            match (declared, support) {
                (_, TaskSupport::Forbidden) => Ok(None),
                (true, _) => Ok(Some(None)),
                (false, TaskSupport::Required) => Err(missing_extension(&format!(
                    "Tool {name} runs only as a task: declare the {TASKS_EXTENSION} extension"
                ))),
                (false, TaskSupport::Optional) => Ok(None),
            }
        }
    }
}

/// `-32021` naming the tasks extension in `data.requiredCapabilities`.
fn missing_extension(message: &str) -> McpError {
    McpError::Protocol(
        ErrorObject::new(MISSING_REQUIRED_CLIENT_CAPABILITY, message).with_data(
            serde_json::json!({
                "requiredCapabilities": { "extensions": { TASKS_EXTENSION: {} } }
            }),
        ),
    )
}

/// Starts tool `name` as a task (run by `run`) and answers with the created task
/// (`CreateTaskResult`, or the extension's flat `resultType: "task"` result on 2026, after
/// any input rounds: `compose.rs`).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn call_as_task<D: Host>(
    d: &D,
    engine: &Arc<TaskEngine>,
    ctx: &Context,
    name: String,
    args: Option<Box<RawValue>>,
    run: super::compose::ToolRun,
    ttl: Option<u64>,
    version: Option<ProtocolVersion>,
) -> HandlerResult {
    if ctx.era == Era::Modern {
        // 2026: input rounds inline first, then the task.
        return super::compose::call(d, engine, ctx, name, args, run, version).await;
    }
    let task = engine
        .start(&d.handler_ctx(ctx), ttl, move |tctx| run(tctx, args))
        .await?;
    match ctx.era {
        Era::Legacy => d.shape(CreateTaskResult { meta: None, task }, version),
        Era::Modern => d.shape(ExtCreateTaskResult::new(task.into()), version),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskIdParam {
    task_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateParam {
    task_id: String,
    input_responses: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct CursorParam {
    #[serde(default)]
    cursor: Option<String>,
}

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, McpError> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|_| McpError::invalid_params("Invalid params"))
}

/// The 2025-11-25 task methods (the dispatcher checked membership, the offer and the init
/// gate).
pub(crate) async fn legacy_method<D: Host>(
    d: &D,
    ctx: &Context,
    version: Option<ProtocolVersion>,
) -> HandlerResult {
    let Some(engine) = d.tasks() else {
        return Err(ErrorObject::method_not_found(ctx.method()).into());
    };
    let owner = owner_of(ctx);
    let owner = owner.as_deref();
    let params = ctx.params();
    match ctx.method() {
        "tasks/get" => {
            let p: TaskIdParam = parse(params)?;
            let r = engine.visible(&p.task_id, owner).await?;
            d.shape(
                GetTaskResult {
                    meta: None,
                    task: r.task,
                },
                version,
            )
        }
        "tasks/result" => {
            let p: TaskIdParam = parse(params)?;
            let r = engine.wait_terminal(&p.task_id, owner).await?;
            match r.outcome {
                Some(TaskOutcome::Completed(mut result)) => {
                    result.adapt(version.unwrap_or(ProtocolVersion::V2025_11_25));
                    let mut payload = GetTaskPayloadResult::from_result(&result)
                        .ok_or_else(|| McpError::internal("a tool result is not an object"))?;
                    RelatedTaskMetadata { task_id: p.task_id }
                        .insert_into(payload.meta.get_or_insert_with(Meta::new));
                    Reply::json(&payload)
                }
                Some(TaskOutcome::Failed(e)) => Err(McpError::Protocol(e)),
                None => Err(McpError::Protocol(
                    ErrorObject::invalid_params(format!(
                        "Task {} was {} and has no result",
                        p.task_id, r.task.status
                    ))
                    .with_data(serde_json::json!({ "taskId": p.task_id })),
                )),
            }
        }
        "tasks/list" => {
            let p: CursorParam = parse(params)?;
            let page = engine
                .store
                .list(owner, p.cursor.as_deref(), engine.options.page_size)
                .await
                .map_err(|e| match e {
                    TaskStoreError::InvalidCursor => McpError::invalid_params("Invalid cursor"),
                    other => McpError::internal(format!("task store: {other}")),
                })?;
            d.shape(
                ListTasksResult {
                    meta: None,
                    tasks: page.tasks,
                    next_cursor: page.next_cursor,
                },
                version,
            )
        }
        "tasks/cancel" => {
            let p: TaskIdParam = parse(params)?;
            engine.visible(&p.task_id, owner).await?;
            match engine.cancel(&p.task_id).await {
                Ok(r) => d.shape(
                    CancelTaskResult {
                        meta: None,
                        task: r.task,
                    },
                    version,
                ),
                Err(TaskStoreError::Terminal(s)) => Err(terminal(&p.task_id, s)),
                Err(TaskStoreError::NotFound) => Err(unknown_task(&p.task_id)),
                Err(e) => Err(McpError::internal(format!("task store: {e}"))),
            }
        }
        other => Err(ErrorObject::method_not_found(other).into()),
    }
}

fn terminal(task_id: &str, status: TaskStatus) -> McpError {
    McpError::Protocol(
        ErrorObject::invalid_params(format!(
            "Task {task_id} is already {status} and cannot be cancelled"
        ))
        .with_data(serde_json::json!({ "taskId": task_id, "status": status })),
    )
}

/// The tasks extension's methods on 2026 (`tasks/get`, `tasks/update`, `tasks/cancel`):
/// `-32601` when the server runs no tasks, `-32021` when the request did not declare the
/// extension.
pub(crate) async fn modern_method<D: Host>(
    d: &D,
    ctx: &Context,
    version: Option<ProtocolVersion>,
) -> HandlerResult {
    let Some(engine) = d.tasks() else {
        return Err(ErrorObject::method_not_found(ctx.method()).into());
    };
    if !ctx.client_capabilities().has_extension(TASKS_EXTENSION) {
        return Err(missing_extension(&format!(
            "{} needs the {TASKS_EXTENSION} extension: declare it in clientCapabilities",
            ctx.method()
        )));
    }
    let owner = owner_of(ctx);
    let owner = owner.as_deref();
    let params = ctx.params();
    match ctx.method() {
        "tasks/get" => {
            let p: TaskIdParam = parse(params)?;
            let r = engine.visible(&p.task_id, owner).await?;
            d.shape(ExtGetTaskResult::new(detailed(&r)), version)
        }
        "tasks/update" => {
            let p: UpdateParam = parse(params)?;
            engine.visible(&p.task_id, owner).await?;
            engine.answer(&p.task_id, p.input_responses).await?;
            d.shape(EmptyResult::default(), version)
        }
        "tasks/cancel" => {
            let p: TaskIdParam = parse(params)?;
            engine.visible(&p.task_id, owner).await?;
            // Idempotent: cancelling a finished task is acknowledged the same way.
            match engine.cancel(&p.task_id).await {
                Ok(_) | Err(TaskStoreError::Terminal(_)) => {
                    d.shape(EmptyResult::default(), version)
                }
                Err(TaskStoreError::NotFound) => Err(unknown_task(&p.task_id)),
                Err(e) => Err(McpError::internal(format!("task store: {e}"))),
            }
        }
        other => Err(ErrorObject::method_not_found(other).into()),
    }
}
