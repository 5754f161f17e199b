//! `tags(...)` on `#[tool]`, `#[prompt]` and `#[resource]` is checked at compile time, each
//! mistake at the token that makes it: an empty list, an empty tag, a tag given twice, a
//! tag that is not a string literal, and `_meta.tags` given by hand beside `tags(...)`.

#[mcp::tool(tags())]
async fn no_tags() -> String {
    String::new()
}

#[mcp::tool(tags("admin", ""))]
async fn empty_tag() -> String {
    String::new()
}

#[mcp::tool(tags("admin", "billing", "admin"))]
async fn twice() -> String {
    String::new()
}

#[mcp::tool(tags(admin, 7))]
async fn not_strings() -> String {
    String::new()
}

#[mcp::tool(tags("admin"), meta("tags" = ["x"]))]
async fn by_hand() -> String {
    String::new()
}

#[mcp::prompt(tags("a", "a"))]
async fn prompt_twice() -> String {
    String::new()
}

#[mcp::resource("data://x", tags(""))]
async fn resource_empty() -> String {
    String::new()
}

fn main() {}
