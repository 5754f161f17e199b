#[mcp::prompt]
async fn summarize(text: String) -> u32 {
    text.len() as u32
}

#[mcp::resource("books://{id}")]
async fn book(id: u32) -> bool {
    id > 0
}

#[mcp::server(prompts(summarize), resources(book))]
struct Shop;

fn main() {}
