#[mcp::tool(
    icons("icon.png", "https://", "data:image/png"),
    meta(
        "io.modelcontextprotocol/tier" = 1,
        "com.example/a" = 1,
        "com.example/a" = 2,
        "bad key!" = 3,
        "traceparent" = "x"
    )
)]
async fn decorated() -> String {
    String::new()
}

fn main() {}
