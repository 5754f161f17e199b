//! What one message's middleware and handler see and do: [`Context`], the [`Peer`] towards
//! the client, injected values, elicitation, sampling and roots. Imports `session` and below.

pub(crate) mod client_requests;
pub mod elicit_schema;
pub mod injected;
pub mod interaction;
pub mod parked_inputs;
pub mod peer;
mod request;

pub(crate) use request::ContextParts;
pub use request::{Context, ProgressError};
