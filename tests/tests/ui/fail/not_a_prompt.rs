#[mcp::tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[mcp::server(prompts(add), resources(add))]
struct Shop;

fn main() {}
