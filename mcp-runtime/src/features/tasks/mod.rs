//! Tasks: tool calls that run in the background and are polled, on both eras.
//!
//! - **2025-11-25** (experimental core tasks): a `tools/call` with `params.task: {ttl}` to a
//!   tool whose `execution.taskSupport` is `optional` or `required` answers at once with a
//!   `CreateTaskResult`; the tool runs in the background. `tasks/get` gives the task,
//!   `tasks/result` blocks until it is terminal and returns the tool's result (with the
//!   related-task `_meta`) or its error, `tasks/list` pages the session's tasks,
//!   `tasks/cancel` cancels. Each change is sent as `notifications/tasks/status`.
//! - **2026 extension** `io.modelcontextprotocol/tasks`: when the request declares the
//!   extension, the server itself runs task-supporting tools as tasks (`resultType:
//!   "task"`); `tasks/get` inlines the result, error or pending `inputRequests`,
//!   `tasks/update` answers input requests, `tasks/cancel` acknowledges with an empty
//!   result. Changes go to the [`TaskNotifier`] (the listen streams).
//!
//! A tool declares support with [`Tool::with_task_support`](mcp_core::types::Tool) /
//! `#[mcp::tool(task = "optional")]`; the builder creates the [`TaskEngine`] when any tool
//! does, over an [`InMemoryTaskStore`] unless [`ServerBuilder::task_store`] gives another
//! [`TaskStore`]. A running tool finds its [`TaskHandle`] with [`Context::task`] and can
//! park the task in `input_required` with [`TaskHandle::input`].
//!
//! ```
//! use mcp_runtime::{McpError, Server};
//! use mcp_core::types::{CallToolResult, ContentBlock, TaskSupport, Tool};
//!
//! let server = Server::builder("jobs", "1.0.0")
//!     .tool(
//!         Tool::new("slow").with_task_support(TaskSupport::Optional),
//!         |_ctx, _args: serde_json::Value| async move {
//!             tokio::time::sleep(std::time::Duration::from_millis(10)).await;
//!             Ok::<_, McpError>(CallToolResult::success(vec![ContentBlock::text("done")]))
//!         },
//!     )
//!     .build();
//! assert!(server.task_engine().is_some());
//! ```
//!
//! [`ServerBuilder::task_store`]: crate::ServerBuilder::task_store
//! [`Context::task`]: crate::Context::task

mod compose;
pub(crate) use compose::ToolRun;
mod engine;
pub(crate) mod methods;
mod related;

pub use crate::session::task_store::{
    DEFAULT_TASK_CAPACITY, InMemoryTaskStore, TaskOutcome, TaskPage, TaskRecord, TaskStore,
    TaskStoreError, TaskUpdate, iso8601,
};
pub use engine::{TaskEngine, TaskEvent, TaskHandle, TaskNotifier, TaskOptions};
