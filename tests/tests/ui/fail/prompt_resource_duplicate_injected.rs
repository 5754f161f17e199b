use mcp::prelude::*;

#[mcp::prompt]
async fn greet(name: String, a: Progress, b: &Progress) -> String {
    let _ = (a, b);
    name
}

#[mcp::resource("books://{id}")]
async fn book(
    id: String,
    first: State<'_, ()>,
    token: CancellationToken,
    second: State<()>,
    #[arg(rename = "x")] again: &CancellationToken,
) -> String {
    let _ = (first, token, second, again);
    id
}

fn main() {}
