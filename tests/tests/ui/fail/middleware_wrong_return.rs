use mcp::{Context, Next};

#[mcp::middleware]
async fn audit(ctx: Context, next: Next<'_>) -> String {
    let _ = next.run(ctx).await;
    String::new()
}

fn main() {}
