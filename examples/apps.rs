//! An MCP App (`io.modelcontextprotocol/ui`): a dice tool whose result a host renders in a
//! small interactive HTML view (`examples/apps_view.html`, plain HTML and script, no build
//! step), and an app-only tool the view calls to roll again. Hosts without MCP Apps get the
//! same roll as plain text.
//!
//! ```text
//! cargo run --example apps --features http -- --stdio
//! cargo run --example apps --features http -- --http 127.0.0.1:8080   # http://…/mcp
//! ```
//!
//! `tests/tests/apps.rs` drives it in process; `interop/apps/` with the MCP Inspector CLI and the
//! official TypeScript client with `@modelcontextprotocol/ext-apps`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use mcp::prelude::*;
use mcp::types::{CallToolResult, ContentBlock};

/// The view's URI: the tools below point at it.
pub const VIEW: &str = "ui://dice/view";

/// A roll: what the view draws (`structuredContent`).
#[derive(serde::Serialize)]
pub struct Roll {
    pub sides: u32,
    pub faces: Vec<u32>,
    pub total: u32,
}

/// A small xorshift generator: enough for dice, no dependency.
fn roll(sides: u32, count: u32) -> Roll {
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut x = STATE.load(Ordering::Relaxed);
    if x == 0 {
        x = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9E37_79B9, |d| d.as_nanos() as u64)
            | 1;
    }
    let faces = (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(sides)) as u32 + 1
        })
        .collect::<Vec<_>>();
    STATE.store(x, Ordering::Relaxed);
    let total = faces.iter().sum();
    Roll {
        sides,
        faces,
        total,
    }
}

/// The result: a sentence every host can show, the roll as structured data for the view.
fn answer(r: Roll, ctx: &Context) -> Result<CallToolResult, ToolError> {
    if !(2..=100).contains(&r.sides) || r.faces.is_empty() || r.faces.len() > 20 {
        return Err(ToolError::new("roll 1 to 20 dice of 2 to 100 sides"));
    }
    let faces: Vec<String> = r.faces.iter().map(u32::to_string).collect();
    let mut text = format!(
        "Rolled {}d{}: {} (total {})",
        r.faces.len(),
        r.sides,
        faces.join(" "),
        r.total
    );
    if ctx.client_supports_apps() {
        text.push_str(". The dice view shows it.");
    }
    let structured = serde_json::to_value(&r).map_err(|e| ToolError::new(e.to_string()))?;
    Ok(CallToolResult {
        content: vec![ContentBlock::text(text)],
        structured_content: Some(structured),
        ..Default::default()
    })
}

/// Roll dice and show them in an interactive view.
#[mcp::tool(ui = "ui://dice/view", read_only)]
async fn roll_dice(
    /// Sides of each die (2 to 100).
    #[arg(default = 6)]
    sides: u32,
    /// How many dice (1 to 20).
    #[arg(default = 2)]
    count: u32,
    ctx: &Context,
) -> Result<CallToolResult, ToolError> {
    answer(roll(sides, count.min(20)), ctx)
}

/// Roll again with the same dice (called by the view, not the model).
#[mcp::tool(ui = "ui://dice/view", visibility("app"))]
async fn reroll(sides: u32, count: u32, ctx: &Context) -> Result<CallToolResult, ToolError> {
    answer(roll(sides, count.min(20)), ctx)
}

/// The dice view: one HTML document, included at compile time.
#[mcp::resource(
    "ui://dice/view",
    title = "Dice",
    prefers_border,
    csp(connect_domains(), resource_domains()),
    permissions(clipboard_write)
)]
async fn dice_view() -> &'static str {
    include_str!("apps_view.html")
}

/// The server.
#[mcp::server(name = "dice", tools(roll_dice, reroll), resources(dice_view))]
pub struct Dice;

fn usage() -> ! {
    eprintln!("usage: apps --stdio | --http ADDR");
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["--stdio"] => Dice.serve_stdio().await,
        ["--http", addr] => {
            let addr: SocketAddr = addr.parse().unwrap_or_else(|_| usage());
            eprintln!("dice on http://{addr}/mcp");
            Dice.into_server().serve_http(addr).await
        }
        _ => usage(),
    }
}
