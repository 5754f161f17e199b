//! `mcp`: a framework for building Model Context Protocol servers and clients.
//!
//! This crate is the facade users depend on; it only re-exports the workspace crates.
//!
//! ```
//! use mcp::prelude::*;
//!
//! let v: ProtocolVersion = "2025-06-18".parse().unwrap();
//! assert_eq!(v.era(), Era::Legacy);
//! ```

pub use mcp_core as core;
pub use mcp_core::{codec, headers, jsonrpc, meta, types, version};
pub use mcp_runtime as runtime;
pub use mcp_runtime::{
    BuildError, ClientView, Context, Extensions, FilterAction, HandlerResult, McpError,
    MessageFilter, Middleware, Next, Peer, PeerError, Reply, Server, ServerBuilder, ServerHandler,
    ServerOptions, middleware, tool,
};

/// The names most users need, in one `use`.
pub mod prelude {
    pub use mcp_core::jsonrpc::{ErrorObject, RequestId};
    pub use mcp_core::types::{CallToolResult, ContentBlock, Tool};
    pub use mcp_core::version::{Era, ProtocolVersion};
    pub use mcp_runtime::middleware::Endpoint;
    pub use mcp_runtime::{Context, HandlerResult, McpError, Middleware, Next, Server};
}
