//! With the `otel` feature, a message's span is exported as a child of the remote span named
//! by the request's `_meta.traceparent`.

use mcp_core::types::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::Server;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracing_subscriber::layer::SubscriberExt;

#[test]
fn spans_are_parented_by_the_request_traceparent() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let tracer = provider.tracer("mcp-test");
    let subscriber =
        tracing_subscriber::registry().with(tracing_opentelemetry::layer().with_tracer(tracer));
    let _guard = tracing::subscriber::set_default(subscriber);

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = Server::builder("otel", "1")
            .tool(
                Tool::new("hello"),
                |_ctx, _: serde_json::Value| async move {
                    Ok(CallToolResult::success(vec![ContentBlock::text("hi")]))
                },
            )
            .build();
        let (r, mut w) = tokio::io::split(server.serve_in_memory());
        let mut lines = BufReader::new(r).lines();
        let req = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "hello",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            }
        }});
        w.write_all(format!("{req}\n").as_bytes()).await.unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        assert!(line.contains("\"hi\""), "{line}");
    });
    let _ = provider.force_flush();
    let spans = exporter.get_finished_spans().unwrap();
    let span = spans
        .iter()
        .find(|s| s.name == "tools/call hello")
        .unwrap_or_else(|| {
            panic!(
                "no span named `tools/call hello` in {:?}",
                spans.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(
        span.span_context.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(span.parent_span_id.to_string(), "00f067aa0ba902b7");
}
