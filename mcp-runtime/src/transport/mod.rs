//! Transports above the server: HTTP (Streamable HTTP for both eras, HTTP+SSE, auth).
//! Byte streams are served by `server` itself; `framing` and `stdio` are re-exported here
//! under their old paths.

#[cfg(feature = "http")]
pub mod http;
pub use crate::server::stdio;
pub use crate::wire::framing;
