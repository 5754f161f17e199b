use mcp::prelude::*;

#[mcp::completion(prompt = "greet", argument = "name")]
async fn twice(prefix: String, again: String, limit: u32, ctx: &Context, ctx2: Context) -> Vec<String> {
    let _ = (again, limit, ctx, ctx2);
    vec![prefix]
}

#[mcp::completion(argument = "name")]
async fn no_target(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::completion(prompt = "greet", resource = "books://{id}", argument = "id", limit = 3)]
async fn both(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::completion(prompt = "greet", argument = "name")]
async fn bad_return(prefix: String) -> u32 {
    prefix.len() as u32
}

fn main() {}
