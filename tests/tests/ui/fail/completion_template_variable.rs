#[mcp::completion(resource = "books://{id}", argument = "shelf")]
async fn shelves(prefix: String) -> Vec<String> {
    vec![prefix]
}

#[mcp::completion(resource = "books://catalog", argument = "id")]
async fn nothing(prefix: String) -> Vec<String> {
    vec![prefix]
}

fn main() {}
