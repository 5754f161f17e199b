//! The proxy: an upstream server our client can reach (a child process over stdio,
//! Streamable HTTP, HTTP+SSE; any revision), served as if it were local, alone or mounted
//! beside local entries. Imports every folder below it (`server` for `Server` and its
//! handle, `client` for `Client`, `context` for the relays); nothing imports it.
//!
//! - `upstream.rs`: [`Upstream`], how to reach one upstream (transport, credentials,
//!   per-call timeout) and [`ProxyError`];
//! - `table.rs`: [`Proxy`], the upstream's lists copied into a server's run-time table and
//!   re-read on the upstream's `list_changed`; the readiness layer;
//! - `relay.rs`: one forwarded request (progress, cancellation, input requests, logging);
//! - `meta.rs`: what of `_meta` crosses the hop.

mod meta;
mod relay;
mod table;
mod upstream;

pub use table::{Proxy, READY_FOR, Readiness};
pub use upstream::{ProxyError, Upstream};
