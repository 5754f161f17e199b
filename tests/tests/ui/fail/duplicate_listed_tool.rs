#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search, search))]
struct Shop;

fn main() {}
