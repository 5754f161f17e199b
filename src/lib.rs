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
pub use mcp_core::{jsonrpc, types, version};
pub use mcp_runtime as runtime;

/// The names most users need, in one `use`.
pub mod prelude {
    pub use mcp_core::jsonrpc::{ErrorObject, RequestId};
    pub use mcp_core::version::{Era, ProtocolVersion};
}
