#[mcp::tool(task = "sometimes")]
async fn job() -> String {
    String::new()
}

fn main() {}
