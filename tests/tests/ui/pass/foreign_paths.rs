//! Attributes and injected types are ours by path: `#[rust_analyzer::tool]` (a tool attribute rustc
//! leaves alone) on a method of a `#[mcp::server] impl` is not a tool, and `other::Context` is
//! a plain argument. Were either taken for ours, this would not compile: `helper` takes no
//! `&self` and a `u8` pattern, and `look` would take two contexts.
#![deny(warnings)]

use mcp::prelude::*;

mod other {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Context {
        pub id: u32,
    }
}

#[mcp::tool]
async fn look(ctx: other::Context, real: &Context) -> String {
    let _ = real;
    ctx.id.to_string()
}

struct Library;

#[mcp::server(tools(look))]
impl Library {
    #[tool]
    async fn find(&self, title: String) -> String {
        title
    }

    #[rust_analyzer::tool]
    fn helper((a, b): (u8, u8)) -> u8 {
        a + b
    }
}

fn main() {
    let _ = Library.into_server();
    let _ = Library::helper((1, 2));
}
