//! [`ToolTimeout`]: a time limit per tool.

use std::collections::HashMap;
use std::time::Duration;

use super::call::tool_name;
use crate::chain::middleware::{Endpoint, Middleware, Named, Next};
use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;

/// A time limit on `tools/call`, per tool, with an optional default for the others.
///
/// A call that runs longer is dropped (the tool's future with it, as a cancellation would)
/// and answered `-32603 "Request timed out"`, the error of the server-wide request timeout
/// (`ServerOptions`), so a client handles both alike. The limit covers what is inside this
/// layer: put it innermost to time the tool alone.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::policies::ToolTimeout;
///
/// // `slow_report` gets a minute, every other tool five seconds.
/// let t = ToolTimeout::new(Duration::from_secs(5)).tool("slow_report", Duration::from_secs(60));
/// assert_eq!(t.limit_for("slow_report"), Some(Duration::from_secs(60)));
/// assert_eq!(t.limit_for("search"), Some(Duration::from_secs(5)));
/// // Only the tools named: no default.
/// assert_eq!(ToolTimeout::none().tool("a", Duration::from_secs(1)).limit_for("b"), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ToolTimeout {
    default: Option<Duration>,
    per_tool: HashMap<String, Duration>,
}

impl ToolTimeout {
    /// `limit` for every tool not named with [`tool`](Self::tool).
    pub fn new(limit: Duration) -> Self {
        Self {
            default: Some(limit),
            per_tool: HashMap::new(),
        }
    }

    /// No limit but for the tools named with [`tool`](Self::tool).
    pub fn none() -> Self {
        Self::default()
    }

    /// `limit` for the tool `name` (instead of the default): its own name in the server, as
    /// for [`RateLimit::tool`](super::RateLimit::tool). A name the server has no tool of
    /// fails its build.
    pub fn tool(mut self, name: impl Into<String>, limit: Duration) -> Self {
        self.per_tool.insert(name.into(), limit);
        self
    }

    /// The limit a call of `name` runs under, if any.
    pub fn limit_for(&self, name: &str) -> Option<Duration> {
        self.per_tool.get(name).copied().or(self.default)
    }
}

impl Middleware for ToolTimeout {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let Some(limit) = tool_name(&ctx).and_then(|n| self.limit_for(&n)) else {
            return next.run(ctx).await;
        };
        // Dropping the inner future on expiry drops the tool's, which is how it stops.
        tokio::time::timeout(limit, next.run(ctx))
            .await
            .unwrap_or(Err(McpError::Timeout))
    }

    fn named(&self) -> Vec<Named> {
        let tools = self.per_tool.keys();
        tools.map(|t| Named::tool("ToolTimeout::tool", t)).collect()
    }
}
