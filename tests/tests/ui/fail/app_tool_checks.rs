//! `#[tool(ui = ...)]` is checked at compile time: a `ui://` URI, a visibility of "model"
//! and/or "app" without repeats, only beside `ui`, and no `_meta.ui` by hand as well.

#[mcp::tool(ui = "https://example.com/view")]
async fn not_ui() -> String {
    String::new()
}

#[mcp::tool(ui = "ui://v/1", visibility())]
async fn empty_visibility() -> String {
    String::new()
}

#[mcp::tool(ui = "ui://v/1", visibility("app", "app"))]
async fn twice() -> String {
    String::new()
}

#[mcp::tool(ui = "ui://v/1", visibility("user"))]
async fn unknown() -> String {
    String::new()
}

#[mcp::tool(visibility("app"))]
async fn without_ui() -> String {
    String::new()
}

#[mcp::tool(ui = "ui://v/1", meta("ui" = 1))]
async fn by_hand() -> String {
    String::new()
}

fn main() {}
