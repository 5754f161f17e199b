//! Runtime of the `mcp` framework: the server kernel, the middleware chain and the
//! transports. Thin for now; it re-exports the core so that the facade has one path.

pub use mcp_core as core;
