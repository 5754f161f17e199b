use mcp::Context;

#[mcp::tool]
async fn search(ctx: &mut Context, query: String) -> String {
    let _ = ctx;
    query
}

fn main() {}
