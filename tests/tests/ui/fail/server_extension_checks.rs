//! `#[mcp::server(extensions(...))]` checks each identifier at compile time.

#[mcp::tool]
async fn t() -> String {
    String::new()
}

#[mcp::server(
    tools(t),
    extensions(
        "no-prefix" = serde_json::json!({}),
        "io.modelcontextprotocol/tasks" = serde_json::json!({}),
        "com.example/x" = serde_json::json!({}),
        "com.example/x" = serde_json::json!({})
    )
)]
struct S;

fn main() {}
