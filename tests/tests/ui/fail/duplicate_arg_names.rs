#[mcp::tool]
async fn search(query: String, #[arg(rename = "query")] other: String) -> String {
    query + &other
}

fn main() {}
