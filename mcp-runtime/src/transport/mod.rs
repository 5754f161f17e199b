//! Transports: framing for byte streams (stdio, sockets, in-memory pairs) and HTTP.

pub mod framing;
pub mod stdio;
#[cfg(feature = "http")]
pub mod http;
