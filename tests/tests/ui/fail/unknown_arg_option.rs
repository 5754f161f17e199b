#[mcp::tool]
async fn search(#[arg(defualt = 10)] limit: u32) -> String {
    limit.to_string()
}

fn main() {}
