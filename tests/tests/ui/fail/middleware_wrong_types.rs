use mcp::{Context, HandlerResult, Next};

#[mcp::middleware]
async fn audit(ctx: &Context, next: String) -> HandlerResult {
    let _ = (ctx, next);
    todo!()
}

fn main() {}
