//! Protocol core of the `mcp` framework.
//!
//! - [`jsonrpc`]: JSON-RPC 2.0 ids, messages, errors, and decoding frames from bytes with
//!   the right error for each failure.
//! - [`version`]: the five revisions as an enumerated set, eras, `initialize` negotiation.
//! - [`types`]: every request, result, notification and entity of every revision, with
//!   version-aware serialization.
//!
//! - [`rules`]: the checks the macros run at compile time and the builders at build time
//!   (the only module without the default `protocol` feature).
//!
//! This crate does no I/O and knows nothing of async runtimes.

#![warn(missing_docs)]

pub mod rules;

// Everything else is the protocol; the macros, compiled for the host, link only `rules`.
#[cfg(feature = "protocol")]
pub mod codec;
#[cfg(feature = "protocol")]
pub(crate) mod fast_json;
#[cfg(feature = "protocol")]
pub mod headers;
#[cfg(feature = "protocol")]
pub mod jsonrpc;
#[cfg(feature = "protocol")]
pub mod meta;
#[cfg(feature = "protocol")]
pub mod params;
#[cfg(feature = "protocol")]
#[doc(hidden)]
pub mod passes;
#[cfg(feature = "protocol")]
pub mod types;
#[cfg(feature = "protocol")]
pub mod version;
