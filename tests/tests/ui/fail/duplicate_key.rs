//! Every attribute rejects a key given twice, at both places, and keeps going.

#[mcp::tool(name = "a", read_only, name = "b")]
async fn search(#[arg(rename = "q")] #[arg(rename = "r")] query: String) -> String {
    query
}

#[mcp::prompt(title = "t", title = "u")]
async fn greet(name: String) -> String {
    name
}

#[mcp::resource("books://catalog", uri = "books://other")]
async fn catalog() -> String {
    String::new()
}

#[mcp::completion(prompt = "greet", argument = "name", argument = "name")]
async fn names(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::server(name = "x", tools(search), name = "y", tools(search))]
struct Shop;

fn main() {}
