//! The Bookshop server: `--stdio` serves MCP over stdio; no arguments runs an in-memory demo
//! in which `mcp::client::Client` connects, lists the tools and calls one.

use mcp::prelude::*;
use serde_json::json;

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

/// The demo: a client talks to the Bookshop over an in-memory pipe, as any MCP client would.
async fn demo() -> Result<(), mcp::client::ClientError> {
    let client = mcp::client::Client::connect(Bookshop.into_server().serve_in_memory()).await?;
    let info = client.server_info().unwrap_or_default();
    let protocol = client.protocol_version();
    println!(
        "connected to {} {} (protocol {protocol})",
        info.name, info.version
    );
    for tool in client.list_all_tools().await? {
        let description = tool.description.as_deref().unwrap_or("");
        println!("tool: {} - {description}", tool.name);
    }
    let result = client
        .call_tool("search_books", json!({"query": "dune"}))
        .await?;
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .unwrap_or("");
    println!("search_books(\"dune\") -> {text}");
    client.close().await
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let log = tracing_subscriber::fmt().with_writer(std::io::stderr);
    log.with_target(false).without_time().with_ansi(ansi).init();
    match std::env::args().any(|a| a == "--stdio") {
        true => Bookshop.serve_stdio().await,
        false => demo().await.map_err(std::io::Error::other),
    }
}
