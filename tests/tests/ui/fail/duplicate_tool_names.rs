#[mcp::tool(name = "find")]
async fn search(query: String) -> String {
    query
}

#[mcp::tool(name = "find")]
async fn lookup(query: String) -> String {
    query
}

#[mcp::server(tools(search, lookup))]
struct Shop;

fn main() {}
