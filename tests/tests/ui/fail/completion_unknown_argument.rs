#[mcp::prompt]
async fn greet(name: String) -> String {
    name
}

#[mcp::completion(prompt = "greet", argument = "nmae")]
async fn names(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::completion(prompt = "great", argument = "name")]
async fn more_names(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::server(prompts(greet), completions(names, more_names))]
struct Shop;

fn main() {}
