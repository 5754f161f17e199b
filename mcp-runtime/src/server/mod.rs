//! [`Server`] and its builder, the kernel every transport serves with, and the byte-stream
//! reader (stdio, sockets, in-memory pairs).
//! Imports `dispatch` and below.

mod builder;
pub(crate) mod kernel;
pub mod mount;
pub(crate) mod serving;
pub mod stdio;
pub(crate) mod stream;

pub use builder::*;
pub use mount::MountOptions;
pub use serving::Server;
