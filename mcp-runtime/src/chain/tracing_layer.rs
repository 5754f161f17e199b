//! The default tracing layer: one span per message, outermost in the chain.
//!
//! Span name `<method>` or `<method> <tool/prompt name>`; attributes `mcp.method.name`,
//! `mcp.protocol.version`, `jsonrpc.request.id`, `gen_ai.tool.name`, and the W3C
//! `traceparent` from `_meta` (recorded, so an OpenTelemetry bridge can link the parent);
//! `isError` results and errors mark the span as failed (`otel.status_code = "ERROR"`).

use std::future::Future;

use tracing::Instrument;

use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::{HandlerResult, Reply};
use crate::context::Context;

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

/// `<method> <target>`, or the method alone.
fn span_name(method: &str, target: Option<&str>) -> String {
    match target {
        Some(t) => format!("{method} {t}"),
        None => method.to_owned(),
    }
}

impl Middleware for TracingLayer {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        // The macro evaluates field values only when a subscriber wants the span, so the
        // target is looked up (a parse of the params) only then.
        let target = std::cell::OnceCell::new();
        let target = || target.get_or_init(|| target_name(&ctx)).as_deref();
        let span = tracing::info_span!(
            "mcp",
            otel.name = %span_name(ctx.method(), target()),
            mcp.method.name = %ctx.method(),
            mcp.protocol.version = ctx.protocol_version().map(|v| v.as_str()),
            jsonrpc.request.id = ctx.request_id().map(|id| id.to_string()),
            gen_ai.tool.name = if ctx.method() == "tools/call" { target() } else { None },
            traceparent = ctx.meta().and_then(|m| m.traceparent.as_deref()),
            otel.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
        );
        #[cfg(feature = "otel")]
        if let Some(tp) = ctx.meta().and_then(|m| m.traceparent.as_deref()) {
            otel::link_parent(&span, tp, ctx.meta().and_then(|m| m.tracestate.as_deref()));
        }
        let inner = span.clone();
        async move {
            let out = next.run(ctx).await;
            // Nothing records on a span no subscriber wants: skip the result probe.
            if inner.is_disabled() {
                return out;
            }
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
    // Cheap pre-check: most results carry no `isError` at all (a vectorized search: the
    // result may hold a large text).
    static IS_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"isError\""));
    IS_ERROR.find(json.as_bytes()).is_some()
        && serde_json::from_str::<Probe>(json).is_ok_and(|p| p.is_error)
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
    use super::{TraceParent, is_error_result};

    #[test]
    fn is_error_is_read_from_the_member_not_the_text() {
        let text = format!("{}\\\"isError\\\":true", "x".repeat(70_000));
        let result =
            |tail: &str| format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]{tail}}}"#);
        assert!(!is_error_result(&result("")));
        assert!(!is_error_result(&result(r#","isError":false"#)));
        assert!(is_error_result(&result(r#","isError":true"#)));
    }

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
