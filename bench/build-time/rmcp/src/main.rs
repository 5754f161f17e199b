//! The Bookshop server of `examples/bookshop.rs` on rmcp: the same tool, a timing log around
//! every tool call (rmcp has no middleware chain, so the handler's `call_tool` does it), and
//! the same two modes (`--stdio`, or an in-memory demo driven by rmcp's client, as ours is by
//! `mcp::client::Client`). It exists to time a clean build
//! against ours (`bench/build_time.sh`).

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolRequestParams, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};

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
    let client = ().serve(client).await?;
    if let Some(peer) = client.peer_info() {
        let (name, version) = peer
            .server_info
            .as_ref()
            .map_or(("", ""), |i| (i.name.as_str(), i.version.as_str()));
        println!("connected to {name} {version} (protocol {})", peer.protocol_version);
    }
    for tool in client.list_all_tools().await? {
        let description = tool.description.as_deref().unwrap_or("");
        println!("tool: {} - {description}", tool.name);
    }
    let args = serde_json::json!({"query": "dune"});
    let args = args.as_object().cloned().unwrap_or_default();
    let params = CallToolRequestParams::new("search_books").with_arguments(args);
    let result = client.call_tool(params).await?;
    let text = result.content.first().and_then(|c| c.as_text()).map_or("", |t| t.text.as_str());
    println!("search_books(\"dune\") -> {text}");
    client.cancel().await?;
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
