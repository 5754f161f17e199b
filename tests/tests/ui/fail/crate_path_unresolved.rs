//! Generated code names the crate path `crate = "..."` gives: a path to nowhere fails there.

#[mcp::prompt(crate = "nowhere::mcp")]
async fn greet(name: String) -> String {
    name
}

fn main() {}
