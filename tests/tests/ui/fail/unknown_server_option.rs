#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tool(search), verison = "1.0")]
struct Shop;

fn main() {}
