//! Middleware from functions: listed on a server, and usable with the builder API.

use mcp::prelude::*;

/// Counts nothing, passes everything on.
#[mcp::middleware]
async fn pass_through(ctx: Context, next: Next<'_>) -> HandlerResult {
    next.run(ctx).await
}

#[mcp::middleware]
pub async fn rewrite(mut ctx: mcp::Context, next: mcp::Next<'_>) -> mcp::HandlerResult {
    if ctx.method() == "tools/list" {
        ctx.extensions_mut().insert(1u8);
    }
    next.run(ctx).await
}

#[mcp::tool]
async fn search(query: String) -> String {
    query
}

#[mcp::server(tools(search), middleware(pass_through, rewrite))]
struct Shop;

fn main() {
    let _: Server<(pass_through, rewrite), Shop> = Shop.into_server();
    let _ = Server::builder("x", "1").layers((rewrite, pass_through)).build();
}
