//! The tasks extension `io.modelcontextprotocol/tasks` (SEP-2663, base revision 2026-07-28).
//!
//! Both sides declare `extensions["io.modelcontextprotocol/tasks"] = {}`
//! ([`TasksExtensionCapability`]); the client per request, the server in `server/discover`.
//! A server may then answer an eligible request (`tools/call`) with an
//! [`ExtCreateTaskResult`] (`resultType: "task"`). The client polls `tasks/get`
//! ([`GetTaskParams`] → [`ExtGetTaskResult`], a [`DetailedTask`]), answers input requests with
//! `tasks/update` ([`UpdateTaskParams`] → [`UpdateTaskResult`]), cancels with `tasks/cancel`
//! ([`CancelTaskParams`] → [`ExtCancelTaskResult`]) and may subscribe to
//! `notifications/tasks` ([`ExtTaskStatusNotificationParams`]) through `subscriptions/listen`
//! with the filter field `taskIds` ([`TaskSubscriptionNotifications`]). Over HTTP, `Mcp-Name`
//! carries `params.taskId` of `tasks/get`, `tasks/update` and `tasks/cancel`.
//!
//! Names that would collide with the 2025-11-25 core tasks of [`crate::types::tasks`] carry
//! an `Ext` prefix (`ExtTask` is the extension's `Task`). [`TaskStatus`], [`GetTaskParams`]
//! and [`CancelTaskParams`] are shared with the core tasks.
//!
//! The extension exists only on 2026-07-28; shaping these types for a legacy revision only
//! removes `resultType`.
//!
//! ```
//! use mcp_core::types::{
//!     to_value_for, CallToolResult, DetailedTask, ExtGetTaskResult, ExtTask, TaskStatus,
//! };
//! use mcp_core::version::ProtocolVersion as V;
//!
//! let mut task = ExtTask::new("t1", "2026-08-01T00:00:00Z");
//! task.transition_to(TaskStatus::Completed, "2026-08-01T00:00:09Z").unwrap();
//! let detailed = DetailedTask::completed(task, CallToolResult::default());
//! let v = to_value_for(&ExtGetTaskResult::new(detailed), V::V2026_07_28);
//! assert_eq!(v["resultType"], "complete");
//! assert_eq!(v["status"], "completed");
//! assert_eq!(v["ttlMs"], serde_json::Value::Null);
//! assert_eq!(v["result"]["resultType"], "complete");
//! ```

use serde::{Deserialize, Serialize};

use super::{
    Adapt, CallToolResult, EmptyResult, InputRequests, InputResponses, Meta, ResultType, Task,
    TaskStatus, TaskTransitionError,
};
use crate::jsonrpc::ErrorObject;
pub use crate::rules::TASKS_EXTENSION;
use crate::version::{Era, ProtocolVersion};

#[cfg(doc)]
use super::{CancelTaskParams, GetTaskParams};

/// A task handle of the extension (`Task`).
///
/// `ttlMs` is required and may be `null` (unlimited retention): `None` is written as
/// `"ttlMs": null`. An absent `ttlMs` on input is read as `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtTask {
    /// The task identifier.
    pub task_id: String,
    /// The current state.
    pub status: TaskStatus,
    /// A human-readable description of the current state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// ISO 8601 creation time.
    pub created_at: String,
    /// ISO 8601 time of the last update.
    pub last_updated_at: String,
    /// Retention from creation in milliseconds; `None` (`null`) for unlimited.
    #[serde(default)]
    pub ttl_ms: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<u64>,
}

impl ExtTask {
    /// A new `working` task created (and last updated) at `created_at`, unlimited retention.
    pub fn new(task_id: impl Into<String>, created_at: impl Into<String>) -> Self {
        Task::new(task_id, created_at).into()
    }

    /// Whether the task is in a terminal state.
    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// Moves the task to `next` at time `at` (ISO 8601); refused when the task is terminal.
    pub fn transition_to(
        &mut self,
        next: TaskStatus,
        at: impl Into<String>,
    ) -> Result<(), TaskTransitionError> {
        if !self.status.can_transition_to(next) {
            return Err(TaskTransitionError {
                from: self.status,
                to: next,
            });
        }
        self.status = next;
        self.last_updated_at = at.into();
        Ok(())
    }
}

/// The 2025-11-25 task as an extension task (`ttl` → `ttlMs`, `pollInterval` → `pollIntervalMs`).
impl From<Task> for ExtTask {
    fn from(t: Task) -> Self {
        Self {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl_ms: t.ttl,
            poll_interval_ms: t.poll_interval,
        }
    }
}

/// The extension task as a 2025-11-25 task (`ttlMs` → `ttl`, `pollIntervalMs` → `pollInterval`).
impl From<ExtTask> for Task {
    fn from(t: ExtTask) -> Self {
        Self {
            task_id: t.task_id,
            status: t.status,
            status_message: t.status_message,
            created_at: t.created_at,
            last_updated_at: t.last_updated_at,
            ttl: t.ttl_ms,
            poll_interval: t.poll_interval_ms,
        }
    }
}

impl Adapt for ExtTask {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// A task with its status-specific payload (`DetailedTask` = `WorkingTask | InputRequiredTask
/// | CompletedTask | FailedTask | CancelledTask`), as `tasks/get` and `notifications/tasks`
/// carry it.
///
/// Which payload field belongs to which status: `input_required` ⇒ `inputRequests`,
/// `completed` ⇒ `result`, `failed` ⇒ `error`; `working` and `cancelled` carry none. All three
/// are required for their status. Shaping ([`Adapt`]) drops payload fields that do not belong
/// to the current status and fills a missing required one with the closest neutral value:
/// `inputRequests: {}`, an empty `CallToolResult` (`content: []`), and for `failed` an
/// internal error (`-32603`) whose
/// message is the `statusMessage` if there is one. Prefer the constructors, which cannot
/// produce such a mismatch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedTask {
    /// The task.
    #[serde(flatten)]
    pub task: ExtTask,
    /// `input_required`: the requests the client must answer with `tasks/update`, keyed by
    /// server-chosen ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// `completed`: the result of the underlying `tools/call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// `failed`: the JSON-RPC error the underlying request ended with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl DetailedTask {
    fn bare(task: ExtTask, status: TaskStatus) -> Self {
        Self {
            task: ExtTask { status, ..task },
            input_requests: None,
            result: None,
            error: None,
        }
    }

    /// A `working` task (`WorkingTask`); the status of `task` is set to `working`.
    pub fn working(task: ExtTask) -> Self {
        Self::bare(task, TaskStatus::Working)
    }

    /// An `input_required` task (`InputRequiredTask`) with its input requests.
    pub fn input_required(task: ExtTask, input_requests: InputRequests) -> Self {
        Self {
            input_requests: Some(input_requests),
            ..Self::bare(task, TaskStatus::InputRequired)
        }
    }

    /// A `completed` task (`CompletedTask`) with the underlying request's result.
    pub fn completed(task: ExtTask, result: CallToolResult) -> Self {
        Self {
            result: Some(result),
            ..Self::bare(task, TaskStatus::Completed)
        }
    }

    /// A `failed` task (`FailedTask`) with its error.
    pub fn failed(task: ExtTask, error: ErrorObject) -> Self {
        Self {
            error: Some(error),
            ..Self::bare(task, TaskStatus::Failed)
        }
    }

    /// A `cancelled` task (`CancelledTask`).
    pub fn cancelled(task: ExtTask) -> Self {
        Self::bare(task, TaskStatus::Cancelled)
    }

    /// The schema definition this value corresponds to (`"WorkingTask"`, ...).
    pub fn variant_name(&self) -> &'static str {
        match self.task.status {
            TaskStatus::Working => "WorkingTask",
            TaskStatus::InputRequired => "InputRequiredTask",
            TaskStatus::Completed => "CompletedTask",
            TaskStatus::Failed => "FailedTask",
            TaskStatus::Cancelled => "CancelledTask",
        }
    }

    /// Whether exactly the payload field of the current status is present.
    pub fn is_consistent(&self) -> bool {
        let s = self.task.status;
        self.input_requests.is_some() == (s == TaskStatus::InputRequired)
            && self.result.is_some() == (s == TaskStatus::Completed)
            && self.error.is_some() == (s == TaskStatus::Failed)
    }
}

impl From<ExtTask> for DetailedTask {
    /// Wraps a task without payload; shaping fills the payload its status requires.
    fn from(task: ExtTask) -> Self {
        let status = task.status;
        Self::bare(task, status)
    }
}

impl Adapt for DetailedTask {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
        let s = self.task.status;
        if s == TaskStatus::InputRequired {
            for r in self
                .input_requests
                .get_or_insert_with(InputRequests::new)
                .values_mut()
            {
                r.adapt(rev);
            }
        } else {
            self.input_requests = None;
        }
        if s == TaskStatus::Completed {
            self.result
                .get_or_insert_with(CallToolResult::default)
                .adapt(rev);
        } else {
            self.result = None;
        }
        if s == TaskStatus::Failed {
            let message = self.task.status_message.clone();
            self.error.get_or_insert_with(|| {
                ErrorObject::new(
                    crate::jsonrpc::INTERNAL_ERROR,
                    message.unwrap_or_else(|| "Task failed".to_owned()),
                )
            });
        } else {
            self.error = None;
        }
    }
}

/// The answer to an eligible request that the server runs as a task
/// (`CreateTaskResult` = `Result & Task & { resultType: "task" }`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtCreateTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Always `"task"` on 2026-07-28 (filled when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The created task.
    #[serde(flatten)]
    pub task: ExtTask,
}

impl ExtCreateTaskResult {
    /// The result announcing `task`.
    pub fn new(task: ExtTask) -> Self {
        Self {
            meta: None,
            result_type: Some(ResultType::Task),
            task,
        }
    }
}

impl Adapt for ExtCreateTaskResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
        self.result_type = match rev.era() {
            Era::Modern => Some(ResultType::Task),
            Era::Legacy => None,
        };
    }
}

/// The answer to `tasks/get` (`GetTaskResult` = `Result & DetailedTask & { resultType:
/// "complete" }`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtGetTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// `"complete"` on 2026-07-28 (filled when shaping).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The task with its status-specific payload.
    #[serde(flatten)]
    pub task: DetailedTask,
}

impl ExtGetTaskResult {
    /// The result describing `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self {
            meta: None,
            result_type: None,
            task,
        }
    }
}

impl Adapt for ExtGetTaskResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
        // The schema fixes `resultType` to "complete" here.
        self.result_type = match rev.era() {
            Era::Modern => Some(ResultType::Complete),
            Era::Legacy => None,
        };
    }
}

/// `tasks/update` params (`UpdateTaskRequest.params`): the client's answers to the task's
/// `inputRequests`, keyed like them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateTaskParams {
    /// Request metadata (the 2026 per-request envelope).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task to update.
    pub task_id: String,
    /// The answers, keyed like the task's `inputRequests`.
    pub input_responses: InputResponses,
}

impl UpdateTaskParams {
    /// `tasks/update`.
    pub const METHOD: &'static str = "tasks/update";

    /// Params answering `task_id`'s input requests.
    pub fn new(task_id: impl Into<String>, input_responses: InputResponses) -> Self {
        Self {
            meta: None,
            task_id: task_id.into(),
            input_responses,
        }
    }
}

impl Adapt for UpdateTaskParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        for r in self.input_responses.values_mut() {
            r.adapt(rev);
        }
    }
}

/// The answer to `tasks/update` (`UpdateTaskResult`): an empty `complete` result.
pub type UpdateTaskResult = EmptyResult;

/// The answer to extension `tasks/cancel` (`CancelTaskResult`): an empty `complete` result.
/// Cancellation is cooperative; the task's later state tells whether it took effect.
pub type ExtCancelTaskResult = EmptyResult;

/// `notifications/tasks` params (`TaskStatusNotificationParams` = `NotificationParams &
/// DetailedTask`): the full task, sent on a `subscriptions/listen` stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtTaskStatusNotificationParams {
    /// Notification metadata (carries `io.modelcontextprotocol/subscriptionId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task with its status-specific payload.
    #[serde(flatten)]
    pub task: DetailedTask,
}

impl ExtTaskStatusNotificationParams {
    /// `notifications/tasks`.
    pub const METHOD: &'static str = "notifications/tasks";

    /// Params announcing `task`.
    pub fn new(task: DetailedTask) -> Self {
        Self { meta: None, task }
    }
}

impl Adapt for ExtTaskStatusNotificationParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
    }
}

/// The extension's capability object (`TasksExtensionCapability`): always `{}`, on both sides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TasksExtensionCapability {}

impl TasksExtensionCapability {
    /// The key under `capabilities.extensions`.
    pub const NAME: &'static str = TASKS_EXTENSION;
}

impl Adapt for TasksExtensionCapability {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The extension's field of a `subscriptions/listen` filter (`TaskSubscriptionNotifications`)
/// and of its acknowledgement (`TaskSubscriptionAcknowledgedNotifications`, same shape): the
/// tasks whose `notifications/tasks` are wanted (or will be sent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSubscriptionNotifications {
    /// Task ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
}

impl Adapt for TaskSubscriptionNotifications {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The acknowledged subset of a [`TaskSubscriptionNotifications`] filter
/// (`TaskSubscriptionAcknowledgedNotifications`).
pub type TaskSubscriptionAcknowledgedNotifications = TaskSubscriptionNotifications;
