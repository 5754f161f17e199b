//! The benchmark's two tools (`add`, `echo`) on rmcp, the official Rust MCP SDK, written the
//! way its documentation shows (`#[tool_router]` + `#[tool_handler]`).
//!
//! `rmcp-server --stdio` (tokio's blocking stdin/stdout), `--stdio-pipes` (rmcp's non-blocking
//! pipe transport), or `--http 127.0.0.1:PORT` (Streamable HTTP at `/mcp`,
//! legacy sessions on, as by default).

use std::sync::Arc;

use axum::serve::ListenerExt;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

#[derive(Clone)]
struct Bench {
    // Read by the code `#[tool_handler]` generates.
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

#[tool_router]
impl Bench {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Adds two integers.")]
    async fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        (a + b).to_string()
    }

    #[tool(description = "Answers the text it was given.")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None | Some("--stdio") => {
            Bench::new()
                .serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
        }
        Some("--stdio-pipes") => {
            Bench::new()
                .serve(rmcp::transport::io::stdio_pipes())
                .await?
                .waiting()
                .await?;
        }
        Some("--http") => {
            let addr = args.get(1).ok_or("--http needs an address")?;
            let service = StreamableHttpService::new(
                || Ok(Bench::new()),
                Arc::new(LocalSessionManager::default()),
                StreamableHttpServerConfig::default(),
            );
            let router = axum::Router::new().nest_service("/mcp", service);
            // TCP_NODELAY as every server in the comparison sets it: without it rmcp's SSE
            // answers (written in several chunks) wait ~40 ms for delayed ACKs.
            let listener = tokio::net::TcpListener::bind(addr.as_str())
                .await?
                .tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await?;
        }
        Some(other) => return Err(format!("unknown argument {other}").into()),
    }
    Ok(())
}
