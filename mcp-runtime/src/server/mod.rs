//! [`Server`] and its builder, and the byte-stream reader (stdio, sockets, in-memory pairs).
//! Imports `dispatch` and below.

mod builder;
pub mod stdio;
pub(crate) mod stream;

pub use builder::*;
