#[mcp::tool(name = "no spaces allowed", colour = "red")]
fn search<T>(query: &str, (a, b): (u8, u8)) -> String {
    let _ = (a, b);
    query.to_owned()
}

fn main() {}
