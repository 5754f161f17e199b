//! Middleware from functions: listed on a server, and usable with the builder API.

use std::sync::Arc;

use mcp::middleware::{DynMiddleware, Then};
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

// Thirteen layers: more than a tuple holds, so the last is in a `Then`.
macro_rules! layers {
    ($($name:ident),*) => {$(
        #[mcp::middleware]
        async fn $name(ctx: Context, next: Next<'_>) -> HandlerResult {
            next.run(ctx).await
        }
    )*};
}
layers!(m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13);

#[mcp::server(
    tools(search),
    middleware(m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13)
)]
struct Deep;

fn main() {
    let _: Server<(pass_through, rewrite), Shop> = Shop.into_server();
    let _: Server<(rewrite, pass_through)> = Server::builder("x", "1")
        .middleware(rewrite)
        .middleware(pass_through)
        .build();
    // Static and boxed in one chain, in the order added.
    let boxed: Arc<dyn DynMiddleware> = Arc::new(pass_through);
    let _: Server<(rewrite, Arc<dyn DynMiddleware>, Option<rewrite>)> = Server::builder("x", "1")
        .middleware(rewrite)
        .middleware(boxed)
        .middleware(None::<rewrite>)
        .build();
    let _: Server<
        Then<(m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12), m13>,
        Deep,
    > = Deep.into_server();
}
