//! State that outlives one message: the legacy session, the server's identity and limits,
//! `requestState` sealing keys and the replay guard. Imports `common` and `wire` only.

mod identity;
pub mod request_state;
mod state;

pub use identity::ServerIdentity;
pub use state::ClientView;
pub(crate) use state::{Session, SessionState};
