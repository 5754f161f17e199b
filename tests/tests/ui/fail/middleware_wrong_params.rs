use mcp::{Context, HandlerResult};

#[mcp::middleware]
async fn audit(ctx: Context) -> HandlerResult {
    let _ = ctx;
    todo!()
}

fn main() {}
