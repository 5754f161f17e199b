struct Shop;

#[mcp::server]
impl Shop {
    #[tool]
    async fn close(self) -> String {
        String::new()
    }
}

fn main() {}
