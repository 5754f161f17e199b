//! Typed per-method hooks layered on top of the raw chain: each fires once per message of
//! its method, with typed params and result.

use mcp_core::types::{CallToolParams, CallToolResult, ListToolsResult};

use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::{HandlerResult, Reply};
use crate::context::Context;

/// See [`on_list_tools`].
pub struct OnListTools<F>(F);

/// A hook on `tools/list` that may filter or edit the list before it is sent.
pub fn on_list_tools<F>(f: F) -> OnListTools<F>
where
    F: Fn(&Context, &mut ListToolsResult) + Send + Sync + 'static,
{
    OnListTools(f)
}

impl<F> Middleware for OnListTools<F>
where
    F: Fn(&Context, &mut ListToolsResult) + Send + Sync + 'static,
{
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        {
            if ctx.method() != "tools/list" || ctx.is_notification() {
                return next.run(ctx).await;
            }
            let seen = ctx.clone();
            let out = next.run(ctx).await?;
            match out.decode::<ListToolsResult>() {
                Some(Ok(mut list)) => {
                    (self.0)(&seen, &mut list);
                    Reply::json(&list)
                }
                _ => Ok(out),
            }
        }
    }
}

/// See [`on_call_tool`].
pub struct OnCallTool<F>(F);

/// A hook on `tools/call` that sees the typed params and may edit the typed result.
pub fn on_call_tool<F>(f: F) -> OnCallTool<F>
where
    F: Fn(&Context, &CallToolParams, &mut CallToolResult) + Send + Sync + 'static,
{
    OnCallTool(f)
}

impl<F> Middleware for OnCallTool<F>
where
    F: Fn(&Context, &CallToolParams, &mut CallToolResult) + Send + Sync + 'static,
{
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        {
            if ctx.method() != "tools/call" || ctx.is_notification() {
                return next.run(ctx).await;
            }
            let Ok(params) = ctx.decode_params::<CallToolParams>() else {
                return next.run(ctx).await;
            };
            let seen = ctx.clone();
            let out = next.run(ctx).await?;
            match out.decode::<CallToolResult>() {
                Some(Ok(mut result)) => {
                    (self.0)(&seen, &params, &mut result);
                    Reply::json(&result)
                }
                _ => Ok(out),
            }
        }
    }
}
