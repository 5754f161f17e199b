//! Policies as middleware: limits a server applies to tool calls, each a [`Middleware`]
//! added with one line (`.middleware(ToolTimeout::new(...))` on the builder, or in a
//! `.layers((...))` tuple).
//!
//! Each policy acts on `tools/call` (and, where it hides tools, on `tools/list`) and passes
//! every other message through untouched. What a client sees when one trips is said on each
//! type:
//!
//! - [`ToolTimeout`]: a time limit per tool.
//! - [`ReadOnly`]: only tools annotated read-only are listed and callable.
//! - [`ResponseLimit`]: a cap on a result's size (text cut, structured content refused).
//! - [`RateLimit`]: a token bucket per caller and per tool, in a [`RateStore`].
//! - [`Visibility`]: the tools each caller sees, by name.
//!
//! The chain sees messages, not the handler table: a policy that needs a tool's
//! definition is given it at construction ([`ReadOnly::new`]).
//!
//! [`Middleware`]: crate::middleware::Middleware

pub(crate) mod call;
mod caller;
mod rate_limit;
mod read_only;
mod response_limit;
mod timeout;
mod visibility;

pub use crate::session::rate_store::{Decision, InMemoryRateStore, Limit, RateStore};
pub use caller::CallerKey;
pub use rate_limit::{RATE_LIMITED, RateLimit};
pub use read_only::ReadOnly;
pub use response_limit::{ResponseLimit, TRUNCATION_MARKER};
pub use timeout::ToolTimeout;
pub use visibility::{ToolSet, Visibility};
