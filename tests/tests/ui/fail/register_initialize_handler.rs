#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search), methods(initialize))]
struct Shop;

fn main() {}
