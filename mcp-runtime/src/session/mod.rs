//! How a message enters a session and the state that outlives it: era choice and the checks
//! before the chain, the legacy session, the server's identity and limits, `requestState`
//! keys and the replay guard, the relay of clients' answers between processes; with feature
//! `redis`, the Redis backends of the stores, the bus and the relay. Imports
//! `common` and `wire` only.

pub mod event_store;
mod identity;
pub(crate) mod intake;
#[cfg(feature = "redis")]
pub mod redis;
pub mod relay;
pub mod request_state;
mod state;
pub mod store;

pub use event_store::{EventStore, InMemoryEventStore, Replay, StoredEvent, StreamId};
pub use identity::ServerIdentity;
pub use relay::{AnswerRelay, Relayed, RelayedAnswer};
pub use state::ClientView;
pub(crate) use state::{Session, SessionState};
pub use store::{InMemorySessionStore, SessionRecord, SessionStore, StoreError};
