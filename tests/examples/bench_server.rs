//! The server the side-by-side benchmarks drive (`bench/run.sh`, `BENCHMARKS.md`): two trivial
//! tools written with the macros, so the figures measure the framework, not the tools.
//!
//! `cargo run --release -p mcp-framework-tests [--features http] --example bench_server -- [--stdio | --http 127.0.0.1:PORT]
//! [--layers 10] [--max-sessions N] [--subscriptions] [--multi-thread] [--redis URL]`
//!
//! - `--http` needs the `http` feature; without it (the lean default, what the stdio rows of
//!   the benchmarks run) the binary serves stdio only.
//! - `add {a, b}` answers a text block with the sum.
//! - `echo {text}` answers a text block with the text.
//! - `--layers 10` puts ten pass-through static middleware layers in front of the tools.
//! - `--max-sessions N` raises the legacy HTTP session cap (the session-memory scenario
//!   opens 10,000).
//! - `--subscriptions` turns change notifications on (`subscriptions/listen`; the
//!   listen-memory scenario holds 1,000 streams open). The macro server goes through
//!   `Server::builder(..).handler(..)` for it.
//! - `--redis URL` (features `http` and `redis`) keeps legacy sessions and stream events in
//!   Redis and relays answers through it, as a replica of a deployment does (the in-memory
//!   vs Redis rows of `BENCHMARKS.md`, `bench/redis.sh`).
//! - stdio runs on a current-thread runtime (one connection, answered inline by its
//!   reading task); `--multi-thread` gives it the multi-thread runtime instead, for
//!   comparison. HTTP always runs on the multi-thread runtime.
//!
//! Ten static layers need no `recursion_limit` attribute: the chain's futures nest one
//! level per layer.

use std::net::SocketAddr;

use mcp::prelude::*;

/// Adds two integers.
#[mcp::tool]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Answers the text it was given.
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

/// Defines pass-through middleware layers: each only calls the rest of the chain.
macro_rules! pass_through {
    ($($name:ident),*) => {$(
        /// A pass-through layer: measures what one static layer costs.
        #[mcp::middleware]
        async fn $name(ctx: Context, next: Next<'_>) -> HandlerResult {
            next.run(ctx).await
        }
    )*};
}
pass_through!(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9);

/// The benchmark server with no middleware.
#[mcp::server(name = "bench", tools(add, echo))]
struct Bench;

/// The same server behind ten static pass-through layers.
#[mcp::server(
    name = "bench",
    tools(add, echo),
    middleware(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9)
)]
struct Bench10;

struct Args {
    http: Option<SocketAddr>,
    layers: usize,
    max_sessions: Option<usize>,
    subscriptions: bool,
    multi_thread: bool,
    redis: Option<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut out = Args {
        http: None,
        layers: 0,
        max_sessions: None,
        subscriptions: false,
        multi_thread: false,
        redis: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().ok_or_else(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--stdio" => out.http = None,
            "--http" => {
                let v = value("an address like 127.0.0.1:3990")?;
                out.http = Some(v.parse().map_err(|e| format!("--http {v}: {e}"))?);
            }
            "--layers" => {
                out.layers = match value("0 or 10")?.as_str() {
                    "0" => 0,
                    "10" => 10,
                    other => return Err(format!("--layers {other}: only 0 or 10")),
                }
            }
            "--subscriptions" => out.subscriptions = true,
            "--multi-thread" => out.multi_thread = true,
            "--redis" => out.redis = Some(value("a URL like redis://127.0.0.1:6379/0")?),
            "--max-sessions" => {
                let v = value("a count")?;
                out.max_sessions = Some(v.parse().map_err(|e| format!("--max-sessions {v}: {e}"))?);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(out)
}

async fn serve<C: mcp::middleware::Chain, H: mcp::ServerHandler>(
    server: Server<C, H>,
    args: &Args,
) -> std::io::Result<()> {
    let Some(addr) = args.http else {
        return server.serve_stdio().await;
    };
    serve_http(server, addr, args).await
}

#[cfg(feature = "http")]
async fn serve_http<C: mcp::middleware::Chain, H: mcp::ServerHandler>(
    server: Server<C, H>,
    addr: SocketAddr,
    args: &Args,
) -> std::io::Result<()> {
    let mut opts = mcp::transport::http::HttpOptions::default();
    if let Some(n) = args.max_sessions {
        opts.max_sessions = n;
    }
    if let Some(url) = &args.redis {
        redis_stores(&mut opts, url).await?;
    }
    // The token's type is inferred from `serve_http_on`, so no direct dependency is needed.
    let stop = Default::default();
    mcp::transport::stdio::stop_on_signals(Clone::clone(&stop));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    server.serve_http_on(listener, opts, stop).await
}

/// Legacy sessions, stream events and relayed answers in the Redis at `url`.
#[cfg(all(feature = "http", feature = "redis"))]
async fn redis_stores(
    opts: &mut mcp::transport::http::HttpOptions,
    url: &str,
) -> std::io::Result<()> {
    let stores = mcp::backends::redis::RedisConfig::new(url)
        .connect()
        .await
        .map_err(|e| std::io::Error::other(format!("--redis {url}: {e}")))?;
    opts.session_store = stores.session_store();
    opts.event_store = Some(stores.event_store());
    opts.answer_relay = Some(stores.answer_relay());
    Ok(())
}

/// Built without `redis`: `--redis` is refused.
#[cfg(all(feature = "http", not(feature = "redis")))]
async fn redis_stores(_: &mut mcp::transport::http::HttpOptions, url: &str) -> std::io::Result<()> {
    Err(std::io::Error::other(format!(
        "--redis {url}: this bench_server was built without the `redis` feature"
    )))
}

/// Built without `http` (the stdio-only binary the stdio rows use): `--http` is refused.
#[cfg(not(feature = "http"))]
async fn serve_http<C: mcp::middleware::Chain, H: mcp::ServerHandler>(
    _: Server<C, H>,
    addr: SocketAddr,
    _: &Args,
) -> std::io::Result<()> {
    Err(std::io::Error::other(format!(
        "--http {addr}: this bench_server was built without the `http` feature"
    )))
}

fn main() -> std::io::Result<()> {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_server: {e}");
            std::process::exit(2);
        }
    };
    // stdio is one connection whose requests are answered inline by its reading task: a
    // current-thread runtime runs the reader and the writer on one thread, with no wake-ups
    // across threads, and the writer batches every answer of a read into one write.
    // HTTP serves many connections at once, so it keeps a worker per core.
    let mut runtime = if args.http.is_none() && !args.multi_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = runtime.enable_all().build()?;
    // The server runs in a task (on a worker, not in `block_on` on the main thread): its
    // writer task is then woken on the same worker, with no hand-off to another thread per
    // answer, and on a multi-thread runtime an idle worker can still take it over.
    runtime.block_on(async {
        tokio::spawn(run(args))
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e)))
    })
}

async fn run(args: Args) -> std::io::Result<()> {
    match (args.layers, args.subscriptions) {
        (10, false) => serve(Bench10.into_server(), &args).await,
        (10, true) => {
            let server = builder()
                .handler(Bench10)
                .middleware(p0)
                .middleware(p1)
                .middleware(p2)
                .middleware(p3)
                .middleware(p4)
                .middleware(p5)
                .middleware(p6)
                .middleware(p7)
                .middleware(p8)
                .middleware(p9)
                .subscriptions(true)
                .build();
            serve(server, &args).await
        }
        (_, false) => serve(Bench.into_server(), &args).await,
        (_, true) => serve(builder().handler(Bench).subscriptions(true).build(), &args).await,
    }
}

/// The builder the macro's `into_server` starts from.
fn builder() -> mcp::ServerBuilder {
    Server::builder("bench", env!("CARGO_PKG_VERSION"))
}
