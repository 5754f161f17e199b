#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

#[mcp::server(
    tools(echo),
    title = "",
    page_size = 0,
    max_listens = 0,
    versions("2025-06-18", "2099-01-01", "2025-06-18"),
    cache(ttl_ms = 1000, scope = "everyone", method = "tools/call"),
    subscriptions = "yes"
)]
struct Bad;

#[mcp::server(tools(echo), cache(scope = "public"), versions())]
struct AlsoBad;

fn main() {}
