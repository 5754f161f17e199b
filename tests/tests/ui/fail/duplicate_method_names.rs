struct Shop;

#[mcp::server]
impl Shop {
    #[tool(name = "find")]
    async fn search(&self, query: String) -> String {
        query
    }

    #[tool(name = "find")]
    async fn lookup(&self, query: String) -> String {
        query
    }
}

fn main() {}
