//! Every supported return type, both context forms, and the impl-block form.

use mcp::prelude::*;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Book {
    title: String,
}

#[mcp::tool]
async fn text() -> String {
    String::new()
}
#[mcp::tool]
async fn static_str(_ctx: Context) -> &'static str {
    "ok"
}
#[mcp::tool]
async fn number(_ctx: &Context) -> f64 {
    1.5
}
#[mcp::tool]
async fn nothing() {}
#[mcp::tool]
async fn block() -> ContentBlock {
    ContentBlock::text("x")
}
#[mcp::tool]
async fn blocks() -> Vec<ContentBlock> {
    vec![]
}
#[mcp::tool]
async fn full() -> CallToolResult {
    CallToolResult::success(vec![])
}
#[mcp::tool]
async fn structured(title: String) -> Json<Book> {
    Json(Book { title })
}
#[mcp::tool]
async fn fallible(n: u32) -> Result<Json<Vec<Book>>, ToolError> {
    let _: u8 = u8::try_from(n)?;
    Ok(Json(vec![]))
}
#[mcp::tool]
async fn fallible_text(r#type: String) -> Result<String, String> {
    Err(r#type)
}

/// Instructions from the doc comment.
#[mcp::server(
    name = "all",
    version = "1.0.0",
    tools(text, static_str, number, nothing, block, blocks, full, structured, fallible, fallible_text)
)]
struct All;

struct Methods {
    prefix: String,
}

#[mcp::server(tools(text))]
impl Methods {
    #[tool(read_only)]
    async fn greet(&self, name: Option<String>, ctx: &Context) -> String {
        let _ = ctx;
        format!("{}{}", self.prefix, name.unwrap_or_default())
    }
}

fn main() {
    let _: Server<(), All> = All.into_server();
    let _ = Methods {
        prefix: String::new(),
    }
    .into_server();
    // The generated tool types stay callable as plain functions.
    let _ = text();
}
