//! Transports: framing for byte streams (stdio, sockets, in-memory pairs) and HTTP.

pub mod framing;
#[cfg(feature = "http")]
pub mod http;
pub mod stdio;
