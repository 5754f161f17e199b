struct Books(Vec<String>);

#[mcp::tool]
async fn search(query: String) -> Books {
    Books(vec![query])
}

fn main() {}
