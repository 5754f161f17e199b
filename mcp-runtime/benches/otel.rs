//! The cost per call of the `otel` feature: one `tools/call` of a trivial tool through
//! our `Client` to our `Server` over the in-memory pipe, one call at a time (client-side
//! latency: the client's span and histogram, the server's span and histogram, both
//! sides' work in between), on a current-thread runtime.
//!
//! Run it three times: `cargo bench -p mcp-framework-runtime --features client --bench
//! otel` (the feature off), with `--features client,otel`, and that again with
//! `MCP_OTEL_BENCH=sdk`. With the feature on the two variants are `no_pipeline` (the feature compiled in, no subscriber and no meter
//! provider installed: what an application pays that turns the feature on but exports
//! nothing) and `sdk_pipeline` (a `tracing-opentelemetry` layer over the SDK's tracer, an
//! SDK meter provider: every span built and exported to memory, every histogram
//! aggregated).

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_core::types::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::Server;
use mcp_runtime::client::Client;

fn server() -> Server {
    Server::builder("bench", "1")
        .tool(Tool::new("add"), |_ctx, _: serde_json::Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("3")]))
        })
        .build()
}

fn calls(c: &mut Criterion, name: &str, rt: &tokio::runtime::Runtime, every: impl Fn(u64)) {
    let client = rt.block_on(async {
        Client::builder()
            .connect(server().serve_in_memory())
            .await
            .unwrap()
    });
    let args = serde_json::json!({"a": 1, "b": 2});
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for i in 0..iters {
                    client.call_tool("add", &args).await.unwrap();
                    every(i);
                }
                start.elapsed()
            })
        })
    });
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    #[cfg(not(feature = "otel"))]
    calls(c, "call_tool/otel_off", &rt, |_| {});
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TracerProvider as _;
        use opentelemetry_sdk::metrics::{
            InMemoryMetricExporter, PeriodicReader, SdkMeterProvider,
        };
        use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
        use tracing_subscriber::layer::SubscriberExt;

        // The instruments are made once a process, from the meter provider installed
        // then: each variant runs in a process of its own (`MCP_OTEL_BENCH=sdk`).
        if std::env::var("MCP_OTEL_BENCH").as_deref() != Ok("sdk") {
            calls(c, "call_tool/otel_on/no_pipeline", &rt, |_| {});
            return;
        }
        let spans = InMemorySpanExporter::default();
        let tracer = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(tracer.tracer("bench")));
        tracing::subscriber::set_global_default(subscriber).unwrap();
        let meter = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
            .build();
        opentelemetry::global::set_meter_provider(meter);
        calls(c, "call_tool/otel_on/sdk_pipeline", &rt, move |i| {
            // Two spans a call: keep the in-memory exporter from growing.
            if i % 1024 == 0 {
                spans.reset();
            }
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
