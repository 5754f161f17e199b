//! The OpenTelemetry MCP semantic conventions (open-telemetry/semantic-conventions,
//! `docs/gen-ai/mcp.md`) on both sides, with the OpenTelemetry SDK's in-memory span and
//! metric exporters: one call through our `Client` to our `Server` makes a client span
//! (kind CLIENT) and a server span (kind SERVER) in one trace, the server's the child of
//! the client's through `params._meta.traceparent`, each with the convention's attributes;
//! the four duration histograms have the convention's names, unit and buckets.
//!
//! "stdio" here is a pair of OS pipes in this process (`tokio::net::unix::pipe`): client
//! and server must share the exporters, which a child process could not. HTTP is
//! Streamable HTTP on loopback, at 2025-11-25 so that the request belongs to a session
//! (`mcp.session.id`; stdio and 2026 requests have none).
//!
//! `cargo test --features full --test otel_conventions` (every test name has `conventions`).

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::Duration;

use mcp::CancellationToken;
use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::types::{Prompt, Resource, ResourceContents};
use opentelemetry::baggage::BaggageExt as _;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};

use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt;

const BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

struct Telemetry {
    spans: InMemorySpanExporter,
    tracer: SdkTracerProvider,
    metrics: InMemoryMetricExporter,
    meter: SdkMeterProvider,
}

/// One set of exporters for the whole binary (the meter provider is global, and the
/// instruments are made from it once); each test tells its spans apart by tool name.
fn telemetry() -> &'static Telemetry {
    static T: OnceLock<Telemetry> = OnceLock::new();
    T.get_or_init(|| {
        let spans = InMemorySpanExporter::default();
        let tracer = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(tracer.tracer("conventions")));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        let metrics = InMemoryMetricExporter::default();
        let meter = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        opentelemetry::global::set_meter_provider(meter.clone());
        Telemetry {
            spans,
            tracer,
            metrics,
            meter,
        }
    })
}

#[derive(serde::Deserialize)]
struct NoArgs {}

fn server(tag: &str) -> Server {
    Server::builder("conventions", "1.0.0")
        .tool(Tool::new(format!("ok_{tag}")), |_ctx, _: NoArgs| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("fine")]))
        })
        .tool(
            Tool::new(format!("broken_{tag}")),
            |_ctx, _: NoArgs| async { Ok(CallToolResult::error("it broke")) },
        )
        // What the request's `_meta` carried of the W3C context.
        .tool(
            Tool::new(format!("meta_{tag}")),
            |ctx, _: NoArgs| async move {
                let m = ctx.meta().cloned().unwrap_or_default();
                Ok(CallToolResult::structured(json!({
                    "traceparent": m.traceparent,
                    "tracestate": m.tracestate,
                    "baggage": m.baggage,
                })))
            },
        )
        .registry(|r| {
            r.add_prompt(Prompt::new("greet"), |_c, _| async move {
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user("hello")],
                    ..Default::default()
                })
            });
            r.add_resource(Resource::new("books://1", "one"), |_c, uri| async move {
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, "Dune")],
                    ..Default::default()
                })
            });
        })
        .build()
}

fn attrs(s: &SpanData) -> HashMap<String, String> {
    s.attributes
        .iter()
        .map(|kv| (kv.key.to_string(), kv.value.to_string()))
        .collect()
}

fn finished() -> Vec<SpanData> {
    let t = telemetry();
    let _ = t.tracer.force_flush();
    t.spans.get_finished_spans().unwrap()
}

/// The client span and the server span named `name` over `transport` whose
/// `jsonrpc.request.id` match.
fn pair(name: &str, transport: &str) -> (SpanData, SpanData) {
    let spans = finished();
    let client = spans
        .iter()
        .find(|s| {
            s.name == name
                && s.span_kind == SpanKind::Client
                && attrs(s).get("network.transport").map(String::as_str) == Some(transport)
        })
        .unwrap_or_else(|| panic!("no client span {name:?}"))
        .clone();
    let id = attrs(&client)["jsonrpc.request.id"].clone();
    let server = spans
        .iter()
        .find(|s| {
            s.name == name
                && s.span_kind == SpanKind::Server
                && attrs(s).get("network.transport").map(String::as_str) == Some(transport)
                && attrs(s).get("jsonrpc.request.id") == Some(&id)
        })
        .unwrap_or_else(|| panic!("no server span {name:?} with id {id}"))
        .clone();
    (client, server)
}

/// One trace: the server span's parent is the client span.
fn assert_one_trace(client: &SpanData, server: &SpanData) {
    assert_eq!(
        server.span_context.trace_id(),
        client.span_context.trace_id(),
        "one trace"
    );
    assert_eq!(server.parent_span_id, client.span_context.span_id());
}

fn assert_common(s: &SpanData, method: &str, transport: &str, version: &str) {
    let a = attrs(s);
    assert_eq!(a["mcp.method.name"], method, "{a:?}");
    assert_eq!(a["network.transport"], transport, "{a:?}");
    assert_eq!(a["mcp.protocol.version"], version, "{a:?}");
    assert!(a.contains_key("jsonrpc.request.id"), "{a:?}");
    if transport == "tcp" {
        assert_eq!(a["network.protocol.name"], "http", "{a:?}");
        assert_eq!(a["network.protocol.version"], "1.1", "{a:?}");
    } else {
        assert!(!a.contains_key("network.protocol.name"), "{a:?}");
    }
}

/// The calls each transport makes, and what their spans must say.
async fn exercise(client: &Client, tag: &str, transport: &str, version: &str) {
    let ok = format!("ok_{tag}");
    let r = client.call_tool(&ok, json!({})).await.unwrap();
    assert_ne!(r.is_error, Some(true));
    let broken = format!("broken_{tag}");
    let r = client.call_tool(&broken, json!({})).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    let e = client.call_tool(&format!("missing_{tag}"), json!({})).await;
    let code = match e {
        Err(ClientError::Rpc(e)) => e.code,
        other => panic!("an unknown tool is a JSON-RPC error: {other:?}"),
    };
    client.get_prompt("greet", [("who", "me")]).await.unwrap();
    client.read_resource("books://1").await.unwrap();

    // tools/call: execute_tool, the tool's name, in the span name too.
    let (c, s) = pair(&format!("tools/call {ok}"), transport);
    assert_one_trace(&c, &s);
    for span in [&c, &s] {
        assert_common(span, "tools/call", transport, version);
        let a = attrs(span);
        assert_eq!(a["gen_ai.operation.name"], "execute_tool");
        assert_eq!(a["gen_ai.tool.name"], ok);
        assert!(!a.contains_key("error.type"), "{a:?}");
        assert_eq!(span.status, Status::Unset);
    }
    assert_eq!(
        attrs(&c)["jsonrpc.request.id"],
        attrs(&s)["jsonrpc.request.id"]
    );
    if transport == "tcp" {
        let a = attrs(&c);
        assert_eq!(a["server.address"], "127.0.0.1");
        assert!(a["server.port"].parse::<u16>().unwrap() > 0);
        // The session both sides name.
        assert_eq!(a["mcp.session.id"], attrs(&s)["mcp.session.id"]);
        assert_eq!(a["mcp.session.id"].len(), 32);
    } else {
        assert!(!attrs(&s).contains_key("mcp.session.id"));
    }

    // isError: tool_error, status ERROR, no JSON-RPC code.
    let (c, s) = pair(&format!("tools/call {broken}"), transport);
    assert_one_trace(&c, &s);
    for span in [&c, &s] {
        let a = attrs(span);
        assert_eq!(a["error.type"], "tool_error", "{a:?}");
        assert!(!a.contains_key("rpc.response.status_code"), "{a:?}");
        assert!(
            matches!(span.status, Status::Error { .. }),
            "{:?}",
            span.status
        );
    }

    // A JSON-RPC error: its code as a string, in both attributes; the message as status.
    let (c, s) = pair(&format!("tools/call missing_{tag}"), transport);
    assert_one_trace(&c, &s);
    for span in [&c, &s] {
        // Strings, as the conventions type them, not integers.
        for key in ["error.type", "rpc.response.status_code"] {
            let v = span.attributes.iter().find(|kv| kv.key.as_str() == key);
            assert!(
                matches!(v.map(|kv| &kv.value), Some(OtelValue::String(_))),
                "{key}: {v:?}"
            );
        }
        let a = attrs(span);
        assert_eq!(a["error.type"], code.to_string(), "{a:?}");
        assert_eq!(a["rpc.response.status_code"], code.to_string(), "{a:?}");
        match &span.status {
            Status::Error { description } => assert!(!description.is_empty()),
            other => panic!("{other:?}"),
        }
    }

    // prompts/get: the prompt's name; no gen_ai.operation.name (only tool calls have it).
    let (c, s) = pair("prompts/get greet", transport);
    assert_one_trace(&c, &s);
    for span in [&c, &s] {
        assert_common(span, "prompts/get", transport, version);
        let a = attrs(span);
        assert_eq!(a["gen_ai.prompt.name"], "greet");
        assert!(!a.contains_key("gen_ai.operation.name"));
    }

    // resources/read: the URI as an attribute, never in the span name.
    let (c, s) = pair("resources/read", transport);
    assert_one_trace(&c, &s);
    for span in [&c, &s] {
        assert_common(span, "resources/read", transport, version);
        assert_eq!(attrs(span)["mcp.resource.uri"], "books://1");
    }
}

/// The metric `name` from the latest export: unit, buckets, and its data points'
/// attributes.
fn histogram(name: &str) -> Vec<HashMap<String, String>> {
    let t = telemetry();
    t.meter.force_flush().unwrap();
    let exported = t.metrics.get_finished_metrics().unwrap();
    let last = exported.last().expect("an export");
    let metric = last
        .scope_metrics()
        .flat_map(|s| s.metrics())
        .find(|m| m.name() == name)
        .unwrap_or_else(|| panic!("no metric {name}"));
    assert_eq!(metric.unit(), "s", "{name}");
    let AggregatedMetrics::F64(MetricData::Histogram(h)) = metric.data() else {
        panic!("{name} is not an f64 histogram");
    };
    h.data_points()
        .map(|p| {
            assert_eq!(p.bounds().collect::<Vec<_>>(), BUCKETS, "{name}");
            p.attributes()
                .map(|kv: &KeyValue| (kv.key.to_string(), kv.value.to_string()))
                .collect()
        })
        .collect()
}

/// Waits for `name` to have a data point that `pred` accepts (session ends are recorded
/// by the side that notices, a moment after the other closes).
async fn wait_for_point(name: &str, pred: impl Fn(&HashMap<String, String>) -> bool) {
    for _ in 0..100 {
        if histogram(name).iter().any(&pred) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{name}: no matching point in {:?}", histogram(name));
}

async fn assert_metrics(tag: &str, transport: &str, version: &str) {
    let ok = format!("ok_{tag}");
    let broken = format!("broken_{tag}");
    for name in [
        "mcp.client.operation.duration",
        "mcp.server.operation.duration",
    ] {
        let points = histogram(name);
        let find = |tool: &str| {
            points
                .iter()
                .find(|p| {
                    p.get("gen_ai.tool.name").map(String::as_str) == Some(tool)
                        && p["network.transport"] == transport
                })
                .unwrap_or_else(|| panic!("{name}: no point for {tool} in {points:?}"))
        };
        let p = find(&ok);
        assert_eq!(p["mcp.method.name"], "tools/call");
        assert_eq!(p["gen_ai.operation.name"], "execute_tool");
        assert_eq!(p["mcp.protocol.version"], version);
        assert!(!p.contains_key("error.type"));
        assert_eq!(find(&broken)["error.type"], "tool_error");
        let missing = find(&format!("missing_{tag}"));
        assert_eq!(missing["error.type"], missing["rpc.response.status_code"]);
        assert!(points.iter().any(|p| {
            p.get("gen_ai.prompt.name").map(String::as_str) == Some("greet")
                && p["network.transport"] == transport
        }));
        // Opt-in on metrics: the URI is not recorded.
        assert!(points.iter().all(|p| !p.contains_key("mcp.resource.uri")));
    }
    for name in ["mcp.client.session.duration", "mcp.server.session.duration"] {
        wait_for_point(name, |p| {
            p.get("network.transport").map(String::as_str) == Some(transport)
                && p.get("mcp.protocol.version").map(String::as_str) == Some(version)
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conventions_over_stdio_pipes() {
    telemetry();
    let (to_server, from_client) = tokio::net::unix::pipe::pipe().unwrap();
    let (to_client, from_server) = tokio::net::unix::pipe::pipe().unwrap();
    let served = tokio::spawn(async move { server("stdio").serve(from_client, to_client).await });
    let client = Client::builder()
        .request_timeout(Duration::from_secs(5))
        .connect_split(from_server, to_server)
        .await
        .unwrap();
    exercise(&client, "stdio", "pipe", "2026-07-28").await;
    client.close().await.unwrap();
    drop(client);
    tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .expect("the server ends with the pipe")
        .unwrap()
        .unwrap();
    assert_metrics("stdio", "pipe", "2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conventions_over_streamable_http() {
    telemetry();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    let s = server("http");
    let served =
        tokio::spawn(async move { s.serve_http_on(listener, HttpOptions::default(), st).await });
    let client = Client::builder()
        .mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
        .request_timeout(Duration::from_secs(5))
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .unwrap();
    exercise(&client, "http", "tcp", "2025-11-25").await;
    // Closing DELETEs the session: both sides record its duration.
    client.close().await.unwrap();
    assert_metrics("http", "tcp", "2025-11-25").await;
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), served).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conventions_outer_genai_span_takes_the_attributes() {
    use tracing::Instrument;
    telemetry();
    let s = server("outer");
    let client = Client::builder()
        .request_timeout(Duration::from_secs(5))
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    // The application's own GenAI tool-execution span (as an agent framework makes).
    let outer = tracing::info_span!(
        "agent tool",
        otel.name = "execute_tool ok_outer",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = "ok_outer",
    );
    client
        .call_tool("ok_outer", json!({}))
        .instrument(outer)
        .await
        .unwrap();
    client.close().await.unwrap();
    let spans = finished();
    let outer = spans
        .iter()
        .find(|s| s.name == "execute_tool ok_outer")
        .expect("the outer span");
    assert!(
        !spans
            .iter()
            .any(|s| s.name == "tools/call ok_outer" && s.span_kind == SpanKind::Client),
        "no second client span under the outer GenAI span"
    );
    let a = attrs(outer);
    assert_eq!(a["mcp.method.name"], "tools/call", "{a:?}");
    assert_eq!(a["network.transport"], "pipe", "{a:?}");
    assert!(a.contains_key("jsonrpc.request.id"), "{a:?}");
    assert_eq!(a["mcp.protocol.version"], "2026-07-28", "{a:?}");
    let server = spans
        .iter()
        .find(|s| s.name == "tools/call ok_outer" && s.span_kind == SpanKind::Server)
        .expect("the server span");
    assert_one_trace(outer, server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conventions_propagate_the_trace_context_and_baggage_in_meta() {
    telemetry();
    let s = server("prop");
    let client = Client::builder()
        .request_timeout(Duration::from_secs(5))
        .connect(s.serve_in_memory())
        .await
        .unwrap();
    // The application's baggage, on the current OpenTelemetry context.
    let cx = opentelemetry::Context::current_with_baggage(vec![
        KeyValue::new("userId", "alice"),
        KeyValue::new("serverNode", "DF 28"),
    ]);
    let guard = cx.attach();
    let r = client.call_tool("meta_prop", json!({})).await.unwrap();
    drop(guard);
    let seen = r.structured_content.unwrap();
    let tp = seen["traceparent"]
        .as_str()
        .expect("a traceparent in _meta");
    let mut baggage: Vec<&str> = seen["baggage"].as_str().unwrap().split(',').collect();
    baggage.sort();
    assert_eq!(baggage, ["serverNode=DF%2028", "userId=alice"]);
    assert!(
        seen["tracestate"].is_null(),
        "an empty tracestate is not sent"
    );
    client.close().await.unwrap();
    // The traceparent names the client span, which the server span continues.
    let (c, s) = pair("tools/call meta_prop", "pipe");
    assert_one_trace(&c, &s);
    assert_eq!(
        tp,
        format!(
            "00-{}-{}-01",
            c.span_context.trace_id(),
            c.span_context.span_id()
        )
    );
}
