struct Shop;

#[mcp::server]
impl Shop {
    #[tool]
    async fn search(query: String) -> String {
        query
    }
}

fn main() {}
