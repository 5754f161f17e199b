//! The Bookshop server of `examples/bookshop.rs` on rmcp: the same tool, a timing log around
//! every tool call (rmcp has no middleware chain, so the handler's `call_tool` does it), and
//! the same two modes (`--stdio`, or an in-memory demo). It exists to time a clean build
//! against ours (`bench/build_time.sh`).

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(Clone)]
struct Bookshop {
    tool_router: ToolRouter<Self>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// Words to look for in titles and authors.
    query: String,
}

#[tool_router]
impl Bookshop {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Search the catalogue by title or author.")]
    async fn search_books(&self, Parameters(SearchArgs { query }): Parameters<SearchArgs>) -> String {
        format!("Found 3 books matching '{query}'.")
    }
}

#[tool_handler]
impl ServerHandler for Bookshop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let started = std::time::Instant::now();
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let out = self.tool_router.call(tcc).await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        tracing::info!(target: "bookshop", "tools/call took {ms:.3} ms");
        out
    }
}

async fn demo() -> Result<(), Box<dyn std::error::Error>> {
    let (client, server) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Bookshop::new().serve(server).await {
            let _ = running.waiting().await;
        }
    });
    let (r, mut w) = tokio::io::split(client);
    w.write_all(br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bookshop-demo","version":"1.0.0"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
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
    println!("connected to {} {} (protocol {protocol})", t(&info["name"]), t(&info["version"]));
    for tool in out[1]["tools"].as_array().into_iter().flatten() {
        println!("tool: {} - {}", t(&tool["name"]), t(&tool["description"]));
    }
    println!("search_books(\"dune\") -> {}", t(&out[2]["content"][0]["text"]));
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let log = tracing_subscriber::fmt().with_writer(std::io::stderr);
    log.with_target(false).without_time().with_ansi(ansi).init();
    if std::env::args().any(|a| a == "--stdio") {
        Bookshop::new()
            .serve(rmcp::transport::stdio())
            .await?
            .waiting()
            .await?;
    } else {
        demo().await?;
    }
    Ok(())
}
