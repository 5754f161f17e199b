//! Connection and request state that outlives one message: `requestState` sealing keys and
//! the replay guard. Imports `common` and `wire` only.

pub mod request_state;
