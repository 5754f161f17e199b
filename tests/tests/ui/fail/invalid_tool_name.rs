#[mcp::tool(name = "search books!")]
async fn search(query: String) -> String {
    query
}

fn main() {}
