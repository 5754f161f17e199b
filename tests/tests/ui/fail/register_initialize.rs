#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search), initialize = my_initialize)]
struct Shop;

fn main() {}
