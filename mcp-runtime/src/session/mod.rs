//! How a message enters a session and the state that outlives it: era choice and the checks
//! before the chain, the legacy session, the server's identity and limits, and the contracts
//! of everything shared between processes — the session and event stores, `requestState`
//! keys and the replay guard, the task store, the event bus, the relay of clients' answers —
//! each with its in-memory default (the Redis backends are `backends/redis/`). Imports
//! `common` and `wire` only.

pub(crate) mod bus;
pub(crate) mod event_store;
mod identity;
pub(crate) mod intake;
pub(crate) mod interest;
pub(crate) mod rate_store;
pub(crate) mod relay;
pub mod request_state;
mod state;
pub(crate) mod store;
pub(crate) mod task_store;

pub use bus::{BusReceiver, BusSender, InMemoryBus, ServerEvent, SubscriptionBus, subscription};
pub use event_store::{EventStore, InMemoryEventStore, Replay, StoredEvent, StreamId};
pub use identity::ServerIdentity;
pub use relay::{AnswerRelay, Relayed, RelayedAnswer};
pub use state::ClientView;
pub(crate) use state::{Session, SessionState};
pub use store::{InMemorySessionStore, STORE_UNAVAILABLE, SessionRecord, SessionStore, StoreError};
