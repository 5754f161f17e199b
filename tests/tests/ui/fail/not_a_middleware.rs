#[mcp::tool]
async fn search(query: String) -> String {
    query
}

struct Audit;

#[mcp::server(tools(search), middleware(Audit))]
struct Shop;

fn main() {}
