//! How a message enters a session and the state that outlives it: era choice and the checks
//! before the chain, the legacy session, the server's identity and limits, `requestState`
//! keys and the replay guard. Imports `common` and `wire` only.

mod identity;
pub(crate) mod intake;
pub mod request_state;
mod state;

pub use identity::ServerIdentity;
pub use state::ClientView;
pub(crate) use state::{Session, SessionState};
