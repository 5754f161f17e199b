//! `crate = "..."` must be a path.

#[mcp::tool(crate = "not a path!")]
async fn search(query: String) -> String {
    query
}

fn main() {}
