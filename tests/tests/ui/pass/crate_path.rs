//! `crate = "..."` on every attribute: generated code names `mcp` where a crate re-exports
//! it, and types are recognised under that path too.
#![deny(warnings)]

extern crate mcp as my_mcp;

mod reexport {
    pub use ::mcp as inner;
}

use my_mcp::prelude::{Context, Next};

#[my_mcp::tool(crate = "my_mcp", read_only)]
async fn search(query: String, ctx: &my_mcp::Context) -> String {
    let _ = ctx;
    query
}

#[my_mcp::prompt(crate = "crate::reexport::inner")]
async fn greet(name: String, _ctx: crate::reexport::inner::Context) -> String {
    name
}

#[my_mcp::resource("books://{id}", crate = "my_mcp")]
async fn book(id: u32) -> String {
    id.to_string()
}

#[my_mcp::completion(prompt = "greet", argument = "name", crate = "my_mcp")]
async fn names(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[my_mcp::middleware(crate = "my_mcp")]
async fn pass_through(ctx: Context, next: Next<'_>) -> my_mcp::HandlerResult {
    next.run(ctx).await
}

#[my_mcp::server(
    crate = "crate::reexport::inner",
    tools(search),
    prompts(greet),
    resources(book),
    completions(names),
    middleware(pass_through)
)]
struct Shop;

struct Library;

#[my_mcp::server(crate = "my_mcp")]
impl Library {
    #[my_mcp::tool]
    async fn find(&self, title: String, state: my_mcp::State<Library>) -> String {
        let _ = state;
        title
    }

    #[my_mcp::prompt(crate = "crate::reexport::inner")]
    async fn intro(&self) -> String {
        String::new()
    }
}

fn main() {
    let _ = Shop.into_server();
    let _ = Library.into_server();
}
