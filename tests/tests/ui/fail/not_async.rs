/// Not async.
#[mcp::tool]
fn search(query: String) -> String {
    query
}

fn main() {}
