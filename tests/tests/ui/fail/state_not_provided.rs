use mcp::prelude::*;

struct Db;

#[mcp::tool]
async fn lookup(db: State<Db>) -> String {
    let _ = db;
    String::new()
}

#[mcp::server(tools(lookup))]
struct Shop;

fn main() {}
