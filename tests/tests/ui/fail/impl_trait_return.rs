#[mcp::tool]
async fn search(query: String) -> impl std::fmt::Display {
    query
}

fn main() {}
