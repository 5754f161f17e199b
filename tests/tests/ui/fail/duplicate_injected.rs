use mcp::prelude::*;

#[mcp::tool]
async fn work(
    a: CancellationToken,
    b: &CancellationToken,
    p: Progress,
    q: Progress,
    #[arg(default = 1)] ctx: &Context,
) -> String {
    let _ = (a, b, p, q, ctx);
    String::new()
}

fn main() {}
