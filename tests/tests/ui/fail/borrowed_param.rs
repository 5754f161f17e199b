#[mcp::tool]
async fn search(query: &str) -> String {
    query.to_owned()
}

fn main() {}
