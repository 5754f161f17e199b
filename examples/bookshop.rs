//! The Bookshop server, written with the plain builder API.
//!
//! - `cargo run --example bookshop -- --stdio` serves MCP over stdin/stdout (stdout carries
//!   protocol frames only; logs go to stderr).
//! - `cargo run --example bookshop` runs a self-contained demo: it starts the server, connects
//!   a client over an in-memory pipe, lists the tools, calls `search_books`, and prints the
//!   result; the `log_timing` middleware's lines appear on stderr.

use std::time::Instant;

use mcp::middleware::Endpoint;
use mcp::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Logs `<method> took <ms> ms` for every message.
struct LogTiming;

impl Middleware for LogTiming {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let method = ctx.method().to_owned();
        let started = Instant::now();
        let out = next.run(ctx).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        tracing::info!(target: "bookshop", "{method} took {ms:.3} ms");
        out
    }
}

#[derive(serde::Deserialize)]
struct SearchArgs {
    /// Words to look for in titles and authors.
    query: String,
}

fn bookshop() -> Server<(LogTiming,)> {
    Server::builder("bookshop", env!("CARGO_PKG_VERSION"))
        .instructions("A small bookshop: search the catalogue with search_books.")
        .tool(
            Tool::new("search_books")
                .with_description("Search the catalogue by title or author.")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "Words to look for in titles and authors."}
                    },
                    "required": ["query"]
                })),
            |_ctx, args: SearchArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "Found 3 books matching '{}'.",
                    args.query
                ))]))
            },
        )
        .layers((LogTiming,))
        .build()
}

/// The demo client: raw JSON-RPC lines over the in-memory pipe.
async fn demo() -> std::io::Result<()> {
    let server = bookshop();
    let (r, mut w) = tokio::io::split(server.serve_in_memory());
    let mut lines = BufReader::new(r).lines();
    let mut next_id = 0;
    let mut request = async |method: &str, params: Value| -> std::io::Result<Value> {
        next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
        w.write_all(format!("{msg}\n").as_bytes()).await?;
        let line = lines
            .next_line()
            .await?
            .expect("server closed the connection");
        Ok(serde_json::from_str(&line).expect("server sent invalid JSON"))
    };

    let init = request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "bookshop-demo", "version": "1.0.0"}}),
    )
    .await?;
    println!(
        "connected to {} {} (protocol {})",
        init["result"]["serverInfo"]["name"].as_str().unwrap_or("?"),
        init["result"]["serverInfo"]["version"]
            .as_str()
            .unwrap_or("?"),
        init["result"]["protocolVersion"].as_str().unwrap_or("?"),
    );
    let tools = request("tools/list", json!({})).await?;
    for tool in tools["result"]["tools"].as_array().into_iter().flatten() {
        println!(
            "tool: {} - {}",
            tool["name"].as_str().unwrap_or("?"),
            tool["description"].as_str().unwrap_or("")
        );
    }
    let result = request(
        "tools/call",
        json!({"name": "search_books", "arguments": {"query": "dune"}}),
    )
    .await?;
    println!(
        "search_books(\"dune\") -> {}",
        result["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("<no text>")
    );
    Ok(())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    if std::env::args().any(|a| a == "--stdio") {
        bookshop().serve_stdio().await
    } else {
        demo().await
    }
}
