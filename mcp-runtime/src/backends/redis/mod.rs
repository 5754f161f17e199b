//! Redis backends for the stores (feature `redis`): the
//! [`SessionStore`](crate::session::SessionStore), the
//! [`EventStore`](crate::session::EventStore) and the
//! [`ReplayGuard`](crate::session::request_state::ReplayGuard)
//! that several processes of one deployment share, the [`RedisBus`] that fans server
//! events out to all of them and the [`RedisAnswerRelay`] that brings a client's answer to
//! the process that asked (and its cancellation to the process that runs the request). [`RedisConfig`] connects (redis-rs's reconnecting
//! `ConnectionManager`) and hands them out as [`RedisStores`].
//!
//! [`RedisStores::task_store`] adds a [`RedisTaskStore`] (`ServerBuilder::task_store`): any
//! replica answers `tasks/get`, `tasks/result`, `tasks/list`, `tasks/update` and
//! `tasks/cancel` for a task another one runs; that one follows the store (every task poll
//! interval) for a cancel or input answered elsewhere. Its errors are
//! `TaskStoreError::Backend` (a JSON-RPC internal error naming the store).
//!
//! Key layout, every key under the configured prefix (`mcp:` by default) and every key with
//! an expiry or a bound. The part in braces is the key's hash tag: on Redis Cluster, keys
//! with the same tag share a slot, and every script touches the keys of one tag only.
//!
//! | key | type | what | bound |
//! | --- | --- | --- | --- |
//! | `<prefix>session:{<id>}` | hash: `record` (JSON, without the subscriptions), `sub:<uri>` per subscribed resource | one legacy session | the session's time to live, refreshed on each touch |
//! | `<prefix>streams:{<session>}` | set of stream names | what `forget_session` deletes | event TTL |
//! | `<prefix>events:{<stream>}` | stream, entry ids `0-<seq>`, field `m` | the events of one SSE stream | `MAXLEN` per stream, event TTL |
//! | `<prefix>stream:{<stream>}` | hash: `session`, `seq` (last issued) | the stream's owner and counter | event TTL |
//! | `<prefix>replay:<nonce hex>` | string | one used `requestState` | until the state expires |
//! | `<prefix>rate:<key>` | hash: `tokens`, `at` (Redis's clock, µs) | one token bucket of a rate limit ([`RedisRateStore`]) | until it would have refilled |
//! | `<prefix>{tasks}:task:<id>` | hash: `base`, `status`, `state` (JSON), `exp`, `in:<key>` (input answer delivered on another replica) | one task | the task's ttl, at most `max_task_ttl` |
//! | `<prefix>{tasks}:tasks:<owner>` | sorted set: task id by creation time (ms, made unique) | `tasks/list` of one owner (`o:<owner>`, or `none`) | `max_tasks_per_owner`, expires with its last task |
//! | `<prefix>{tasks}:task-exp:<owner>` | sorted set: task id by expiry | which of the owner's entries to prune | as the index |
//! | `<prefix>bus` | stream, fields `o` (sending bus), `n` (its sequence number), `m` (the event, JSON) | server events of every [`RedisBus`], read by each after the last id it delivered | `MAXLEN ~` [`DEFAULT_BACKLOG`] |
//! | `<prefix>answers` | stream, fields `o`, `n`, `m` (the message, JSON) as `<prefix>bus` | clients' answers to another process's server-to-client requests, and cancellations of requests another process runs ([`RedisAnswerRelay`]), read by each relay after the last id it delivered | `MAXLEN ~` 1000 |
//!
//! The task scripts reach tasks through an owner's indexes, and `tasks/get` knows only the
//! id, so all task keys share the tag `{tasks}` (one slot). The prefix should hold no `{`.
//!
//! Every call is bounded by the configured timeout; an unreachable or slow Redis is a
//! [`StoreError::Unavailable`](crate::session::StoreError::Unavailable) (a 503 on HTTP).
//! The backends connect to one Redis (or a primary with replicas), to a Redis Cluster
//! ([`RedisConfig::cluster`], `redis+cluster://`: each call goes to the primary of its keys'
//! slot), or to the primary Sentinel names ([`RedisConfig::sentinel`], `redis+sentinel://`:
//! a call that fails on a demoted or vanished primary asks the sentinels again).
//!
//! An adapter floor: it implements the contracts of `session/` (the stores, the bus, the
//! relay, the task store) and imports only `common` and `session`. `stores.rs` is the
//! factory a deployment configures; `connection.rs` the one place a call is made; every
//! other file one backend.

mod bus;
mod connection;
mod events;
mod fanout;
mod rate;
mod relay;
mod replay;
mod sessions;
mod stores;
mod tasks;

pub use bus::{DEFAULT_BACKLOG, DEFAULT_QUEUE, RedisBus};
pub use connection::FewerReplicas;
pub use events::RedisEventStore;
pub use rate::RedisRateStore;
pub use relay::RedisAnswerRelay;
pub use replay::RedisReplayGuard;
pub use sessions::RedisSessionStore;
pub use stores::{RedisConfig, RedisStores};
pub use tasks::{RedisTaskStore, TaskLimits};
