//! Bottom layer: errors, typed extensions, panic capture, pagination cursors, the
//! authenticated caller, what the telemetry of both sides shares.
//! Imports nothing of this crate.

pub mod address;
pub mod error;
pub mod extensions;
pub mod pagination;
pub(crate) mod panic;
pub mod principal;
pub(crate) mod slot;
pub mod telemetry;

/// A boxed, sendable future: what object-safe async traits (stores, resolvers, token
/// providers) return.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
