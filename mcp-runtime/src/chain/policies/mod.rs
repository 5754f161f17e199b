//! Policies as middleware: limits a server applies to tool calls, each a [`Middleware`]
//! added with one line (`.middleware(ToolTimeout::new(...))` on the builder, unboxed).
//!
//! Each policy acts on `tools/call` (and, where it hides tools, on `tools/list`;
//! [`Visibility`] on the prompt and resource methods too) and passes every other message
//! through untouched. What a client sees when one trips is said on each type:
//!
//! - [`ToolTimeout`]: a time limit per tool.
//! - [`ReadOnly`]: only tools annotated read-only are listed and callable.
//! - [`ResponseLimit`]: a cap on a result's size (text cut, structured content refused).
//! - [`RateLimit`]: a token bucket per caller and per tool, in a [`RateStore`].
//! - [`Visibility`]: the tools, prompts and resources each caller sees, by name, tag or
//!   annotation.
//!
//! The chain sees messages, not the handler table: [`ReadOnly`] is given the tools it
//! guards at construction ([`ReadOnly::new`]); [`Visibility`] hands the caller's set to the
//! dispatcher, which holds every definition and applies it there.
//!
//! [`Middleware`]: crate::middleware::Middleware

pub(crate) mod call;
mod caller;
mod rate_limit;
mod read_only;
mod response_limit;
mod timeout;
pub(crate) mod visibility;

pub use crate::session::rate_store::{Decision, InMemoryRateStore, Limit, RateStore};
pub use caller::CallerKey;
pub use rate_limit::{RATE_LIMITED, RateLimit};
pub use read_only::ReadOnly;
pub use response_limit::{ResponseLimit, TRUNCATION_MARKER};
pub use timeout::ToolTimeout;
pub use visibility::{Denial, Hint, Item, ItemSet, Kind, Select, UNAUTHORIZED, Visibility};
