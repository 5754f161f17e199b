//! The default tracing layer: one span per message, outermost in the chain, with the
//! attributes of the OpenTelemetry MCP semantic conventions' server span.
//!
//! Span name `{mcp.method.name} {target}` (the tool or prompt name; the method alone
//! otherwise), `otel.kind = "server"`; attributes `mcp.method.name`,
//! `mcp.protocol.version`, `mcp.session.id`, `jsonrpc.request.id`,
//! `gen_ai.operation.name` (`execute_tool` on `tools/call`), `gen_ai.tool.name`,
//! `gen_ai.prompt.name`, `mcp.resource.uri`, `network.transport` (`pipe`, `tcp`),
//! `network.protocol.name`/`.version` over HTTP, and the W3C `traceparent` from `_meta`
//! (with the `otel` feature, the span's remote parent). An error answer records
//! `error.type` and `rpc.response.status_code` (the JSON-RPC code as a string) and the
//! status `ERROR` with the error's message; an `isError` tool result records
//! `error.type = "tool_error"`. With the `otel` feature the layer also records
//! `mcp.server.operation.duration`.

use std::future::Future;

use tracing::Instrument;

use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::{HandlerResult, Reply};
use crate::common::telemetry::{self, Target, operation_name, span_name};
use crate::context::Context;

/// The tracing middleware. Part of the default chain; turn it off with
/// [`ServerBuilder::without_tracing`](crate::ServerBuilder::without_tracing).
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingLayer;

/// How one message ended, as the conventions record it.
struct Ending {
    /// `error.type`.
    error_type: Option<String>,
    /// `rpc.response.status_code`: the JSON-RPC error code.
    status_code: Option<String>,
    /// The span status description: the JSON-RPC error message.
    message: Option<String>,
}

fn ending(out: &HandlerResult) -> Ending {
    match out {
        Err(e) => {
            let (code, message) = match e.as_protocol() {
                Some(p) => (p.code, p.message.to_string()),
                None => (-32603, e.to_string()),
            };
            Ending {
                error_type: Some(code.to_string()),
                status_code: Some(code.to_string()),
                message: Some(message),
            }
        }
        Ok(Reply::Result(raw)) if telemetry::is_error_result(raw.get()) => Ending {
            error_type: Some(telemetry::TOOL_ERROR.to_owned()),
            status_code: None,
            message: None,
        },
        Ok(_) => Ending {
            error_type: None,
            status_code: None,
            message: None,
        },
    }
}

impl Middleware for TracingLayer {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        // The macro evaluates field values only when a subscriber wants the span, so the
        // target is looked up (a parse of the params) only then (or for the metrics).
        let target = std::cell::OnceCell::new();
        let target =
            || target.get_or_init(|| Target::of(ctx.method(), ctx.params().map(|p| p.get())));
        let method = ctx.method();
        let transport = ctx.network_transport();
        let span = tracing::info_span!(
            "mcp",
            otel.name = %span_name(method, target().name.as_deref()),
            otel.kind = "server",
            mcp.method.name = %method,
            mcp.protocol.version = ctx.protocol_version().map(|v| v.as_str()),
            mcp.session.id = ctx.session_id(),
            jsonrpc.request.id = ctx.request_id().map(|id| id.to_string()),
            gen_ai.operation.name = operation_name(method),
            gen_ai.tool.name = target().tool(method),
            gen_ai.prompt.name = target().prompt(method),
            mcp.resource.uri = target().uri.as_deref(),
            network.transport = transport.as_str(),
            network.protocol.name = transport.protocol_name(),
            network.protocol.version = transport.protocol_version(),
            traceparent = ctx.meta().and_then(|m| m.traceparent.as_deref()),
            otel.status_code = tracing::field::Empty,
            otel.status_description = tracing::field::Empty,
            error.type = tracing::field::Empty,
            rpc.response.status_code = tracing::field::Empty,
        );
        #[cfg(feature = "otel")]
        if let Some(tp) = ctx.meta().and_then(|m| m.traceparent.as_deref()) {
            otel::link_parent(&span, tp, ctx.meta().and_then(|m| m.tracestate.as_deref()));
        }
        #[cfg(feature = "otel")]
        let metric = otel::OperationMetric::start(&ctx, target());
        let inner = span.clone();
        async move {
            let out = next.run(ctx).await;
            // Nothing records on a span no subscriber wants (nor, without the `otel`
            // feature, in a histogram): skip the result probe.
            #[cfg(not(feature = "otel"))]
            if inner.is_disabled() {
                return out;
            }
            let end = ending(&out);
            if let Some(t) = &end.error_type {
                inner.record("error.type", t.as_str());
                inner.record("otel.status_code", "ERROR");
            }
            if let Some(c) = &end.status_code {
                inner.record("rpc.response.status_code", c.as_str());
            }
            if let Some(m) = &end.message {
                inner.record("otel.status_description", m.as_str());
            }
            #[cfg(feature = "otel")]
            metric.finish(&end);
            out
        }
        .instrument(span)
    }
}

/// A parsed W3C `traceparent` header value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    /// The 16-byte trace id.
    pub trace_id: [u8; 16],
    /// The 8-byte id of the parent span.
    pub parent_id: [u8; 8],
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
}

impl TraceParent {
    /// Parses `00-<32 hex>-<16 hex>-<2 hex>` (W3C Trace Context, version 00; later versions
    /// are read by their first four fields, as the spec asks). All-zero ids are invalid.
    pub fn parse(value: &str) -> Option<Self> {
        let mut parts = value.trim().split('-');
        let version = parts.next()?;
        let (trace, parent, flags) = (parts.next()?, parts.next()?, parts.next()?);
        if version.len() != 2 || version == "ff" || (version == "00" && parts.next().is_some()) {
            return None;
        }
        let hex = |s: &str, out: &mut [u8]| -> Option<()> {
            if s.len() != out.len() * 2
                || !s
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return None;
            }
            for (i, o) in out.iter_mut().enumerate() {
                *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
            }
            Some(())
        };
        let mut v = [0u8; 1];
        hex(version, &mut v)?;
        let mut trace_id = [0u8; 16];
        let mut parent_id = [0u8; 8];
        let mut f = [0u8; 1];
        hex(trace, &mut trace_id)?;
        hex(parent, &mut parent_id)?;
        hex(flags, &mut f)?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(Self {
            trace_id,
            parent_id,
            flags: f[0],
        })
    }
}

#[cfg(feature = "otel")]
mod otel {
    //! With the `otel` feature, the span of each message gets the remote parent named by the
    //! request's `traceparent`, so an OpenTelemetry exporter (installed by the application
    //! through `tracing-opentelemetry`) links it into the caller's trace.
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use std::time::Instant;

    use opentelemetry::KeyValue;

    use crate::common::telemetry::metrics::{Attributes, instruments};
    use crate::common::telemetry::{Target, operation_name};
    use crate::context::Context;

    /// `mcp.server.operation.duration` of one message: from the chain's start to its
    /// answer (the encoding and write after it are not included).
    pub(super) struct OperationMetric {
        started: Instant,
        attributes: Vec<KeyValue>,
    }

    impl OperationMetric {
        pub(super) fn start(ctx: &Context, target: &Target) -> Self {
            let method = ctx.method();
            let t = ctx.network_transport();
            let attributes = Attributes::default()
                .set("mcp.method.name", method)
                .opt("gen_ai.operation.name", operation_name(method))
                .opt("gen_ai.tool.name", target.tool(method))
                .opt("gen_ai.prompt.name", target.prompt(method))
                .opt(
                    "mcp.protocol.version",
                    ctx.protocol_version().map(|v| v.as_str()),
                )
                .set("network.transport", t.as_str())
                .opt("network.protocol.name", t.protocol_name())
                .opt("network.protocol.version", t.protocol_version());
            Self {
                started: Instant::now(),
                attributes: attributes.0,
            }
        }

        pub(super) fn finish(self, end: &super::Ending) {
            let Self {
                started,
                attributes,
            } = self;
            let attributes = Attributes(attributes)
                .opt("error.type", end.error_type.as_deref())
                .opt("rpc.response.status_code", end.status_code.as_deref());
            instruments()
                .server_operation
                .record(started.elapsed().as_secs_f64(), &attributes.0);
        }
    }

    pub(super) fn link_parent(span: &tracing::Span, traceparent: &str, tracestate: Option<&str>) {
        let Some(tp) = super::TraceParent::parse(traceparent) else {
            return;
        };
        let state = tracestate
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let sc = SpanContext::new(
            TraceId::from_bytes(tp.trace_id),
            SpanId::from_bytes(tp.parent_id),
            TraceFlags::new(tp.flags),
            true,
            state,
        );
        let cx = opentelemetry::Context::new().with_remote_span_context(sc);
        let _ = span.set_parent(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::TraceParent;

    #[test]
    fn parses_w3c_traceparent() {
        let tp =
            TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        assert_eq!(tp.trace_id[0], 0x4b);
        assert_eq!(tp.parent_id[7], 0xb7);
        assert_eq!(tp.flags, 1);
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad:?}");
        }
        // A later version may carry more fields.
        assert!(
            TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xyz")
                .is_some()
        );
    }
}
