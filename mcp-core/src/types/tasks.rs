//! Tasks of the 2025-11-25 core protocol (experimental), plus the pieces the 2026 tasks
//! extension shares with them ([`TaskStatus`], [`GetTaskParams`], [`CancelTaskParams`]).
//!
//! A requestor adds `params.task` ([`TaskMetadata`]) to a task-augmented request
//! (`tools/call`, `sampling/createMessage`, `elicitation/create`); the receiver answers with a
//! [`CreateTaskResult`] and the requestor then polls `tasks/get`, fetches the payload with
//! `tasks/result`, lists with `tasks/list` and cancels with `tasks/cancel`. Messages related to
//! a task carry [`RelatedTaskMetadata`] in `_meta` under [`RELATED_TASK_META_KEY`].
//!
//! These types exist on the wire of 2025-11-25 only. 2026-07-28 removed tasks from the core;
//! the tasks extension (see [`crate::types::ext_tasks`]) redefines them with `ttlMs` /
//! `pollIntervalMs` and status-specific payloads. [`crate::types::ExtTask`] converts from and
//! into [`Task`].
//!
//! ```
//! use mcp_core::types::{Task, TaskStatus};
//!
//! let mut t = Task::new("t1", "2025-11-25T10:00:00Z");
//! assert_eq!(t.status, TaskStatus::Working);
//! t.transition_to(TaskStatus::Completed, "2025-11-25T10:00:05Z").unwrap();
//! assert!(t.is_terminal());
//! assert!(t.transition_to(TaskStatus::Working, "2025-11-25T10:00:06Z").is_err());
//! // `ttl` is required on the wire: `null` means unlimited retention.
//! assert_eq!(serde_json::to_value(&t).unwrap()["ttl"], serde_json::Value::Null);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Adapt, Cursor, Meta, only_in};
use crate::version::{Era, ProtocolVersion};

/// The `_meta` key associating a message with a task (2025-11-25).
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// The state of a task. The same five states exist in 2025-11-25 and in the tasks extension.
///
/// A task starts `working`; `working` and `input_required` may move to any state; the terminal
/// states `completed`, `failed` and `cancelled` never change again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The request is being processed.
    Working,
    /// The receiver needs input from the requestor.
    InputRequired,
    /// Finished successfully (terminal).
    Completed,
    /// Finished with an error (terminal).
    Failed,
    /// Cancelled before it finished (terminal).
    Cancelled,
}

impl TaskStatus {
    /// Every status.
    pub const ALL: [TaskStatus; 5] = [
        Self::Working,
        Self::InputRequired,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
    ];

    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// Whether the status is final (`completed`, `failed`, `cancelled`).
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// Whether a task in this status may move to `next`.
    ///
    /// Non-terminal states may move to any state (including themselves, for a refreshed
    /// `statusMessage`); terminal states may not move at all.
    pub const fn can_transition_to(self, next: TaskStatus) -> bool {
        let _ = next;
        !self.is_terminal()
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused status change: the task was already terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskTransitionError {
    /// The current status.
    pub from: TaskStatus,
    /// The requested status.
    pub to: TaskStatus,
}

impl fmt::Display for TaskTransitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task status {} cannot change to {}", self.from, self.to)
    }
}

impl std::error::Error for TaskTransitionError {}

/// A task (2025-11-25 `Task`).
///
/// `ttl` is required by the schema and may be `null` (unlimited), so it is always written:
/// `None` serializes as `"ttl": null`, never as an absent field. An absent `ttl` on input is
/// read as `null`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
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
    pub ttl: Option<u64>,
    /// Suggested polling interval in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval: Option<u64>,
}

impl Task {
    /// A new `working` task created (and last updated) at `created_at`, unlimited retention.
    pub fn new(task_id: impl Into<String>, created_at: impl Into<String>) -> Self {
        let created_at = created_at.into();
        Self {
            task_id: task_id.into(),
            status: TaskStatus::Working,
            status_message: None,
            last_updated_at: created_at.clone(),
            created_at,
            ttl: None,
            poll_interval: None,
        }
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

/// Only 2025-11-25 defines `Task`; nothing to shape.
impl Adapt for Task {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// `params.task` of a task-augmented request (2025-11-25 `TaskMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMetadata {
    /// Requested retention from creation in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<u64>,
}

impl Adapt for TaskMetadata {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The value under [`RELATED_TASK_META_KEY`] in a message's `_meta` (2025-11-25
/// `RelatedTaskMetadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedTaskMetadata {
    /// The task the message belongs to.
    pub task_id: String,
}

impl RelatedTaskMetadata {
    /// Reads the related task from a `_meta` object; `None` when absent or malformed.
    pub fn from_meta(meta: &Meta) -> Option<Self> {
        meta.get(RELATED_TASK_META_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// Writes the related task into a `_meta` object (replacing any previous one).
    pub fn insert_into(&self, meta: &mut Meta) {
        meta.insert(
            RELATED_TASK_META_KEY.to_owned(),
            serde_json::json!({ "taskId": self.task_id }),
        );
    }
}

impl Adapt for RelatedTaskMetadata {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The common params of any task-augmented request (2025-11-25 `TaskAugmentedRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskAugmentedRequestParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Requests task-augmented execution (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
}

/// `task` exists only in 2025-11-25 (2026 tasks are negotiated through the extension instead).
impl Adapt for TaskAugmentedRequestParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        only_in(&mut self.task, rev, ProtocolVersion::V2025_11_25);
    }
}

/// The answer to a task-augmented request (2025-11-25 `CreateTaskResult`).
///
/// Results of 2025-11-25-only methods carry no `resultType` (a 2026 notion).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The created task.
    pub task: Task,
}

impl Adapt for CreateTaskResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
    }
}

/// Drops `_meta` of a `tasks/*` params object on legacy revisions: the 2025-11-25 schema
/// names only `taskId` there. On 2026-07-28 (tasks extension) the per-request `_meta`
/// envelope is required by the core protocol and kept.
fn shape_task_params_meta(meta: &mut Option<Meta>, rev: ProtocolVersion) {
    if rev.era() == Era::Legacy {
        *meta = None;
    }
}

/// `tasks/get` params: 2025-11-25 `GetTaskRequest.params` and the tasks extension's
/// `GetTaskRequest.params` (same shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskParams {
    /// Request metadata (kept on 2026-07-28 only, see the module docs).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task to query.
    pub task_id: String,
}

impl GetTaskParams {
    /// `tasks/get`.
    pub const METHOD: &'static str = "tasks/get";

    /// Params for `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            meta: None,
            task_id: task_id.into(),
        }
    }
}

impl Adapt for GetTaskParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_task_params_meta(&mut self.meta, rev);
    }
}

/// The answer to 2025-11-25 `tasks/get`: the task itself (`GetTaskResult` = `Result & Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

impl Adapt for GetTaskResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
    }
}

/// `tasks/result` params (2025-11-25 `GetTaskPayloadRequest.params`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPayloadParams {
    /// Request metadata (dropped for 2025-11-25, whose schema names only `taskId`).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task whose result is wanted.
    pub task_id: String,
}

impl GetTaskPayloadParams {
    /// `tasks/result`.
    pub const METHOD: &'static str = "tasks/result";

    /// Params for `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            meta: None,
            task_id: task_id.into(),
        }
    }
}

impl Adapt for GetTaskPayloadParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_task_params_meta(&mut self.meta, rev);
    }
}

/// The answer to `tasks/result` (2025-11-25 `GetTaskPayloadResult`): exactly the result the
/// underlying request would have returned (e.g. a `CallToolResult`), kept as open JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetTaskPayloadResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The underlying result's other fields.
    #[serde(flatten)]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl GetTaskPayloadResult {
    /// Wraps a typed result, already shaped for its revision. `None` if it is not an object.
    pub fn from_result<T: Serialize>(result: &T) -> Option<Self> {
        match serde_json::to_value(result) {
            Ok(v @ serde_json::Value::Object(_)) => serde_json::from_value(v).ok(),
            _ => None,
        }
    }

    /// Reads the payload as a typed result.
    pub fn to_result<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::to_value(self).and_then(serde_json::from_value)
    }
}

/// The payload is shaped by whoever produced it; nothing to do here.
impl Adapt for GetTaskPayloadResult {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// `tasks/list` params (2025-11-25 `ListTasksRequest.params` = `PaginatedRequestParams`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Where to continue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
}

impl ListTasksParams {
    /// `tasks/list`.
    pub const METHOD: &'static str = "tasks/list";
}

impl Adapt for ListTasksParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The answer to `tasks/list` (2025-11-25 `ListTasksResult`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// Where the next page starts, if there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
}

impl Adapt for ListTasksResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.tasks.adapt(rev);
    }
}

/// `tasks/cancel` params: 2025-11-25 `CancelTaskRequest.params` and the tasks extension's
/// `CancelTaskRequest.params` (same shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskParams {
    /// Request metadata (kept on 2026-07-28 only, see the module docs).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task to cancel.
    pub task_id: String,
}

impl CancelTaskParams {
    /// `tasks/cancel`.
    pub const METHOD: &'static str = "tasks/cancel";

    /// Params for `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            meta: None,
            task_id: task_id.into(),
        }
    }
}

impl Adapt for CancelTaskParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_task_params_meta(&mut self.meta, rev);
    }
}

/// The answer to 2025-11-25 `tasks/cancel`: the task, now `cancelled`
/// (`CancelTaskResult` = `Result & Task`). The extension's answer is an empty result
/// ([`crate::types::ExtCancelTaskResult`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task.
    #[serde(flatten)]
    pub task: Task,
}

impl Adapt for CancelTaskResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
    }
}

/// `notifications/tasks/status` params (2025-11-25 `TaskStatusNotificationParams` =
/// `NotificationParams & Task`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusNotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The task's new state.
    #[serde(flatten)]
    pub task: Task,
}

impl TaskStatusNotificationParams {
    /// `notifications/tasks/status`.
    pub const METHOD: &'static str = "notifications/tasks/status";
}

impl Adapt for TaskStatusNotificationParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.task.adapt(rev);
    }
}
