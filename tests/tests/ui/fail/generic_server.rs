#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search))]
struct Shop<T> {
    db: T,
}

fn main() {}
