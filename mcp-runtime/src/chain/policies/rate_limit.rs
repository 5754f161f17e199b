//! [`RateLimit`]: a token bucket per caller and per tool.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_core::jsonrpc::ErrorObject;

use super::call::tool_name;
use super::caller::CallerKey;
use crate::chain::middleware::{Endpoint, Middleware, Named, Next};
use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;
use crate::session::rate_store::{Decision, InMemoryRateStore, Limit, RateStore};

/// The JSON-RPC error code of a call over its rate limit. In the range JSON-RPC leaves to
/// implementations (its last digits recall HTTP 429), and used by no MCP revision.
pub const RATE_LIMITED: i32 = -32029;

/// A rate limit on `tools/call`: one token bucket per caller and per tool (the key is the
/// pair), a default [`Limit`] and per-tool ones, kept in a [`RateStore`] (by default in this
/// process's memory: behind a balancer, each replica then counts alone).
///
/// The caller is named by a [`CallerKey`] (by default the principal's subject, else the
/// client's address over HTTP, else the session; behind a reverse proxy, name it with
/// [`CallerKey::forwarded_for`]). A call over the limit never reaches the tool; it answers
/// `-32029 "Rate limit exceeded"` with `data: {"retryAfterMs": <ms>}`, the wait until the
/// bucket holds a token again (rounded up).
///
/// Every `tools/call` message takes a token, including each round of a multi-round call
/// (`input_required` answered) and a call a later layer refuses.
///
/// ```
/// use mcp_runtime::policies::{CallerKey, Limit, RateLimit};
///
/// // Ten calls a second per caller and tool, bursts of twenty; `search` five a minute.
/// let limit = RateLimit::new(Limit::per_second(10).burst(20))
///     .tool("search", Limit::per_minute(5))
///     .caller(CallerKey::principal());
/// assert_eq!(limit.limit_for("search"), Some(Limit::per_minute(5)));
/// ```
#[derive(Clone)]
pub struct RateLimit {
    default: Option<Limit>,
    per_tool: HashMap<String, Limit>,
    caller: CallerKey,
    store: Arc<dyn RateStore>,
}

impl RateLimit {
    /// `limit` for every tool not named with [`tool`](Self::tool).
    pub fn new(limit: Limit) -> Self {
        Self {
            default: Some(limit),
            ..Self::none()
        }
    }

    /// No limit but for the tools named with [`tool`](Self::tool).
    pub fn none() -> Self {
        Self {
            default: None,
            per_tool: HashMap::new(),
            caller: CallerKey::default(),
            store: Arc::new(InMemoryRateStore::default()),
        }
    }

    /// `limit` for the tool `name` (instead of the default): the tool's own name in the
    /// server (a mounted one's `ns_name`), as every middleware sees it, whatever a
    /// [`ToolTransforms`](crate::transform::ToolTransforms) shows clients. A name the server
    /// has no tool of fails its build.
    pub fn tool(mut self, name: impl Into<String>, limit: Limit) -> Self {
        self.per_tool.insert(name.into(), limit);
        self
    }

    /// Names callers with `key` instead of the default.
    pub fn caller(mut self, key: CallerKey) -> Self {
        self.caller = key;
        self
    }

    /// Keeps the buckets in `store` (shared by replicas, say) instead of this process.
    pub fn store(mut self, store: impl RateStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// The limit calls of `name` run under, if any.
    pub fn limit_for(&self, name: &str) -> Option<Limit> {
        self.per_tool.get(name).copied().or(self.default)
    }
}

/// The refusal of a call that may be retried after `retry_after`.
fn rate_limited(retry_after: std::time::Duration) -> McpError {
    let ms = u64::try_from(retry_after.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX);
    ErrorObject::new(RATE_LIMITED, "Rate limit exceeded")
        .with_data(serde_json::json!({ "retryAfterMs": ms }))
        .into()
}

impl Middleware for RateLimit {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let Some((tool, limit)) =
            tool_name(&ctx).and_then(|n| Some((n.clone(), self.limit_for(&n)?)))
        else {
            return next.run(ctx).await;
        };
        // A JSON pair, so neither a tool name nor a caller can forge the other's part.
        let key = serde_json::json!([tool, self.caller.of(&ctx)]).to_string();
        match self.store.take(&key, limit).await? {
            Decision::Admitted => next.run(ctx).await,
            Decision::Refused { retry_after } => Err(rate_limited(retry_after)),
        }
    }

    fn named(&self) -> Vec<Named> {
        let tools = self.per_tool.keys();
        tools.map(|t| Named::tool("RateLimit::tool", t)).collect()
    }
}

impl std::fmt::Debug for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimit")
            .field("default", &self.default)
            .field("per_tool", &self.per_tool)
            .finish_non_exhaustive()
    }
}
