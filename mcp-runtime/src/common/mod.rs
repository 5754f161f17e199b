//! Bottom layer: errors, typed extensions, panic capture, pagination cursors.
//! Imports nothing of this crate.

pub mod error;
pub mod extensions;
pub mod pagination;
pub(crate) mod panic;
