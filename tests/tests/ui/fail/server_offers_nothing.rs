#[mcp::server(name = "empty")]
struct Empty;

fn main() {}
