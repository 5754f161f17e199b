// A plain function (no `#[mcp::prompt]`, `#[mcp::resource]`, `#[mcp::completion]`) in a
// server's lists is the handler trait's error, with its note naming the attribute.
async fn greet(name: String) -> String {
    name
}

mod library {
    pub async fn catalog() -> String {
        String::new()
    }
}

#[mcp::server(prompts(greet), resources(library::catalog))]
struct Shop;

fn main() {}
