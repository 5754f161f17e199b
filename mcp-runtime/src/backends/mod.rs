//! Backends: the contracts of `session/` (stores, bus, relay, task store) implemented over
//! shared infrastructure, for a deployment of several processes. An adapter floor above the
//! layers it implements: it imports `common` and `session` only, and nothing below it names
//! it (the server takes a backend as the trait object it implements).

#[cfg(feature = "redis")]
pub mod redis;
