//! [`ReadOnly`]: only the tools annotated read-only are offered.

use std::collections::HashSet;
use std::sync::Arc;

use mcp_core::types::Tool;

use super::call::{tool_name, unknown_tool};
use super::visibility::{Denial, ItemSet, Kind, Select, Shown};
use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::HandlerResult;
use crate::context::Context;

/// A guard that lets only read-only tools through: those whose annotations say
/// `readOnlyHint: true` (`#[mcp::tool(read_only)]`).
///
/// Every other tool is **hidden**, not refused: it is absent from `tools/list` (left out
/// before the list is cut into pages, so every page is full), and calling
/// it answers `-32602 "Unknown tool: <name>"`, exactly what the server answers for a tool it
/// does not have. A client (or a model) is not shown tools it may not use, and learns
/// nothing about them.
///
/// The chain sees messages, not the handler table, so the guard is given the tools at
/// construction (`ServerHandler::tools()` of a `#[mcp::server]` type, or the [`Tool`]s given
/// to the builder). A tool registered later, or one not in that list, is hidden: the guard
/// fails closed.
///
/// ```
/// use mcp_core::types::{Tool, ToolAnnotations};
/// use mcp_runtime::policies::ReadOnly;
///
/// let mut search = Tool::new("search");
/// search.annotations = Some(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
/// let delete = Tool::new("delete");
///
/// let guard = ReadOnly::new(&[search, delete]);
/// assert!(guard.allows("search"));
/// assert!(!guard.allows("delete"));
/// ```
#[derive(Debug, Clone)]
pub struct ReadOnly {
    allowed: HashSet<String>,
    /// The same tools as the dispatcher filters `tools/list` with (prompts and resources
    /// untouched).
    listed: Arc<ItemSet>,
}

impl ReadOnly {
    /// Allows the tools of `tools` annotated read-only.
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Self {
        let read_only =
            |t: &&Tool| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        let allowed: HashSet<String> = (tools.into_iter())
            .filter(read_only)
            .map(|t| t.name.clone())
            .collect();
        let rules = allowed.iter().map(Select::tool);
        let others = [Select::every(Kind::Prompt), Select::every(Kind::Resource)];
        let listed = Arc::new(ItemSet::only(rules.chain(others)));
        Self { allowed, listed }
    }

    /// Whether the tool `name` may be listed and called.
    pub fn allows(&self, name: &str) -> bool {
        self.allowed.contains(name)
    }
}

impl Middleware for ReadOnly {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if ctx.method() == "tools/list" && !ctx.is_notification() {
            // The same list for every caller: a `"public"` one stays so.
            Shown::restrict(&mut ctx, self.listed.clone(), Denial::NotFound, false);
            return next.run(ctx).await;
        }
        match tool_name(&ctx) {
            Some(name) if !self.allows(&name) => Err(unknown_tool(&name)),
            _ => next.run(ctx).await,
        }
    }
}
