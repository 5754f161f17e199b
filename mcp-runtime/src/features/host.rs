//! What the features need from the dispatcher that hosts them, as a trait the dispatcher
//! implements, so no feature imports it.

use std::sync::Arc;

use mcp_core::types::{Adapt, Meta};
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;

use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;
use crate::features::tasks::TaskEngine;
use crate::session::ServerIdentity;

/// The dispatcher, as a feature sees it: the part that does not depend on the handler
/// table's type (a feature that calls into the table is handed the call, as the task path
/// is its `ToolRun`), so that the features are compiled once.
pub(crate) trait Host {
    /// A copy of `ctx` for a handler (it carries the server handle).
    fn handler_ctx(&self, ctx: &Context) -> Context;

    /// What the server says about itself, and its limits.
    fn identity(&self) -> &ServerIdentity;

    /// The task engine, when some tool may run as a task.
    fn tasks(&self) -> Option<&Arc<TaskEngine>>;

    /// Adapts a typed result for the revision, stamps `serverInfo` on modern ones, encodes.
    fn shape<T: Adapt + serde::Serialize + ResultMeta>(
        &self,
        value: T,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult;

    /// One page of `all` as `params` asks for it (its `cursor`), and the next cursor.
    fn page<T: Clone>(
        &self,
        all: &[T],
        params: Option<&RawValue>,
    ) -> Result<(Vec<T>, Option<String>), McpError>;
}

/// Results the dispatcher can stamp with `serverInfo`.
pub(crate) trait ResultMeta {
    fn meta_mut(&mut self) -> &mut Option<Meta>;
}

macro_rules! result_meta {
    ($($t:ty),*) => {$(
        impl ResultMeta for $t {
            fn meta_mut(&mut self) -> &mut Option<Meta> {
                &mut self.meta
            }
        }
    )*};
}

result_meta!(
    mcp_core::types::CallToolResult,
    mcp_core::types::CompleteResult,
    mcp_core::types::ListToolsResult,
    mcp_core::types::ListPromptsResult,
    mcp_core::types::GetPromptResult,
    mcp_core::types::ListResourcesResult,
    mcp_core::types::ListResourceTemplatesResult,
    mcp_core::types::ReadResourceResult,
    mcp_core::types::DiscoverResult,
    mcp_core::types::EmptyResult,
    mcp_core::types::InitializeResult,
    mcp_core::types::SubscriptionsListenResult,
    mcp_core::types::ListSkillsResult,
    mcp_core::types::GetSkillResult,
    mcp_core::types::ReadResourceDirectoryResult,
    mcp_core::types::CreateTaskResult,
    mcp_core::types::ExtCreateTaskResult,
    mcp_core::types::GetTaskResult,
    mcp_core::types::ExtGetTaskResult,
    mcp_core::types::ListTasksResult,
    mcp_core::types::CancelTaskResult,
    mcp_core::types::InputRequiredResult
);
