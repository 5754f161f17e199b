#[mcp::tool(read_onyl, titel = "Search")]
async fn search(query: String) -> String {
    query
}

fn main() {}
