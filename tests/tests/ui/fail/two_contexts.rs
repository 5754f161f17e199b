use mcp::Context;

#[mcp::tool]
async fn search(ctx: &Context, query: String, again: Context) -> String {
    let _ = (ctx, again);
    query
}

fn main() {}
