//! Transports: framing for byte streams (stdio, sockets, in-memory pairs).

pub mod framing;
pub mod stdio;
