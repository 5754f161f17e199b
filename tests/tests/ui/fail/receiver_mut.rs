struct Shop;

#[mcp::server]
impl Shop {
    #[tool]
    async fn restock(&mut self, title: String) -> String {
        title
    }
}

fn main() {}
