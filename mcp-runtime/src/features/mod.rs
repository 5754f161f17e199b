//! Protocol features above plain handlers: multi-round input, tasks, skills, subscriptions.
//! Imports `handler` and below.

pub(crate) mod input_rounds;
pub mod skills;
pub mod subscriptions;
pub mod tasks;
