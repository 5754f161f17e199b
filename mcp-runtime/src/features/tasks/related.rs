//! Messages sent from inside a 2025-11-25 task: every progress notification, log message
//! and server-to-client request (elicitation, sampling, roots) carries
//! `_meta["io.modelcontextprotocol/related-task"] = {taskId}`, and while such a request
//! waits for the client the task is `input_required` (then `working` again), as the
//! 2025-11-25 tasks spec says. The task's [`Peer`](crate::context::peer::Peer) carries a
//! [`RelatedTask`]; `notifications/tasks/status` go through an untagged peer (their params
//! name the task already).

use std::future::Future;
use std::pin::Pin;
use std::sync::Weak;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_core::types::{InputRequests, RELATED_TASK_META_KEY};
use serde_json::{Map, Value};

use crate::common::BoxFuture;
use crate::context::peer::PeerScope;
use crate::session::task_store::{TaskStoreError, TaskUpdate};

/// Where a task's status changes go: the task engine (`engine.rs`), named by this contract
/// so that a task's peer need not know the engine that made it.
pub(crate) trait StatusSink: Send + Sync {
    /// Writes `update` to task `task_id` and announces the new state.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>>;
}

/// The task a peer's messages belong to.
pub(crate) struct RelatedTask {
    task_id: String,
    /// Weak: the engine outlives its tasks' contexts, never the other way round.
    engine: Weak<dyn StatusSink>,
    /// Server-to-client requests of this task waiting for their answer.
    waiting: AtomicUsize,
}

impl RelatedTask {
    pub(crate) fn new(task_id: &str, engine: Weak<dyn StatusSink>) -> Self {
        Self {
            task_id: task_id.to_owned(),
            engine,
            waiting: AtomicUsize::new(0),
        }
    }

    /// Best effort: a task that ended meanwhile (cancelled) keeps its terminal status.
    async fn set(&self, update: TaskUpdate) {
        let Some(engine) = self.engine.upgrade() else {
            return;
        };
        match engine.update(&self.task_id, update).await {
            Ok(_) | Err(TaskStoreError::Terminal(_)) => {}
            Err(e) => tracing::warn!(task = %self.task_id, error = %e, "task status not updated"),
        }
    }
}

impl PeerScope for RelatedTask {
    /// Adds the related-task `_meta` to a params object.
    fn tag_map(&self, params: &mut Map<String, Value>) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                RELATED_TASK_META_KEY.to_owned(),
                serde_json::json!({ "taskId": self.task_id }),
            );
        }
    }

    /// The task is `input_required` while any of its requests waits, `working` again once
    /// none does.
    fn waiting(&self, begins: bool) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move {
            if begins {
                if self.waiting.fetch_add(1, Ordering::SeqCst) == 0 {
                    self.set(TaskUpdate::input_required(InputRequests::new()))
                        .await;
                }
            } else if self.waiting.fetch_sub(1, Ordering::SeqCst) == 1 {
                self.set(TaskUpdate::working()).await;
            }
        })
    }
}
