#[mcp::resource("books://{+path}")]
async fn book(path: String) -> String {
    path
}

#[mcp::resource]
async fn nothing() -> String {
    String::new()
}

fn main() {}
