//! Protocol features above plain handlers: multi-round input, tasks, skills, subscriptions,
//! MCP Apps.
//! Imports `handler` and below.

pub mod apps;
pub mod handle;
pub(crate) mod host;
pub(crate) mod input_rounds;
pub mod skills;
pub mod subscriptions;
pub mod tasks;
