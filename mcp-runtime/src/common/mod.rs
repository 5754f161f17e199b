//! Bottom layer: errors, typed extensions, panic capture, pagination cursors, the
//! authenticated caller.
//! Imports nothing of this crate.

pub mod error;
pub mod extensions;
pub mod pagination;
pub(crate) mod panic;
pub mod principal;
pub(crate) mod slot;

/// A boxed, sendable future: what object-safe async traits (stores, resolvers, token
/// providers) return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
