//! The fixture the official MCP conformance suite (npm `@modelcontextprotocol/conformance`)
//! runs its server scenarios against: Streamable HTTP on `127.0.0.1:<port>/mcp`, both eras.
//!
//! `cargo run -p mcp-framework-tests --example conformance_server --all-features -- --port 3001`
//!
//! `base.rs` holds the tools, prompts and resources of the core scenarios; each further
//! module of this folder adds the fixtures of one feature area to the builder.

mod base;
mod completion;
mod content;
mod interaction;
mod skills;
mod sse_polling;
mod subscriptions;
mod tasks;

use mcp::CancellationToken;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;

fn server() -> Server {
    let builder = Server::builder("mcp-rust-conformance", "0.1.0");
    let builder = base::install(builder);
    let builder = completion::install(builder);
    let builder = sse_polling::install(builder);
    let builder = subscriptions::install(builder);
    let builder = content::install(builder);
    let builder = skills::install(builder);
    let builder = tasks::install(builder);
    let builder = interaction::install(builder);
    builder.build()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut port: u16 = 3001;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => {
                port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .expect("--port needs a number");
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let stop = CancellationToken::new();
    mcp::transport::stdio::stop_on_signals(stop.clone());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance server on http://127.0.0.1:{port}/mcp (and /sse, /messages)");
    // The 2024-11-05 HTTP+SSE transport is opt-in; this server offers every transport.
    let opts = HttpOptions {
        legacy_sse: Some(("/sse".into(), "/messages".into())),
        ..HttpOptions::default()
    };
    server().serve_http_on(listener, opts, stop).await
}
