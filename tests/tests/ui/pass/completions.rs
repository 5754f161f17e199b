//! Completions, injected parameters, icons and meta compile warning-free in the user crate.
#![deny(warnings)]

use mcp::prelude::*;

#[mcp::prompt]
async fn greet(name: String) -> String {
    name
}

#[mcp::completion(prompt = "greet", argument = "name")]
async fn names(prefix: String, ctx: Context, resolved: ResolvedArguments) -> Vec<String> {
    let _ = (ctx, resolved);
    vec![prefix]
}

#[mcp::tool(icons("https://example.com/i.png"), meta("com.example/k" = true))]
async fn work(state: State<Shop>, token: CancellationToken, progress: &Progress) -> String {
    let _ = (state.0, token.is_cancelled(), progress.is_requested());
    String::new()
}

#[mcp::server(tools(work), prompts(greet), completions(names))]
struct Shop(u8);

struct Library;

#[mcp::server]
impl Library {
    #[prompt]
    async fn find(&self, title: String) -> String {
        title
    }

    #[completion(prompt = "find", argument = "title")]
    async fn titles(&self, prefix: String) -> Result<Vec<String>, McpError> {
        Ok(vec![prefix])
    }
}

fn main() {
    let _ = Shop(1).into_server();
    let _ = Library.into_server();
}
