//! A test-only server for `tests/tests/stdio.rs`: the Bookshop's `search_books` plus tools that
//! exercise the kernel (slow, panicking, progress-reporting), with a configurable frame limit.
//!
//! `cargo run -p mcp-framework-tests --example stdio_fixture -- --stdio [--max-frame BYTES] [--versions all|legacy|modern]`

mod fixture;

use mcp::ServerOptions;
use mcp::version::{ProtocolVersion, SupportedVersions};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_ansi(false)
        .init();
    let args: Vec<String> = std::env::args().collect();
    let mut options = ServerOptions::default();
    if let Some(i) = args.iter().position(|a| a == "--max-frame") {
        options.max_frame = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .expect("--max-frame takes a byte count");
    }
    let versions = match args.iter().position(|a| a == "--versions") {
        None => SupportedVersions::all(),
        Some(i) => match args.get(i + 1).map(String::as_str) {
            Some("all") => SupportedVersions::all(),
            Some("legacy") => SupportedVersions::only(&[
                ProtocolVersion::V2024_11_05,
                ProtocolVersion::V2025_03_26,
                ProtocolVersion::V2025_06_18,
                ProtocolVersion::V2025_11_25,
            ]),
            Some("modern") => SupportedVersions::only(&[ProtocolVersion::V2026_07_28]),
            _ => panic!("--versions takes all, legacy or modern"),
        },
    };
    if !args.iter().any(|a| a == "--stdio") {
        eprintln!(
            "usage: stdio_fixture --stdio [--max-frame BYTES] [--versions all|legacy|modern]"
        );
        std::process::exit(2);
    }
    fixture::fixture(options, versions).serve_stdio().await
}
