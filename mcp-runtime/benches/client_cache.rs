//! The client-side latency of a cached call against an uncached one: `tools/list` (20
//! tools) and `resources/read` through `Client` over `serve_in_memory`, a 2026-07-28
//! connection, one call at a time. The server marks both fresh for an hour; `cached` is
//! the default mode (every call after the first is a hit), `uncached` the same call with
//! `CacheMode::Bypass` (a full round trip through the in-memory server).

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_core::types::{CallToolResult, ReadResourceResult, Resource, ResourceContents, Tool};
use mcp_core::version::ProtocolVersion;
use mcp_runtime::Server;
use mcp_runtime::caching::CacheHint;
use mcp_runtime::client::cache::CacheMode;
use mcp_runtime::client::{Client, ConnectMode};
use serde_json::json;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let client = rt.block_on(async {
        let mut b = Server::builder("bench", "1.0.0")
            .cache_hint(CacheHint::public(3_600_000))
            .without_tracing();
        for i in 0..20 {
            b = b.tool(
                Tool::new(format!("tool_{i}")).with_input_schema(
                    json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
                ),
                |_ctx, _: serde_json::Value| async { Ok(CallToolResult::success(vec![])) },
            );
        }
        let server = b
            .registry(|r| {
                r.add_resource(
                    Resource::new("bench://doc", "doc"),
                    |_ctx, uri| async move {
                        Ok(ReadResourceResult {
                            contents: vec![ResourceContents::text(uri, "x".repeat(1024))],
                            ..Default::default()
                        })
                    },
                );
            })
            .build();
        Client::builder()
            .mode(ConnectMode::Modern(ProtocolVersion::V2026_07_28))
            .connect(server.serve_in_memory())
            .await
            .expect("connect")
    });
    let bypass = client.with_cache_mode(CacheMode::Bypass);
    let mut g = c.benchmark_group("client_cache");
    // One `block_on` per batch: the time is the calls', not the runtime's entry.
    macro_rules! calls {
        ($name:literal, $call:expr) => {
            g.bench_function($name, |b| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let start = Instant::now();
                        for _ in 0..iters {
                            black_box($call.await.unwrap());
                        }
                        start.elapsed()
                    })
                })
            });
        };
    }
    calls!("tools_list/cached", client.list_tools(None));
    calls!("tools_list/uncached", bypass.list_tools(None));
    calls!("resources_read/cached", client.read_resource("bench://doc"));
    calls!(
        "resources_read/uncached",
        bypass.read_resource("bench://doc")
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
