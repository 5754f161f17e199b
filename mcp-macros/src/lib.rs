//! Attribute macros of the `mcp` framework (`#[mcp::tool]`, `#[mcp::server]`, ...).
//!
//! The macros arrive with the macros issue; this crate is a placeholder so that the
//! workspace layout is final from the start.
