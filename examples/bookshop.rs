//! The Bookshop server: `--stdio` serves MCP over stdio; no arguments runs an in-memory demo.

use mcp::prelude::*;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Search the catalogue by title or author.
#[mcp::tool]
async fn search_books(#[doc = "Words to look for in titles and authors."] query: String) -> String {
    format!("Found 3 books matching '{query}'.")
}

/// Logs `<method> took <ms> ms` for every message.
#[mcp::middleware]
async fn log_timing(ctx: Context, next: Next<'_>) -> HandlerResult {
    let (method, started) = (ctx.method().to_owned(), std::time::Instant::now());
    let out = next.run(ctx).await;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    tracing::info!(target: "bookshop", "{method} took {ms:.3} ms");
    out
}

/// The Bookshop: one tool and a timing middleware.
#[mcp::server(
    name = "bookshop",
    instructions = "A small bookshop: search the catalogue with search_books.",
    tools(search_books),
    middleware(log_timing)
)]
struct Bookshop;

async fn demo() -> std::io::Result<()> {
    let (r, mut w) = tokio::io::split(Bookshop.into_server().serve_in_memory());
    w.write_all(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bookshop-demo","version":"1.0.0"}}}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_books","arguments":{"query":"dune"}}}
"#).await?;
    let (mut lines, mut out) = (BufReader::new(r).lines(), vec![Value::Null; 3]);
    for _ in 0..3 {
        let mut v: Value = serde_json::from_str(&lines.next_line().await?.unwrap_or_default())?;
        out[v["id"].as_u64().unwrap_or(0) as usize % 3] = v["result"].take();
    }
    let t = |v: &Value| v.as_str().unwrap_or("").to_owned();
    let (info, protocol) = (&out[0]["serverInfo"], t(&out[0]["protocolVersion"]));
    let (name, version) = (t(&info["name"]), t(&info["version"]));
    println!("connected to {name} {version} (protocol {protocol})");
    for tool in out[1]["tools"].as_array().into_iter().flatten() {
        println!("tool: {} - {}", t(&tool["name"]), t(&tool["description"]));
    }
    let text = t(&out[2]["content"][0]["text"]);
    println!("search_books(\"dune\") -> {text}");
    Ok(())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let log = tracing_subscriber::fmt().with_writer(std::io::stderr);
    log.with_target(false).without_time().with_ansi(ansi).init();
    match std::env::args().any(|a| a == "--stdio") {
        true => Bookshop.serve_stdio().await,
        false => demo().await,
    }
}
