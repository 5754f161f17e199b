//! The innermost endpoint: method to handler or feature, built-in methods, list caching and
//! result shaping. Imports `features` and below.

pub mod caching;
mod calls;
mod dispatcher;
pub(crate) mod list_cache;
mod tool_result_encoding;
mod visible;

pub(crate) use dispatcher::DispatchCore;
pub use dispatcher::Dispatcher;
