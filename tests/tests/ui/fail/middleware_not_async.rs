use mcp::{Context, HandlerResult, Next};

#[mcp::middleware]
fn audit(ctx: Context, next: Next<'_>) -> HandlerResult {
    let _ = (ctx, next);
    todo!()
}

fn main() {}
