//! `gateway`: one front door before several MCP servers. Local tools sit beside upstream
//! servers, each mounted under its name (tools `NAME_tool`, resources `scheme://NAME/...`),
//! with everything relayed across the hop: list changes, progress, cancellation,
//! elicitation, sampling and roots, logging.
//!
//! ```text
//! cargo run --example gateway --features http,proxy -- --stdio
//! cargo run --example gateway --features http,proxy -- --http 127.0.0.1:3000 \
//!     --upstream weather=http://127.0.0.1:4000/mcp \
//!     --upstream 'every=target/debug/examples/everything --stdio'
//! ```
//!
//! `--upstream NAME=URL` reaches a server over Streamable HTTP (falling back to HTTP+SSE);
//! `--upstream 'NAME=COMMAND ARGS…'` starts a child process and speaks to it over stdio
//! (the command line is split on whitespace; quote nothing inside it). Any revision, either
//! way. `--upstream-token NAME=TOKEN` gives an HTTP upstream a bearer token of its own (the
//! callers' tokens are never forwarded). `--per-caller NAME` gives each caller (each
//! session, or each authenticated user of a 2026 client) its own connection to that
//! upstream, for upstreams that keep per-session state; by default every caller shares one.
//! An upstream that is down (at the start or later) leaves the lists and returns when it
//! answers; the rest is served. `--timeout SECS` bounds each forwarded call
//! (default 60). Served with `--stdio` (the default) or `--http ADDR` (Streamable HTTP at
//! `/mcp`, HTTP+SSE at `/sse`).
//!
//! With no `--upstream` it starts two demo upstreams of its own, so it runs alone: `notes`,
//! this program again as a child process over stdio (`--demo-upstream`), and `clock`, a
//! server on a loopback port reached over HTTP.

use std::time::Duration;

use mcp::prelude::*;
use mcp::proxy::{Proxy, ReadinessSet, Sharing, Upstream};
use serde_json::Value;

/// How the gateway is served.
enum Serve {
    Stdio,
    Http(std::net::SocketAddr),
}

/// The command line.
struct Args {
    serve: Serve,
    upstreams: Vec<(String, String)>,
    tokens: Vec<(String, String)>,
    per_caller: Vec<String>,
    timeout: Duration,
    demo_upstream: bool,
}

fn usage(problem: &str) -> ! {
    eprintln!(
        "gateway: {problem}\nusage: gateway [--stdio | --http ADDR] [--upstream NAME=URL | --upstream 'NAME=COMMAND ARGS...']... [--upstream-token NAME=TOKEN]... [--per-caller NAME]... [--timeout SECS]"
    );
    std::process::exit(2)
}

fn name_value(flag: &str, v: Option<String>) -> (String, String) {
    let v = v.unwrap_or_else(|| usage(&format!("{flag} needs NAME=VALUE")));
    match v.split_once('=') {
        Some((n, rest)) if !n.is_empty() && !rest.trim().is_empty() => {
            (n.to_owned(), rest.trim().to_owned())
        }
        _ => usage(&format!("{flag} {v:?}: expected NAME=VALUE")),
    }
}

fn parse_args() -> Args {
    let mut args = Args {
        serve: Serve::Stdio,
        upstreams: Vec::new(),
        tokens: Vec::new(),
        per_caller: Vec::new(),
        timeout: Duration::from_secs(60),
        demo_upstream: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stdio" => args.serve = Serve::Stdio,
            "--http" => {
                let addr = it.next().unwrap_or_else(|| usage("--http needs ADDR"));
                let addr = addr
                    .parse()
                    .unwrap_or_else(|_| usage(&format!("--http {addr:?}: not an address")));
                args.serve = Serve::Http(addr);
            }
            "--upstream" => args.upstreams.push(name_value("--upstream", it.next())),
            "--upstream-token" => args.tokens.push(name_value("--upstream-token", it.next())),
            "--per-caller" => {
                let name = it
                    .next()
                    .unwrap_or_else(|| usage("--per-caller needs NAME"));
                args.per_caller.push(name);
            }
            "--timeout" => {
                let s = it.next().unwrap_or_else(|| usage("--timeout needs SECS"));
                let secs: f64 = s
                    .parse()
                    .ok()
                    .filter(|s: &f64| *s > 0.0)
                    .unwrap_or_else(|| usage(&format!("--timeout {s:?}: not a positive number")));
                args.timeout = Duration::from_secs_f64(secs);
            }
            "--demo-upstream" => args.demo_upstream = true,
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    if let Some(n) = (args.per_caller.iter()).find(|n| !args.upstreams.iter().any(|(u, _)| u == *n))
    {
        usage(&format!("--per-caller {n:?}: no --upstream has that name"));
    }
    args
}

/// An `--upstream` value: a URL, or a command line.
fn upstream_of(spec: &str, token: Option<&String>) -> Upstream {
    if spec.starts_with("http://") || spec.starts_with("https://") {
        let u = Upstream::http(spec);
        match token {
            Some(t) => u.bearer_token(t.clone()),
            None => u,
        }
    } else {
        let mut words = spec.split_whitespace();
        let program = words.next().expect("a non-empty command");
        Upstream::stdio(program, words)
    }
}

/// Greets: the gateway's own tool, beside the mounted ones.
#[mcp::tool(read_only)]
async fn hello(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}, from the gateway!")
}

/// The demo upstream `notes` (run as `gateway --demo-upstream`, over stdio).
fn demo_notes() -> Server {
    Server::builder("notes", "1.0.0")
        .instructions("Notes kept in memory.")
        .subscriptions(true)
        .tool(Tool::new("add"), |ctx: Context, a: Value| async move {
            let text = a["text"].as_str().unwrap_or_default().to_owned();
            let uri = format!("notes://note/{}", text.len());
            let handle = ctx.server().expect("a handle").clone();
            let body = text.clone();
            handle
                .add_resource(
                    mcp::types::Resource::new(uri.clone(), text.clone()),
                    move |_ctx, uri| {
                        let body = body.clone();
                        async move {
                            Ok(mcp::types::ReadResourceResult {
                                contents: vec![mcp::types::ResourceContents::text(uri, body)],
                                ..Default::default()
                            })
                        }
                    },
                )
                .map_err(|e| McpError::internal(e.to_string()))?;
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "added {uri}"
            ))]))
        })
        .tool(Tool::new("count"), |ctx: Context, a: Value| async move {
            let n = a["to"].as_u64().unwrap_or(3).min(100);
            for i in 1..=n {
                let _ = ctx.progress(i as f64, Some(n as f64), None).await;
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "counted to {n}"
            ))]))
        })
        .build()
}

/// The demo upstream `clock` (in process, over HTTP on a loopback port).
fn demo_clock() -> Server {
    Server::builder("clock", "1.0.0")
        .tool(Tool::new("now"), |_ctx, _: Value| async {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default();
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{secs} seconds since 1970"
            ))]))
        })
        .build()
}

/// Starts the demo upstreams: `(name, upstream)` each.
async fn demo_upstreams(timeout: Duration) -> std::io::Result<Vec<(String, Upstream)>> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let clock = demo_clock();
    tokio::spawn(async move {
        let opts = mcp::transport::http::HttpOptions::default();
        let never = mcp::CancellationToken::new();
        let _ = clock.serve_http_on(listener, opts, never).await;
    });
    let me = std::env::current_exe()?;
    Ok(vec![
        (
            "notes".to_owned(),
            Upstream::stdio(me, ["--demo-upstream"]).timeout(timeout),
        ),
        ("clock".to_owned(), Upstream::http(url).timeout(timeout)),
    ])
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = parse_args();
    if args.demo_upstream {
        return demo_notes().serve_stdio().await;
    }
    let upstreams = if args.upstreams.is_empty() {
        demo_upstreams(args.timeout).await?
    } else {
        let token = |n: &str| args.tokens.iter().find(|(t, _)| t == n).map(|(_, v)| v);
        let sharing = |n: &String| match args.per_caller.contains(n) {
            true => Sharing::PerCaller,
            false => Sharing::Shared,
        };
        (args.upstreams.iter())
            .map(|(n, spec)| {
                let u = upstream_of(spec, token(n)).timeout(args.timeout);
                (n.clone(), u.sharing(sharing(n)))
            })
            .collect()
    };
    // Every upstream's readiness, in one layer (a loop cannot add a layer per upstream:
    // each `.middleware(..)` changes the builder's type).
    let readiness = ReadinessSet::new();
    let mut gateway = Server::builder("gateway", env!("CARGO_PKG_VERSION"))
        .instructions("One front door: local tools, and each upstream's under its name.")
        .subscriptions(true)
        .registry(|r| {
            r.add_tool_def::<hello>();
        });
    for (name, upstream) in upstreams {
        let described = upstream.describe();
        // An upstream down now does not stop the gateway: its tools are listed when it
        // answers (and leave the lists whenever it stops answering).
        let proxy = Proxy::start(upstream.name(name.clone())).await;
        match proxy.down() {
            None => eprintln!("gateway: `{name}` is {described}"),
            Some(why) => eprintln!("gateway: `{name}` ({described}) is down for now: {why}"),
        }
        readiness.add(proxy.readiness());
        gateway = gateway.mount(name, proxy.server());
    }
    let gateway = gateway
        .middleware(readiness)
        .try_build()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    match args.serve {
        Serve::Stdio => gateway.serve_stdio().await,
        Serve::Http(addr) => {
            eprintln!("gateway on http://{addr}/mcp");
            gateway.serve_http(addr).await
        }
    }
}
