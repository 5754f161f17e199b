use mcp::prelude::*;

struct Audit;

fn main() {
    let _ = Server::builder("shop", "1.0.0").middleware(Audit).build();
}
