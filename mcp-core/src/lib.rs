//! Protocol core of the `mcp` framework.
//!
//! - [`jsonrpc`]: JSON-RPC 2.0 ids, messages, errors, and decoding frames from bytes with
//!   the right error for each failure.
//! - [`version`]: the five revisions as an enumerated set, eras, `initialize` negotiation.
//! - [`types`]: every request, result, notification and entity of every revision, with
//!   version-aware serialization.
//!
//! This crate does no I/O and knows nothing of async runtimes.

#![warn(missing_docs)]

pub mod codec;
pub(crate) mod fast_json;
pub mod headers;
pub mod jsonrpc;
pub mod meta;
pub mod params;
#[doc(hidden)]
pub mod passes;
pub mod types;
pub mod version;
