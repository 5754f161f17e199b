//! The proxy: an upstream server our client can reach (a child process over stdio,
//! Streamable HTTP, HTTP+SSE; any revision), served as if it were local, alone or mounted
//! beside local entries. Imports every folder below it (`server` for `Server` and its
//! handle, `client` for `Client`, `context` for the relays); nothing imports it.
//!
//! - `upstream.rs`: [`Upstream`], how to reach one upstream (transport, credentials,
//!   per-call timeout, [`Sharing`] between callers) and [`ProxyError`];
//! - `table.rs`: [`Proxy`], the upstream's lists copied into a server's run-time table and
//!   re-read on the upstream's `list_changed`;
//! - `health.rs`: failure isolation: the watcher that notices a down upstream and brings
//!   it back, [`FailureMode`], and [`Readiness`], the layer that names a down upstream
//!   ([`ReadinessSet`]: those of a changing set of proxies);
//! - `install.rs`: the proxy's entries in a server's table, as the upstream names them or
//!   under a namespace ([`Proxy::attach_under`]), replaced in one edit;
//! - `callers.rs`: the bounded pool of per-caller connections ([`Sharing::PerCaller`]);
//! - `identity.rs`: the caller's identity passed on to an upstream (RFC 8693 token
//!   exchange, or pass-through when configured and the token's audience is the upstream);
//! - `relay.rs`: one forwarded request (progress, cancellation, input requests, logging);
//! - `subscriptions.rs`: the upstream subscribed to the resources downstream clients
//!   subscribe to, while they do;
//! - `meta.rs`: what of `_meta` crosses the hop;
//! - `config/`: the `mcpServers` file (`mcp gateway`'s, and a [`ClientGroup`]'s; `text.rs`:
//!   `${VAR}` and the line of each key; `access.rs`: `oauth`, `passThrough`, `auth`,
//!   `visibility`);
//! - `group.rs`: [`ClientGroup`], one client of many servers (proxies served in memory).

mod callers;
pub mod config;
mod group;
mod health;
#[cfg(feature = "http")]
mod identity;
mod install;
mod meta;
mod relay;
mod subscriptions;
mod table;
mod upstream;

pub use group::{ClientGroup, GroupError, MemberState};
pub use health::{Readiness, ReadinessSet};
pub use table::{Proxy, READY_FOR};
pub use upstream::{FailureMode, ProxyError, Sharing, Upstream};
