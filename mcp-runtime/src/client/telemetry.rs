//! The client's side of the OpenTelemetry MCP semantic conventions: a span of kind
//! `CLIENT` for each request sent (one per round of a multi-round call; none for an answer
//! from the response cache), the W3C trace context of that span injected into the
//! request's `params._meta` (`traceparent`, `tracestate`, `baggage`; with the `otel`
//! feature), and `mcp.client.operation.duration` (with the `otel` feature).
//!
//! A `tools/call` made inside an application's own GenAI tool-execution span (one that
//! declares a `gen_ai.operation.name` field) opens no second span: the MCP attributes are
//! added to that span, as the conventions ask, and it is the one propagated to the server.

use mcp_core::jsonrpc::RequestId;
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tracing::Span;

use super::{Client, ClientError};
use crate::common::telemetry::{self, NetworkTransport, operation_name, span_name};

/// What the connection tells the conventions.
pub(super) struct Peer {
    transport: NetworkTransport,
    session_id: Option<String>,
    address: Option<String>,
    port: Option<u16>,
}

impl Client {
    pub(super) fn telemetry_peer(&self) -> Peer {
        #[cfg(feature = "http")]
        if let Some(h) = &self.inner.http {
            let url = h.url();
            return Peer {
                transport: NetworkTransport::Tcp,
                session_id: h.session_id_pub(),
                address: url.host().map(str::to_owned),
                port: url.port_u16().or(match url.scheme_str() {
                    Some("https") => Some(443),
                    _ => Some(80),
                }),
            };
        }
        Peer {
            transport: NetworkTransport::Pipe,
            session_id: None,
            address: None,
            port: None,
        }
    }
}

#[cfg(feature = "otel")]
impl super::Inner {
    /// Records `mcp.client.session.duration`, once.
    pub(super) fn end_session(&self) {
        let Some(started) = self.session_started.lock().expect("session lock").take() else {
            return;
        };
        let version = self
            .session
            .lock()
            .expect("session lock")
            .as_ref()
            .map(|s| s.version);
        #[cfg(feature = "http")]
        let transport = if self.http.is_some() {
            NetworkTransport::Tcp
        } else {
            NetworkTransport::Pipe
        };
        #[cfg(not(feature = "http"))]
        let transport = NetworkTransport::Pipe;
        telemetry::metrics::session_ended(
            &telemetry::metrics::instruments().client_session,
            started,
            version.map(|v| v.as_str()),
            transport,
            None,
        );
    }
}

/// The span (ours, or the application's GenAI span) of one request, and its metric.
pub(super) struct RequestSpan {
    span: Span,
    #[cfg(feature = "otel")]
    metric: (std::time::Instant, Vec<opentelemetry::KeyValue>),
}

/// Whether the current span is an application's GenAI tool-execution span: it declares
/// `gen_ai.operation.name`, and is not one of our own (a server span, whose handler is
/// making this call, or a client span).
fn outer_genai_span(method: &str) -> Option<Span> {
    if method != "tools/call" {
        return None;
    }
    let current = Span::current();
    let m = current.metadata()?;
    (m.fields().field("gen_ai.operation.name").is_some()
        && !matches!(m.name(), "mcp" | "mcp.client"))
    .then_some(current)
}

impl RequestSpan {
    /// Opens the span of `method` (or takes the outer GenAI span).
    pub(super) fn begin(
        method: &str,
        params: Option<&Map<String, Value>>,
        version: Option<ProtocolVersion>,
        peer: impl FnOnce() -> Peer,
    ) -> Self {
        // Borrowed from the params: nothing is allocated for a span nobody wants.
        let field = |key: &str| params.and_then(|p| p.get(key)).and_then(Value::as_str);
        let name = matches!(method, "tools/call" | "prompts/get")
            .then(|| field("name"))
            .flatten();
        let uri = matches!(
            method,
            "resources/read" | "resources/subscribe" | "resources/unsubscribe"
        )
        .then(|| field("uri"))
        .flatten();
        let tool = (method == "tools/call").then_some(name).flatten();
        let prompt = (method == "prompts/get").then_some(name).flatten();
        let span = outer_genai_span(method).unwrap_or_else(|| {
            tracing::info_span!(
                "mcp.client",
                otel.name = %span_name(method, name),
                otel.kind = "client",
                mcp.method.name = tracing::field::Empty,
                mcp.protocol.version = tracing::field::Empty,
                mcp.session.id = tracing::field::Empty,
                jsonrpc.request.id = tracing::field::Empty,
                gen_ai.operation.name = tracing::field::Empty,
                gen_ai.tool.name = tracing::field::Empty,
                gen_ai.prompt.name = tracing::field::Empty,
                mcp.resource.uri = tracing::field::Empty,
                network.transport = tracing::field::Empty,
                network.protocol.name = tracing::field::Empty,
                network.protocol.version = tracing::field::Empty,
                server.address = tracing::field::Empty,
                server.port = tracing::field::Empty,
                otel.status_code = tracing::field::Empty,
                otel.status_description = tracing::field::Empty,
                error.type = tracing::field::Empty,
                rpc.response.status_code = tracing::field::Empty,
            )
        });
        let version = version.map(|v| v.as_str());
        // What the connection tells, read only for a span or a histogram.
        #[cfg(not(feature = "otel"))]
        if span.is_disabled() {
            return Self { span };
        }
        let peer = &peer();
        let s = Self {
            span,
            #[cfg(feature = "otel")]
            metric: (
                std::time::Instant::now(),
                telemetry::metrics::Attributes::default()
                    .set("mcp.method.name", method)
                    .opt("gen_ai.operation.name", operation_name(method))
                    .opt("gen_ai.tool.name", tool)
                    .opt("gen_ai.prompt.name", prompt)
                    .opt("mcp.protocol.version", version)
                    .set("network.transport", peer.transport.as_str())
                    .opt("network.protocol.name", peer.transport.protocol_name())
                    .opt(
                        "network.protocol.version",
                        peer.transport.protocol_version(),
                    )
                    .opt("server.address", peer.address.as_deref())
                    .int("server.port", peer.port.map(i64::from))
                    .0,
            ),
        };
        if s.span.is_disabled() {
            return s;
        }
        s.set("mcp.method.name", method);
        s.opt("mcp.protocol.version", version);
        s.opt("mcp.session.id", peer.session_id.as_deref());
        s.opt("gen_ai.operation.name", operation_name(method));
        s.opt("gen_ai.tool.name", tool);
        s.opt("gen_ai.prompt.name", prompt);
        s.opt("mcp.resource.uri", uri);
        s.set("network.transport", peer.transport.as_str());
        s.opt("network.protocol.name", peer.transport.protocol_name());
        s.opt(
            "network.protocol.version",
            peer.transport.protocol_version(),
        );
        s.opt("server.address", peer.address.as_deref());
        if let Some(port) = peer.port {
            s.int("server.port", i64::from(port));
        }
        s
    }

    /// The span the request's work runs in.
    pub(super) fn span(&self) -> &Span {
        &self.span
    }

    /// Records `jsonrpc.request.id`.
    pub(super) fn request_id(&self, id: &RequestId) {
        if !self.span.is_disabled() {
            self.set("jsonrpc.request.id", &id.to_string());
        }
    }

    fn opt(&self, key: &'static str, value: Option<&str>) {
        if let Some(v) = value {
            self.set(key, v);
        }
    }

    /// Records `key` as a field when the span declares it; otherwise (an application's
    /// span), with the `otel` feature, as an OpenTelemetry attribute.
    fn set(&self, key: &'static str, value: &str) {
        if self.declares(key) {
            self.span.record(key, value);
        } else {
            #[cfg(feature = "otel")]
            {
                use tracing_opentelemetry::OpenTelemetrySpanExt;
                self.span.set_attribute(key, value.to_owned());
            }
        }
    }

    fn int(&self, key: &'static str, value: i64) {
        if self.declares(key) {
            self.span.record(key, value);
        } else {
            #[cfg(feature = "otel")]
            {
                use tracing_opentelemetry::OpenTelemetrySpanExt;
                self.span.set_attribute(key, value);
            }
        }
    }

    fn declares(&self, key: &str) -> bool {
        self.span
            .metadata()
            .is_some_and(|m| m.fields().field(key).is_some())
    }

    /// Puts the span's W3C trace context into `_meta` (`traceparent`, `tracestate` when
    /// not empty, `baggage` of the current OpenTelemetry context when not empty). Without
    /// the `otel` feature, or with no OpenTelemetry layer installed, nothing is added.
    pub(super) fn inject(&self, meta: &mut Map<String, Value>) {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::baggage::BaggageExt;
            use opentelemetry::trace::TraceContextExt;
            use tracing_opentelemetry::OpenTelemetrySpanExt;
            if self.span.is_disabled() {
                return;
            }
            let cx = self.span.context();
            let sc = cx.span().span_context().clone();
            if !sc.is_valid() {
                return;
            }
            meta.insert(
                mcp_core::meta::TRACEPARENT.into(),
                format!(
                    "00-{}-{}-{:02x}",
                    sc.trace_id(),
                    sc.span_id(),
                    sc.trace_flags().to_u8()
                )
                .into(),
            );
            let state = sc.trace_state().header();
            if !state.is_empty() {
                meta.insert(mcp_core::meta::TRACESTATE.into(), state.into());
            }
            // The span's own context carries what its parent was given; the ambient
            // OpenTelemetry context, what the application attached.
            let mut baggage = baggage_header(cx.baggage());
            if baggage.is_empty() {
                baggage = baggage_header(opentelemetry::Context::current().baggage());
            }
            if !baggage.is_empty() {
                meta.insert(mcp_core::meta::BAGGAGE.into(), baggage.into());
            }
        }
        #[cfg(not(feature = "otel"))]
        let _ = meta;
    }

    /// Records how the request ended: `error.type` (the JSON-RPC code, `tool_error` for
    /// an `isError` tool result, or the client's own failure: `timeout`,
    /// `connection_closed`, `transport_error`, `invalid_response`, `input_required`, the
    /// HTTP status of a refusal without a JSON-RPC answer, `_OTHER`),
    /// `rpc.response.status_code`, the span status, and the duration.
    pub(super) fn finish(self, method: &str, outcome: &Result<Box<RawValue>, ClientError>) {
        let (error_type, status_code, message) = match outcome {
            Ok(raw) if method == "tools/call" && telemetry::is_error_result(raw.get()) => {
                (Some(telemetry::TOOL_ERROR.to_owned()), None, None)
            }
            Ok(_) => (None, None, None),
            Err(e) => {
                let code = e.code().map(|c| c.to_string());
                let kind = code.clone().unwrap_or_else(|| error_kind(e));
                let message = e
                    .as_rpc()
                    .map_or_else(|| e.to_string(), |r| r.message.to_string());
                (Some(kind), code, Some(message))
            }
        };
        if !self.span.is_disabled() {
            if let Some(t) = &error_type {
                self.set("error.type", t);
                self.set("otel.status_code", "ERROR");
            }
            if let Some(c) = &status_code {
                self.set("rpc.response.status_code", c);
            }
            if let Some(m) = &message {
                self.set("otel.status_description", m);
            }
        }
        #[cfg(feature = "otel")]
        {
            let (started, attributes) = self.metric;
            let attributes = telemetry::metrics::Attributes(attributes)
                .opt("error.type", error_type.as_deref())
                .opt("rpc.response.status_code", status_code.as_deref());
            telemetry::metrics::instruments()
                .client_operation
                .record(started.elapsed().as_secs_f64(), &attributes.0);
        }
    }
}

fn error_kind(e: &ClientError) -> String {
    match e {
        ClientError::Timeout => "timeout".into(),
        ClientError::Closed(_) | ClientError::ProcessExited(_) => "connection_closed".into(),
        ClientError::Io(_) => "transport_error".into(),
        ClientError::InvalidResponse(_) => "invalid_response".into(),
        ClientError::InputRequired(_) => "input_required".into(),
        _ => match e.http_status() {
            Some(s) => s.to_string(),
            None => "_OTHER".into(),
        },
    }
}

/// The W3C `baggage` header of `baggage` (`key=value` list, values percent-encoded).
#[cfg(feature = "otel")]
fn baggage_header(baggage: &opentelemetry::baggage::Baggage) -> String {
    let mut out = String::new();
    for (k, (v, _)) in baggage.iter() {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(k.as_str());
        out.push('=');
        for b in v.as_str().bytes() {
            if b.is_ascii_alphanumeric() || b"!#$&'*+-.^_`|~/:?@".contains(&b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}
