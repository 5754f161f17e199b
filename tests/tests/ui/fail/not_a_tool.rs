async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search))]
struct Shop;

fn main() {}
