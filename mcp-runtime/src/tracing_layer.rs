//! The default tracing layer: one span per message, outermost in the chain.
//!
//! Span name `<method>` or `<method> <tool/prompt name>`; attributes `mcp.method.name`,
//! `mcp.protocol.version`, `jsonrpc.request.id`, `gen_ai.tool.name`, and the W3C
//! `traceparent` from `_meta` (recorded, so an OpenTelemetry bridge can link the parent);
//! `isError` results and errors mark the span as failed (`otel.status_code = "ERROR"`).

use std::future::Future;

use tracing::Instrument;

use crate::context::Context;
use crate::error::{HandlerResult, Reply};
use crate::middleware::{Endpoint, Middleware, Next};

/// The tracing middleware. Part of the default chain; turn it off with
/// [`ServerBuilder::without_tracing`](crate::ServerBuilder::without_tracing).
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingLayer;

fn target_name(ctx: &Context) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: Option<String>,
    }
    match ctx.method() {
        "tools/call" | "prompts/get" => ctx
            .params()
            .and_then(|p| serde_json::from_str::<Named>(p.get()).ok())
            .and_then(|n| n.name),
        _ => None,
    }
}

impl Middleware for TracingLayer {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        let target = target_name(&ctx);
        let name = match &target {
            Some(t) => format!("{} {t}", ctx.method()),
            None => ctx.method().to_owned(),
        };
        let span = tracing::info_span!(
            "mcp",
            otel.name = %name,
            mcp.method.name = %ctx.method(),
            mcp.protocol.version = ctx.protocol_version().map(|v| v.as_str()),
            jsonrpc.request.id = ctx.request_id().map(|id| id.to_string()),
            gen_ai.tool.name = if ctx.method() == "tools/call" { target.as_deref() } else { None },
            traceparent = ctx.meta().and_then(|m| m.traceparent.as_deref()),
            otel.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
        );
        let inner = span.clone();
        async move {
            let out = next.run(ctx).await;
            let failed = match &out {
                Err(e) => {
                    inner.record("error.type", e.as_protocol().map_or(-32603, |p| p.code));
                    true
                }
                Ok(Reply::Result(raw)) => is_error_result(raw.get()),
                Ok(Reply::None) => false,
            };
            if failed {
                inner.record("otel.status_code", "ERROR");
            }
            out
        }
        .instrument(span)
    }
}

fn is_error_result(json: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    // Cheap pre-check: most results carry no `isError` at all.
    json.contains("\"isError\"") && serde_json::from_str::<Probe>(json).is_ok_and(|p| p.is_error)
}
