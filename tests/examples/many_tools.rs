//! Build-time benchmark: a server with 50 tools, each with three typed arguments (doc
//! comments, an `Option`, a default) and a mix of return types. `cargo run -p mcp-framework-tests --example many_tools`
//! lists them and calls each once over an in-memory pipe.

use mcp::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Tool number 0.
#[mcp::tool(read_only)]
async fn tool_00(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_00: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 1.
#[mcp::tool(read_only)]
async fn tool_01(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_01: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 2.
#[mcp::tool(read_only)]
async fn tool_02(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 3.
#[mcp::tool(read_only)]
async fn tool_03(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_03: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 4.
#[mcp::tool(read_only)]
async fn tool_04(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_04: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 5.
#[mcp::tool(read_only)]
async fn tool_05(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 6.
#[mcp::tool(read_only)]
async fn tool_06(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_06: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 7.
#[mcp::tool(read_only)]
async fn tool_07(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_07: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 8.
#[mcp::tool(read_only)]
async fn tool_08(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 9.
#[mcp::tool(read_only)]
async fn tool_09(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_09: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 10.
#[mcp::tool(read_only)]
async fn tool_10(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_10: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 11.
#[mcp::tool(read_only)]
async fn tool_11(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 12.
#[mcp::tool(read_only)]
async fn tool_12(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_12: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 13.
#[mcp::tool(read_only)]
async fn tool_13(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_13: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 14.
#[mcp::tool(read_only)]
async fn tool_14(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 15.
#[mcp::tool(read_only)]
async fn tool_15(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_15: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 16.
#[mcp::tool(read_only)]
async fn tool_16(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_16: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 17.
#[mcp::tool(read_only)]
async fn tool_17(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 18.
#[mcp::tool(read_only)]
async fn tool_18(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_18: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 19.
#[mcp::tool(read_only)]
async fn tool_19(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_19: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 20.
#[mcp::tool(read_only)]
async fn tool_20(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 21.
#[mcp::tool(read_only)]
async fn tool_21(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_21: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 22.
#[mcp::tool(read_only)]
async fn tool_22(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_22: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 23.
#[mcp::tool(read_only)]
async fn tool_23(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 24.
#[mcp::tool(read_only)]
async fn tool_24(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_24: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 25.
#[mcp::tool(read_only)]
async fn tool_25(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_25: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 26.
#[mcp::tool(read_only)]
async fn tool_26(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 27.
#[mcp::tool(read_only)]
async fn tool_27(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_27: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 28.
#[mcp::tool(read_only)]
async fn tool_28(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_28: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 29.
#[mcp::tool(read_only)]
async fn tool_29(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 30.
#[mcp::tool(read_only)]
async fn tool_30(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_30: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 31.
#[mcp::tool(read_only)]
async fn tool_31(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_31: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 32.
#[mcp::tool(read_only)]
async fn tool_32(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 33.
#[mcp::tool(read_only)]
async fn tool_33(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_33: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 34.
#[mcp::tool(read_only)]
async fn tool_34(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_34: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 35.
#[mcp::tool(read_only)]
async fn tool_35(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 36.
#[mcp::tool(read_only)]
async fn tool_36(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_36: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 37.
#[mcp::tool(read_only)]
async fn tool_37(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_37: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 38.
#[mcp::tool(read_only)]
async fn tool_38(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 39.
#[mcp::tool(read_only)]
async fn tool_39(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_39: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 40.
#[mcp::tool(read_only)]
async fn tool_40(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_40: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 41.
#[mcp::tool(read_only)]
async fn tool_41(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 42.
#[mcp::tool(read_only)]
async fn tool_42(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_42: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 43.
#[mcp::tool(read_only)]
async fn tool_43(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_43: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 44.
#[mcp::tool(read_only)]
async fn tool_44(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 45.
#[mcp::tool(read_only)]
async fn tool_45(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_45: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 46.
#[mcp::tool(read_only)]
async fn tool_46(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_46: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Tool number 47.
#[mcp::tool(read_only)]
async fn tool_47(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> i64 {
    let _ = ctx;
    query.len() as i64 + i64::from(limit) + tag.map_or(0, |t| t.len() as i64)
}

/// Tool number 48.
#[mcp::tool(read_only)]
async fn tool_48(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> String {
    let _ = ctx;
    format!("tool_48: {query} {} {limit}", tag.unwrap_or_default())
}

/// Tool number 49.
#[mcp::tool(read_only)]
async fn tool_49(
    /// What to look for.
    query: String,
    /// An optional tag.
    tag: Option<String>,
    /// How many at most.
    #[arg(default = 10)]
    limit: u32,
    ctx: &Context,
) -> Result<String, ToolError> {
    let _ = ctx;
    Ok(format!(
        "tool_49: {query} {} {limit}",
        tag.unwrap_or_default()
    ))
}

/// Fifty tools.
#[mcp::server(
    name = "many",
    tools(
        tool_00, tool_01, tool_02, tool_03, tool_04, tool_05, tool_06, tool_07, tool_08, tool_09,
        tool_10, tool_11, tool_12, tool_13, tool_14, tool_15, tool_16, tool_17, tool_18, tool_19,
        tool_20, tool_21, tool_22, tool_23, tool_24, tool_25, tool_26, tool_27, tool_28, tool_29,
        tool_30, tool_31, tool_32, tool_33, tool_34, tool_35, tool_36, tool_37, tool_38, tool_39,
        tool_40, tool_41, tool_42, tool_43, tool_44, tool_45, tool_46, tool_47, tool_48, tool_49,
    )
)]
struct Many;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let (r, mut w) = tokio::io::split(Many.into_server().serve_in_memory());
    let mut lines = BufReader::new(r).lines();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "many-demo", "version": "1.0.0"}}});
    w.write_all(format!("{init}\n").as_bytes()).await?;
    lines.next_line().await?;
    for i in 0..50 {
        let call = json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": format!("tool_{i:02}"), "arguments": {"query": "q"}}});
        w.write_all(format!("{call}\n").as_bytes()).await?;
        let line = lines.next_line().await?.unwrap_or_default();
        let v: Value = serde_json::from_str(&line)?;
        println!("{}", v["result"]["content"][0]["text"]);
    }
    Ok(())
}
