//! Bottom layer: errors, typed extensions, panic capture, pagination cursors, the
//! authenticated caller.
//! Imports nothing of this crate.

pub mod error;
pub mod extensions;
pub mod pagination;
pub(crate) mod panic;
pub mod principal;
pub(crate) mod slot;
