//! [`ReadOnly`]: only the tools annotated read-only are offered.

use std::collections::HashSet;

use mcp_core::types::Tool;

use super::call::{tool_name, unknown_tool};
use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::{HandlerResult, Reply};
use crate::context::Context;

/// A guard that lets only read-only tools through: those whose annotations say
/// `readOnlyHint: true` (`#[mcp::tool(read_only)]`).
///
/// Every other tool is **hidden**, not refused: it is absent from `tools/list`, and calling
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
}

impl ReadOnly {
    /// Allows the tools of `tools` annotated read-only.
    pub fn new<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Self {
        let read_only =
            |t: &&Tool| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        Self {
            allowed: tools
                .into_iter()
                .filter(read_only)
                .map(|t| t.name.clone())
                .collect(),
        }
    }

    /// Whether the tool `name` may be listed and called.
    pub fn allows(&self, name: &str) -> bool {
        self.allowed.contains(name)
    }
}

impl Middleware for ReadOnly {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "tools/list" && !ctx.is_notification() {
            let out = next.run(ctx).await?;
            return retain_tools(out, |name| self.allows(name));
        }
        match tool_name(&ctx) {
            Some(name) if !self.allows(&name) => Err(unknown_tool(&name)),
            _ => next.run(ctx).await,
        }
    }
}

/// A `tools/list` result with only the tools `keep` accepts; anything else about it
/// (`nextCursor`, `_meta`, cache hints) as it was. A result that is not a list goes out as is.
pub(super) fn retain_tools(out: Reply, keep: impl Fn(&str) -> bool) -> HandlerResult {
    let Some(Ok(mut list)) = out.decode::<serde_json::Value>() else {
        return Ok(out);
    };
    let Some(tools) = list.get_mut("tools").and_then(|t| t.as_array_mut()) else {
        return Ok(out);
    };
    tools.retain(|t| t.get("name").and_then(|n| n.as_str()).is_some_and(&keep));
    Reply::json(&list)
}
