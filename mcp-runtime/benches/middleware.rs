//! The per-message cost of the middleware chain.
//!
//! - `chain_direct`: one `tools/call` of a trivial `add` tool through the composed chain,
//!   called directly (no transport, no runtime: the future is polled once and must be
//!   ready). The chain is built with [`Chain::wrap`] and the (hidden) `DynLayers::new`
//!   exactly as `ServerBuilder::try_build` nests it (the builder's chain, then the table's
//!   own layers, none here, then the innermost endpoint), around a bench-local `add`
//!   endpoint; the [`Context`] is captured from a real in-memory connection, so no
//!   test-only constructor is needed. Variants: 0 layers, 10 static pass-through layers (a
//!   tuple of 10 zero-sized types), the same 10 each boxed (`Arc<dyn DynMiddleware>`).
//! - `erased_boundary`: the cost the serving boundary adds per message. The kernel reaches
//!   the composed endpoint through a trait object (`Arc<dyn ErasedEndpoint>`, one dynamic
//!   call returning the chain's future in a box); before, it called the monomorphic
//!   endpoint and boxed its future itself (the panic guard's box). `static_boxed` is that
//!   old path (`Box::pin(endpoint.call(ctx))`), `erased` the new one (the same endpoint as
//!   an `Arc<dyn DynEndpoint>`, `call_boxed`: the same vtable call and box as the kernel's
//!   `ErasedEndpoint::start`), both around the 0-layer chain of `chain_direct`; the
//!   difference is the boundary's cost.
//! - `in_memory_window64`: the same three servers built with `Server::builder`, tracing off,
//!   end to end over `serve_in_memory` with 64 `tools/call` requests in flight; one
//!   criterion iteration is one request answered, so the throughput line is messages/s.
//! - `in_memory_tools_list_window64`: `tools/list` the same way, with 1 and 50 tools.
//! - `tool_arguments`: decoding one tool's arguments (four fields) as the macro's code does
//!   (`decode_arguments`: straight from the raw JSON with the path tracked for the error's
//!   wording) against the floor, `serde_json::from_str` of the same struct.

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_core::types::{CallToolResult, ContentBlock, Tool, into_string_for};
use mcp_core::version::ProtocolVersion;
use mcp_runtime::middleware::{
    Chain, DynEndpoint, DynLayers, DynMiddleware, Endpoint, Middleware, Next,
};
use mcp_runtime::{Context, HandlerResult, McpError, Reply, Server, ServerHandler};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

const WINDOW: u64 = 64;

/// A zero-sized pass-through layer; `N` makes ten distinct types.
struct Pass<const N: usize>;

impl<const N: usize> Middleware for Pass<N> {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        next.run(ctx).await
    }
}

type Static10 = (
    Pass<0>,
    Pass<1>,
    Pass<2>,
    Pass<3>,
    Pass<4>,
    Pass<5>,
    Pass<6>,
    Pass<7>,
    Pass<8>,
    Pass<9>,
);

fn static10() -> Static10 {
    (Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass)
}

/// `m` behind a box: what `.middleware(..)` is given for a layer chosen at run time.
fn boxed<M: Middleware>(m: M) -> Arc<dyn DynMiddleware> {
    Arc::new(m)
}

/// The same ten layers, each boxed: ten elements of one chain, each calling through the
/// vtable (what `.middleware(boxed(Pass::<N>))` ten times builds).
fn boxed10() -> impl Chain {
    (
        boxed(Pass::<0>),
        boxed(Pass::<1>),
        boxed(Pass::<2>),
        boxed(Pass::<3>),
        boxed(Pass::<4>),
        boxed(Pass::<5>),
        boxed(Pass::<6>),
        boxed(Pass::<7>),
        boxed(Pass::<8>),
        boxed(Pass::<9>),
    )
}

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn add_result(args: AddArgs) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text((args.a + args.b).to_string())])
}

/// The innermost endpoint of `chain_direct`: what the dispatcher does for `tools/call` of
/// `add`, minus the handler table (decode name and raw arguments, decode the arguments,
/// run the tool, encode the result for the revision).
struct AddEndpoint;

#[derive(Deserialize)]
struct RawCall<'a> {
    #[serde(borrow)]
    name: &'a str,
    #[serde(borrow)]
    arguments: &'a RawValue,
}

impl Endpoint for AddEndpoint {
    async fn call(&self, ctx: Context) -> HandlerResult {
        let call: RawCall<'_> = serde_json::from_str(ctx.params().map_or("{}", RawValue::get))
            .map_err(|_| McpError::invalid_params("Invalid params"))?;
        if call.name != "add" {
            return Err(McpError::invalid_params("Unknown tool"));
        }
        let args: AddArgs = serde_json::from_str(call.arguments.get())?;
        let version = ctx
            .protocol_version()
            .unwrap_or(ProtocolVersion::V2025_11_25);
        let json = into_string_for(add_result(args), version);
        Ok(Reply::Result(RawValue::from_string(json)?))
    }
}

/// Polls a future that must complete without waiting (nothing in these chains waits).
fn ready<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(Waker::noop()))
    {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("the chain was expected to complete without waiting"),
    }
}

/// Stores the context of the first `tools/call` it sees.
struct Capture(Arc<Mutex<Option<Context>>>);

impl Middleware for Capture {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "tools/call" {
            self.0.lock().unwrap().get_or_insert_with(|| ctx.clone());
        }
        next.run(ctx).await
    }
}

fn add_tool() -> Tool {
    Tool::new("add").with_input_schema(serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    }))
}

fn add_server() -> mcp_runtime::ServerBuilder {
    Server::builder("bench", "0.0.0")
        .without_tracing()
        .tool(add_tool(), |_ctx, args: AddArgs| async move {
            Ok::<_, McpError>(add_result(args))
        })
}

/// The client end of an initialized in-memory connection.
struct Client {
    r: BufReader<ReadHalf<DuplexStream>>,
    w: WriteHalf<DuplexStream>,
    next_id: u64,
    line: String,
    /// Appends the request with this id (newline-terminated) to the buffer.
    request: fn(u64, &mut Vec<u8>),
}

fn call_add(id: u64, out: &mut Vec<u8>) {
    use std::io::Write;
    writeln!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":20,"b":22}}}}}}"#
    )
    .unwrap();
}

fn list_tools(id: u64, out: &mut Vec<u8>) {
    use std::io::Write;
    writeln!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
    )
    .unwrap();
}

impl Client {
    async fn connect<C: Chain, H: ServerHandler>(server: &Server<C, H>) -> Self {
        let (r, w) = tokio::io::split(server.serve_in_memory());
        let mut c = Client {
            r: BufReader::new(r),
            w,
            next_id: 0,
            line: String::new(),
            request: call_add,
        };
        c.w.write_all(
            br#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0.0.0"}}}
"#,
        )
        .await
        .unwrap();
        c.recv().await;
        assert!(
            c.line.contains("\"result\""),
            "initialize failed: {}",
            c.line
        );
        c.w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .unwrap();
        let mut req = Vec::new();
        c.push_call(&mut req);
        c.w.write_all(&req).await.unwrap();
        c.recv().await;
        assert!(
            c.line.contains(r#""text":"42""#) && !c.line.contains("isError"),
            "tools/call failed: {}",
            c.line
        );
        c
    }

    fn push_call(&mut self, out: &mut Vec<u8>) {
        self.next_id += 1;
        (self.request)(self.next_id, out);
    }

    async fn recv(&mut self) {
        self.line.clear();
        let n = self.r.read_line(&mut self.line).await.unwrap();
        assert!(n > 0, "connection closed");
    }

    /// Sends `n` calls, keeping `WINDOW` of them in flight; the time until the last answer.
    async fn run(&mut self, n: u64) -> Duration {
        let mut req = Vec::with_capacity(WINDOW as usize * 128);
        let start = Instant::now();
        let first = n.min(WINDOW);
        for _ in 0..first {
            self.push_call(&mut req);
        }
        self.w.write_all(&req).await.unwrap();
        let mut sent = first;
        for _ in 0..n {
            self.recv().await;
            assert!(
                self.line.contains("\"result\""),
                "bad answer: {}",
                self.line
            );
            if sent < n {
                req.clear();
                self.push_call(&mut req);
                self.w.write_all(&req).await.unwrap();
                sent += 1;
            }
        }
        start.elapsed()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A real `tools/call` context, taken from a live in-memory connection.
fn captured_context(rt: &tokio::runtime::Runtime) -> Context {
    let slot = Arc::new(Mutex::new(None));
    let server = add_server().middleware(Capture(slot.clone())).build();
    rt.block_on(async {
        let _client = Client::connect(&server).await;
    });
    slot.lock().unwrap().take().expect("captured a context")
}

fn chain_direct(c: &mut Criterion) {
    let rt = runtime();
    let ctx = captured_context(&rt);

    let none = ().wrap(DynLayers::new(Vec::new(), AddEndpoint));
    let stat = static10().wrap(DynLayers::new(Vec::new(), AddEndpoint));
    let boxed = boxed10().wrap(DynLayers::new(Vec::new(), AddEndpoint));
    for out in [
        ready(none.call(ctx.clone())),
        ready(stat.call(ctx.clone())),
        ready(boxed.call(ctx.clone())),
    ] {
        let out = out.expect("add succeeds");
        assert!(out.as_json().unwrap().contains(r#""text":"42""#));
    }

    let mut g = c.benchmark_group("chain_direct");
    g.throughput(Throughput::Elements(1));
    g.bench_function("0_layers", |b| {
        b.iter(|| ready(black_box(&none).call(black_box(ctx.clone()))))
    });
    g.bench_function("10_static", |b| {
        b.iter(|| ready(black_box(&stat).call(black_box(ctx.clone()))))
    });
    g.bench_function("10_boxed", |b| {
        b.iter(|| ready(black_box(&boxed).call(black_box(ctx.clone()))))
    });
    g.finish();
    drop(ctx);
}

fn bench_server<C: Chain, H: ServerHandler>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    rt: &tokio::runtime::Runtime,
    name: &str,
    server: Server<C, H>,
) {
    let mut client = rt.block_on(Client::connect(&server));
    g.bench_function(name, |b| {
        b.iter_custom(|iters| rt.block_on(client.run(iters)))
    });
}

fn in_memory(c: &mut Criterion) {
    let rt = runtime();
    let mut g = c.benchmark_group("in_memory_window64");
    g.throughput(Throughput::Elements(1));
    bench_server(&mut g, &rt, "0_layers", add_server().build());
    let stat = add_server()
        .middleware(Pass::<0>)
        .middleware(Pass::<1>)
        .middleware(Pass::<2>)
        .middleware(Pass::<3>)
        .middleware(Pass::<4>)
        .middleware(Pass::<5>)
        .middleware(Pass::<6>)
        .middleware(Pass::<7>)
        .middleware(Pass::<8>)
        .middleware(Pass::<9>);
    bench_server(&mut g, &rt, "10_static", stat.build());
    let boxed = add_server()
        .middleware(boxed(Pass::<0>))
        .middleware(boxed(Pass::<1>))
        .middleware(boxed(Pass::<2>))
        .middleware(boxed(Pass::<3>))
        .middleware(boxed(Pass::<4>))
        .middleware(boxed(Pass::<5>))
        .middleware(boxed(Pass::<6>))
        .middleware(boxed(Pass::<7>))
        .middleware(boxed(Pass::<8>))
        .middleware(boxed(Pass::<9>));
    bench_server(&mut g, &rt, "10_boxed", boxed.build());
    g.finish();
}

/// A server with `n` tools (the `add` tool and `n - 1` more with the same schema).
fn server_with_tools(n: usize) -> mcp_runtime::ServerBuilder {
    (1..n).fold(add_server(), |b, i| {
        let tool = Tool::new(format!("tool_{i}"))
            .with_description(format!("Tool number {i}, which adds two integers."))
            .with_input_schema(serde_json::Value::Object(add_tool().input_schema));
        b.tool(tool, |_ctx, args: AddArgs| async move {
            Ok::<_, McpError>(add_result(args))
        })
    })
}

/// `tools/list` end to end (64 in flight): what listing costs per request as the number
/// of tools grows. A list that is encoded once per revision and reused costs about the
/// same per byte whatever the count; one re-encoded per request grows with it.
fn tools_list(c: &mut Criterion) {
    let rt = runtime();
    let mut g = c.benchmark_group("in_memory_tools_list_window64");
    g.throughput(Throughput::Elements(1));
    for n in [1, 50] {
        let server = server_with_tools(n).build();
        let mut client = rt.block_on(Client::connect(&server));
        client.request = list_tools;
        let mut first = Vec::new();
        client.push_call(&mut first);
        rt.block_on(async {
            client.w.write_all(&first).await.unwrap();
            client.recv().await;
        });
        assert_eq!(
            client.line.matches("\"inputSchema\"").count(),
            n,
            "{}",
            client.line
        );
        g.bench_function(format!("{n}_tools"), |b| {
            b.iter_custom(|iters| rt.block_on(client.run(iters)))
        });
    }
    g.finish();
}

/// `erased_boundary`: the old static call with its box against the dynamic call (module docs).
fn erased_boundary(c: &mut Criterion) {
    let rt = runtime();
    let ctx = captured_context(&rt);
    let endpoint = Arc::new(().wrap(DynLayers::new(Vec::new(), AddEndpoint)));
    let erased: Arc<dyn DynEndpoint> = endpoint.clone();
    for out in [
        ready(Box::pin(endpoint.call(ctx.clone()))),
        ready(erased.call_boxed(ctx.clone())),
    ] {
        let out = out.expect("add succeeds");
        assert!(out.as_json().unwrap().contains(r#""text":"42""#));
    }

    let mut g = c.benchmark_group("erased_boundary");
    g.throughput(Throughput::Elements(1));
    g.bench_function("static_boxed", |b| {
        b.iter(|| ready(Box::pin(black_box(&endpoint).call(black_box(ctx.clone())))))
    });
    g.bench_function("erased", |b| {
        b.iter(|| ready(black_box(&erased).call_boxed(black_box(ctx.clone()))))
    });
    g.finish();
    drop(ctx);
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct SearchArgs {
    query: String,
    limit: i64,
    exact: bool,
    tags: Vec<String>,
}

/// `tool_arguments` (module docs).
fn tool_arguments(c: &mut Criterion) {
    let raw = RawValue::from_string(
        r#"{"query":"rust async","limit":10,"exact":false,"tags":["lang","book"]}"#.to_owned(),
    )
    .unwrap();
    let mut g = c.benchmark_group("tool_arguments");
    g.throughput(Throughput::Elements(1));
    g.bench_function("from_str_floor", |b| {
        b.iter(|| serde_json::from_str::<SearchArgs>(black_box(&raw).get()).unwrap())
    });
    g.bench_function("decode_arguments", |b| {
        b.iter(|| {
            let args: Result<SearchArgs, _> =
                mcp_runtime::__private::decode_arguments(Some(black_box(&*raw)));
            assert!(args.is_ok());
            args
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    chain_direct,
    erased_boundary,
    tool_arguments,
    in_memory,
    tools_list
);
criterion_main!(benches);
