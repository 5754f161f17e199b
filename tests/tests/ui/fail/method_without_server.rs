struct Shop;

impl Shop {
    #[mcp::tool]
    async fn search(&self, query: String) -> String {
        query
    }
}

fn main() {}
